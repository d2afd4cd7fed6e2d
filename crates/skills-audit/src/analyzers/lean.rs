//! Case-insensitive patterns compiled lean, and the ones the project ships already compiled.
//!
//! A process that audits one skill used to spend half of its instructions compiling the
//! phrase tables' patterns: parsing each, folding its case, building its forward and reverse
//! automata. The automata do not depend on anything a process reads, so they are built with
//! the project instead: `lean/frozen.nfa` holds the forward and reverse Thompson NFA of every
//! pattern the analyzers compile here, and a process rebuilds an NFA from its states (a copy,
//! no parsing, no folding) and runs it as the `regex` crate's own lazy DFA would.
//!
//! The file is the project's own output, checked like `required.rs`: the test
//! `the_frozen_automata_are_the_patterns_own` compiles every pattern again and fails when a
//! byte differs, leaving the patterns' own file in the temporary folder to copy over. A
//! pattern the file does not hold, or holds for another text, is compiled as before: the
//! file only ever saves time, never changes an answer.

mod nfa;

use std::sync::OnceLock;

use regex_automata::hybrid;
use regex_automata::meta;
#[cfg(test)]
use regex_automata::nfa::thompson;
use regex_automata::nfa::thompson::{NFA, WhichCaptures};
use regex_automata::util::iter::Searcher;
use regex_automata::util::pool::Pool;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, Match, MatchKind};

/// The automata shipped with the project (see the module's header).
static FROZEN: &[u8] = include_bytes!("lean/frozen.nfa");

/// A case-insensitive pattern compiled lean: its wide classes unfolded
/// ([`super::unfolded`]), keeping only the whole match (no capture groups), and, unless
/// `prefilter`, without the literal prefilters the `regex` crate would extract for it (a third
/// of the build). A prefilter pays only where the pattern is searched over a whole text, many
/// times in a batch; patterns run over short texts, or behind a literal gate that has already
/// found their literals, go without. The matches are those `regex::Regex` gives for the same
/// expression: leftmost-first, empty matches only on char boundaries. None when it exceeds
/// `nfa_bytes`.
///
/// Without a prefilter, a pattern the project ships compiled ([`FROZEN`]) is rebuilt from
/// its automata rather than compiled.
pub(crate) fn lean(source: &str, nfa_bytes: usize, prefilter: bool) -> Option<Lean> {
    if !prefilter && let Some(thawed) = Thawed::of(source, nfa_bytes) {
        return Some(Lean::Thawed(Box::new(thawed)));
    }
    compiled(source, nfa_bytes, prefilter).map(Lean::Compiled)
}

/// A constant pattern of an analyzer that is only asked whether and where it matches: read
/// as `analyzers::pattern` reads it (`\b` the ASCII boundary), built through [`lean`] (so
/// shipped compiled when the project holds it).
#[expect(
    clippy::expect_used,
    reason = "every pattern given is a constant of its analyzer; lean's tests build each one"
)]
pub(crate) fn constant_words(source: &str) -> Lean {
    lean(&words_source(source), 10 << 20, false).expect("a constant pattern builds")
}

/// What [`constant_words`] gives [`lean`] for `source`: `\b` the ASCII boundary, as
/// `analyzers::pattern` reads it, and its own case unless it asks for none.
pub(super) fn words_source(source: &str) -> String {
    let source = source.replace(r"\b", r"(?-u:\b)");
    if source.starts_with("(?i)") {
        source
    } else {
        format!("(?-i:{source})")
    }
}

/// What [`lean`] compiles when the pattern is not shipped compiled.
fn compiled(source: &str, nfa_bytes: usize, prefilter: bool) -> Option<meta::Regex> {
    meta::Regex::builder()
        .syntax(syntax_config())
        .configure(
            meta::Regex::config()
                .auto_prefilter(prefilter)
                .which_captures(WhichCaptures::Implicit)
                .nfa_size_limit(Some(nfa_bytes)),
        )
        .build(&super::unfolded(source))
        .ok()
}

fn syntax_config() -> syntax::Config {
    syntax::Config::new().case_insensitive(true)
}

/// A pattern from [`lean`].
pub(crate) enum Lean {
    Compiled(meta::Regex),
    /// Boxed: the lazy DFA's configuration makes it large.
    Thawed(Box<Thawed>),
}

impl Lean {
    /// The leftmost-first match in `input`'s range.
    pub(crate) fn find<'h>(&self, input: Input<'h>) -> Option<Match> {
        match self {
            Self::Compiled(regex) => regex.find(input),
            Self::Thawed(thawed) => thawed.find(&input),
        }
    }

    pub(crate) fn is_match(&self, text: &str) -> bool {
        match self {
            Self::Compiled(regex) => regex.is_match(text),
            Self::Thawed(thawed) => thawed.is_match(text),
        }
    }

    /// Every match in `text` that does not overlap an earlier one, in order.
    pub(crate) fn find_iter<'a>(&'a self, text: &'a str) -> impl Iterator<Item = Match> + 'a {
        let mut searcher = Searcher::new(Input::new(text));
        std::iter::from_fn(move || {
            searcher
                .try_advance(|input| Ok(self.find(input.clone())))
                .ok()
                .flatten()
        })
    }
}

/// A thawed pattern's search state: the lazy DFAs' caches, the reverse one's once a search
/// has found a match.
struct Caches {
    forward: hybrid::dfa::Cache,
    reverse: Option<hybrid::dfa::Cache>,
}

type CachesFn = Box<dyn Fn() -> Caches + Send + Sync>;

/// A pattern rebuilt from the automata shipped with the project, searched as
/// `hybrid::regex::Regex` searches (the lazy DFAs `meta::Regex` runs): the forward DFA finds
/// where the leftmost-first match ends, and the reverse DFA, anchored there, where it starts.
///
/// The reverse NFA is most of the bytes and is needed only once a text matches; most
/// patterns a process builds never match, so it is read then.
pub(crate) struct Thawed {
    forward: hybrid::dfa::DFA,
    reverse_bytes: &'static [u8],
    reverse: OnceLock<Option<hybrid::dfa::DFA>>,
    caches: Pool<Caches, CachesFn>,
    /// The pattern as written, compiled only if a search gives up (it never does for these
    /// patterns: no Unicode word boundary, no limit on clearing the cache).
    source: String,
    nfa_bytes: usize,
    fallback: OnceLock<Option<meta::Regex>>,
}

impl Thawed {
    /// `source` rebuilt from [`FROZEN`], if the file holds it and its NFA is within
    /// `nfa_bytes`.
    fn of(source: &str, nfa_bytes: usize) -> Option<Self> {
        let (forward, reverse_bytes) = nfa::shipped(FROZEN, source)?;
        if forward.memory_usage() > nfa_bytes {
            return None;
        }
        let forward = forward_dfa(forward)?;
        let for_caches = forward.clone();
        Some(Self {
            forward,
            reverse_bytes,
            reverse: OnceLock::new(),
            caches: Pool::new(Box::new(move || Caches {
                forward: for_caches.create_cache(),
                reverse: None,
            })),
            source: source.to_owned(),
            nfa_bytes,
            fallback: OnceLock::new(),
        })
    }

    fn find(&self, input: &Input<'_>) -> Option<Match> {
        match self.search(input) {
            Ok(found) => found,
            Err(()) => self
                .fallback
                .get_or_init(|| compiled(&self.source, self.nfa_bytes, false))
                .as_ref()
                .and_then(|regex| regex.find(input.clone())),
        }
    }

    /// Whether `text` holds a match: the forward automaton alone says.
    fn is_match(&self, text: &str) -> bool {
        let input = Input::new(text).earliest(true);
        let found = self
            .forward
            .try_search_fwd(&mut self.caches.get().forward, &input);
        match found {
            Ok(found) => found.is_some(),
            Err(_) => self.find(&input).is_some(),
        }
    }

    /// The search of `hybrid::regex::Regex::try_search`; an error where that one would give
    /// up, or where the reverse automaton cannot be read or does not agree.
    fn search(&self, input: &Input<'_>) -> Result<Option<Match>, ()> {
        let mut caches = self.caches.get();
        let Some(end) = self
            .forward
            .try_search_fwd(&mut caches.forward, input)
            .map_err(drop)?
        else {
            return Ok(None);
        };
        // An empty match where the search starts, or an anchored search: the match starts
        // where the search does.
        let anchored = match input.get_anchored() {
            Anchored::No => self.forward.get_nfa().is_always_start_anchored(),
            Anchored::Yes | Anchored::Pattern(_) => true,
        };
        if input.start() == end.offset() || anchored {
            return Ok(Some(Match::new(end.pattern(), input.start()..end.offset())));
        }
        let reverse = self
            .reverse
            .get_or_init(|| nfa::reverse(self.reverse_bytes).and_then(reverse_dfa))
            .as_ref()
            .ok_or(())?;
        let cache = caches.reverse.get_or_insert_with(|| reverse.create_cache());
        let backwards = input
            .clone()
            .span(input.start()..end.offset())
            .anchored(Anchored::Yes)
            .earliest(false);
        match reverse.try_search_rev(cache, &backwards) {
            Ok(Some(start)) if start.offset() <= end.offset() => Ok(Some(Match::new(
                end.pattern(),
                start.offset()..end.offset(),
            ))),
            _ => Err(()),
        }
    }
}

/// The forward lazy DFA of a leftmost-first search, configured as the `regex` crate
/// configures its own.
fn forward_dfa(forward: NFA) -> Option<hybrid::dfa::DFA> {
    hybrid::dfa::Builder::new()
        .configure(hybrid::dfa::DFA::config().match_kind(MatchKind::LeftmostFirst))
        .build_from_nfa(forward)
        .ok()
}

/// The reverse lazy DFA that finds where a forward match starts: it reports every match,
/// and starts anchored where the forward one's match ended.
fn reverse_dfa(reverse: NFA) -> Option<hybrid::dfa::DFA> {
    hybrid::dfa::Builder::new()
        .configure(
            hybrid::dfa::DFA::config()
                .prefilter(None)
                .specialize_start_states(false)
                .match_kind(MatchKind::All),
        )
        .build_from_nfa(reverse)
        .ok()
}

/// The forward and reverse NFAs of `source`, as [`lean`] would search them: case-insensitive
/// with the wide classes unfolded, no capture groups; the reverse one shrunk (a smaller
/// automaton for the same language).
#[cfg(test)]
fn automata(source: &str) -> Option<(NFA, NFA)> {
    let compile = |reverse: bool| {
        thompson::Compiler::new()
            .syntax(syntax_config())
            .configure(
                NFA::config()
                    .which_captures(WhichCaptures::None)
                    .reverse(reverse)
                    .shrink(false),
            )
            .build(&super::unfolded(source))
            .ok()
    };
    Some((compile(false)?, compile(true)?))
}

/// The file of automata for `sources` (see the module's header): each pattern that compiles
/// within the smallest limit the analyzers give [`lean`] and runs as a lazy DFA.
#[cfg(test)]
fn freeze<'a>(sources: impl IntoIterator<Item = &'a str>) -> Vec<u8> {
    let mut file = nfa::File::new();
    for source in sources {
        if compiled(source, SMALLEST_LIMIT, false).is_none() {
            continue;
        }
        let Some((forward, reverse)) = automata(source) else {
            continue;
        };
        if forward_dfa(forward.clone()).is_none() || reverse_dfa(reverse.clone()).is_none() {
            continue;
        }
        file.add(source, &forward, &reverse);
    }
    file.into_bytes()
}

/// The smallest NFA limit an analyzer gives [`lean`].
#[cfg(test)]
const SMALLEST_LIMIT: usize = 8 << 20;

#[cfg(test)]
mod tests;
