//! A subset of YARA, matched in linear time: the format security teams already write
//! rules in, so the rules shipped with the project and a team's own are files that `yara`
//! and YARA-X (`yr`) run unchanged. Why a subset of our own and not the YARA-X crate is
//! measured in `docs/audit.md` (Rules in YARA).
//!
//! The subset (anything else is a compile error naming the file, line and construct):
//!
//! - `rule NAME : tags { meta: ... strings: ... condition: ... }`, comments `//` and
//!   `/* */`; `import`, `include`, `private`/`global` rules are refused;
//! - meta values: `"text"`, integers, `true`/`false`;
//! - text strings `"..."` (escapes `\" \\ \t \n \r \xHH`) with `nocase`, `ascii`, `wide`,
//!   `fullword`, `private`; hex strings `{ 4D 5A ?? 4? [2-4] (00 | 01) }` with `private`;
//!   regular expressions `/.../is` with `nocase`, `ascii`, `fullword`, `private`;
//! - conditions: `true`, `false`, `and`, `or`, `not`, parentheses, `$a`, `$a at N`,
//!   `$a in (A..B)`, `#a`, `@a[i]`, `!a[i]`, `any`/`all`/`none`/`N` `of them` or
//!   `of ($a, $b*)`, `filesize`, `uint8`/`16`/`32` and `int...` with `be`, integers with
//!   `KB`/`MB`, the comparisons `== != < <= > >=`.
//!
//! Where the subset's answers differ from YARA's, and why, is listed in the document above
//! (a regular expression's `#a` counts matches that do not overlap; past `matcher::KEPT_MATCHES`
//! places of one string, `@`, `!`, `at` and `in` see only the first ones).

mod ast;
mod atoms;
mod compile;
mod matcher;
mod parse;
mod translate;
mod written;

use std::fmt;

pub(crate) use ast::MetaValue;
#[cfg(test)]
pub(crate) use compile::compile;
pub(crate) use compile::{Building, Compiled, compile_with};

/// A rule file that cannot be compiled: the file, the line, and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Error {
    pub(crate) file: String,
    /// 1-based; 0 when the fault is not on one line.
    pub(crate) line: usize,
    pub(crate) message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(formatter, "{}: {}", self.file, self.message)
        } else {
            write!(formatter, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}

#[cfg(test)]
mod tests;
