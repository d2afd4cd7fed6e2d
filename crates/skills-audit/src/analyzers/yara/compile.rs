//! The compiled form of a set of rule files: every literal of every rule, and the atoms of
//! every other pattern (`atoms.rs`), in one Aho-Corasick automaton; every other pattern a
//! `regex` crate expression. One pass of the automaton over a file finds every literal and
//! says which expressions can match there at all.
//!
//! Compiling is the expensive step and happens once per set of rule files (a command that
//! scans 10,000 skills compiles its rules once); scanning a file is then one automaton pass
//! and a pass of each expression whose atoms occur (`matcher.rs`).

use std::sync::OnceLock;

use regex::bytes::{Regex, RegexBuilder};

use super::Error;
use super::ast::{Expr, Meta, Pattern, RuleDecl};
use super::atoms::atoms;
use super::parse::parse;
use super::translate;
use crate::analyzers::automaton::{Case, Literals};

/// The most memory one compiled expression may take: a rule that asks for more (`(a{1000}
/// ){1000}`) is refused when compiled rather than slowing every scan.
const REGEX_BYTES: usize = 2 * 1024 * 1024;

/// The lazy DFA's cache of one expression; past it the crate falls back to a slower engine
/// that is still linear.
const DFA_BYTES: usize = 2 * 1024 * 1024;

/// Rule files, compiled.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub(crate) rules: Vec<CompiledRule>,
    pub(crate) strings: Vec<CompiledString>,
    /// Every literal and every atom, compared without ASCII case (a case-sensitive literal
    /// is compared again on a match); `entries[i]` says what its pattern `i` is.
    pub(crate) automaton: Option<Literals>,
    pub(crate) entries: Vec<Entry>,
    /// Regular expressions and hex strings that are not plain bytes.
    pub(crate) expressions: Vec<Expression>,
    /// The expressions without atoms: they run on every file.
    pub(crate) ungated: Vec<usize>,
}

/// One expression: its pattern, and the regex built from it, at once or on first use.
#[derive(Debug)]
pub(crate) struct Expression {
    pattern: String,
    regex: OnceLock<Option<Regex>>,
}

impl Expression {
    /// The `regex` crate pattern it runs.
    #[cfg(test)]
    pub(crate) fn pattern(&self) -> &str {
        &self.pattern
    }

    /// The regex; `None` only for a pattern compiled on first use that does not build
    /// (the shipped rules are compiled at once by a test, so theirs all build).
    pub(crate) fn regex(&self) -> Option<&Regex> {
        self.regex
            .get_or_init(|| build(&self.pattern).ok())
            .as_ref()
    }
}

/// When a set's expressions are built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Building {
    /// All at once, so one that does not build is an error naming its rule: the user's rules.
    AtOnce,
    /// Each the first time its atoms occur in a file: rules known to build (the shipped
    /// ones), so a scan pays only for the expressions its files come near.
    OnFirstUse,
}

fn build(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .size_limit(REGEX_BYTES)
        .dfa_size_limit(DFA_BYTES)
        .build()
}

/// One rule.
#[derive(Debug)]
pub(crate) struct CompiledRule {
    pub(crate) name: String,
    pub(crate) tags: Vec<String>,
    pub(crate) meta: Vec<Meta>,
    /// The rule file it came from, and the line of its `rule` keyword.
    pub(crate) file: String,
    pub(crate) line: usize,
    /// Its strings are `strings[first_string..first_string + string_count]`; the condition's
    /// string indices count from `first_string`.
    pub(crate) first_string: usize,
    pub(crate) string_count: usize,
    pub(crate) condition: Expr,
}

/// One string of a rule.
#[derive(Debug)]
pub(crate) struct CompiledString {
    /// Without `$`; empty when anonymous.
    pub(crate) name: String,
    pub(crate) private: bool,
    pub(crate) fullword: bool,
    /// Its index into [`Compiled::expressions`], when it is not a literal.
    pub(crate) expression: Option<usize>,
}

/// What one pattern of the automaton is.
#[derive(Debug)]
pub(crate) enum Entry {
    /// A literal of `string`, in the wide encoding or not; `bytes` when case matters.
    Literal {
        string: usize,
        wide: bool,
        exact: Option<Vec<u8>>,
    },
    /// An atom of `expressions[expression]`.
    Atom { expression: usize },
}

/// Compiles rule files, `(name, text)` each; the name is what errors say. Every expression
/// is built at once.
#[cfg(test)]
pub(crate) fn compile(sources: &[(&str, &str)]) -> Result<Compiled, Error> {
    compile_with(sources, Building::AtOnce)
}

/// [`compile`], building the expressions as `building` says.
pub(crate) fn compile_with(
    sources: &[(&str, &str)],
    building: Building,
) -> Result<Compiled, Error> {
    let mut rules = Vec::new();
    let mut strings = Vec::new();
    let mut literals: Vec<Vec<u8>> = Vec::new();
    let mut entries = Vec::new();
    let mut patterns = Vec::new();
    let mut expression_strings = Vec::new();
    for (file, text) in sources {
        for rule in parse(file, text)? {
            if let Some(first) = rules
                .iter()
                .find(|other: &&CompiledRule| other.name == rule.name)
            {
                return Err(Error {
                    file: (*file).to_owned(),
                    line: rule.line,
                    message: format!(
                        "the rule `{}` is already defined in {} at line {}",
                        rule.name, first.file, first.line
                    ),
                });
            }
            let RuleDecl {
                name,
                line,
                tags,
                meta,
                strings: declared,
                condition,
            } = rule;
            let first_string = strings.len();
            for string in &declared {
                let index = strings.len();
                let modifiers = string.modifiers;
                match &string.pattern {
                    Pattern::Text(bytes) => {
                        let mut add = |variant: Vec<u8>, wide: bool| {
                            entries.push(Entry::Literal {
                                string: index,
                                wide,
                                exact: (!modifiers.nocase).then(|| variant.clone()),
                            });
                            literals.push(variant);
                        };
                        if modifiers.ascii || !modifiers.wide {
                            add(bytes.clone(), false);
                        }
                        if modifiers.wide {
                            add(bytes.iter().flat_map(|&byte| [byte, 0]).collect(), true);
                        }
                    }
                    Pattern::Hex(tokens) => match translate::hex_literal(tokens) {
                        Some(bytes) => {
                            entries.push(Entry::Literal {
                                string: index,
                                wide: false,
                                exact: Some(bytes.clone()),
                            });
                            literals.push(bytes);
                        }
                        None => {
                            patterns.push(translate::hex(tokens));
                            expression_strings.push(index);
                        }
                    },
                    Pattern::Regex {
                        source,
                        nocase,
                        dotall,
                    } => {
                        let pattern =
                            translate::regex(source, *nocase || modifiers.nocase, *dotall)
                                .map_err(|why| Error {
                                    file: (*file).to_owned(),
                                    line: string.line,
                                    message: format!(
                                        "the regular expression `${}`: {why}",
                                        string.name
                                    ),
                                })?;
                        patterns.push(pattern);
                        expression_strings.push(index);
                    }
                }
                strings.push(CompiledString {
                    name: string.name.clone(),
                    private: modifiers.private,
                    fullword: modifiers.fullword,
                    expression: None,
                });
            }
            rules.push(CompiledRule {
                name,
                tags,
                meta,
                file: (*file).to_owned(),
                line,
                first_string,
                string_count: declared.len(),
                condition,
            });
        }
    }
    let mut expressions = Vec::new();
    let mut ungated = Vec::new();
    for (pattern, &string) in patterns.iter().zip(&expression_strings) {
        let regex = OnceLock::new();
        if building == Building::AtOnce {
            let built = build(pattern).map_err(|error| {
                let rule = rules.iter().find(|rule| {
                    (rule.first_string..rule.first_string + rule.string_count).contains(&string)
                });
                Error {
                    file: rule.map(|rule| rule.file.clone()).unwrap_or_default(),
                    line: rule.map_or(0, |rule| rule.line),
                    message: format!(
                        "the pattern `${}` cannot be compiled: {}",
                        strings[string].name,
                        first_line(&error.to_string())
                    ),
                }
            })?;
            let _ = regex.set(Some(built));
        }
        let expression = expressions.len();
        match atoms(pattern) {
            Some(atoms) => {
                for atom in atoms {
                    entries.push(Entry::Atom { expression });
                    literals.push(atom);
                }
            }
            None => ungated.push(expression),
        }
        strings[string].expression = Some(expression);
        expressions.push(Expression {
            pattern: pattern.clone(),
            regex,
        });
    }
    Ok(Compiled {
        rules,
        strings,
        automaton: automaton(literals)?,
        entries,
        expressions,
        ungated,
    })
}

/// An automaton reporting every occurrence of every literal and atom, overlapping ones
/// included (YARA counts each), without ASCII case; none when there is nothing to find.
fn automaton(literals: Vec<Vec<u8>>) -> Result<Option<Literals>, Error> {
    Literals::new(literals, Case::Ascii).map_err(|error| Error {
        file: String::new(),
        line: 0,
        message: format!("the rules' literals cannot be compiled together: {error}"),
    })
}

/// The first line of the `regex` crate's error (the rest draws a caret under the pattern,
/// which is our translation, not what the user wrote).
fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .rfind(|line| line.starts_with("error:"))
        .or_else(|| text.lines().next())
        .unwrap_or(text)
}
