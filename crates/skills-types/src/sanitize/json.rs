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
//! costs one scan and no allocation.

use std::borrow::Cow;

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
    if is_plain_json(text) {
        return Cow::Borrowed(text);
    }
    let rewritten = Scanner::new(text, is_message).rewrite();
    if rewritten == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(rewritten)
    }
}

/// Whether `text` certainly holds nothing to change: no escape, and no character either form
/// changes but JSON's own whitespace between tokens (inside a string, JSON writes those as
/// escapes). Listings of thousands of skills pass here in one scan.
fn is_plain_json(text: &str) -> bool {
    text.chars().all(|character| {
        if character.is_ascii() {
            matches!(character, ' '..='~' | '\n' | '\r' | '\t') && character != '\\'
        } else {
            !is_removed(character) && !is_line_break(character)
        }
    })
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

/// One pass over JSON text, copying all but the string literals it changes.
struct Scanner<'a> {
    text: &'a str,
    at: usize,
    out: String,
    stack: Vec<Frame>,
    /// The text is a JSON-RPC message or batch.
    is_message: bool,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str, is_message: bool) -> Self {
        Self {
            text,
            at: 0,
            out: String::with_capacity(text.len()),
            stack: Vec::new(),
            is_message,
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

    fn rewrite(mut self) -> String {
        while let Some(character) = self.text[self.at..].chars().next() {
            match character {
                '"' => self.string(),
                '{' => {
                    let (form, is_message) = self.container_form();
                    self.stack.push(Frame::Object {
                        member: form,
                        expecting_key: true,
                        is_message,
                    });
                    self.copy(character);
                }
                '[' => {
                    let (form, _) = self.container_form();
                    let is_batch = self.is_message && self.stack.is_empty();
                    self.stack.push(Frame::Array { form, is_batch });
                    self.copy(character);
                }
                '}' | ']' => {
                    self.stack.pop();
                    self.copy(character);
                }
                ',' => {
                    if let Some(Frame::Object { expecting_key, .. }) = self.stack.last_mut() {
                        *expecting_key = true;
                    }
                    self.copy(character);
                }
                // JSON's own whitespace between tokens; any other removed character can only
                // be here in text that is not JSON, and is dropped.
                ' ' | '\n' | '\r' | '\t' => self.copy(character),
                _ if is_removed(character) || is_line_break(character) => {
                    self.at += character.len_utf8();
                }
                _ => self.copy(character),
            }
        }
        self.out
    }

    fn copy(&mut self, character: char) {
        self.out.push(character);
        self.at += character.len_utf8();
    }

    /// A string literal at `self.at`: a key or a value, sanitised by its form.
    fn string(&mut self) {
        let (raw, end) = literal(self.text, self.at);
        self.at = end;
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
        self.emit(raw, text);
    }

    /// Writes the literal `raw` as it was when `text` is what it decodes to, else `text`
    /// encoded anew.
    fn emit(&mut self, raw: &str, text: Cow<'_, str>) {
        match text {
            Cow::Borrowed(_) => {
                self.out.push('"');
                self.out.push_str(raw);
                self.out.push('"');
            }
            Cow::Owned(text) => encode(&text, &mut self.out),
        }
    }
}

/// The inside of the string literal whose opening quote is at `start`, and where the literal
/// ends (after its closing quote, or at the end of an unterminated one).
fn literal(text: &str, start: usize) -> (&str, usize) {
    let body = start + 1;
    let bytes = text.as_bytes();
    let mut at = body;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => return (&text[body..at], at + 1),
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
    // An escape at the very end may step past it; never split the text.
    (&text[body..], text.len())
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
fn encode(text: &str, out: &mut String) {
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
}

#[cfg(test)]
mod tests;
