//! An Aho-Corasick automaton over many literals, compared without ASCII case or exactly, and
//! reporting every occurrence (overlapping ones included), built cheap first and fast later.
//!
//! A full DFA scans several times faster than an NFA, but building it costs more than a process
//! auditing one skill spends scanning with the NFA (for the shipped YARA rules, 13M of the
//! automaton's 16M instructions). The NFA is the crate's noncontiguous one, its first stage:
//! made contiguous it scans faster, but the conversion cost more (about 2M instructions a
//! process, gate and rules together) than the few texts of one skill scanned with it. So the first [`TEXTS_BEFORE_DFA`] texts are scanned with
//! the NFA, and the DFA is built for the texts after them: a batch builds it once, early, and a
//! process auditing one skill never does. Both report the same matches, with the same pattern
//! ids: an automaton's kind changes only its speed.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use aho_corasick::{AhoCorasick, AhoCorasickKind, BuildError, MatchKind};

/// How many texts the first automaton scans before the full DFA is built.
const TEXTS_BEFORE_DFA: usize = 16;

/// Up to this many literals the automaton becomes a full DFA, the fastest to scan with (the
/// crate's own choice stops at fewer, which made the shipped rules' pass several times
/// slower); past it the crate picks throughout, so a large user rule set cannot make a DFA's
/// memory explode.
const DFA_LITERALS: usize = 2_000;

/// How an automaton compares a text's letters with its literals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Case {
    /// Without ASCII case.
    Ascii,
    /// Byte for byte: the caller folds both sides (an automaton without case costs about
    /// twice as much to build, the same to run).
    Exact,
}

/// The automaton of some literals (see the module's header).
#[derive(Debug)]
pub(crate) struct Literals {
    first: AhoCorasick,
    literals: Vec<Vec<u8>>,
    case: Case,
    scanned: AtomicUsize,
    faster: OnceLock<Option<AhoCorasick>>,
}

impl Literals {
    /// The automaton of `literals`, compared as `case` says; none when there are none.
    pub(crate) fn new(literals: Vec<Vec<u8>>, case: Case) -> Result<Option<Self>, BuildError> {
        if literals.is_empty() {
            return Ok(None);
        }
        let kind = (literals.len() <= DFA_LITERALS).then_some(AhoCorasickKind::NoncontiguousNFA);
        Ok(Some(Self {
            first: built(&literals, case, kind)?,
            literals,
            case,
            scanned: AtomicUsize::new(0),
            faster: OnceLock::new(),
        }))
    }

    /// The automaton to scan the next text with.
    pub(crate) fn for_a_text(&self) -> &AhoCorasick {
        if self.literals.len() > DFA_LITERALS
            || self.scanned.fetch_add(1, Ordering::Relaxed) < TEXTS_BEFORE_DFA
        {
            return &self.first;
        }
        self.faster
            // One that cannot be built leaves the first in place.
            .get_or_init(|| built(&self.literals, self.case, Some(AhoCorasickKind::DFA)).ok())
            .as_ref()
            .unwrap_or(&self.first)
    }
}

fn built(
    literals: &[Vec<u8>],
    case: Case,
    kind: Option<AhoCorasickKind>,
) -> Result<AhoCorasick, BuildError> {
    AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .ascii_case_insensitive(case == Case::Ascii)
        .kind(kind)
        .build(literals)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every text gets the same matches, pattern ids included, before and after the change
    /// of kind, and a set too large for a DFA keeps its first automaton.
    #[test]
    fn the_matches_are_the_same_before_and_after_the_dfa() {
        let literals: Vec<Vec<u8>> = ["he", "she", "his", "hers", "é"]
            .iter()
            .map(|literal| literal.as_bytes().to_vec())
            .collect();
        let automaton = Literals::new(literals, Case::Ascii)
            .unwrap_or_else(|error| panic!("{error}"))
            .unwrap_or_else(|| panic!("literals were given"));
        let found = |automaton: &Literals| {
            automaton
                .for_a_text()
                .find_overlapping_iter("USHERS and HIS café")
                .map(|found| (found.pattern().as_usize(), found.start(), found.end()))
                .collect::<Vec<_>>()
        };
        let first = found(&automaton);
        assert_eq!(first.len(), 5, "{first:?}");
        for _ in 0..2 * TEXTS_BEFORE_DFA {
            assert_eq!(found(&automaton), first);
        }
        assert!(automaton.faster.get().is_some_and(|faster| {
            faster
                .as_ref()
                .is_some_and(|dfa| dfa.kind() == AhoCorasickKind::DFA)
        }));
        assert!(matches!(Literals::new(Vec::new(), Case::Ascii), Ok(None)));
        let many: Vec<Vec<u8>> = (0..=DFA_LITERALS)
            .map(|index| format!("w{index}").into_bytes())
            .collect();
        let many = Literals::new(many, Case::Exact)
            .unwrap_or_else(|error| panic!("{error}"))
            .unwrap_or_else(|| panic!("literals were given"));
        for _ in 0..2 * TEXTS_BEFORE_DFA {
            many.for_a_text();
        }
        assert!(many.faster.get().is_none());
    }
}
