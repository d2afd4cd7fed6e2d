//! The parser of the YARA subset: rule file text to [`RuleDecl`]s, or the first error with
//! its line and the construct at fault.
//!
//! It reads the text directly (no separate lexer): YARA's `{` opens both a rule body and a
//! hex string and `/` both a comment and a regular expression, and which one is meant
//! depends on where the parser is. Anything outside the subset is an error naming the
//! construct, never skipped: a rule that silently lost a condition would match what its
//! author never meant, or nothing at all.

use super::Error;
use super::ast::{
    Comparison, Expr, HexToken, Int, Meta, MetaValue, Modifiers, Pattern, Quantifier, RuleDecl,
    StringDecl,
};

/// The longest identifier accepted (YARA's own limit).
const IDENTIFIER_BYTES: usize = 128;

/// How deep conditions and hex alternatives may nest: a bound on the parser's recursion.
const NESTING: usize = 64;

/// Words that cannot name a rule: YARA's keywords.
const KEYWORDS: &[&str] = &[
    "all",
    "and",
    "any",
    "ascii",
    "at",
    "base64",
    "base64wide",
    "condition",
    "contains",
    "defined",
    "endswith",
    "entrypoint",
    "false",
    "filesize",
    "for",
    "fullword",
    "global",
    "icontains",
    "iendswith",
    "iequals",
    "import",
    "in",
    "include",
    "istartswith",
    "matches",
    "meta",
    "nocase",
    "none",
    "not",
    "of",
    "or",
    "private",
    "rule",
    "startswith",
    "strings",
    "them",
    "true",
    "wide",
    "with",
    "xor",
];

/// Parses the rule file `file` (its name, for errors) holding `text`.
pub(crate) fn parse(file: &str, text: &str) -> Result<Vec<RuleDecl>, Error> {
    let mut parser = Parser {
        file,
        text,
        at: 0,
        depth: 0,
    };
    let mut rules: Vec<RuleDecl> = Vec::new();
    loop {
        parser.trivia()?;
        if parser.at >= text.len() {
            return Ok(rules);
        }
        let start = parser.at;
        let word = parser.word();
        match word {
            "rule" => {
                let rule = parser.rule(start)?;
                if let Some(first) = rules.iter().find(|other| other.name == rule.name) {
                    return Err(parser.error_at(
                        start,
                        format!(
                            "the rule `{}` is defined twice (first at line {})",
                            rule.name, first.line
                        ),
                    ));
                }
                rules.push(rule);
            }
            "import" => {
                return Err(parser.error_at(
                    start,
                    "`import`: YARA modules (pe, elf, math, hash, ...) are not in the supported \
                     subset; write the condition with strings, `filesize` and `uint16(0)`-style \
                     reads instead",
                ));
            }
            "include" => {
                return Err(parser.error_at(
                    start,
                    "`include`: rule files are read one by one from the rule folders; put the \
                     included file in the folder instead",
                ));
            }
            "private" | "global" => {
                return Err(parser.error_at(
                    start,
                    format!("`{word} rule`: rule modifiers are not in the supported subset"),
                ));
            }
            "" => {
                return Err(parser.error_at(
                    start,
                    format!("unexpected {}: expected `rule`", parser.describe_here()),
                ));
            }
            other => {
                return Err(parser.error_at(start, format!("expected `rule`, found `{other}`")));
            }
        }
    }
}

struct Parser<'a> {
    file: &'a str,
    text: &'a str,
    /// Byte offset of the next unread character.
    at: usize,
    /// Current nesting of parentheses and hex alternatives.
    depth: usize,
}

/// The strings of the rule being parsed, for resolving the condition's names.
struct StringNames<'n> {
    names: Vec<&'n str>,
    used: Vec<bool>,
}

impl<'a> Parser<'a> {
    fn error_at(&self, at: usize, message: impl Into<String>) -> Error {
        let line = self.text.as_bytes()[..at.min(self.text.len())]
            .iter()
            .filter(|&&byte| byte == b'\n')
            .count()
            + 1;
        Error {
            file: self.file.to_owned(),
            line,
            message: message.into(),
        }
    }

    fn error(&self, message: impl Into<String>) -> Error {
        self.error_at(self.at, message)
    }

    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.text.as_bytes().get(self.at + ahead).copied()
    }

    /// What is at the current position, for an error message.
    fn describe_here(&self) -> String {
        match self.rest().chars().next() {
            None => "end of file".to_owned(),
            Some(character) => format!("`{character}`"),
        }
    }

    /// Skips whitespace and comments.
    fn trivia(&mut self) -> Result<(), Error> {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start_matches([' ', '\t', '\r', '\n', '\u{c}', '\u{b}']);
            self.at += rest.len() - trimmed.len();
            if trimmed.starts_with("//") {
                self.at += trimmed.find('\n').unwrap_or(trimmed.len());
            } else if let Some(comment) = trimmed.strip_prefix("/*") {
                let Some(end) = comment.find("*/") else {
                    return Err(self.error("a `/*` comment is never closed with `*/`"));
                };
                self.at += end + 4;
            } else {
                return Ok(());
            }
        }
    }

    /// The identifier at the current position (empty when there is none), consumed.
    fn word(&mut self) -> &'a str {
        let rest = self.rest();
        let length = rest
            .bytes()
            .take_while(|byte| byte.is_ascii_alphanumeric() || *byte == b'_')
            .count();
        self.at += length;
        &rest[..length]
    }

    /// The identifier at the current position, not consumed.
    fn peek_word(&self) -> &'a str {
        let rest = self.rest();
        let length = rest
            .bytes()
            .take_while(|byte| byte.is_ascii_alphanumeric() || *byte == b'_')
            .count();
        &rest[..length]
    }

    /// Consumes `keyword` when it is the next word.
    fn eat_keyword(&mut self, keyword: &str) -> Result<bool, Error> {
        self.trivia()?;
        if self.peek_word() == keyword {
            self.at += keyword.len();
            return Ok(true);
        }
        Ok(false)
    }

    /// Consumes the punctuation `token` when it is next.
    fn eat(&mut self, token: &str) -> Result<bool, Error> {
        self.trivia()?;
        if self.rest().starts_with(token) {
            self.at += token.len();
            return Ok(true);
        }
        Ok(false)
    }

    fn expect(&mut self, token: &str, context: &str) -> Result<(), Error> {
        if self.eat(token)? {
            return Ok(());
        }
        Err(self.error(format!(
            "expected `{token}` {context}, found {}",
            self.describe_here()
        )))
    }

    /// An identifier: a letter or `_`, then letters, digits or `_`, at most
    /// [`IDENTIFIER_BYTES`].
    fn identifier(&mut self, what: &str) -> Result<&'a str, Error> {
        self.trivia()?;
        let start = self.at;
        if self.peek().is_some_and(|byte| byte.is_ascii_digit()) {
            return Err(self.error(format!("{what} cannot start with a digit")));
        }
        let word = self.word();
        if word.is_empty() {
            return Err(self.error_at(
                start,
                format!("expected {what}, found {}", self.describe_here()),
            ));
        }
        if word.len() > IDENTIFIER_BYTES {
            return Err(self.error_at(
                start,
                format!("{what} is longer than {IDENTIFIER_BYTES} characters"),
            ));
        }
        Ok(word)
    }

    fn nest(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > NESTING {
            return Err(self.error(format!("nested more than {NESTING} levels deep")));
        }
        Ok(())
    }

    /// After the `rule` keyword at `start`.
    fn rule(&mut self, start: usize) -> Result<RuleDecl, Error> {
        let line = self.error_at(start, "").line;
        let name_at = {
            self.trivia()?;
            self.at
        };
        let name = self.identifier("a rule name")?.to_owned();
        if KEYWORDS.contains(&name.as_str()) {
            return Err(self.error_at(
                name_at,
                format!("`{name}` is a keyword and cannot name a rule"),
            ));
        }
        let mut tags: Vec<String> = Vec::new();
        if self.eat(":")? {
            loop {
                self.trivia()?;
                if self.peek() == Some(b'{') {
                    break;
                }
                let tag = self.identifier("a tag")?.to_owned();
                if tags.contains(&tag) {
                    return Err(self.error(format!("the tag `{tag}` is given twice")));
                }
                tags.push(tag);
            }
            if tags.is_empty() {
                return Err(self.error("expected a tag after `:`"));
            }
        }
        self.expect("{", &format!("to open the rule `{name}`"))?;
        let meta = if self.eat_keyword("meta")? {
            self.expect(":", "after `meta`")?;
            self.meta()?
        } else {
            Vec::new()
        };
        let strings = if self.eat_keyword("strings")? {
            self.expect(":", "after `strings`")?;
            let strings = self.strings()?;
            if strings.is_empty() {
                return Err(self.error("the `strings:` section is empty"));
            }
            strings
        } else {
            Vec::new()
        };
        if !self.eat_keyword("condition")? {
            return Err(self.error(format!(
                "expected `condition:` in the rule `{name}`, found {}",
                self.describe_word_here()
            )));
        }
        self.expect(":", "after `condition`")?;
        let mut names = StringNames {
            names: strings.iter().map(|string| string.name.as_str()).collect(),
            used: vec![false; strings.len()],
        };
        let condition = self.or(&mut names)?;
        self.expect("}", &format!("to close the rule `{name}`"))?;
        if let Some(unused) = names.used.iter().position(|used| !used) {
            let string = &strings[unused];
            return Err(Error {
                file: self.file.to_owned(),
                line: string.line,
                message: format!(
                    "the string `${}` is not used in the condition (YARA refuses unreferenced strings)",
                    string.name
                ),
            });
        }
        Ok(RuleDecl {
            name,
            line,
            tags,
            meta,
            strings,
            condition,
        })
    }

    /// What is here, a word when there is one.
    fn describe_word_here(&self) -> String {
        let word = self.peek_word();
        if word.is_empty() {
            self.describe_here()
        } else {
            format!("`{word}`")
        }
    }

    fn meta(&mut self) -> Result<Vec<Meta>, Error> {
        let mut meta = Vec::new();
        loop {
            self.trivia()?;
            let word = self.peek_word();
            if word == "strings" || word == "condition" || word.is_empty() {
                return Ok(meta);
            }
            let line = self.error("").line;
            let key = self.identifier("a meta key")?.to_owned();
            self.expect("=", &format!("after the meta key `{key}`"))?;
            self.trivia()?;
            let value = match self.peek() {
                Some(b'"') => {
                    // `\xHH` escapes may make bytes that are not UTF-8, which YARA allows;
                    // the keys a finding reads are text, so such bytes are replaced.
                    MetaValue::Text(String::from_utf8_lossy(&self.text_literal()?).into_owned())
                }
                Some(b'-' | b'0'..=b'9') => MetaValue::Integer(self.integer()?),
                _ => match self.word() {
                    "true" => MetaValue::Boolean(true),
                    "false" => MetaValue::Boolean(false),
                    _ => {
                        return Err(self.error(format!(
                            "the meta value of `{key}` must be a \"text\", an integer, true or false"
                        )));
                    }
                },
            };
            meta.push(Meta { key, value, line });
        }
    }

    fn strings(&mut self) -> Result<Vec<StringDecl>, Error> {
        let mut strings: Vec<StringDecl> = Vec::new();
        loop {
            self.trivia()?;
            if self.peek() != Some(b'$') {
                return Ok(strings);
            }
            let line = self.error("").line;
            self.at += 1;
            let name = self.word().to_owned();
            if name.len() > IDENTIFIER_BYTES {
                return Err(self.error(format!(
                    "a string name is longer than {IDENTIFIER_BYTES} characters"
                )));
            }
            if !name.is_empty() && strings.iter().any(|string| string.name == name) {
                return Err(self.error(format!("the string `${name}` is defined twice")));
            }
            self.expect("=", &format!("after `${name}`"))?;
            self.trivia()?;
            let pattern = match self.peek() {
                Some(b'"') => {
                    let bytes = self.text_literal()?;
                    if bytes.is_empty() {
                        return Err(self.error(format!("the string `${name}` is empty")));
                    }
                    Pattern::Text(bytes)
                }
                Some(b'{') => {
                    self.at += 1;
                    Pattern::Hex(self.hex(&name)?)
                }
                Some(b'/') => self.regex(&name)?,
                _ => {
                    return Err(self.error(format!(
                        "expected a \"text\", {{ hex }} or /regular expression/ for `${name}`, found {}",
                        self.describe_here()
                    )));
                }
            };
            let modifiers = self.modifiers(&name, &pattern)?;
            strings.push(StringDecl {
                name,
                line,
                pattern,
                modifiers,
            });
        }
    }

    fn modifiers(&mut self, name: &str, pattern: &Pattern) -> Result<Modifiers, Error> {
        let mut modifiers = Modifiers::default();
        loop {
            self.trivia()?;
            let word = self.peek_word();
            let flag = match word {
                "nocase" => &mut modifiers.nocase,
                "ascii" => &mut modifiers.ascii,
                "wide" => &mut modifiers.wide,
                "fullword" => &mut modifiers.fullword,
                "private" => &mut modifiers.private,
                "xor" | "base64" | "base64wide" => {
                    return Err(self.error(format!(
                        "the `{word}` modifier (on `${name}`) is not in the supported subset"
                    )));
                }
                "condition" | "" => return Ok(modifiers),
                other => {
                    return Err(
                        self.error(format!("`{other}` is not a string modifier (on `${name}`)"))
                    );
                }
            };
            if *flag {
                return Err(
                    self.error(format!("the modifier `{word}` is given twice on `${name}`"))
                );
            }
            *flag = true;
            let allowed = match pattern {
                Pattern::Text(_) => true,
                Pattern::Hex(_) => word == "private",
                Pattern::Regex { .. } => word != "wide",
            };
            if !allowed {
                let what = match pattern {
                    Pattern::Hex(_) => "a hex string takes only `private`".to_owned(),
                    _ => "`wide` on a regular expression is not in the supported subset".to_owned(),
                };
                return Err(self.error(format!("`{word}` on `${name}`: {what}")));
            }
            self.at += word.len();
        }
    }

    /// A `"..."` literal with YARA's escapes, as bytes.
    fn text_literal(&mut self) -> Result<Vec<u8>, Error> {
        let start = self.at;
        self.at += 1;
        let mut bytes = Vec::new();
        loop {
            let Some(byte) = self.peek() else {
                return Err(self.error_at(start, "a \"text\" is never closed"));
            };
            self.at += 1;
            match byte {
                b'"' => return Ok(bytes),
                b'\n' => {
                    return Err(self.error_at(start, "a \"text\" runs past the end of its line"));
                }
                b'\\' => {
                    let escaped = self.peek();
                    self.at += 1;
                    match escaped {
                        Some(b'"') => bytes.push(b'"'),
                        Some(b'\\') => bytes.push(b'\\'),
                        Some(b't') => bytes.push(b'\t'),
                        Some(b'n') => bytes.push(b'\n'),
                        Some(b'r') => bytes.push(b'\r'),
                        Some(b'x') => {
                            let value = self
                                .text
                                .get(self.at..self.at + 2)
                                .and_then(|digits| u8::from_str_radix(digits, 16).ok())
                                .ok_or_else(|| {
                                    self.error("`\\x` must be followed by two hex digits")
                                })?;
                            self.at += 2;
                            bytes.push(value);
                        }
                        _ => {
                            let shown = self.text[self.at - 1..]
                                .chars()
                                .next()
                                .map(String::from)
                                .unwrap_or_default();
                            return Err(self.error(format!(
                                "`\\{shown}` is not an escape YARA knows (\\\" \\\\ \\t \\n \\r \\xHH)"
                            )));
                        }
                    }
                }
                other => bytes.push(other),
            }
        }
    }

    /// A hex string after its `{`, up to and with its `}`.
    fn hex(&mut self, name: &str) -> Result<Vec<HexToken>, Error> {
        let start = self.at;
        let tokens = self.hex_sequence(name, false)?;
        if !self.eat("}")? {
            return Err(self.error(format!(
                "the hex string `${name}` is not closed with `}}` (found {})",
                self.describe_here()
            )));
        }
        if tokens.is_empty() {
            return Err(self.error_at(start, format!("the hex string `${name}` is empty")));
        }
        let is_jump = |token: Option<&HexToken>| matches!(token, Some(HexToken::Jump { .. }));
        if is_jump(tokens.first()) || is_jump(tokens.last()) {
            return Err(self.error_at(
                start,
                format!("the hex string `${name}` starts or ends with a jump"),
            ));
        }
        Ok(tokens)
    }

    /// Hex tokens up to (not including) `}`, or `|`/`)` inside alternatives.
    fn hex_sequence(&mut self, name: &str, in_alternative: bool) -> Result<Vec<HexToken>, Error> {
        let mut tokens = Vec::new();
        loop {
            self.trivia()?;
            match self.peek() {
                None => {
                    return Err(self.error(format!("the hex string `${name}` is never closed")));
                }
                Some(b'}') if !in_alternative => return Ok(tokens),
                Some(b'|' | b')') if in_alternative => return Ok(tokens),
                Some(b'}') => {
                    return Err(self.error(format!(
                        "alternatives in `${name}` are never closed with `)`"
                    )));
                }
                Some(b'[') => {
                    self.at += 1;
                    let jump = self.jump(name)?;
                    if in_alternative && matches!(jump, HexToken::Jump { max: None, .. }) {
                        return Err(self.error(format!(
                            "an unbounded jump inside alternatives in `${name}` is not in the supported subset"
                        )));
                    }
                    tokens.push(jump);
                }
                Some(b'(') => {
                    self.at += 1;
                    self.nest()?;
                    let mut alternatives = Vec::new();
                    loop {
                        let alternative = self.hex_sequence(name, true)?;
                        if alternative.is_empty() {
                            return Err(self.error(format!("an empty alternative in `${name}`")));
                        }
                        alternatives.push(alternative);
                        if self.eat(")")? {
                            break;
                        }
                        self.expect("|", &format!("between alternatives in `${name}`"))?;
                    }
                    self.depth -= 1;
                    tokens.push(HexToken::Alternatives(alternatives));
                }
                Some(b'~') => {
                    return Err(self.error(format!(
                        "`~` (not) in the hex string `${name}` is not in the supported subset"
                    )));
                }
                Some(_) => tokens.push(self.hex_byte(name)?),
            }
        }
    }

    fn hex_byte(&mut self, name: &str) -> Result<HexToken, Error> {
        let nibble = |byte: u8| match byte {
            b'?' => Some((0, 0)),
            _ => (byte as char).to_digit(16).map(|digit| (digit as u8, 0xF)),
        };
        let (Some(high), Some(low)) = (
            self.peek().and_then(nibble),
            self.peek_at(1).and_then(nibble),
        ) else {
            return Err(self.error(format!(
                "expected a hex byte (two of 0-9, A-F or ?) in `${name}`, found {}",
                self.describe_here()
            )));
        };
        self.at += 2;
        Ok(HexToken::Byte {
            value: (high.0 << 4) | low.0,
            mask: (high.1 << 4) | low.1,
        })
    }

    /// A jump after its `[`: `[n]`, `[n-m]`, `[n-]`, `[-]`.
    fn jump(&mut self, name: &str) -> Result<HexToken, Error> {
        let bound = |parser: &mut Self| -> Result<Option<u32>, Error> {
            parser.trivia()?;
            let digits = parser.rest().bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return Ok(None);
            }
            let text = &parser.rest()[..digits];
            let value = text.parse::<u32>().map_err(|_| {
                parser.error(format!("the jump `{text}` in `${name}` is too large"))
            })?;
            parser.at += digits;
            Ok(Some(value))
        };
        let min = bound(self)?;
        let (min, max) = if self.eat("-")? {
            (min.unwrap_or(0), bound(self)?)
        } else {
            let Some(exact) = min else {
                return Err(self.error(format!(
                    "expected a jump like [4], [2-8] or [4-] in `${name}`"
                )));
            };
            (exact, Some(exact))
        };
        self.expect("]", &format!("to close a jump in `${name}`"))?;
        if let Some(max) = max
            && max < min
        {
            return Err(self.error(format!(
                "the jump [{min}-{max}] in `${name}` has its bounds the wrong way round"
            )));
        }
        if max == Some(0) {
            return Err(self.error(format!("the jump [0] in `${name}` skips nothing")));
        }
        Ok(HexToken::Jump { min, max })
    }

    /// A `/.../is` regular expression.
    fn regex(&mut self, name: &str) -> Result<Pattern, Error> {
        let start = self.at;
        self.at += 1;
        let mut escaped = false;
        let source_start = self.at;
        loop {
            let Some(byte) = self.peek() else {
                return Err(self.error_at(
                    start,
                    format!("the regular expression `${name}` is never closed with `/`"),
                ));
            };
            if byte == b'\n' {
                return Err(self.error_at(
                    start,
                    format!("the regular expression `${name}` runs past the end of its line"),
                ));
            }
            self.at += 1;
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'/' {
                break;
            }
        }
        let source = self.text[source_start..self.at - 1].to_owned();
        if source.is_empty() {
            return Err(self.error_at(start, format!("the regular expression `${name}` is empty")));
        }
        let (mut nocase, mut dotall) = (false, false);
        let flags = self.word();
        for flag in flags.chars() {
            match flag {
                'i' => nocase = true,
                's' => dotall = true,
                other => {
                    return Err(self.error(format!(
                        "`{other}` after the regular expression `${name}` is not a flag YARA knows (i, s)"
                    )));
                }
            }
        }
        Ok(Pattern::Regex {
            source,
            nocase,
            dotall,
        })
    }

    /// An integer: decimal, `0x` hex or `0o` octal, optionally negative, optionally `KB` or
    /// `MB`.
    fn integer(&mut self) -> Result<i64, Error> {
        self.trivia()?;
        let start = self.at;
        let negative = self.eat("-")?;
        let rest = self.rest();
        let (radix, skip) = if rest.starts_with("0x") || rest.starts_with("0X") {
            (16, 2)
        } else if rest.starts_with("0o") {
            (8, 2)
        } else {
            (10, 0)
        };
        let digits = rest[skip..]
            .bytes()
            .take_while(|byte| (*byte as char).is_digit(radix))
            .count();
        if digits == 0 {
            return Err(self.error(format!("expected a number, found {}", self.describe_here())));
        }
        let text = &rest[skip..skip + digits];
        self.at += skip + digits;
        let too_large = self.error_at(start, format!("the number `{text}` is too large"));
        let mut value = i64::from_str_radix(text, radix).map_err(|_| too_large.clone())?;
        let suffix = self.peek_word();
        let scale = match suffix {
            "KB" => 1024,
            "MB" => 1024 * 1024,
            "" => 1,
            other => {
                return Err(self.error(format!("`{text}{other}` is not a number")));
            }
        };
        self.at += suffix.len();
        value = value.checked_mul(scale).ok_or(too_large)?;
        Ok(if negative { -value } else { value })
    }

    fn or(&mut self, names: &mut StringNames<'_>) -> Result<Expr, Error> {
        let mut terms = vec![self.and(names)?];
        while self.eat_keyword("or")? {
            terms.push(self.and(names)?);
        }
        Ok(if terms.len() == 1 {
            terms.remove(0)
        } else {
            Expr::Or(terms)
        })
    }

    fn and(&mut self, names: &mut StringNames<'_>) -> Result<Expr, Error> {
        let mut terms = vec![self.not(names)?];
        while self.eat_keyword("and")? {
            terms.push(self.not(names)?);
        }
        Ok(if terms.len() == 1 {
            terms.remove(0)
        } else {
            Expr::And(terms)
        })
    }

    fn not(&mut self, names: &mut StringNames<'_>) -> Result<Expr, Error> {
        if self.eat_keyword("not")? {
            self.nest()?;
            let inner = self.not(names)?;
            self.depth -= 1;
            return Ok(Expr::Not(Box::new(inner)));
        }
        self.primary(names)
    }

    fn primary(&mut self, names: &mut StringNames<'_>) -> Result<Expr, Error> {
        self.trivia()?;
        let start = self.at;
        match self.peek() {
            Some(b'(') => {
                self.at += 1;
                self.nest()?;
                let inner = self.or(names)?;
                self.depth -= 1;
                self.expect(")", "to close `(`")?;
                return Ok(inner);
            }
            Some(b'$') => {
                self.at += 1;
                let name = self.word();
                if self.peek() == Some(b'*') {
                    return Err(self.error_at(
                        start,
                        format!("`${name}*` names several strings: use it in `any of (${name}*)`"),
                    ));
                }
                if name.is_empty() {
                    return Err(self.error_at(
                        start,
                        "an anonymous `$` is matched only through `them` or `($*)`",
                    ));
                }
                let index = names.resolve(name).ok_or_else(|| {
                    self.error_at(start, format!("the string `${name}` is not defined"))
                })?;
                if self.eat_keyword("at")? {
                    let offset = self.int(names)?;
                    return Ok(Expr::At(index, offset));
                }
                if self.eat_keyword("in")? {
                    let (from, to) = self.range(names)?;
                    return Ok(Expr::In(index, from, to));
                }
                return Ok(Expr::Found(index));
            }
            _ => {}
        }
        let word = self.peek_word();
        match word {
            "true" | "false" => {
                self.at += word.len();
                return Ok(Expr::Bool(word == "true"));
            }
            "any" | "all" | "none" => {
                self.at += word.len();
                let quantifier = match word {
                    "any" => Quantifier::Any,
                    "all" => Quantifier::All,
                    _ => Quantifier::None,
                };
                return self.of(quantifier, names);
            }
            "for" => {
                return Err(self.error("`for` loops are not in the supported subset"));
            }
            "defined" => {
                return Err(self.error("`defined` is not in the supported subset"));
            }
            "entrypoint" => {
                return Err(self.error(
                    "`entrypoint` is not in the supported subset (and deprecated in YARA)",
                ));
            }
            _ => {}
        }
        if matches!(self.peek(), Some(b'-' | b'0'..=b'9')) {
            let count_at = self.at;
            let count = self.integer()?;
            if self.eat("%")? {
                return Err(self.error_at(
                    count_at,
                    "a percentage of strings (`50% of them`) is not in the supported subset",
                ));
            }
            self.trivia()?;
            if self.peek_word() == "of" {
                let count = u64::try_from(count).map_err(|_| {
                    self.error_at(count_at, "a count of strings cannot be negative")
                })?;
                return self.of(Quantifier::AtLeast(count), names);
            }
            return self.comparison(Int::Literal(count), names);
        }
        let left = self.int(names)?;
        self.comparison(left, names)
    }

    /// After a quantifier: `of them` or `of ($a, $b*)`.
    fn of(&mut self, quantifier: Quantifier, names: &mut StringNames<'_>) -> Result<Expr, Error> {
        if !self.eat_keyword("of")? {
            return Err(self.error(format!(
                "expected `of` after the quantifier, found {}",
                self.describe_word_here()
            )));
        }
        let set_at = self.at;
        let strings = if self.eat_keyword("them")? {
            if names.names.is_empty() {
                return Err(self.error_at(set_at, "`them` in a rule that has no strings"));
            }
            names.resolve_prefix("").unwrap_or_default()
        } else {
            self.expect("(", "or `them` after `of`")?;
            let mut strings: Vec<usize> = Vec::new();
            loop {
                self.trivia()?;
                let item_at = self.at;
                if !self.eat("$")? {
                    return Err(self.error(format!(
                        "expected a string like `$a` or `$a*` in the set, found {}",
                        self.describe_here()
                    )));
                }
                let name = self.word();
                let found = if self.eat("*")? {
                    names.resolve_prefix(name).ok_or_else(|| {
                        self.error_at(item_at, format!("no string matches `${name}*`"))
                    })?
                } else {
                    vec![names.resolve(name).ok_or_else(|| {
                        self.error_at(item_at, format!("the string `${name}` is not defined"))
                    })?]
                };
                for index in found {
                    if !strings.contains(&index) {
                        strings.push(index);
                    }
                }
                if self.eat(")")? {
                    break;
                }
                self.expect(",", "between the strings of a set")?;
            }
            strings
        };
        self.trivia()?;
        let word = self.peek_word();
        if word == "at" || word == "in" {
            return Err(self.error(format!(
                "`of ... {word}` is not in the supported subset; write `$a {word} ...` per string"
            )));
        }
        Ok(Expr::Of(quantifier, strings))
    }

    /// `(A..B)` after `in`.
    fn range(&mut self, names: &mut StringNames<'_>) -> Result<(Int, Int), Error> {
        self.expect("(", "to open a range after `in`")?;
        let from = self.int(names)?;
        self.expect("..", "in a range")?;
        let to = self.int(names)?;
        self.expect(")", "to close a range")?;
        Ok((from, to))
    }

    /// After an integer operand: the comparison and its right operand.
    fn comparison(&mut self, left: Int, names: &mut StringNames<'_>) -> Result<Expr, Error> {
        self.trivia()?;
        const OPERATORS: [(&str, Comparison); 6] = [
            ("==", Comparison::Equal),
            ("!=", Comparison::NotEqual),
            ("<=", Comparison::LessOrEqual),
            (">=", Comparison::GreaterOrEqual),
            ("<", Comparison::Less),
            (">", Comparison::Greater),
        ];
        const ARITHMETIC: [&str; 11] = ["<<", ">>", "+", "-", "*", "\\", "%", "&", "|", "^", "~"];
        if let Some(token) = ARITHMETIC
            .iter()
            .find(|token| self.rest().starts_with(**token))
        {
            return Err(self.error(format!(
                "`{token}`: arithmetic and bitwise operators are not in the supported subset"
            )));
        }
        let Some((token, operator)) = OPERATORS
            .iter()
            .find(|(token, _)| self.rest().starts_with(token))
        else {
            let word = self.peek_word();
            if [
                "contains",
                "icontains",
                "startswith",
                "istartswith",
                "endswith",
                "iendswith",
                "iequals",
                "matches",
            ]
            .contains(&word)
            {
                return Err(self.error(format!(
                    "`{word}`: string operators are not in the supported subset"
                )));
            }
            return Err(self.error(format!(
                "a number alone as a condition is not in the supported subset: compare it (`#a > 2`, `filesize < 1MB`); found {}",
                self.describe_word_here()
            )));
        };
        self.at += token.len();
        let right = self.int(names)?;
        self.trivia()?;
        if OPERATORS
            .iter()
            .any(|(token, _)| self.rest().starts_with(token))
        {
            return Err(self.error("comparisons cannot be chained; join them with `and`"));
        }
        Ok(Expr::Compare(left, *operator, right))
    }

    /// An integer operand.
    fn int(&mut self, names: &mut StringNames<'_>) -> Result<Int, Error> {
        self.trivia()?;
        let start = self.at;
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => return Ok(Int::Literal(self.integer()?)),
            Some(sigil @ (b'#' | b'@' | b'!')) => {
                self.at += 1;
                let name = self.word();
                if self.peek() == Some(b'*') {
                    return Err(self.error_at(
                        start,
                        format!("`{}{name}*` is not in the supported subset", sigil as char),
                    ));
                }
                let index = names.resolve(name).ok_or_else(|| {
                    self.error_at(start, format!("the string `${name}` is not defined"))
                })?;
                if sigil == b'#' {
                    if self.eat_keyword("in")? {
                        return Err(self.error(
                            "`#a in (range)` is not in the supported subset; use `$a in (range)`",
                        ));
                    }
                    return Ok(Int::Count(index));
                }
                let nth = if self.eat("[")? {
                    self.nest()?;
                    let nth = self.int(names)?;
                    self.depth -= 1;
                    self.expect("]", "to close the index")?;
                    nth
                } else {
                    Int::Literal(1)
                };
                return Ok(if sigil == b'@' {
                    Int::Offset(index, Box::new(nth))
                } else {
                    Int::Length(index, Box::new(nth))
                });
            }
            _ => {}
        }
        let word = self.word();
        if word == "filesize" {
            return Ok(Int::Filesize);
        }
        if let Some((bytes, big_endian, signed)) = read_function(word) {
            self.expect("(", &format!("after `{word}`"))?;
            self.nest()?;
            let at = self.int(names)?;
            self.depth -= 1;
            self.expect(")", &format!("to close `{word}(`"))?;
            return Ok(Int::Read {
                bytes,
                big_endian,
                signed,
                at: Box::new(at),
            });
        }
        if word.is_empty() {
            return Err(self.error_at(
                start,
                format!("expected a condition, found {}", self.describe_here()),
            ));
        }
        if self.rest().starts_with('.') || self.rest().starts_with('(') {
            return Err(self.error_at(
                start,
                format!("`{word}`: module fields and functions are not in the supported subset"),
            ));
        }
        Err(self.error_at(
            start,
            format!(
                "`{word}`: referring to another rule or an external variable is not in the supported subset"
            ),
        ))
    }
}

/// `uint16be` → (2 bytes, big-endian, unsigned).
fn read_function(word: &str) -> Option<(u8, bool, bool)> {
    let (signed, rest) = match word.strip_prefix("uint") {
        Some(rest) => (false, rest),
        None => (true, word.strip_prefix("int")?),
    };
    let (width, big_endian) = match rest.strip_suffix("be") {
        Some(width) => (width, true),
        None => (rest, false),
    };
    let bytes = match width {
        "8" => 1,
        "16" => 2,
        "32" => 4,
        _ => return None,
    };
    Some((bytes, big_endian, signed))
}

impl StringNames<'_> {
    /// The index of `$name` (an anonymous string has no name to resolve).
    fn resolve(&mut self, name: &str) -> Option<usize> {
        if name.is_empty() {
            return None;
        }
        let index = self.names.iter().position(|candidate| *candidate == name)?;
        self.used[index] = true;
        Some(index)
    }

    /// The indices of every string whose name starts with `prefix` (`$a*`; `them` is the
    /// empty prefix and takes anonymous strings too).
    fn resolve_prefix(&mut self, prefix: &str) -> Option<Vec<usize>> {
        let found: Vec<usize> = (0..self.names.len())
            .filter(|&index| self.names[index].starts_with(prefix))
            .collect();
        for &index in &found {
            self.used[index] = true;
        }
        (!found.is_empty()).then_some(found)
    }
}
