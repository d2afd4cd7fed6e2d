//! Atoms: for a regular expression, a few short byte strings one of which every match must
//! contain. They join the literals in the scan's one Aho-Corasick automaton, so an
//! expression runs only over a file where one of its atoms occurs (YARA's own strategy):
//! most files hold no atom of most rules, and pay one automaton pass instead of a pass per
//! expression.
//!
//! An atom set is a necessary condition, never a sufficient one: the expression still
//! decides. So anything that only widens the language is safe (a look-around dropped,
//! letters compared without case), and when no good set is found the expression simply
//! runs on every file.

use regex_syntax::hir::{Class, Hir, HirKind};

/// The most strings an atom set (or an exact set on the way to one) may hold.
const MOST_ATOMS: usize = 32;

/// Atoms shorter than this match too often to spare anything.
const SHORTEST_ATOM: usize = 2;

/// Longer atoms are rarer, up to this length; beyond it what counts is their number.
const USEFUL_LENGTH: usize = 8;

/// The classes expanded into their bytes.
const MOST_CLASS_BYTES: usize = 8;

/// The atoms of the `regex` crate pattern `pattern`, lowercased (the automaton compares
/// without ASCII case), or `None` when the expression must run on every file: as written in
/// `written.rs` for the shipped rules' expressions, derived for any other.
pub(crate) fn atoms(pattern: &str) -> Option<Vec<Vec<u8>>> {
    match super::written::ATOMS
        .iter()
        .find(|(written, _)| *written == pattern)
    {
        Some((_, atoms)) => atoms.map(|atoms| atoms.iter().map(|atom| atom.to_vec()).collect()),
        None => derived(pattern),
    }
}

/// [`atoms`], derived by parsing `pattern`.
pub(crate) fn derived(pattern: &str) -> Option<Vec<Vec<u8>>> {
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(false)
        .build()
        .parse(pattern)
        .ok()?;
    let set = required(&hir)?;
    usable(&set).then_some(set)
}

fn usable(set: &[Vec<u8>]) -> bool {
    !set.is_empty() && set.len() <= MOST_ATOMS && set.iter().all(|atom| atom.len() >= SHORTEST_ATOM)
}

/// How good a set is for gating: longer shortest atom first, then fewer atoms.
fn score(set: &[Vec<u8>]) -> (usize, usize) {
    let shortest = set.iter().map(Vec::len).min().unwrap_or(0);
    (
        shortest.min(USEFUL_LENGTH),
        MOST_ATOMS.saturating_sub(set.len()),
    )
}

fn better(current: Option<Vec<Vec<u8>>>, candidate: Vec<Vec<u8>>) -> Option<Vec<Vec<u8>>> {
    if !usable(&candidate) {
        return current;
    }
    match current {
        Some(current) if score(&current) >= score(&candidate) => Some(current),
        _ => Some(candidate),
    }
}

/// A set of strings one of which every match of `hir` contains.
fn required(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    if let Some(set) = exact(hir)
        && usable(&set)
    {
        return Some(set);
    }
    match hir.kind() {
        HirKind::Capture(capture) => required(&capture.sub),
        HirKind::Repetition(repetition) if repetition.min >= 1 => required(&repetition.sub),
        HirKind::Alternation(branches) => {
            let mut union: Vec<Vec<u8>> = Vec::new();
            for branch in branches {
                for atom in required(branch)? {
                    if !union.contains(&atom) {
                        union.push(atom);
                    }
                }
            }
            usable(&union).then_some(union)
        }
        HirKind::Concat(parts) => {
            // The best of: each run of adjacent parts whose language is a small finite set
            // (their cross product), and what each other part requires on its own.
            let mut best = None;
            let mut run: Option<Vec<Vec<u8>>> = None;
            for part in parts {
                match exact(part) {
                    Some(set) => {
                        run = Some(match run {
                            None => set,
                            Some(run) => match product(&run, &set) {
                                Some(joined) => joined,
                                None => {
                                    best = better(best, run);
                                    set
                                }
                            },
                        });
                    }
                    None => {
                        if let Some(run) = run.take() {
                            best = better(best, run);
                        }
                        if let Some(set) = required(part) {
                            best = better(best, set);
                        }
                    }
                }
            }
            if let Some(run) = run {
                best = better(best, run);
            }
            best
        }
        _ => None,
    }
}

/// The language of `hir` when it is a small finite set of strings (lowercased).
fn exact(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(vec![Vec::new()]),
        HirKind::Literal(literal) => Some(vec![literal.0.to_ascii_lowercase()]),
        HirKind::Class(class) => {
            let mut bytes: Vec<u8> = Vec::new();
            match class {
                Class::Bytes(class) => {
                    for range in class.iter() {
                        for byte in range.start()..=range.end() {
                            push_lower(&mut bytes, byte)?;
                        }
                    }
                }
                Class::Unicode(class) => {
                    for range in class.iter() {
                        for character in range.start()..=range.end() {
                            push_lower(&mut bytes, u8::try_from(u32::from(character)).ok()?)?;
                        }
                    }
                }
            }
            Some(bytes.into_iter().map(|byte| vec![byte]).collect())
        }
        HirKind::Capture(capture) => exact(&capture.sub),
        HirKind::Repetition(repetition) if Some(repetition.min) == repetition.max => {
            let sub = exact(&repetition.sub)?;
            let mut set = vec![Vec::new()];
            for _ in 0..repetition.min.min(8) {
                set = product(&set, &sub)?;
            }
            (repetition.min <= 8).then_some(set)
        }
        HirKind::Concat(parts) => {
            let mut set = vec![Vec::new()];
            for part in parts {
                set = product(&set, &exact(part)?)?;
            }
            Some(set)
        }
        HirKind::Alternation(branches) => {
            let mut union: Vec<Vec<u8>> = Vec::new();
            for branch in branches {
                for string in exact(branch)? {
                    if !union.contains(&string) {
                        union.push(string);
                    }
                }
            }
            (union.len() <= MOST_ATOMS).then_some(union)
        }
        HirKind::Repetition(_) => None,
    }
}

/// Adds `byte` lowercased, unless the class grows past [`MOST_CLASS_BYTES`].
fn push_lower(bytes: &mut Vec<u8>, byte: u8) -> Option<()> {
    let byte = byte.to_ascii_lowercase();
    if !bytes.contains(&byte) {
        if bytes.len() >= MOST_CLASS_BYTES {
            return None;
        }
        bytes.push(byte);
    }
    Some(())
}

/// Every string of `left` followed by every string of `right`, unless that is too many.
fn product(left: &[Vec<u8>], right: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    if left.len().saturating_mul(right.len()) > MOST_ATOMS {
        return None;
    }
    let mut joined: Vec<Vec<u8>> = Vec::new();
    for first in left {
        for second in right {
            let string = [first.as_slice(), second.as_slice()].concat();
            if !joined.contains(&string) {
                joined.push(string);
            }
        }
    }
    Some(joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(pattern: &str) -> Option<Vec<String>> {
        atoms(pattern).map(|set| {
            set.into_iter()
                .map(|atom| String::from_utf8_lossy(&atom).into_owned())
                .collect()
        })
    }

    #[test]
    fn the_longest_required_run_is_chosen() {
        assert_eq!(
            of(r"(?-u)\b(ba|z)?sh\s+-i\s*>&\s*/dev/tcp/"),
            Some(vec!["/dev/tcp/".to_owned()])
        );
        assert_eq!(
            of(r"(?-u)stratum\+(tcp|ssl)://"),
            Some(vec![
                "stratum+tcp://".to_owned(),
                "stratum+ssl://".to_owned()
            ])
        );
        assert_eq!(of(r"(?-u)(?i)XMRIG"), Some(vec!["xmrig".to_owned()]));
    }

    #[test]
    fn alternatives_give_one_atom_each_or_none() {
        assert_eq!(
            of(r"(?-u)(ignore|disregard)\s+previous"),
            Some(vec!["previous".to_owned()])
        );
        assert_eq!(
            of(r"(?-u)(ignore\s+this|forget\s+that)"),
            Some(vec!["ignore".to_owned(), "forget".to_owned()])
        );
        assert_eq!(of(r"(?-u)(ignore|\d+)"), None);
    }

    #[test]
    fn expressions_without_a_good_atom_run_everywhere() {
        assert_eq!(of(r"(?-u)a*"), None);
        assert_eq!(of(r"(?-u)[a-z]+\d"), None);
        assert_eq!(of(r"(?-u)x"), None, "one byte spares nothing");
        assert_eq!(of(r"(?-u)("), None, "not a pattern");
    }

    #[test]
    fn hex_bytes_and_small_classes_multiply_out() {
        assert_eq!(
            of(r"(?s-u)\x7FELF[\x01\x02]"),
            Some(vec![
                "\u{7f}elf\u{1}".to_owned(),
                "\u{7f}elf\u{2}".to_owned()
            ])
        );
    }
}
