//! YARA's regular expressions and hex strings, written as patterns of the `regex` crate.
//!
//! The `regex` crate matches in time linear in the input whatever the pattern, which is why
//! it is the engine here: a rule file a user downloads must not be able to stall a scan
//! (catastrophic backtracking). Every pattern runs on bytes with Unicode off, as YARA's do:
//! `\w`, `\d`, `\s`, `\b` and case-insensitivity are ASCII, and `.` is one byte. What YARA
//! writes differently is rewritten (`{,3}`); what the crate cannot do (backreferences,
//! which YARA has neither) and what the subset leaves out (`(?i)` flags, look-around) is an
//! error, never passed through with another meaning: every literal character is written as
//! a `\xHH` escape, so nothing YARA reads literally (`&&` or `~~` in a class) becomes an
//! operator of the crate's syntax.

use std::fmt::Write as _;

use super::ast::HexToken;

/// A YARA regular expression (`source`, as written between the slashes) as a `regex`
/// crate pattern for bytes, or what in it cannot be.
pub(crate) fn regex(source: &str, nocase: bool, dotall: bool) -> Result<String, String> {
    let mut out = String::from("(?-u)");
    if nocase {
        out.push_str("(?i)");
    }
    if dotall {
        out.push_str("(?s)");
    }
    let bytes = source.as_bytes();
    let mut at = 0;
    let mut groups = 0_usize;
    // Whether the previous item can take a quantifier.
    let mut repeatable = false;
    while at < bytes.len() {
        let byte = bytes[at];
        at += 1;
        match byte {
            b'\\' => {
                let (escape, next) = escape(bytes, at, false)?;
                out.push_str(&escape);
                at = next;
                repeatable = true;
            }
            b'[' => {
                let next = class(bytes, at, &mut out)?;
                at = next;
                repeatable = true;
            }
            b'(' => {
                if bytes.get(at) == Some(&b'?') {
                    if bytes.get(at + 1) != Some(&b':') {
                        return Err(
                            "`(?` flags and look-around are not in the supported subset (`(?:` groups are)"
                                .to_owned(),
                        );
                    }
                    at += 2;
                    out.push_str("(?:");
                } else {
                    out.push('(');
                }
                groups += 1;
                repeatable = false;
            }
            b')' => {
                if groups == 0 {
                    return Err("a `)` closes no group".to_owned());
                }
                groups -= 1;
                out.push(')');
                repeatable = true;
            }
            b'|' => {
                out.push('|');
                repeatable = false;
            }
            b'.' | b'^' | b'$' => {
                out.push(byte as char);
                repeatable = byte == b'.';
            }
            b'*' | b'+' | b'?' => {
                if !repeatable {
                    return Err(format!("`{}` repeats nothing", byte as char));
                }
                out.push(byte as char);
                if bytes.get(at) == Some(&b'?') {
                    out.push('?');
                    at += 1;
                }
                repeatable = false;
            }
            b'{' => match repetition(bytes, at) {
                Some((min, max, next)) => {
                    if !repeatable {
                        return Err(format!("`{{{min},...}}` repeats nothing"));
                    }
                    if max.is_some_and(|max| max < min) {
                        return Err(format!(
                            "the repetition {{{min},{}}} has its bounds the wrong way round",
                            max.unwrap_or_default()
                        ));
                    }
                    match max {
                        Some(max) if max == min => {
                            let _ = write!(out, "{{{min}}}");
                        }
                        Some(max) => {
                            let _ = write!(out, "{{{min},{max}}}");
                        }
                        None => {
                            let _ = write!(out, "{{{min},}}");
                        }
                    }
                    at = next;
                    if bytes.get(at) == Some(&b'?') {
                        out.push('?');
                        at += 1;
                    }
                    repeatable = false;
                }
                None => {
                    return Err(
                        "a `{` that starts no repetition like {2} or {1,3}: write `\\{` for the character"
                            .to_owned(),
                    );
                }
            },
            other => {
                literal(&mut out, other);
                repeatable = true;
            }
        }
    }
    if groups > 0 {
        return Err("a `(` is never closed".to_owned());
    }
    Ok(out)
}

/// A hex string with wildcards, jumps or alternatives as a `regex` crate pattern.
pub(crate) fn hex(tokens: &[HexToken]) -> String {
    let mut out = String::from("(?s-u)");
    hex_into(tokens, &mut out);
    out
}

fn hex_into(tokens: &[HexToken], out: &mut String) {
    for token in tokens {
        match token {
            HexToken::Byte { value, mask: 0xFF } => literal(out, *value),
            HexToken::Byte { mask: 0x00, .. } => out.push('.'),
            HexToken::Byte { value, mask } => {
                out.push('[');
                for candidate in 0..=u8::MAX {
                    if candidate & mask == value & mask {
                        literal(out, candidate);
                    }
                }
                out.push(']');
            }
            HexToken::Jump { min, max } => {
                // Lazy, so a match is the shortest the jump allows, as YARA reports it.
                let _ = match max {
                    Some(max) if max == min => write!(out, ".{{{min}}}"),
                    Some(max) => write!(out, ".{{{min},{max}}}?"),
                    None => write!(out, ".{{{min},}}?"),
                };
            }
            HexToken::Alternatives(alternatives) => {
                out.push_str("(?:");
                for (index, alternative) in alternatives.iter().enumerate() {
                    if index > 0 {
                        out.push('|');
                    }
                    hex_into(alternative, out);
                }
                out.push(')');
            }
        }
    }
}

/// The bytes of a hex string that is only whole bytes (no wildcard, jump or alternative):
/// a literal, for the literal matcher.
pub(crate) fn hex_literal(tokens: &[HexToken]) -> Option<Vec<u8>> {
    tokens
        .iter()
        .map(|token| match token {
            HexToken::Byte { value, mask: 0xFF } => Some(*value),
            _ => None,
        })
        .collect()
}

fn literal(out: &mut String, byte: u8) {
    if byte.is_ascii_alphanumeric() || byte == b' ' || byte == b'_' {
        out.push(byte as char);
    } else {
        let _ = write!(out, "\\x{byte:02X}");
    }
}

/// The escape after a `\` at `bytes[at]`: its crate spelling and where the pattern goes on.
fn escape(bytes: &[u8], at: usize, in_class: bool) -> Result<(String, usize), String> {
    let Some(&byte) = bytes.get(at) else {
        return Err("the pattern ends with a lone `\\`".to_owned());
    };
    let simple = |text: &str| Ok((text.to_owned(), at + 1));
    match byte {
        b'w' | b'W' | b's' | b'S' | b'd' | b'D' => simple(&format!("\\{}", byte as char)),
        b'b' | b'B' if !in_class => simple(&format!("\\{}", byte as char)),
        b'b' | b'B' => Err("`\\b` inside a character class is not YARA".to_owned()),
        b't' => simple("\\t"),
        b'n' => simple("\\n"),
        b'r' => simple("\\r"),
        b'f' => simple("\\f"),
        b'v' => simple("\\x0B"),
        b'a' => simple("\\x07"),
        b'x' => {
            let value = bytes
                .get(at + 1..at + 3)
                .and_then(|digits| std::str::from_utf8(digits).ok())
                .and_then(|digits| u8::from_str_radix(digits, 16).ok())
                .ok_or_else(|| "`\\x` must be followed by two hex digits".to_owned())?;
            let mut out = String::new();
            literal(&mut out, value);
            Ok((out, at + 3))
        }
        b'0'..=b'9' => Err(format!(
            "`\\{}`: backreferences are not YARA and cannot match in linear time",
            byte as char
        )),
        other if other.is_ascii_alphabetic() => {
            Err(format!("`\\{}` is not an escape YARA knows", other as char))
        }
        other => {
            // An escaped punctuation mark or any other byte stands for itself.
            let mut out = String::new();
            literal(&mut out, other);
            Ok((out, at + 1))
        }
    }
}

/// A character class after its `[`, written to `out`; where the pattern goes on.
fn class(bytes: &[u8], mut at: usize, out: &mut String) -> Result<usize, String> {
    out.push('[');
    if bytes.get(at) == Some(&b'^') {
        out.push('^');
        at += 1;
    }
    let mut first = true;
    loop {
        let Some(&byte) = bytes.get(at) else {
            return Err("a `[` class is never closed with `]`".to_owned());
        };
        at += 1;
        match byte {
            b']' if !first => {
                out.push(']');
                return Ok(at);
            }
            b'\\' => {
                let (escape, next) = escape(bytes, at, true)?;
                out.push_str(&escape);
                at = next;
            }
            b'-' if !first && bytes.get(at) != Some(&b']') => out.push('-'),
            other => literal(out, other),
        }
        first = false;
    }
}

/// `{n}`, `{n,}`, `{n,m}` or `{,m}` after its `{`: the bounds and where the pattern goes on;
/// `None` when the brace starts no repetition (an error, as in YARA-X).
fn repetition(bytes: &[u8], at: usize) -> Option<(u32, Option<u32>, usize)> {
    let end = at + bytes[at..].iter().position(|&byte| byte == b'}')?;
    let inside = std::str::from_utf8(&bytes[at..end]).ok()?;
    let number = |text: &str| -> Option<u32> {
        (!text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit()))
            .then(|| text.parse().ok())
            .flatten()
    };
    let (min, max) = match inside.split_once(',') {
        None => {
            let exact = number(inside)?;
            (exact, Some(exact))
        }
        Some(("", max)) => (0, Some(number(max)?)),
        Some((min, "")) => (number(min)?, None),
        Some((min, max)) => (number(min)?, Some(number(max)?)),
    };
    Some((min, max, end + 1))
}
