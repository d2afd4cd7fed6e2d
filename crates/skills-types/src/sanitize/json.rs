//! The sanitiser over whole JSON values: what every exit through which JSON reaches an agent
//! (the MCP server's stdio and HTTP streams, the RPC dispatcher and `skills serve`, the
//! command line's `--json`) applies once, to everything it sends, so that no field — nested
//! in a tool's input schema, in a tool result's structured content, or added tomorrow — is
//! forgotten. Sanitising field by field at each call site had missed exactly those.
//!
//! Every string goes through [`block`] when its member's name is in [`MULTI_LINE_KEYS`] (a
//! body, a file's content, a run's output: their line structure is the point) and through
//! [`line()`] otherwise; every object key goes through [`key`]. An array's items take the
//! form of the member holding the array. Numbers, booleans and null pass as they are.
//!
//! One value is echoed exactly: the `id` of a JSON-RPC message ([`message`],
//! [`message_text`]). The client chose it and matches the answer by it, so changing it would
//! break the exchange; it is the client's own text, shown back to the client.
//!
//! [`json_text`] and [`message_text`] work on the JSON text itself, in one pass that keeps everything but the
//! strings it changes byte for byte (key order, spacing, numbers as written): no nesting
//! limit, so a tool's structured content nested as deep as the runtime accepts is still
//! sanitised rather than refused by a parser's depth limit, and a line with nothing to change
//! costs one scan and no allocation. [`SanitizingWriter`] is the same pass fed as the text is
//! written (`serde_json::to_writer`), for a document too large to hold twice: it writes the
//! very bytes [`json_text`] makes of the whole text, holding only the string literal a write
//! ended inside.

use std::borrow::Cow;
use std::io;

use serde_json::Value;

use super::{block, is_line_break, is_removed, key, line};

/// Members whose string values are multi-line text, sanitised with [`block`]: a skill's body,
/// a file's content, a run's output, a rendered prompt, the MCP instructions and the text
/// parts of tool results. Every other string is one line ([`line()`]): a new field is one line
/// until it is added here, which is the safe way to be wrong.
pub const MULTI_LINE_KEYS: &[&str] = &[
    "body",
    "content",
    "inline",
    "instructions",
    "markdownFormatted",
    "markdown_formatted",
    "prompt",
    "stderr",
    "stdout",
    "system_prompt",
    "text",
];

/// What a byte that is not UTF-8, or a character cut at the end, is read as.
const REPLACEMENT: &str = "\u{fffd}";

/// The member of a JSON-RPC message echoed exactly (the module documentation says why).
const ECHOED: &str = "id";

/// How a string is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    Line,
    Block,
    /// Copied as it is: the echoed `id`.
    Exact,
}

impl Form {
    /// The form of the value of member `name` of an object (a message's, or not).
    fn of_member(name: &str, is_message: bool) -> Self {
        if is_message && name == ECHOED {
            Self::Exact
        } else if MULTI_LINE_KEYS.contains(&name) {
            Self::Block
        } else {
            Self::Line
        }
    }

    /// The form of a container of this form: a JSON-RPC id is a string or a number, so
    /// anything else under `id` is not one a client could match by, and is cleaned.
    fn of_container(self) -> Self {
        match self {
            Self::Exact => Self::Line,
            other => other,
        }
    }

    fn apply(self, text: &str) -> Cow<'_, str> {
        match self {
            Self::Line => line(text),
            Self::Block => block(text),
            Self::Exact => Cow::Borrowed(text),
        }
    }
}

/// Sanitises every string and every key of `value`, in place, as the module documentation
/// says. A string outside any object (the value itself, or an item of a top-level array) is
/// multi-line text.
pub fn json(value: &mut Value) {
    walk(value, Form::Block, false);
}

/// [`json`] for a JSON-RPC message or a batch of them: the `id` of each message is echoed
/// exactly.
pub fn message(value: &mut Value) {
    match value {
        Value::Array(batch) => {
            for item in batch {
                walk(item, Form::Block, true);
            }
        }
        _ => walk(value, Form::Block, true),
    }
}

/// Sanitises `value` and what it holds. `is_message`: `value` is a JSON-RPC message, whose
/// `id` is echoed. Iterative, so no value is too deep for it.
fn walk(value: &mut Value, form: Form, is_message: bool) {
    let mut stack = vec![(value, form, is_message)];
    while let Some((value, form, is_message)) = stack.pop() {
        match value {
            Value::String(text) => {
                if let Cow::Owned(clean) = form.apply(text) {
                    *text = clean;
                }
            }
            Value::Array(items) => {
                let form = form.of_container();
                stack.extend(items.iter_mut().map(|item| (item, form, false)));
            }
            Value::Object(members) => {
                if members
                    .keys()
                    .any(|name| matches!(key(name), Cow::Owned(_)))
                {
                    *members = std::mem::take(members)
                        .into_iter()
                        .map(|(name, member)| (key(&name).into_owned(), member))
                        .collect();
                }
                stack.extend(
                    members
                        .iter_mut()
                        .map(|(name, member)| (member, Form::of_member(name, is_message), false)),
                );
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

/// JSON text sanitised like [`json`]: borrowed when nothing changes. Text that is not JSON
/// is sanitised all the same — every string literal it holds as JSON would read it, every
/// other removed character dropped — so no input, however malformed, lets an escaped control
/// through.
pub fn json_text(text: &str) -> Cow<'_, str> {
    rewrite(text, false)
}

/// A JSON-RPC message (or batch) as text, sanitised like [`message`]: borrowed when nothing
/// changes, and like [`json_text`] when it is not JSON.
pub fn message_text(text: &str) -> Cow<'_, str> {
    rewrite(text, true)
}

fn rewrite(text: &str, is_message: bool) -> Cow<'_, str> {
    let mut out = Rewritten::new(text);
    let mut scanner = Scanner::new(is_message);
    scanner.feed(text, &mut out);
    scanner.finish(&mut out);
    out.into_text()
}

/// An [`io::Write`] that sanitises the JSON text written through it as [`json_text`] (or
/// [`message_text`]) would sanitise the whole text, and writes the result to `W` as it goes:
/// `serde_json::to_writer_pretty(SanitizingWriter::new(out), value)` then
/// [`finish`](Self::finish) writes exactly the bytes of
/// `json_text(&serde_json::to_string_pretty(value)?)`, with no copy of the document held —
/// only the string literal being read, when a write ends inside one.
///
/// Call [`finish`](Self::finish) at the end: text that is not JSON can end inside a string
/// literal or a character, and only then is what is left of it written. Bytes that are not
/// UTF-8 are read as U+FFFD, as `String::from_utf8_lossy` reads them.
pub struct SanitizingWriter<W: io::Write> {
    inner: W,
    scanner: Scanner,
    /// The first bytes of a character a write ended inside.
    partial: Vec<u8>,
    /// Sanitised text not yet written to `inner` (emptied by every write).
    out: String,
}

impl<W: io::Write> SanitizingWriter<W> {
    /// A writer sanitising like [`json_text`].
    pub fn new(inner: W) -> Self {
        Self::with(inner, false)
    }

    /// A writer sanitising like [`message_text`]: the text is a JSON-RPC message or batch,
    /// whose `id` is echoed exactly.
    pub fn for_messages(inner: W) -> Self {
        Self::with(inner, true)
    }

    fn with(inner: W, is_message: bool) -> Self {
        Self {
            inner,
            scanner: Scanner::new(is_message),
            partial: Vec::new(),
            out: String::new(),
        }
    }

    /// Writes what is left (an unterminated literal, a cut character), flushes, and gives the
    /// inner writer back.
    ///
    /// # Errors
    ///
    /// The inner writer's.
    pub fn finish(mut self) -> io::Result<W> {
        if !self.partial.is_empty() {
            self.partial.clear();
            self.scanner.feed(REPLACEMENT, &mut self.out);
        }
        self.scanner.finish(&mut self.out);
        self.drain()?;
        self.inner.flush()?;
        Ok(self.inner)
    }

    /// Feeds bytes whose characters may be cut at either end.
    fn feed_bytes(&mut self, mut bytes: &[u8]) {
        // First complete the character the last write cut.
        while !self.partial.is_empty() && !bytes.is_empty() {
            let width = utf8_width(self.partial[0]);
            let take = width.saturating_sub(self.partial.len()).min(bytes.len());
            self.partial.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.partial.len() < width {
                return;
            }
            let character = std::mem::take(&mut self.partial);
            self.feed_whole(&character);
        }
        self.feed_whole(bytes);
    }

    /// Feeds bytes that start at a character; a character cut at the end is kept for the
    /// next write.
    fn feed_whole(&mut self, mut bytes: &[u8]) {
        loop {
            match std::str::from_utf8(bytes) {
                Ok(text) => {
                    self.scanner.feed(text, &mut self.out);
                    return;
                }
                Err(error) => {
                    let (valid, rest) = bytes.split_at(error.valid_up_to());
                    if let Ok(text) = std::str::from_utf8(valid) {
                        self.scanner.feed(text, &mut self.out);
                    }
                    match error.error_len() {
                        None => {
                            self.partial.extend_from_slice(rest);
                            return;
                        }
                        Some(invalid) => {
                            self.scanner.feed(REPLACEMENT, &mut self.out);
                            bytes = &rest[invalid..];
                        }
                    }
                }
            }
        }
    }

    fn drain(&mut self) -> io::Result<()> {
        if !self.out.is_empty() {
            self.inner.write_all(self.out.as_bytes())?;
            self.out.clear();
        }
        Ok(())
    }
}

impl<W: io::Write> io::Write for SanitizingWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.feed_bytes(bytes);
        self.drain()?;
        Ok(bytes.len())
    }

    /// Flushes what is sanitised; a literal still open stays held (it may yet be changed).
    fn flush(&mut self) -> io::Result<()> {
        self.drain()?;
        self.inner.flush()
    }
}

/// The byte length of the UTF-8 character whose first byte is `lead` (1 for a byte that
/// starts none, which the decoder then reads as U+FFFD).
fn utf8_width(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// Where the scanner's output goes.
trait Sink {
    fn push_str(&mut self, text: &str);
}

impl Sink for String {
    fn push_str(&mut self, text: &str) {
        String::push_str(self, text);
    }
}

/// The output of [`json_text`]: nothing but a position in the input while the output is the
/// same as the input so far, so text with nothing to change costs one scan and no allocation.
struct Rewritten<'a> {
    input: &'a str,
    /// How much of `input` the output has repeated, while `changed` is `None`.
    same: usize,
    changed: Option<String>,
}

impl<'a> Rewritten<'a> {
    fn new(input: &'a str) -> Self {
        Self {
            input,
            same: 0,
            changed: None,
        }
    }

    fn into_text(self) -> Cow<'a, str> {
        match self.changed {
            Some(text) => Cow::Owned(text),
            None if self.same == self.input.len() => Cow::Borrowed(self.input),
            // Something was dropped at the very end.
            None => Cow::Borrowed(&self.input[..self.same]),
        }
    }
}

impl Sink for Rewritten<'_> {
    fn push_str(&mut self, text: &str) {
        if let Some(changed) = &mut self.changed {
            changed.push_str(text);
        } else if self.input[self.same..].starts_with(text) {
            self.same += text.len();
        } else {
            let mut changed = String::with_capacity(self.input.len());
            changed.push_str(&self.input[..self.same]);
            changed.push_str(text);
            self.changed = Some(changed);
        }
    }
}

/// Where the scanner is: inside an object (expecting a key, or in the value of a member of
/// form `member`), or inside an array whose items take `form`.
#[derive(Clone, Copy, Debug)]
enum Frame {
    Object {
        member: Form,
        expecting_key: bool,
        is_message: bool,
    },
    Array {
        form: Form,
        is_batch: bool,
    },
}

/// The one pass over JSON text that [`json_text`], [`message_text`] and [`SanitizingWriter`]
/// share: it copies all but the string literals it changes, and can be fed the text in pieces
/// cut anywhere between two characters.
struct Scanner {
    stack: Vec<Frame>,
    /// The text is a JSON-RPC message or batch.
    is_message: bool,
    /// Inside a string literal that an earlier piece began: what of it was read.
    literal: Option<Literal>,
}

/// The part of a string literal read so far (after its opening quote).
struct Literal {
    raw: String,
    /// The last byte read escapes the next one.
    escaped: bool,
}

impl Scanner {
    fn new(is_message: bool) -> Self {
        Self {
            stack: Vec::new(),
            is_message,
            literal: None,
        }
    }

    /// The form of a container starting here, and whether an object starting here is a
    /// message.
    fn container_form(&self) -> (Form, bool) {
        let (form, is_message) = self.value_form();
        (form.of_container(), is_message)
    }

    /// The form of a value starting here, and whether an object starting here is a message.
    fn value_form(&self) -> (Form, bool) {
        match self.stack.last() {
            None => (Form::Block, self.is_message),
            Some(Frame::Array { form, is_batch }) => (*form, *is_batch),
            Some(Frame::Object { member, .. }) => (*member, false),
        }
    }

    /// Reads the next piece of the text.
    fn feed(&mut self, text: &str, out: &mut impl Sink) {
        let bytes = text.as_bytes();
        let mut at = 0;
        if let Some(mut literal) = self.literal.take() {
            match literal_end(bytes, 0, &mut literal.escaped) {
                Some(end) => {
                    literal.raw.push_str(&text[..end]);
                    self.string(&literal.raw, out);
                    at = end + 1;
                }
                None => {
                    literal.raw.push_str(text);
                    self.literal = Some(literal);
                    return;
                }
            }
        }
        while at < bytes.len() {
            // A run of characters copied as they are, in one piece.
            let run = bytes[at..]
                .iter()
                .position(|&byte| !is_copied_byte(byte))
                .map_or(bytes.len(), |length| at + length);
            if run > at {
                out.push_str(&text[at..run]);
                at = run;
                continue;
            }
            let Some(character) = text[at..].chars().next() else {
                break;
            };
            match character {
                '"' => {
                    let mut escaped = false;
                    match literal_end(bytes, at + 1, &mut escaped) {
                        Some(end) => {
                            self.string(&text[at + 1..end], out);
                            at = end + 1;
                        }
                        None => {
                            self.literal = Some(Literal {
                                raw: text[at + 1..].to_owned(),
                                escaped,
                            });
                            return;
                        }
                    }
                    continue;
                }
                '{' => {
                    let (form, is_message) = self.container_form();
                    self.stack.push(Frame::Object {
                        member: form,
                        expecting_key: true,
                        is_message,
                    });
                }
                '[' => {
                    let (form, _) = self.container_form();
                    let is_batch = self.is_message && self.stack.is_empty();
                    self.stack.push(Frame::Array { form, is_batch });
                }
                '}' | ']' => {
                    self.stack.pop();
                }
                ',' => {
                    if let Some(Frame::Object { expecting_key, .. }) = self.stack.last_mut() {
                        *expecting_key = true;
                    }
                }
                // JSON's own whitespace between tokens; any other removed character can only
                // be here in text that is not JSON, and is dropped.
                ' ' | '\n' | '\r' | '\t' => {}
                _ if is_removed(character) || is_line_break(character) => {
                    at += character.len_utf8();
                    continue;
                }
                _ => {}
            }
            let next = at + character.len_utf8();
            out.push_str(&text[at..next]);
            at = next;
        }
    }

    /// Ends the text: a string literal left open is written, closed.
    fn finish(&mut self, out: &mut impl Sink) {
        if let Some(literal) = self.literal.take() {
            self.string(&literal.raw, out);
        }
    }

    /// A string literal whose inside is `raw`: a key or a value, sanitised by its form.
    fn string(&mut self, raw: &str, out: &mut impl Sink) {
        let decoded = decode(raw);
        let text = match self.stack.last_mut() {
            Some(Frame::Object {
                member,
                expecting_key,
                is_message,
            }) if *expecting_key => {
                *expecting_key = false;
                let name = match key(&decoded) {
                    Cow::Borrowed(_) => decoded,
                    Cow::Owned(clean) => Cow::Owned(clean),
                };
                *member = Form::of_member(&name, *is_message);
                name
            }
            _ => {
                let (form, _) = self.value_form();
                match form.apply(&decoded) {
                    Cow::Borrowed(_) => decoded,
                    Cow::Owned(clean) => Cow::Owned(clean),
                }
            }
        };
        // The literal as it was when `text` is what it decodes to, else `text` encoded anew.
        match text {
            Cow::Borrowed(_) => {
                out.push_str("\"");
                out.push_str(raw);
                out.push_str("\"");
            }
            Cow::Owned(text) => out.push_str(&encode(&text)),
        }
    }
}

/// Whether a byte outside string literals is copied without a look at its character: printable
/// ASCII but for the quote and the brackets, braces and comma that move the scanner.
fn is_copied_byte(byte: u8) -> bool {
    matches!(byte, b' '..=b'~') && !matches!(byte, b'"' | b'{' | b'}' | b'[' | b']' | b',')
}

/// Where the string literal whose inside starts at `from` ends (its closing quote), or `None`
/// when it does not end in `bytes`. `escaped`: the byte at `from` is escaped; on `None`, whether
/// the byte after `bytes` is.
fn literal_end(bytes: &[u8], from: usize, escaped: &mut bool) -> Option<usize> {
    let mut at = from;
    if std::mem::take(escaped) {
        at += 1;
    }
    while let Some(offset) = bytes
        .get(at..)
        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
    {
        let found = at + offset;
        if bytes.get(found) == Some(&b'"') {
            return Some(found);
        }
        at = found + 2;
    }
    at = at.max(bytes.len());
    // A backslash as the last byte escapes the first byte of the next piece.
    *escaped = at > bytes.len();
    None
}
/// What the inside of a string literal says, its escapes decoded; borrowed when it has none.
/// An escape that is not JSON's, or a lone surrogate, becomes U+FFFD.
fn decode(raw: &str) -> Cow<'_, str> {
    if !raw.contains('\\') {
        return Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut characters = raw.chars();
    while let Some(character) = characters.next() {
        if character != '\\' {
            out.push(character);
            continue;
        }
        match characters.next() {
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some('/') => out.push('/'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('u') => out.push(unicode_escape(&mut characters)),
            _ => out.push(char::REPLACEMENT_CHARACTER),
        }
    }
    Cow::Owned(out)
}

/// The character of a `\uXXXX` escape whose `\u` was just read, with the low half of a
/// surrogate pair when one follows.
fn unicode_escape(characters: &mut std::str::Chars<'_>) -> char {
    let Some(first) = hex4(characters) else {
        return char::REPLACEMENT_CHARACTER;
    };
    if !(0xD800..0xDC00).contains(&first) {
        return char::from_u32(first).unwrap_or(char::REPLACEMENT_CHARACTER);
    }
    let mut ahead = characters.clone();
    if ahead.next() == Some('\\')
        && ahead.next() == Some('u')
        && let Some(second) = hex4(&mut ahead).filter(|low| (0xDC00..0xE000).contains(low))
    {
        *characters = ahead;
        let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
        return char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
    }
    char::REPLACEMENT_CHARACTER
}

fn hex4(characters: &mut std::str::Chars<'_>) -> Option<u32> {
    let mut code = 0;
    for _ in 0..4 {
        code = code * 16 + characters.next()?.to_digit(16)?;
    }
    Some(code)
}

/// `text` as a JSON string literal, quotes included: `"` and `\` escaped, and every control
/// character (only line feeds, tabs and the CR of a CRLF pair are left by then) escaped too.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            control if u32::from(control) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", u32::from(control)));
            }
            other => out.push(other),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests;
