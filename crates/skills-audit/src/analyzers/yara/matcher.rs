//! Matching compiled rules against one file's bytes: find every string, then evaluate each
//! rule's condition over what was found.
//!
//! Time is linear in the file: one pass of the Aho-Corasick automaton (every literal, and
//! the atoms of every expression), then a pass of each expression one of whose atoms
//! occurred (or that has none).
//! Memory is bounded: a string's count is exact, but only its first [`KEPT_MATCHES`]
//! places are kept (what `@a[i]`, `!a[i]`, `at` and `in` look at), so a file of a million
//! `A`s against `$a = "A"` costs a counter, not a million entries.

use super::ast::{Comparison, Expr, Int, Quantifier};
use super::compile::{Compiled, Entry};

/// The places kept per string.
pub(crate) const KEPT_MATCHES: usize = 1_000;

/// A rule whose condition holds for a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hit {
    /// Index into [`Compiled::rules`].
    pub(crate) rule: usize,
    /// Where it matched: its first match of a string, a string not marked `private`
    /// preferred; `None` when the condition holds without any string (`filesize > 1MB`).
    pub(crate) first: Option<Place>,
}

/// One match of a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    /// Index into [`Compiled::strings`].
    pub(crate) string: usize,
    pub(crate) offset: usize,
    pub(crate) length: usize,
}

/// What was found of one string in one file.
#[derive(Clone, Debug, Default)]
struct Found {
    count: u64,
    /// `(offset, length)`, the first [`KEPT_MATCHES`]; sorted by offset before conditions
    /// read them.
    places: Vec<(usize, usize)>,
}

impl Found {
    fn add(&mut self, offset: usize, length: usize) {
        self.count += 1;
        if self.places.len() < KEPT_MATCHES {
            self.places.push((offset, length));
        }
    }
}

impl Compiled {
    /// The rules that match `data`, a file whose whole size is `size` (`data` may be the
    /// first part of it, as far as the scan's cap reads).
    pub(crate) fn scan(&self, data: &[u8], size: u64) -> Vec<Hit> {
        let mut scan = Scan {
            compiled: self,
            data,
            size,
            found: vec![Found::default(); self.strings.len()],
            pending: vec![false; self.expressions.len()],
        };
        for &expression in &self.ungated {
            scan.pending[expression] = true;
        }
        if let Some(automaton) = &self.automaton {
            for matched in automaton.for_a_text().find_overlapping_iter(data) {
                match &self.entries[matched.pattern().as_usize()] {
                    Entry::Atom { expression } => scan.pending[*expression] = true,
                    Entry::Literal {
                        string,
                        wide,
                        exact,
                    } => {
                        if exact
                            .as_ref()
                            .is_some_and(|exact| data[matched.range()] != exact[..])
                        {
                            continue;
                        }
                        if self.strings[*string].fullword
                            && !is_fullword(data, matched.range(), *wide)
                        {
                            continue;
                        }
                        scan.found[*string].add(matched.start(), matched.len());
                    }
                }
            }
        }
        for string in &mut scan.found {
            string.places.sort_unstable();
            string.places.dedup_by_key(|place| place.0);
        }
        let mut hits = Vec::new();
        for (index, rule) in self.rules.iter().enumerate() {
            if scan.holds(rule.first_string, &rule.condition) != Some(true) {
                continue;
            }
            let strings = rule.first_string..rule.first_string + rule.string_count;
            let first = strings
                .filter_map(|string| {
                    let &(offset, length) = scan.found(string).places.first()?;
                    Some(Place {
                        string,
                        offset,
                        length,
                    })
                })
                .min_by_key(|place| (self.strings[place.string].private, place.offset));
            hits.push(Hit { rule: index, first });
        }
        hits
    }
}

/// One file's scan: what the automaton found, and the expressions still to run. An
/// expression runs when a condition first asks about its string (`$a and $b` never runs
/// `$b`'s expression in a file without `$a`), and only where one of its atoms occurred.
struct Scan<'a> {
    compiled: &'a Compiled,
    data: &'a [u8],
    size: u64,
    /// By index into [`Compiled::strings`].
    found: Vec<Found>,
    /// By index into [`Compiled::expressions`]: may match here and not searched yet.
    pending: Vec<bool>,
}

/// YARA's `fullword`: the match is not preceded or followed by a letter or digit (in the
/// wide encoding, by a letter or digit followed by a zero byte).
fn is_fullword(data: &[u8], range: std::ops::Range<usize>, wide: bool) -> bool {
    let word = |byte: Option<&u8>| byte.is_some_and(u8::is_ascii_alphanumeric);
    if wide {
        let before = range.start >= 2
            && data.get(range.start - 1) == Some(&0)
            && word(data.get(range.start - 2));
        let after = word(data.get(range.end)) && data.get(range.end + 1) == Some(&0);
        !before && !after
    } else {
        let before = range.start > 0 && word(data.get(range.start - 1));
        !before && !word(data.get(range.end))
    }
}

impl Scan<'_> {
    /// What was found of string `string` (an index into [`Compiled::strings`]), its
    /// expression run first when it has one still pending.
    fn found(&mut self, string: usize) -> &Found {
        if let Some(expression) = self.compiled.strings[string].expression
            && self.pending[expression]
        {
            self.pending[expression] = false;
            let regex = self.compiled.expressions[expression].regex();
            let fullword = self.compiled.strings[string].fullword;
            let found = &mut self.found[string];
            for matched in regex
                .into_iter()
                .flat_map(|regex| regex.find_iter(self.data))
            {
                if fullword && !is_fullword(self.data, matched.range(), false) {
                    continue;
                }
                found.add(matched.start(), matched.len());
            }
            found.places.sort_unstable();
            found.places.dedup_by_key(|place| place.0);
        }
        &self.found[string]
    }

    /// Whether a condition of the rule whose strings start at `base` holds. YARA's three
    /// values: `None` is undefined (an offset past the end, `@a[5]` of a string
    /// found twice), false wherever a rule's verdict is taken, and still undefined under
    /// `not`.
    fn holds(&mut self, base: usize, expr: &Expr) -> Option<bool> {
        match expr {
            Expr::Bool(value) => Some(*value),
            Expr::Not(inner) => self.holds(base, inner).map(|value| !value),
            Expr::And(terms) => {
                let mut result = Some(true);
                for term in terms {
                    match self.holds(base, term) {
                        Some(true) => {}
                        Some(false) => return Some(false),
                        None => result = None,
                    }
                }
                result
            }
            Expr::Or(terms) => {
                let mut result = Some(false);
                for term in terms {
                    match self.holds(base, term) {
                        Some(true) => return Some(true),
                        Some(false) => {}
                        None => result = None,
                    }
                }
                result
            }
            Expr::Found(string) => Some(self.found(base + *string).count > 0),
            Expr::At(string, offset) => {
                let offset = usize::try_from(self.value(base, offset)?).ok()?;
                Some(
                    self.found(base + *string)
                        .places
                        .binary_search_by_key(&offset, |place| place.0)
                        .is_ok(),
                )
            }
            Expr::In(string, from, to) => {
                let (from, to) = (self.value(base, from)?, self.value(base, to)?);
                Some(
                    self.found(base + *string)
                        .places
                        .iter()
                        .any(|&(offset, _)| {
                            i64::try_from(offset).is_ok_and(|offset| (from..=to).contains(&offset))
                        }),
                )
            }
            Expr::Of(quantifier, strings) => {
                let matched = strings
                    .iter()
                    .filter(|&&string| self.found(base + string).count > 0)
                    .count() as u64;
                Some(match quantifier {
                    Quantifier::Any => matched > 0,
                    Quantifier::All => matched == strings.len() as u64,
                    Quantifier::None => matched == 0,
                    Quantifier::AtLeast(count) => matched >= *count,
                })
            }
            Expr::Compare(left, comparison, right) => {
                let (left, right) = (self.value(base, left)?, self.value(base, right)?);
                Some(match comparison {
                    Comparison::Equal => left == right,
                    Comparison::NotEqual => left != right,
                    Comparison::Less => left < right,
                    Comparison::LessOrEqual => left <= right,
                    Comparison::Greater => left > right,
                    Comparison::GreaterOrEqual => left >= right,
                })
            }
        }
    }

    /// An integer operand; `None` when undefined.
    fn value(&mut self, base: usize, int: &Int) -> Option<i64> {
        match int {
            Int::Literal(value) => Some(*value),
            Int::Filesize => i64::try_from(self.size).ok(),
            Int::Count(string) => i64::try_from(self.found(base + *string).count).ok(),
            Int::Offset(string, nth) | Int::Length(string, nth) => {
                let nth = usize::try_from(self.value(base, nth)?)
                    .ok()?
                    .checked_sub(1)?;
                let &(offset, length) = self.found(base + *string).places.get(nth)?;
                let value = if matches!(int, Int::Offset(..)) {
                    offset
                } else {
                    length
                };
                i64::try_from(value).ok()
            }
            Int::Read {
                bytes,
                big_endian,
                signed,
                at,
            } => {
                let at = usize::try_from(self.value(base, at)?).ok()?;
                let width = usize::from(*bytes);
                let read = self.data.get(at..at.checked_add(width)?)?;
                let mut buffer = [0_u8; 8];
                let value = if *big_endian {
                    buffer[8 - width..].copy_from_slice(read);
                    u64::from_be_bytes(buffer)
                } else {
                    buffer[..width].copy_from_slice(read);
                    u64::from_le_bytes(buffer)
                };
                if *signed {
                    // Sign-extend from the width read.
                    let shift = 64 - 8 * width as u32;
                    Some(((value << shift) as i64) >> shift)
                } else {
                    i64::try_from(value).ok()
                }
            }
        }
    }
}
