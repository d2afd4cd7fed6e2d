//! `skills list`: the catalog in aligned columns fitted to the terminal, or `--json` (the
//! `Listing` type). A skill whose last audit flagged it (or whose files changed since it was
//! audited) says so in its note, from the verdicts in the home: nothing is scanned here. A note on stderr says when the workspace's project skills were skipped
//! because it is not trusted, and how to change that.

use anstream::eprintln;
use skills::catalog::{HiddenReason, ListOptions, Listing, Permission};
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
    let listing = match skills.list(&options) {
        Ok(listing) => listing,
        Err(error) => return output::fail(global, &error),
    };
    if global.json {
        output::print_json(&listing);
        return Exit::Success;
    }
    print_table(&listing, global.quiet);
    print_notes(&listing, &skills, global.quiet);
    Exit::Success
}

/// One row of the table, its text sanitised.
struct Row<'l> {
    name: std::borrow::Cow<'l, str>,
    scope: &'l str,
    description: String,
    note: String,
    /// Shown dimmed: a shadowed copy or a hidden skill.
    dimmed: bool,
}

fn print_table(listing: &Listing, quiet: bool) {
    let visible = listing.skills.iter().map(|skill| summary_row(skill, false));
    let shadowed = listing
        .shadowed
        .iter()
        .map(|skill| summary_row(skill, true));
    let hidden = listing.hidden.iter().map(|skill| Row {
        name: output::shown(&skill.name),
        scope: skill.scope.as_str(),
        description: match &skill.reason {
            HiddenReason::Denied { pattern } => {
                format!("(hidden: denied by '{}')", output::shown(pattern))
            }
            HiddenReason::Disabled => "(hidden: disabled)".to_owned(),
        },
        note: String::new(),
        dimmed: true,
    });
    let rows: Vec<Row<'_>> = visible.chain(shadowed).chain(hidden).collect();
    if rows.is_empty() {
        if !quiet {
            eprintln!("no skills found");
        }
        return;
    }
    let width = output::width();
    let widest = rows
        .iter()
        .map(|row| row.name.chars().count())
        .max()
        .unwrap_or(0);
    // Only a terminal cuts names: piped output keeps every name whole.
    let name_width = output::column(widest, 40, width);
    let scope_width = "project".len();
    // One write for the whole table: a listing of thousands of skills must not cost a system
    // call per line.
    let mut table = String::new();
    for row in rows {
        let note = if row.note.is_empty() {
            String::new()
        } else {
            format!("  {}", row.note)
        };
        let used = name_width + scope_width + 4 + note.chars().count();
        let description = match width {
            Some(width) => output::fit(&row.description, width.saturating_sub(used).max(20)),
            None => row.description,
        };
        let name = match width {
            Some(_) => output::fit(&row.name, name_width),
            None => row.name.into_owned(),
        };
        let line = format!(
            "{name:<name_width$}  {:<scope_width$}  {description}",
            row.scope
        );
        let styled = if row.dimmed {
            format!("{DIM}{line}{note}{DIM:#}\n")
        } else {
            format!("{line}{WARNING}{note}{WARNING:#}\n")
        };
        table.push_str(&styled);
    }
    output::block(&table);
}

fn summary_row(skill: &SkillSummary, shadowed: bool) -> Row<'_> {
    let mut notes = Vec::new();
    match skill.shadowed_by {
        Some(winner) => notes.push(format!("shadowed by {winner}")),
        None if shadowed => notes.push("shadowed".to_owned()),
        None => {}
    }
    if skill.shadows_user() {
        notes.push("shadows user".to_owned());
    }
    if skill.permission == Permission::Ask {
        notes.push("ask".to_owned());
    }
    if !skill.offered_to_model() {
        notes.push("manual only".to_owned());
    }
    // The last audit's verdict (`skills audit`, `check`, `watch`): a flag, or a verdict the
    // files outdated; a skill never audited has none.
    if let Some(note) = skill
        .audit
        .as_ref()
        .and_then(|mark| mark.note(&output::shown(&skill.name)))
    {
        notes.push(note);
    }
    let problems = count(&skill.diagnostics);
    if problems > 0 && !shadowed {
        notes.push(format!(
            "{problems} warning{}",
            if problems == 1 { "" } else { "s" }
        ));
    }
    Row {
        name: output::shown(&skill.name),
        scope: skill.scope.as_str(),
        description: output::shown_description(&skill.description).into_owned(),
        note: if notes.is_empty() {
            String::new()
        } else {
            format!("({})", notes.join(", "))
        },
        dimmed: shadowed,
    }
}

fn print_notes(listing: &Listing, skills: &skills::Skills, quiet: bool) {
    let mut findings: Vec<&Diagnostic> = listing
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.severity >= Severity::Warning)
        .collect();
    // A skill that could not be loaded (an error) is named before the warnings, so the cut
    // below never hides it.
    findings.sort_by_key(|diagnostic| std::cmp::Reverse(diagnostic.severity));
    for diagnostic in findings.iter().take(SHOWN_FINDINGS) {
        eprintln!("{}", output::diagnostic_line(diagnostic));
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
            .map(|root| output::shown_path(&root.path))
            .collect();
        eprintln!(
            "{DIM}note{DIM:#}: this workspace is not trusted, so its project skills were skipped ({})",
            roots.join(", ")
        );
        eprintln!(
            "{DIM}hint{DIM:#}: run '{}' to load them",
            crate::trust::command_for(skills.config())
        );
    }
}

fn count(diagnostics: &[Diagnostic]) -> usize {
    diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.severity >= Severity::Warning)
        .count()
}
