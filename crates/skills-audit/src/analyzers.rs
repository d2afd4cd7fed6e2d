//! The analyzers, each with its own rules table: see the crate's header for what each reads.

mod automaton;
mod code;
mod examine;
mod hidden;
mod hosts;
mod instructions;
mod lean;
mod literals;
mod manifest;
mod mcp;
mod rules;
mod scripts;
mod shell;
mod sidecar;
mod supply;
mod yara;

pub(crate) use lean::{Lean, constant_words, lean};
pub(crate) use mcp::holds_config as holds_mcp_config;
pub(crate) use rules::RuleSet;
#[cfg(test)]
pub(crate) use rules::SHIPPED as SHIPPED_RULE_FILES;

use regex::Regex;

use crate::files::Skill;
use crate::findings::{Collector, Rule};

/// Compiles a constant pattern of an analyzer, with `\b` as the ASCII word boundary: the
/// words matched are ASCII, and Unicode's boundary is slower.
#[expect(
    clippy::expect_used,
    reason = "every pattern is a constant of its analyzer; each analyzer's tests compile them"
)]
fn pattern(source: &str) -> Regex {
    Regex::new(&unfolded(&source.replace(r"\b", r"(?-u:\b)"))).expect("a constant pattern compiles")
}

/// Every pattern an analyzer gives [`lean`] without a prefilter: what the project ships
/// compiled.
#[cfg(test)]
pub(crate) fn lean_sources() -> Vec<String> {
    instructions::case_insensitive_sources()
        .into_iter()
        .chain(
            manifest::WORDS
                .iter()
                .chain(&examine::PYTHON_WORDS)
                .map(|source| lean::words_source(source)),
        )
        .collect()
}

/// A case-insensitive pattern with its wide classes written case-sensitively: the same
/// expression, cheaper to compile.
///
/// Read with case folding, `\w` and `\p{L}` are folded range by range, and the parser then
/// gives each copy of the class to the compiler as a new set of several hundred ranges: the
/// phrase tables hold dozens of them, and folding them was a third of what a process spent
/// before it read a byte. `\w` is closed under simple case folding, and `\p{L}` is but for
/// one combining mark, U+0345 (which folds with the Greek iota), so each is written out as
/// the class folding would give, with folding off: the parsed expression is identical, which
/// `the_unfolded_classes_parse_to_the_same_expression` checks over every pattern that goes
/// through here. Only classes outside brackets are rewritten.
pub(crate) fn unfolded(source: &str) -> String {
    const WORD: &str = r"(?-i:\w)";
    const LETTER: &str = r"(?-i:[\p{L}\x{345}])";
    let mut out = String::with_capacity(source.len() + 64);
    let mut rest = source;
    // How deep inside brackets, and whether a `]` just after `[` or `[^` is a literal.
    let mut depth = 0usize;
    let mut class_start = false;
    while let Some(character) = rest.chars().next() {
        if depth == 0 {
            if let Some(after) = rest.strip_prefix(r"[\p{L}]") {
                out.push_str(LETTER);
                rest = after;
                continue;
            }
            if let Some(after) = rest.strip_prefix(r"\p{L}") {
                out.push_str(LETTER);
                rest = after;
                continue;
            }
            if let Some(after) = rest.strip_prefix(r"\w") {
                out.push_str(WORD);
                rest = after;
                continue;
            }
        }
        let length = if character == '\\' {
            // An escape and what it escapes are copied as one.
            1 + rest[1..].chars().next().map_or(0, char::len_utf8)
        } else {
            character.len_utf8()
        };
        let was_class_start = class_start;
        class_start = false;
        match character {
            '[' => {
                depth += 1;
                class_start = true;
                if rest[1..].starts_with('^') {
                    out.push_str("[^");
                    rest = &rest[2..];
                    continue;
                }
            }
            ']' if depth > 0 && !was_class_start => depth -= 1,
            _ => {}
        }
        out.push_str(&rest[..length]);
        rest = &rest[length..];
    }
    out
}

/// Every built-in rule, analyzer by analyzer: what `docs/audit.md` lists and what the
/// fixtures cover.
pub fn all_rules() -> Vec<&'static Rule> {
    [
        instructions::RULES,
        hidden::RULES,
        scripts::RULES,
        manifest::RULES,
        supply::RULES,
        rules::table(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Runs every analyzer over `skill`, and the user's rules when there are some.
pub(crate) fn run(skill: &Skill, user_rules: Option<&RuleSet>, out: &mut Collector) {
    instructions::analyze(skill, out);
    hidden::analyze(skill, out);
    // Each piece of code is examined once, for both analyzers that read it.
    let examined = scripts::examine_units(skill);
    scripts::analyze_examined(skill, &examined, out);
    manifest::analyze_examined(skill, &examined, out);
    supply::analyze(skill, out);
    rules::analyze(skill, out);
    if let Some(user_rules) = user_rules {
        user_rules.analyze(skill, out);
    }
}

#[cfg(test)]
mod tests {
    use regex_syntax::ParserBuilder;
    use regex_syntax::hir::Hir;

    use super::unfolded;

    fn parsed(pattern: &str) -> Hir {
        ParserBuilder::new()
            .case_insensitive(true)
            .build()
            .parse(pattern)
            .unwrap_or_else(|error| panic!("{pattern}: {error}"))
    }

    /// Each class the rewrite writes out is the class case folding gives: the rewrite is
    /// exact wherever the class stands on its own, whatever surrounds it.
    #[test]
    fn the_unfolded_classes_are_the_folded_ones() {
        assert_eq!(parsed(r"\w"), parsed(r"(?-i:\w)"));
        assert_eq!(parsed(r"\p{L}"), parsed(r"(?-i:[\p{L}\x{345}])"));
        // Without U+0345 the letters are not closed under folding: the mark is needed.
        assert_ne!(parsed(r"\p{L}"), parsed(r"(?-i:\p{L})"));
    }

    #[test]
    fn only_classes_outside_brackets_are_rewritten() {
        assert_eq!(unfolded(r"a\w+[\w.]"), r"a(?-i:\w)+[\w.]");
        assert_eq!(
            unfolded(r"[\p{L}]+ \p{L}"),
            r"(?-i:[\p{L}\x{345}])+ (?-i:[\p{L}\x{345}])"
        );
        assert_eq!(unfolded(r"[]\w]\w"), r"[]\w](?-i:\w)");
        assert_eq!(unfolded(r"[^]\w]\\w"), r"[^]\w]\\w");
        assert_eq!(unfolded(r"\[\w\]"), r"\[(?-i:\w)\]");
        assert_eq!(unfolded("é\\"), "é\\");
    }

    /// Every case-insensitive table the analyzers compile through [`unfolded`] parses to the
    /// same expression as written.
    #[test]
    fn the_unfolded_classes_parse_to_the_same_expression() {
        let mut checked = 0;
        let commands = super::hidden::payload::sources().map(str::to_owned);
        for source in super::instructions::case_insensitive_sources()
            .into_iter()
            .chain(commands)
        {
            assert_eq!(parsed(&source), parsed(&unfolded(&source)), "{source}");
            checked += 1;
        }
        assert!(checked > 100, "{checked}");
    }
}
