//! The fast path of [`super::parse`]: a parser for the few frontmatter shapes nearly every skill
//! is written in, which answers `None` for anything else so that the full YAML parser takes over.
//!
//! A listing parses thousands of frontmatters, and libyaml (event by event, through serde, twice
//! when a scalar is typed) is most of the cost of a cold listing. What nearly every skill writes is
//! a block mapping of one-line values, a folded or literal description, a small `metadata` map
//! and a list or two. Those are read here, line by line, into the same [`Node`] tree.
//!
//! The rule that keeps it safe is that it never decides anything the full parser could decide
//! differently: whatever is not plainly inside the subset (a tab, a comment, a `\r`, an anchor,
//! a tag, a flow mapping, an escape other than `\"` and `\\`, a plain scalar that might continue
//! on the next line, a duplicate key, a key that is not a plain word, an unusual character)
//! makes it give up, never guess, and it never reports an error of its own: every diagnostic
//! still comes from the full parser. The differential tests in `yaml::tests` and the property
//! test check both parsers give the same tree for the shapes it accepts, and that it declines
//! the rest.

use super::{Node, Scalar, ScalarKind};

/// Collections nested deeper than this are left to the full parser (which has the real limit).
const MAX_DEPTH: usize = 4;

/// Entries (keys and items) beyond this are left to the full parser, which keeps the budgets.
const MAX_ENTRIES: usize = 512;

/// The tree of `text`, when it is a block mapping in the subset; `None` otherwise.
pub(super) fn parse(text: &str) -> Option<Node> {
    // Text ending mid-line ends a block scalar without its line break: left to the full parser.
    if !text.ends_with('\n') || !plain_characters(text) {
        return None;
    }
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    let mut parser = Parser {
        lines,
        at: 0,
        entries: 0,
    };
    parser.skip_blank();
    if parser.at == parser.lines.len() {
        // Empty or blank: the caller's rule for an empty document is the full parser's.
        return None;
    }
    let entries = parser.mapping(0, 0)?;
    parser.skip_blank();
    (parser.at == parser.lines.len()).then_some(Node::Mapping(entries))
}

/// No character the subset leaves to libyaml: controls (tabs and `\r` included), the non-ASCII
/// line breaks (NEL, LS, PS), the byte-order mark and the non-characters YAML refuses.
fn plain_characters(text: &str) -> bool {
    if text.is_ascii() {
        return text
            .bytes()
            .all(|byte| byte == b'\n' || (b' '..=b'~').contains(&byte));
    }
    text.chars().all(|c| match c {
        '\n' => true,
        c if c.is_ascii() => (' '..='~').contains(&c),
        '\u{80}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}' => {
            false
        }
        '\u{e000}'..='\u{fffd}' | '\u{10000}'..='\u{10ffff}' | '\u{a0}'..='\u{d7ff}' => true,
        _ => false,
    })
}

struct Parser<'a> {
    lines: Vec<&'a str>,
    at: usize,
    /// Keys and items read so far, bounded by [`MAX_ENTRIES`].
    entries: usize,
}

/// The number of leading spaces.
fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank(line: &str) -> bool {
    line.bytes().all(|byte| byte == b' ')
}

impl<'a> Parser<'a> {
    fn skip_blank(&mut self) {
        while self.lines.get(self.at).is_some_and(|line| is_blank(line)) {
            self.at += 1;
        }
    }

    /// The indentation of the next line that is not blank, without consuming anything.
    fn next_indent(&self) -> Option<usize> {
        self.lines[self.at..]
            .iter()
            .find(|line| !is_blank(line))
            .map(|line| indent_of(line))
    }

    fn count(&mut self) -> Option<()> {
        self.entries += 1;
        (self.entries <= MAX_ENTRIES).then_some(())
    }

    /// A block mapping whose keys sit at column `indent`, from the current line (not blank).
    fn mapping(&mut self, indent: usize, depth: usize) -> Option<Vec<(String, Node)>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut entries: Vec<(String, Node)> = Vec::new();
        loop {
            self.skip_blank();
            let Some(line) = self.lines.get(self.at).copied() else {
                break;
            };
            let column = indent_of(line);
            if column < indent {
                break;
            }
            if column > indent {
                return None;
            }
            let (key, rest) = split_key(&line[indent..])?;
            if entries.iter().any(|(seen, _)| seen == key) {
                return None;
            }
            self.count()?;
            self.at += 1;
            let value = self.value(rest, indent, depth)?;
            entries.push((key.to_owned(), value));
        }
        Some(entries)
    }

    /// The value after `key:` (`rest` is what follows the colon) of a key at column `indent`.
    fn value(&mut self, rest: &str, indent: usize, depth: usize) -> Option<Node> {
        if rest.is_empty() || is_blank(rest) {
            return self.nested(indent, depth);
        }
        let value = rest.strip_prefix(' ')?.trim_start_matches(' ');
        let node = match value.as_bytes()[0] {
            b'|' | b'>' => return self.block_scalar(value, indent),
            b'[' => flow_sequence(value)?,
            b'"' => string(double_quoted(value)?),
            b'\'' => string(single_quoted(value)?),
            _ => plain(value)?,
        };
        // A plain scalar continues on a more indented line; a quoted one would too (folded).
        if self.next_indent().is_some_and(|next| next > indent) {
            return None;
        }
        Some(node)
    }

    /// What follows `key:` at the end of its line: a mapping or a list on the lines below, or
    /// nothing (null).
    fn nested(&mut self, indent: usize, depth: usize) -> Option<Node> {
        self.skip_blank();
        let line = self.lines.get(self.at).copied()?;
        let column = indent_of(line);
        let item = line[column..].starts_with("- ") || &line[column..] == "-";
        if item && column >= indent {
            return self.sequence(column, depth + 1);
        }
        if column > indent {
            let entries = self.mapping(column, depth + 1)?;
            return Some(Node::Mapping(entries));
        }
        // `key:` with nothing below: the full parser knows the text of an empty null.
        None
    }

    /// A block sequence of scalars whose `-` sit at column `indent`.
    fn sequence(&mut self, indent: usize, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut items = Vec::new();
        loop {
            self.skip_blank();
            let Some(line) = self.lines.get(self.at).copied() else {
                break;
            };
            let column = indent_of(line);
            if column < indent || !line[column..].starts_with('-') {
                // A key at the sequence's own column ends it (`key:\n- a\nnext: b`).
                break;
            }
            if column > indent {
                return None;
            }
            let item = line[column..].strip_prefix("- ")?.trim_start_matches(' ');
            self.count()?;
            self.at += 1;
            let node = match item.as_bytes().first()? {
                b'"' => string(double_quoted(item)?),
                b'\'' => string(single_quoted(item)?),
                _ => plain(item)?,
            };
            if self.next_indent().is_some_and(|next| next > indent) {
                return None;
            }
            items.push(node);
        }
        Some(Node::Sequence(items))
    }

    /// A literal (`|`) or folded (`>`) block scalar whose header is `header`, for a key at
    /// column `indent`. Every content line must sit at exactly the indentation of the first, and
    /// lines between them be empty: more indented lines fold differently, so they are left to
    /// the full parser.
    fn block_scalar(&mut self, header: &str, indent: usize) -> Option<Node> {
        let folded = header.starts_with('>');
        let chomp = match header[1..].trim_end_matches(' ') {
            "" => Chomp::Clip,
            "-" => Chomp::Strip,
            "+" => Chomp::Keep,
            _ => return None,
        };
        let first = self.lines.get(self.at).copied()?;
        let content_indent = indent_of(first);
        if is_blank(first) || content_indent <= indent {
            return None;
        }
        let mut text = String::new();
        // Empty lines met since the last content line.
        let mut empties = 0usize;
        let mut any = false;
        while let Some(line) = self.lines.get(self.at).copied() {
            if line.is_empty() {
                empties += 1;
                self.at += 1;
                continue;
            }
            let column = indent_of(line);
            if column < content_indent {
                if column > indent || is_blank(line) {
                    return None;
                }
                break;
            }
            // Trailing spaces are content, kept or folded by rules not worth repeating here.
            if column > content_indent || line.len() == column || line.ends_with(' ') {
                return None;
            }
            if any {
                if folded && empties == 0 {
                    text.push(' ');
                } else {
                    let breaks = if folded { empties } else { empties + 1 };
                    text.extend(std::iter::repeat_n('\n', breaks));
                }
            }
            text.push_str(&line[content_indent..]);
            any = true;
            empties = 0;
            self.at += 1;
        }
        // A block scalar ending the document has its trailing empty lines counted up to the end
        // of the text, which the split lines no longer show exactly: left to the full parser.
        if self.at == self.lines.len() && chomp == Chomp::Keep {
            return None;
        }
        match chomp {
            Chomp::Strip => {}
            Chomp::Clip => text.push('\n'),
            Chomp::Keep => text.extend(std::iter::repeat_n('\n', empties + 1)),
        }
        Some(string(text))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Chomp {
    Clip,
    Strip,
    Keep,
}

/// `key: rest` or `key:` at the start of `line`, with the key a plain word.
fn split_key(line: &str) -> Option<(&str, &str)> {
    let end = line.find(':')?;
    let key = &line[..end];
    let first = key.bytes().next()?;
    let word = first.is_ascii_alphabetic()
        && key
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_');
    word.then_some((key, &line[end + 1..]))
}

fn string(text: String) -> Node {
    Node::Scalar(Scalar {
        text,
        kind: ScalarKind::String,
    })
}

/// A plain scalar on one line in block context, with the type YAML's core schema gives it.
fn plain(value: &str) -> Option<Node> {
    let text = value.trim_end_matches(' ');
    let first = text.bytes().next()?;
    // Indicators that start something else (an anchor, a tag, a flow collection, a directive,
    // a reserved character), or a plain scalar with rules of its own (`-x`, `?x`, `:x`).
    if b"-?:,[]{}#&*!|>'\"%@`".contains(&first) {
        return None;
    }
    // `: ` would start a mapping and ` #` a comment; a trailing `:` is a mapping too.
    if text.contains(": ") || text.contains(" #") || text.ends_with(':') {
        return None;
    }
    let kind = resolve(text)?;
    Some(Node::Scalar(Scalar {
        text: text.to_owned(),
        kind,
    }))
}

/// The type of a plain scalar under the rules of serde_yaml (the YAML 1.2 core schema, with
/// its own reading of numbers). Text that starts like a number and is not plainly an integer
/// or a decimal fraction is left to the full parser.
fn resolve(text: &str) -> Option<ScalarKind> {
    match text {
        "null" | "Null" | "NULL" | "~" => return Some(ScalarKind::Null),
        "true" | "True" | "TRUE" => return Some(ScalarKind::Bool(true)),
        "false" | "False" | "FALSE" => return Some(ScalarKind::Bool(false)),
        _ => {}
    }
    let first = text.as_bytes()[0];
    if !(first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'.')) {
        return Some(ScalarKind::String);
    }
    // Only digits, with at most one dot between digits: `2`, `1.0`, `0.12`, `10`.
    let (whole, fraction) = match text.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (text, None),
    };
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit());
    if !digits(whole) || fraction.is_some_and(|fraction| !digits(fraction)) {
        return None;
    }
    match fraction {
        None if whole.len() > 1 && whole.starts_with('0') => Some(ScalarKind::String),
        None => whole
            .parse::<u64>()
            .ok()
            .map(|n| ScalarKind::Integer(n.into())),
        Some(_) => text
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
            .map(ScalarKind::Float),
    }
}

/// The text of a `"…"` scalar closed on its line with nothing after it but spaces; only `\"`
/// and `\\` are taken as escapes, any other makes it decline.
fn double_quoted(value: &str) -> Option<String> {
    let mut text = String::new();
    let mut chars = value[1..].char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return is_blank(&value[1 + at + 1..]).then_some(text),
            '\\' => match chars.next()?.1 {
                escaped @ ('"' | '\\') => text.push(escaped),
                _ => return None,
            },
            c => text.push(c),
        }
    }
    None
}

/// The text of a `'…'` scalar closed on its line with nothing after it but spaces (`''` is a
/// quote).
fn single_quoted(value: &str) -> Option<String> {
    let mut text = String::new();
    let mut rest = &value[1..];
    loop {
        let end = rest.find('\'')?;
        text.push_str(&rest[..end]);
        rest = &rest[end + 1..];
        match rest.strip_prefix('\'') {
            Some(after) => {
                text.push('\'');
                rest = after;
            }
            None => return is_blank(rest).then_some(text),
        }
    }
}

/// `[a, b, "c"]` on one line: plain items of word characters, or quoted ones.
fn flow_sequence(value: &str) -> Option<Node> {
    let inner = value
        .trim_end_matches(' ')
        .strip_prefix('[')?
        .strip_suffix(']')?;
    if is_blank(inner) {
        return Some(Node::Sequence(Vec::new()));
    }
    let mut items = Vec::new();
    for item in inner.split(',') {
        let item = item.trim_matches(' ');
        let node = match item.as_bytes().first()? {
            b'"' | b'\'' if item.contains(['[', ']', '{', '}', ',']) => return None,
            b'"' => string(double_quoted(item)?),
            b'\'' => string(single_quoted(item)?),
            _ => {
                let word = item.bytes().all(|byte| {
                    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'/')
                });
                if !word {
                    return None;
                }
                plain(item)?
            }
        };
        items.push(node);
    }
    Some(Node::Sequence(items))
}
