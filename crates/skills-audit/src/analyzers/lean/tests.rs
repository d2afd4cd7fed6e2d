//! The shipped automata: that the file is the patterns' own, that it reads back as written,
//! that a thawed pattern finds what the compiled one finds, and that no file makes reading
//! panic.

use std::path::Path;

use proptest::prelude::*;
use rayon::prelude::*;

use super::*;

/// Every pattern the analyzers give [`lean`] without a prefilter.
fn sources() -> Vec<String> {
    crate::analyzers::lean_sources()
}

/// The shipped file is what compiling the patterns gives today, byte for byte. When it is
/// not, the test writes the patterns' own file in the temporary folder, to copy over.
#[test]
fn the_frozen_automata_are_the_patterns_own() {
    let sources = sources();
    let fresh = freeze(sources.iter().map(String::as_str));
    if fresh != FROZEN {
        let written = std::env::temp_dir().join("skills-audit-frozen.nfa");
        std::fs::write(&written, &fresh).unwrap_or_else(|error| panic!("{error}"));
        panic!(
            "src/analyzers/lean/frozen.nfa is not the patterns' own ({} bytes compiled, {} \
             shipped): copy {} over it",
            fresh.len(),
            FROZEN.len(),
            written.display()
        );
    }
}

/// Every pattern is shipped (none is left to compile in a process), and what a process
/// reads back is the NFA that was written, state for state.
#[test]
fn every_pattern_is_shipped_and_reads_back_as_written() {
    let sources = sources();
    assert!(sources.len() > 90, "{}", sources.len());
    for source in &sources {
        let (forward, reverse) =
            nfa::shipped(FROZEN, source).unwrap_or_else(|| panic!("not shipped: {source}"));
        let reverse = nfa::reverse(reverse).unwrap_or_else(|| panic!("{source}"));
        let (want_forward, want_reverse) = automata(source).unwrap_or_else(|| panic!("{source}"));
        assert_eq!(forward.states(), want_forward.states(), "{source}");
        assert_eq!(reverse.states(), want_reverse.states(), "{source}");
        assert_eq!(forward.start_unanchored(), want_forward.start_unanchored());
        assert_eq!(reverse.start_anchored(), want_reverse.start_anchored());
        assert!(matches!(
            lean(source, 8 << 20, false),
            Some(Lean::Thawed(_))
        ));
    }
}

/// Texts with the phrases in them: the analyzers' own sources and tests (every case the
/// rules are tested on), the rule files and the document that lists the rules.
fn texts() -> Vec<String> {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts = Vec::new();
    let mut folders = vec![crate_dir.join("src/analyzers"), crate_dir.join("rules")];
    if let Ok(rules) = std::fs::read_to_string(crate_dir.join("../../docs/audit.md")) {
        texts.push(rules);
    }
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                texts.push(text);
            }
        }
    }
    assert!(texts.len() > 30, "{}", texts.len());
    texts
}

/// The matches of `lean` from `at` onwards in `text`, one after the other.
fn matches(regex: &Lean, text: &str, mut at: usize) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    while at <= text.len() {
        let Some(next) = regex.find(Input::new(text).range(at..)) else {
            break;
        };
        found.push((next.start(), next.end()));
        at = next.end().max(next.start() + 1);
        while at < text.len() && !text.is_char_boundary(at) {
            at += 1;
        }
    }
    found
}

/// A thawed pattern finds what the compiled one finds: every match over every text, from
/// the start and from points inside the text (where a word boundary looks behind the start).
#[test]
fn a_thawed_pattern_finds_what_the_compiled_one_finds() {
    let texts = texts();
    // Each pattern on its own thread: (searches compared, matches found).
    let counts = sources().into_par_iter().map(|source| {
        let Some(Lean::Thawed(thawed)) = lean(&source, 8 << 20, false) else {
            panic!("not shipped: {source}");
        };
        let thawed = Lean::Thawed(thawed);
        let compiled = Lean::Compiled(compiled(&source, 8 << 20, false).unwrap());
        let (mut compared, mut found) = (0, 0);
        for text in &texts {
            let iterated = |regex: &Lean| {
                regex
                    .find_iter(text)
                    .map(|found| (found.start(), found.end()))
                    .collect::<Vec<_>>()
            };
            let want = iterated(&compiled);
            assert_eq!(iterated(&thawed), want, "{source}");
            assert_eq!(thawed.is_match(text), !want.is_empty(), "{source}");
            found += want.len();
            // From two points inside, where a word boundary looks behind the start.
            let starts = [text.len() / 3, text.len() * 2 / 3]
                .into_iter()
                .filter(|&at| text.is_char_boundary(at));
            for at in starts {
                let want = matches(&compiled, text, at);
                assert_eq!(matches(&thawed, text, at), want, "{source} from {at}");
                compared += 1;
            }
        }
        (compared, found)
    });
    let (compared, found) = counts.reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    assert!(compared > 1_000 && found > 1_000, "{compared} {found}");
}

/// A pattern the file does not hold is compiled; one with a prefilter is always compiled.
#[test]
fn a_pattern_not_shipped_is_compiled() {
    let unshipped = lean(r"\bnot a shipped (pattern|phrase)\b", 8 << 20, false);
    assert!(matches!(unshipped, Some(Lean::Compiled(_))));
    assert!(unshipped.is_some_and(|regex| regex.is_match("NOT A SHIPPED Phrase")));
    let shipped = &sources()[0];
    assert!(matches!(
        lean(shipped, 8 << 20, true),
        Some(Lean::Compiled(_))
    ));
    // Past the caller's limit, neither is built.
    assert!(lean(shipped, 16, false).is_none());
}

/// A count past what the file holds is refused before anything is allocated for it.
#[test]
fn a_count_past_the_file_is_refused() {
    // One NFA of 2^40 states whose first is a union of 2^62 alternatives.
    let mut file = nfa::MAGIC.to_vec();
    let mut body = vec![0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0, 0, 0, 3];
    body.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f]);
    file.push(1);
    file.push(1);
    file.push(b'x');
    file.push(u8::try_from(body.len()).unwrap());
    file.extend_from_slice(&body);
    assert!(nfa::shipped(&file, "x").is_none());
}

proptest! {
    /// Whatever the file holds, reading it never panics, and a file cut short or changed in
    /// a byte gives nothing or a valid NFA.
    #[test]
    fn any_file_reads_without_panic(
        cut in 0usize..4096,
        at in 0usize..4096,
        byte in any::<u8>(),
        noise in proptest::collection::vec(any::<u8>(), 0..256),
    ) {
        let source = &sources()[0];
        let mut changed = FROZEN.to_vec();
        if let Some(place) = changed.get_mut(at) {
            *place = byte;
        }
        let read = |file: &[u8]| {
            if let Some((_, reverse)) = nfa::shipped(file, source) {
                let _ = nfa::reverse(reverse);
            }
        };
        read(&changed);
        read(&FROZEN[..cut.min(FROZEN.len())]);
        let mut noisy = FROZEN[..nfa::MAGIC.len()].to_vec();
        noisy.extend_from_slice(&noise);
        read(&noisy);
    }
}
