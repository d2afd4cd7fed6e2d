//! The one sanitiser: what every renderer applies to text a skill supplies (a name, a
//! description, a path, a diagnostic that quotes them) before it reaches an agent or a
//! terminal — `AGENTS.md`, the `xml`, `markdown` and `json` prompt formats, and the human
//! output of the command line.
//!
//! A skill is written by someone else. Its text must not be able to steer the reader:
//!
//! - terminal escape sequences (`ESC [ … m`, `ESC ] … BEL`, the C1 forms) are removed whole,
//!   so a description can neither recolour nor retitle the terminal, nor hide the rest of a
//!   line; removing only the `ESC` would leave `[31m` behind as text;
//! - every other C0 and C1 control and DEL is removed (NUL, BEL, backspace, a lone carriage
//!   return that would overwrite a line already shown);
//! - every Unicode format character (category Cf) is removed: the bidi embeddings, overrides
//!   and isolates (U+202A–U+202E, U+2066–U+2069) that make text read differently from how it
//!   is stored ("Trojan Source"), the zero-width characters (U+200B–U+200D, U+2060, U+FEFF)
//!   that split a word so a filter misses it, and the tag characters (U+E0000–U+E007F) that a
//!   model reads but a person never sees;
//! - noncharacters (U+FDD0–U+FDEF and the last two code points of every plane) are removed,
//!   and with them every character XML 1.0 forbids, so an `xml` prompt always parses.
//!
//! [`line()`] keeps a field on one line, [`description`] also folds whitespace and caps the
//! length, [`block`] keeps the line structure of multi-line text, and [`key`] keeps a name
//! that must stay distinct from its neighbours (an object key) distinct. Each returns the
//! input borrowed when there is nothing to change, which is nearly always. [`json`],
//! [`message`], [`json_text`] and [`message_text`] apply them to every string and key of a
//! whole JSON value or text (`json.rs`): that is how every exit to an agent uses this module.
//! This module does no I/O.

use std::borrow::Cow;
use std::fmt::Write as _;

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

use crate::limits::MAX_RENDERED_DESCRIPTION_CHARS;

mod json;

pub use json::{MULTI_LINE_KEYS, SanitizingWriter, json, json_text, message, message_text};

/// Ends a description cut at [`MAX_RENDERED_DESCRIPTION_CHARS`]; it counts against the cap.
pub const ELLIPSIS: char = '…';

/// `text` as one line: each run of line breaks and tabs becomes one space, and everything the
/// module documentation lists is removed. Other spaces are kept as they are, so a path shown
/// this way still names its file.
pub fn line(text: &str) -> Cow<'_, str> {
    if is_clean_line(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut in_break = false;
    clean(text, |piece| match piece {
        Piece::Char(character) if is_line_break(character) || character == '\t' => {
            if !in_break {
                out.push(' ');
            }
            in_break = true;
        }
        Piece::Char(character) => {
            out.push(character);
            in_break = false;
        }
        Piece::Removed => {}
    });
    Cow::Owned(out)
}

/// A description as every renderer shows it: [`line()`], with each run of whitespace folded
/// to one space, trimmed, and cut to [`MAX_RENDERED_DESCRIPTION_CHARS`] characters, the last
/// of them [`ELLIPSIS`], when longer. A multi-line description therefore can never start a
/// `# Heading` or a list item of its own, and a 100 KB one costs the reader one kilobyte.
pub fn description(text: &str) -> Cow<'_, str> {
    let cleaned = line(text);
    let folded = fold_whitespace(&cleaned);
    let capped = cap(&folded, MAX_RENDERED_DESCRIPTION_CHARS);
    if matches!(capped, Cow::Borrowed(_))
        && matches!(folded, Cow::Borrowed(_))
        && matches!(cleaned, Cow::Borrowed(_))
    {
        return Cow::Borrowed(text);
    }
    Cow::Owned(capped.into_owned())
}

/// Multi-line text for a terminal or an agent (a skill's body): the line structure stays —
/// line feeds, tabs and CRLF pairs are kept — and the rest is removed as [`line()`] removes
/// it. The zero-width joiner and non-joiner (U+200C, U+200D) are kept here: scripts such as
/// Persian and emoji sequences need them, and they cannot reorder or hide a line.
pub fn block(text: &str) -> Cow<'_, str> {
    let keeps = |character: char| {
        is_plain(character) || matches!(character, '\n' | '\t' | '\u{200c}' | '\u{200d}')
    };
    let lone_cr = text.split('\r').skip(1).any(|rest| !rest.starts_with('\n'));
    if !lone_cr
        && text
            .chars()
            .all(|character| character == '\r' || keeps(character))
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    // Only the carriage return of a CRLF pair survives: a lone one moves the cursor back
    // over a line already shown.
    let mut pending_cr = false;
    clean_with(text, keeps, |piece| {
        let after_cr = std::mem::take(&mut pending_cr);
        match piece {
            Piece::Char('\r') => pending_cr = true,
            Piece::Char('\n') => {
                if after_cr {
                    out.push('\r');
                }
                out.push('\n');
            }
            Piece::Char('\u{b}' | '\u{c}' | '\u{85}') | Piece::Removed => {}
            Piece::Char(character) => out.push(character),
        }
    });
    Cow::Owned(out)
}

/// A name that must stay distinct (an object key, where two names that [`line()`] would make
/// equal would become one member and lose the other's value): unchanged when [`line()`]
/// leaves it unchanged; otherwise every character [`line()`] would remove or replace —
/// each character of an escape sequence included — is written as the visible text
/// `\u{…}`. Nothing that steers reaches the reader, and two keys that differ only in such
/// characters stay two keys.
pub fn key(text: &str) -> Cow<'_, str> {
    if is_clean_line(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for character in text.chars() {
        if is_plain(character) {
            out.push(character);
        } else {
            // Writing to a `String` cannot fail.
            let _ = write!(out, "\\u{{{:x}}}", u32::from(character));
        }
    }
    Cow::Owned(out)
}

/// Whether `text` is unchanged by [`line()`]: nothing in it is removed or replaced.
pub fn is_clean_line(text: &str) -> bool {
    // Every string of a listing passes here. Printable ASCII is checked sixteen bytes at a
    // time, without an exit inside a block (which the compiler turns into vector code), and
    // characters are decoded only from the block holding the first byte that is not: every
    // byte before that block is ASCII, so the block starts a character.
    let printable = |block: &[u8]| {
        block
            .iter()
            .fold(true, |all, &byte| all & matches!(byte, b' '..=b'~'))
    };
    let ascii: usize = text
        .as_bytes()
        .chunks(16)
        .take_while(|block| printable(block))
        .map(<[u8]>::len)
        .sum();
    text[ascii..].chars().all(is_plain)
}

/// Characters that end a line in some renderer; a Markdown list item must hold none, or a
/// description could start a heading or a list item of its own.
pub fn is_line_break(character: char) -> bool {
    matches!(
        character,
        '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// Whether the character is removed wherever it appears: a control, a format character, a
/// noncharacter, or one XML 1.0 forbids.
pub fn is_removed(character: char) -> bool {
    let code = u32::from(character);
    character.is_control()
        || character.general_category() == GeneralCategory::Format
        || (0xFDD0..=0xFDEF).contains(&code)
        || code & 0xFFFE == 0xFFFE
}

/// Whether the character passes through [`line()`] as it is. ASCII is decided without a table
/// lookup: listings of thousands of skills call this for every character.
fn is_plain(character: char) -> bool {
    if character.is_ascii() {
        return matches!(character, ' '..='~');
    }
    !is_removed(character) && !is_line_break(character)
}

/// One step of [`clean`]: a character to consider, or a stretch that was removed.
enum Piece {
    Char(char),
    Removed,
}

fn clean(text: &str, emit: impl FnMut(Piece)) {
    clean_with(text, is_plain, emit);
}

/// Walks `text`, removing escape sequences whole and every removed character; characters
/// `keeps` accepts and line breaks and tabs are passed on for the caller to place.
fn clean_with(text: &str, keeps: impl Fn(char) -> bool, mut emit: impl FnMut(Piece)) {
    let mut characters = text.chars().peekable();
    while let Some(character) = characters.next() {
        match character {
            '\u{1b}' => {
                skip_escape(&mut characters);
                emit(Piece::Removed);
            }
            // The C1 forms of CSI and of the string sequences (DCS, SOS, OSC, PM, APC).
            '\u{9b}' => {
                skip_csi(&mut characters);
                emit(Piece::Removed);
            }
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => {
                skip_string(&mut characters);
                emit(Piece::Removed);
            }
            character if keeps(character) || is_line_break(character) || character == '\t' => {
                emit(Piece::Char(character));
            }
            _ => emit(Piece::Removed),
        }
    }
}

type Characters<'a> = std::iter::Peekable<std::str::Chars<'a>>;

/// Skips what follows an `ESC` (ECMA-48): a control sequence after `[`, a string after `]`,
/// `P`, `X`, `^` or `_`, and otherwise any intermediate bytes and one final byte.
fn skip_escape(characters: &mut Characters<'_>) {
    match characters.peek() {
        Some('[') => {
            characters.next();
            skip_csi(characters);
        }
        Some(']' | 'P' | 'X' | '^' | '_') => {
            characters.next();
            skip_string(characters);
        }
        _ => {
            while characters.next_if(|c| matches!(c, ' '..='/')).is_some() {}
            characters.next_if(|c| matches!(c, '0'..='~'));
        }
    }
}

/// Skips a control sequence's parameter and intermediate bytes and its final byte. Anything
/// else ends it early and is then judged on its own.
fn skip_csi(characters: &mut Characters<'_>) {
    while characters.next_if(|c| matches!(c, '0'..='?')).is_some() {}
    while characters.next_if(|c| matches!(c, ' '..='/')).is_some() {}
    characters.next_if(|c| matches!(c, '@'..='~'));
}

/// Skips a string sequence up to and including its terminator: BEL, `ESC \` or the C1 ST.
/// An unterminated string runs to the end of the text, as a terminal would swallow it.
fn skip_string(characters: &mut Characters<'_>) {
    while let Some(character) = characters.next() {
        match character {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' => {
                characters.next_if_eq(&'\\');
                return;
            }
            _ => {}
        }
    }
}

/// Each run of whitespace as one space, without leading or trailing whitespace.
fn fold_whitespace(text: &str) -> Cow<'_, str> {
    let mut previous_space = true;
    let needs = text.chars().any(|character| {
        let space = character.is_whitespace();
        let bad = space && (previous_space || character != ' ');
        previous_space = space;
        bad
    }) || text.ends_with(char::is_whitespace);
    if !needs {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The first `limit` characters of `text`, the last replaced by [`ELLIPSIS`] when cut.
fn cap(text: &str, limit: usize) -> Cow<'_, str> {
    match text.char_indices().nth(limit) {
        None => Cow::Borrowed(text),
        Some(_) => {
            let kept = limit.saturating_sub(1);
            let end = text
                .char_indices()
                .nth(kept)
                .map_or(text.len(), |(at, _)| at);
            let mut out = String::with_capacity(end + ELLIPSIS.len_utf8());
            out.push_str(text[..end].trim_end());
            out.push(ELLIPSIS);
            Cow::Owned(out)
        }
    }
}

#[cfg(test)]
mod tests;
