//! `skills list`: the catalog in aligned columns fitted to the terminal, or `--json` (the
//! `Listing` type). A note on stderr says when the workspace's project skills were skipped
//! because it is not trusted, and how to change that.

use anstream::eprintln;
use skills::catalog::{HiddenReason, ListOptions, Listing};
use skills::{Diagnostic, Severity, SkillSummary};

use crate::Exit;
use crate::cli::{Global, ListArgs};
use crate::context;
use crate::output::{self, DIM, WARNING};

/// Scan findings shown under the table before the rest are summarised.
const SHOWN_FINDINGS: usize = 10;

pub(crate) fn run(global: &Global, args: &ListArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let mut options = ListOptions::default();
    options.include_shadowed = args.all;
    options.scope = args.scope.map(Into::into);
    // One discovery serves both the listing and the hidden skills `--all` shows.
    let catalog = match skills.discover() {
        Ok(catalog) => catalog,
        Err(error) => return output::fail(global, &error),
    };
    let hidden = if args.all {
        catalog.hidden.clone()
    } else {
        Vec::new()
    };
    let listing = catalog.into_listing(&options);
    if global.json {
        output::print_json(&listing);
        return Exit::Success;
    }
    print_table(&listing, global.quiet);
    if args.all {
        for skill in &hidden {
            let why = match &skill.reason {
                HiddenReason::Denied { pattern } => format!("denied by '{pattern}'"),
                HiddenReason::Disabled => "disabled".to_owned(),
            };
            output::line(format_args!(
                "{DIM}{}  {}  hidden: {why}{DIM:#}",
                skill.name, skill.scope
            ));
        }
    }
    print_notes(&listing, global.quiet);
    Exit::Success
}

fn print_table(listing: &Listing, quiet: bool) {
    let rows: Vec<(&SkillSummary, bool)> = listing
        .skills
        .iter()
        .map(|skill| (skill, false))
        .chain(listing.shadowed.iter().map(|skill| (skill, true)))
        .collect();
    if rows.is_empty() {
        if !quiet {
            eprintln!("no skills found");
        }
        return;
    }
    let name_width = rows
        .iter()
        .map(|(skill, _)| skill.name.chars().count())
        .max()
        .unwrap_or(0)
        .min(40);
    let scope_width = "project".len();
    let width = output::width();
    // One write for the whole table: a listing of thousands of skills must not cost a system
    // call per line.
    let mut table = String::new();
    for (skill, shadowed) in rows {
        let problems = count(&skill.diagnostics);
        let note = match (shadowed, problems) {
            (true, _) => "  (shadowed)".to_owned(),
            (false, 0) => String::new(),
            (false, n) => format!("  ({n} warning{})", if n == 1 { "" } else { "s" }),
        };
        let used = name_width + scope_width + 4 + note.chars().count();
        let description = single_line(&skill.description);
        let description = match width {
            Some(width) => output::fit(&description, width.saturating_sub(used).max(20)),
            None => description,
        };
        let name = output::fit(&skill.name, name_width);
        let line = format!(
            "{name:<name_width$}  {:<scope_width$}  {description}",
            skill.scope.as_str()
        );
        let styled = if shadowed {
            format!("{DIM}{line}{note}{DIM:#}\n")
        } else {
            format!("{line}{WARNING}{note}{WARNING:#}\n")
        };
        table.push_str(&styled);
    }
    anstream::print!("{table}");
}

fn print_notes(listing: &Listing, quiet: bool) {
    let findings: Vec<&Diagnostic> = listing
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.severity >= Severity::Warning)
        .collect();
    for diagnostic in findings.iter().take(SHOWN_FINDINGS) {
        let path = diagnostic
            .path
            .as_ref()
            .map(|path| format!(" {}", path.display()))
            .unwrap_or_default();
        eprintln!(
            "{WARNING}{}{WARNING:#}{DIM}[{}]{DIM:#}{path}: {}",
            diagnostic.severity, diagnostic.code, diagnostic.message
        );
    }
    if findings.len() > SHOWN_FINDINGS {
        eprintln!(
            "{DIM}... and {} more (see `skills list --json`){DIM:#}",
            findings.len() - SHOWN_FINDINGS
        );
    }
    if quiet {
        return;
    }
    if !listing.untrusted_roots.is_empty() {
        let roots: Vec<String> = listing
            .untrusted_roots
            .iter()
            .map(|root| root.path.display().to_string())
            .collect();
        eprintln!(
            "{DIM}note{DIM:#}: this workspace is not trusted, so its project skills were skipped ({})",
            roots.join(", ")
        );
        eprintln!("{DIM}hint{DIM:#}: run 'skills trust' to load them");
    }
}

fn count(diagnostics: &[Diagnostic]) -> usize {
    diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.severity >= Severity::Warning)
        .count()
}

fn single_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
