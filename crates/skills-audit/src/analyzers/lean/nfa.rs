//! The file of shipped automata: each pattern's text, then its forward and reverse Thompson
//! NFA written state by state, and the way back to an NFA through the `regex` crate's own
//! builder (which checks what it is given as it would check a compiler's states).
//!
//! Layout, every number an unsigned LEB128 varint:
//!
//! ```text
//! MAGIC, count, then per pattern: text length, text, body length, body
//! body:  forward NFA, reverse NFA
//! NFA:   states, anchored start, unanchored start, flags (1 reverse, 2 UTF-8), states...
//! state: tag, then
//!        0 byte range   start byte, end byte, next
//!        1 sparse       count, count x (start byte, end byte, next)
//!        2 look         look, next
//!        3 union        count, count x alternative
//!        4 fail
//!        5 match
//! ```
//!
//! A state's targets are written as the zigzag of their distance from the state itself:
//! most point a few states away, so most take one byte.

use regex_automata::nfa::thompson::{Builder, NFA, Transition};
use regex_automata::util::look::Look;
use regex_automata::util::primitives::StateID;

/// The file's first bytes; a file without them holds nothing.
pub(super) const MAGIC: &[u8] = b"skills-audit lean NFAs 1\n";

/// The forward NFA `file` holds for `source`, and the bytes of its reverse NFA (read with
/// [`reverse`] when a search first needs it).
pub(super) fn shipped<'a>(file: &'a [u8], source: &str) -> Option<(NFA, &'a [u8])> {
    let mut reader = Reader(file.strip_prefix(MAGIC)?);
    let count = reader.number()?;
    for _ in 0..count {
        let text = reader.bytes()?;
        let body = reader.bytes()?;
        if text == source.as_bytes() {
            let mut body = Reader(body);
            let forward = body.nfa()?;
            return (!forward.is_reverse()).then_some((forward, body.0));
        }
    }
    None
}

/// The reverse NFA in `bytes` (from [`shipped`]).
pub(super) fn reverse(bytes: &[u8]) -> Option<NFA> {
    Reader(bytes).nfa().filter(NFA::is_reverse)
}

/// Reads the layout above; every read is bounded by what is left.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Option<u8> {
        let (&first, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(first)
    }

    fn number(&mut self) -> Option<usize> {
        let mut value: u64 = 0;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7f).checked_shl(shift)?;
            if byte & 0x80 == 0 {
                return usize::try_from(value).ok();
            }
        }
        None
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let length = self.number()?;
        let bytes = self.0.get(..length)?;
        self.0 = &self.0[length..];
        Some(bytes)
    }

    /// A target written relative to state `at`, checked to be one of the `states`.
    fn target(&mut self, at: usize, states: usize) -> Option<StateID> {
        let zigzag = self.number()?;
        let distance = if zigzag & 1 == 0 {
            isize::try_from(zigzag >> 1).ok()?
        } else {
            -isize::try_from(zigzag >> 1).ok()? - 1
        };
        let target = at.checked_add_signed(distance)?;
        (target < states).then(|| StateID::new(target).ok())?
    }

    fn nfa(&mut self) -> Option<NFA> {
        let states = self.number()?;
        let anchored = self.target(0, states)?;
        let unanchored = self.target(0, states)?;
        let flags = self.byte()?;
        let mut builder = Builder::new();
        builder.set_reverse(flags & 1 != 0);
        builder.set_utf8(flags & 2 != 0);
        builder.start_pattern().ok()?;
        for at in 0..states {
            let added = match self.byte()? {
                0 => {
                    let transition = self.transition(at, states)?;
                    builder.add_range(transition)
                }
                1 => {
                    // As a compiled NFA holds them: fewer would be another kind of state
                    // (and a union of one an empty state, which the builder would remove).
                    let count = self.number()?;
                    if count < 2 {
                        return None;
                    }
                    let mut transitions = Vec::with_capacity(count.min(256));
                    for _ in 0..count {
                        transitions.push(self.transition(at, states)?);
                    }
                    builder.add_sparse(transitions)
                }
                2 => {
                    let look = Look::from_repr(u32::try_from(self.number()?).ok()?)?;
                    let next = self.target(at, states)?;
                    builder.add_look(next, look)
                }
                3 => {
                    let count = self.number()?;
                    if count < 2 {
                        return None;
                    }
                    // Each alternative takes a byte at least: what is left bounds the count.
                    let mut alternatives = Vec::with_capacity(count.min(self.0.len()));
                    for _ in 0..count {
                        alternatives.push(self.target(at, states)?);
                    }
                    builder.add_union(alternatives)
                }
                4 => builder.add_fail(),
                5 => builder.add_match(),
                _ => return None,
            };
            // The builder numbers states in the order they are added, as they were written.
            if added.ok()?.as_usize() != at {
                return None;
            }
        }
        builder.finish_pattern(anchored).ok()?;
        builder.build(anchored, unanchored).ok()
    }

    fn transition(&mut self, at: usize, states: usize) -> Option<Transition> {
        let start = self.byte()?;
        let end = self.byte()?;
        let next = self.target(at, states)?;
        (start <= end).then_some(Transition { start, end, next })
    }
}

/// The file being written (see the module's header).
#[cfg(test)]
pub(super) struct File {
    count: usize,
    entries: Vec<u8>,
}

#[cfg(test)]
impl File {
    pub(super) fn new() -> Self {
        Self {
            count: 0,
            entries: Vec::new(),
        }
    }

    /// Adds `source` with its NFAs, unless a state has no place in the layout (a capture or
    /// a dense state: the patterns are compiled without either).
    pub(super) fn add(&mut self, source: &str, forward: &NFA, reverse: &NFA) {
        let mut body = Vec::new();
        if write_nfa(&mut body, forward).is_none() || write_nfa(&mut body, reverse).is_none() {
            return;
        }
        write_number(&mut self.entries, source.len());
        self.entries.extend_from_slice(source.as_bytes());
        write_number(&mut self.entries, body.len());
        self.entries.extend_from_slice(&body);
        self.count += 1;
    }

    pub(super) fn into_bytes(self) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        write_number(&mut bytes, self.count);
        bytes.extend_from_slice(&self.entries);
        bytes
    }
}

#[cfg(test)]
fn write_number(out: &mut Vec<u8>, mut value: usize) {
    while value >= 0x80 {
        out.push(u8::try_from(value & 0x7f).unwrap_or(0) | 0x80);
        value >>= 7;
    }
    out.push(u8::try_from(value).unwrap_or(0));
}

#[cfg(test)]
fn write_target(out: &mut Vec<u8>, at: usize, target: StateID) {
    let (at, target) = (at as isize, target.as_usize() as isize);
    let distance = target - at;
    let zigzag = if distance >= 0 {
        (distance as usize) << 1
    } else {
        (((-distance) as usize - 1) << 1) | 1
    };
    write_number(out, zigzag);
}

#[cfg(test)]
fn write_nfa(out: &mut Vec<u8>, nfa: &NFA) -> Option<()> {
    use regex_automata::nfa::thompson::State;
    let states = nfa.states();
    write_number(out, states.len());
    write_target(out, 0, nfa.start_anchored());
    write_target(out, 0, nfa.start_unanchored());
    out.push(u8::from(nfa.is_reverse()) | (u8::from(nfa.is_utf8()) << 1));
    let transition = |out: &mut Vec<u8>, at: usize, transition: &Transition| {
        out.extend_from_slice(&[transition.start, transition.end]);
        write_target(out, at, transition.next);
    };
    for (at, state) in states.iter().enumerate() {
        match state {
            State::ByteRange { trans } => {
                out.push(0);
                transition(out, at, trans);
            }
            State::Sparse(sparse) => {
                out.push(1);
                write_number(out, sparse.transitions.len());
                for each in &sparse.transitions {
                    transition(out, at, each);
                }
            }
            State::Look { look, next } => {
                out.push(2);
                write_number(out, look.as_repr() as usize);
                write_target(out, at, *next);
            }
            State::Union { alternates } => {
                out.push(3);
                write_number(out, alternates.len());
                for &alternative in alternates {
                    write_target(out, at, alternative);
                }
            }
            State::BinaryUnion { alt1, alt2 } => {
                out.push(3);
                write_number(out, 2);
                write_target(out, at, *alt1);
                write_target(out, at, *alt2);
            }
            State::Fail => out.push(4),
            State::Match { pattern_id } if pattern_id.as_usize() == 0 => out.push(5),
            State::Match { .. } | State::Capture { .. } | State::Dense(_) => return None,
        }
    }
    Some(())
}
