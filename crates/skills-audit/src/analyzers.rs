//! The analyzers, each with its own rules table: see the crate's header for what each reads.

mod code;
mod examine;
mod hidden;
mod hosts;
mod instructions;
mod literals;
mod manifest;
mod mcp;
mod rules;
mod scripts;
mod shell;
mod sidecar;
mod supply;
mod yara;

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
    Regex::new(&source.replace(r"\b", r"(?-u:\b)")).expect("a constant pattern compiles")
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
