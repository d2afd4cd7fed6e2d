//! Literals a pattern's every match contains, and one automaton over many patterns' literals
//! that says which patterns can match a text at all.
//!
//! Building a case-insensitive Unicode automaton costs far more than running one: a table of
//! phrases compiled up front as one set cost a process ~130 ms before it read a byte. A
//! [`Gate`] instead holds, for every pattern of a table, the sets of literals its matches
//! must contain (an alternation of words, a path, a host), all in one Aho-Corasick automaton
//! compared without ASCII case (the literals and the text are folded to ASCII lower case).
//! One pass over a text says which patterns are *candidates*; only those are compiled (each
//! on its first use) and run. A pattern with no such literal is always a candidate, so the
//! gate never drops a match: it only skips patterns that cannot match.
//!
//! Case: the patterns are matched case-insensitively with Unicode's simple case folding. The
//! automaton folds ASCII case; a literal's non-ASCII characters are given with their case
//! variants; and the few non-ASCII characters that fold to an ASCII letter (the Kelvin sign
//! for `k`, the long s for `s`) make every pattern a candidate when the text holds one.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::{Regex, RegexBuilder};
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind};

use super::automaton::{Case, Literals};

/// The most characters of a class taken as so many literals; a wider class is no literal.
const CLASS_CHARACTERS: usize = 4;

/// The most case variants of one non-ASCII literal (its prefix is kept short enough).
const CASE_VARIANTS: usize = 16;

/// One set of literals: a match contains at least one of them.
type Required = Vec<String>;

/// The sets of literals every match of `pattern` (in the `regex` crate's syntax, read as
/// case-insensitive) must contain, one set per part of the pattern that has one; empty when
/// no literal is required or the pattern cannot be read.
pub(crate) fn required(pattern: &str) -> Vec<Required> {
    let Ok(hir) = regex_syntax::ParserBuilder::new().build().parse(pattern) else {
        return Vec::new();
    };
    let mut sets = Vec::new();
    collect(&hir, &mut sets);
    sets
}

/// Every required set of a top-level concatenation, or the best one of `hir`.
fn collect(hir: &Hir, sets: &mut Vec<Required>) {
    match hir.kind() {
        HirKind::Concat(children) => {
            for child in children {
                collect(child, sets);
            }
        }
        HirKind::Capture(capture) => collect(&capture.sub, sets),
        HirKind::Repetition(repetition) if repetition.min >= 1 => collect(&repetition.sub, sets),
        _ => sets.extend(best(hir)),
    }
}

/// One set of literals every match of `hir` contains, the most selective found.
fn best(hir: &Hir) -> Option<Required> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => None,
        HirKind::Literal(literal) => std::str::from_utf8(&literal.0)
            .ok()
            .map(|text| vec![text.to_owned()]),
        HirKind::Class(Class::Unicode(class)) => {
            let count: usize = class.iter().map(|range| range.len()).sum();
            (count > 0 && count <= CLASS_CHARACTERS).then(|| {
                class
                    .iter()
                    .flat_map(|range| (range.start()..=range.end()).map(String::from))
                    .collect()
            })
        }
        HirKind::Class(Class::Bytes(class)) => {
            let count: usize = class
                .iter()
                .map(|range| usize::from(range.end() - range.start()) + 1)
                .sum();
            (count > 0 && count <= CLASS_CHARACTERS && class.is_ascii()).then(|| {
                class
                    .iter()
                    .flat_map(|range| {
                        (range.start()..=range.end()).map(|b| char::from(b).to_string())
                    })
                    .collect()
            })
        }
        HirKind::Repetition(repetition) => {
            if repetition.min == 0 {
                None
            } else {
                best(&repetition.sub)
            }
        }
        HirKind::Capture(capture) => best(&capture.sub),
        HirKind::Concat(children) => children
            .iter()
            .filter_map(best)
            .max_by_key(|set| (shortest(set), std::cmp::Reverse(set.len()))),
        HirKind::Alternation(children) => {
            let mut union = Vec::new();
            for child in children {
                union.extend(best(child)?);
            }
            Some(union)
        }
    }
}

/// The length of the shortest literal of a set, in bytes.
fn shortest(set: &Required) -> usize {
    set.iter().map(String::len).min().unwrap_or(0)
}

/// The forms of `literal` to look for without ASCII case: its first characters, with every
/// case variant of each non-ASCII one (a prefix of a literal is in every text the literal is).
fn case_variants(literal: &str) -> Vec<Vec<u8>> {
    if literal.is_ascii() {
        return vec![literal.as_bytes().to_vec()];
    }
    let mut forms: Vec<String> = vec![String::new()];
    for character in literal.chars() {
        let options = if character.is_ascii() {
            vec![character]
        } else {
            folded(character)
        };
        if forms.len() * options.len() > CASE_VARIANTS && !forms[0].is_empty() {
            break;
        }
        forms = forms
            .iter()
            .flat_map(|form| {
                options.iter().map(move |option| {
                    let mut longer = form.clone();
                    longer.push(*option);
                    longer
                })
            })
            .collect();
    }
    forms.into_iter().map(String::into_bytes).collect()
}

/// `character` and every character its simple case folding makes equal to it.
fn folded(character: char) -> Vec<char> {
    let mut class = ClassUnicode::new([ClassUnicodeRange::new(character, character)]);
    class.case_fold_simple();
    class
        .iter()
        .flat_map(|range| range.start()..=range.end())
        .collect()
}

/// Non-ASCII characters that simple case folding makes equal to an ASCII letter.
fn ascii_look_alikes() -> Vec<char> {
    (0u8..128)
        .flat_map(|byte| folded(char::from(byte)))
        .filter(|character| !character.is_ascii())
        .collect()
}

/// Many patterns' required literals in one automaton (see the module's header).
pub(crate) struct Gate {
    automaton: Option<Literals>,
    /// For each literal of the automaton, the slots it fills.
    fills: Vec<Vec<usize>>,
    /// For each pattern, its slots: one per required set; none means always a candidate.
    slots: Vec<Vec<usize>>,
    slot_count: usize,
    /// Characters that would make an ASCII-folding pass miss a match.
    unsafe_characters: Vec<char>,
}

impl Gate {
    /// A gate over these patterns (in the `regex` crate's syntax, read case-insensitively).
    pub(crate) fn new<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Self {
        Self::of_sets(patterns.into_iter().map(required))
    }

    /// A gate over patterns given by their required sets.
    pub(crate) fn of_sets(patterns: impl IntoIterator<Item = Vec<Required>>) -> Self {
        let mut by_literal: BTreeMap<Vec<u8>, Vec<usize>> = BTreeMap::new();
        let mut slots = Vec::new();
        let mut slot_count = 0;
        for sets in patterns {
            let mut mine = Vec::with_capacity(sets.len());
            for set in sets {
                let slot = slot_count;
                slot_count += 1;
                mine.push(slot);
                for literal in set {
                    for mut form in case_variants(&literal) {
                        form.make_ascii_lowercase();
                        let owners = by_literal.entry(form).or_default();
                        if owners.last() != Some(&slot) {
                            owners.push(slot);
                        }
                    }
                }
            }
            slots.push(mine);
        }
        let (literals, fills): (Vec<Vec<u8>>, Vec<Vec<usize>>) = by_literal.into_iter().unzip();
        let automaton = Literals::new(literals, Case::Exact).ok().flatten();
        if automaton.is_none() {
            // Without the automaton every pattern is a candidate.
            slots.iter_mut().for_each(Vec::clear);
        }
        Self {
            automaton,
            fills,
            slots,
            slot_count,
            unsafe_characters: ascii_look_alikes(),
        }
    }

    /// The patterns that can match `text`, by index, in order.
    pub(crate) fn candidates(&self, text: &str) -> Vec<usize> {
        let everything = || (0..self.slots.len()).collect();
        let Some(automaton) = &self.automaton else {
            return everything();
        };
        if !text.is_ascii() && text.contains(self.unsafe_characters.as_slice()) {
            return everything();
        }
        // The literals are in ASCII lower case: so is the text the automaton reads.
        let lowered;
        let text = if text.bytes().any(|byte| byte.is_ascii_uppercase()) {
            lowered = text.to_ascii_lowercase();
            lowered.as_str()
        } else {
            text
        };
        let mut filled = vec![false; self.slot_count];
        for found in automaton.for_a_text().find_overlapping_iter(text) {
            if let Some(slots) = self.fills.get(found.pattern().as_usize()) {
                for &slot in slots {
                    filled[slot] = true;
                }
            }
        }
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, slots)| slots.iter().all(|&slot| filled[slot]))
            .map(|(index, _)| index)
            .collect()
    }
}

/// Patterns behind one [`Gate`], each compiled the first time a text holds its literals.
pub(crate) struct Patterns {
    gate: Gate,
    sources: Vec<String>,
    regexes: Vec<OnceLock<Option<Regex>>>,
    case_insensitive: bool,
    size_limit: usize,
}

impl Patterns {
    /// These patterns, matched with or without case, each within `size_limit` bytes of
    /// automaton (a pattern that does not build never matches).
    pub(crate) fn new<'a>(
        patterns: impl IntoIterator<Item = &'a str>,
        case_insensitive: bool,
        size_limit: usize,
    ) -> Self {
        let sources: Vec<String> = patterns.into_iter().map(str::to_owned).collect();
        Self {
            gate: Gate::new(sources.iter().map(String::as_str)),
            regexes: sources.iter().map(|_| OnceLock::new()).collect(),
            sources,
            case_insensitive,
            size_limit,
        }
    }

    /// Pattern `index`, compiled on first use.
    pub(crate) fn regex(&self, index: usize) -> Option<&Regex> {
        let source = self.sources.get(index)?;
        self.regexes
            .get(index)?
            .get_or_init(|| {
                let unfolded;
                let source = if self.case_insensitive {
                    unfolded = super::unfolded(source);
                    &unfolded
                } else {
                    source
                };
                RegexBuilder::new(source)
                    .case_insensitive(self.case_insensitive)
                    .size_limit(self.size_limit)
                    .build()
                    .ok()
            })
            .as_ref()
    }

    /// The patterns that match `text`, by index, in order (as a `RegexSet` would say).
    pub(crate) fn matches<'a>(&'a self, text: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.gate
            .candidates(text)
            .into_iter()
            .filter(move |&index| self.regex(index).is_some_and(|regex| regex.is_match(text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_an_alternation_are_required_and_optional_parts_are_not() {
        assert_eq!(
            required(r"(?-u:\b)(ignore|disregard)[\s*_]+(all[\s*_]+)?previous"),
            vec![
                vec!["ignore".to_owned(), "disregard".to_owned()],
                vec!["previous".to_owned()]
            ]
        );
        assert!(required(r"\w+@\w+").iter().all(|set| set == &["@"]));
        assert!(required(r"(a|\d+)").is_empty());
    }

    #[test]
    fn a_gate_never_drops_a_pattern_that_matches() {
        let patterns = [
            r"(?-u:\b)ignore[\s*_]+previous",
            r"игнорируй[\s*_]+все",
            r"\d+",
            r"system[\s*_]+prompt",
            r"ask",
        ];
        let gate = Gate::new(patterns);
        for text in [
            "IGNORE previous",
            "Игнорируй ВСЕ",
            "12",
            "the SYSTEM  prompt",
            "a\u{212a}s",
            "nothing",
        ] {
            let candidates = gate.candidates(text);
            for (index, pattern) in patterns.iter().enumerate() {
                let regex = RegexBuilder::new(pattern)
                    .case_insensitive(true)
                    .build()
                    .unwrap_or_else(|error| panic!("{error}"));
                if regex.is_match(text) {
                    assert!(candidates.contains(&index), "{pattern} on {text}");
                }
            }
        }
        assert_eq!(gate.candidates("nothing"), vec![2]);
        assert_eq!(gate.candidates("ignore the previous"), vec![0, 2]);
    }

    #[test]
    fn the_kelvin_sign_and_the_long_s_fold_to_ascii() {
        let look_alikes = ascii_look_alikes();
        assert!(look_alikes.contains(&'\u{212a}'));
        assert!(look_alikes.contains(&'\u{17f}'));
    }
}
