//! `skills prompt` (the catalog as an agent sees it) and `skills sync` (the same catalog as
//! the skills block of `AGENTS.md`).

use anstream::eprintln;
use skills::render::{RenderOptions, SyncOptions};

use crate::Exit;
use crate::cli::{Global, PromptArgs, SyncArgs};
use crate::context;
use crate::output::{self, DIM};

pub(crate) fn prompt(global: &Global, args: &PromptArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let mut options = RenderOptions::new(args.format.into());
    options.budget_chars = args.budget;
    options.pinned = args.pin.clone();
    let rendered = match skills.render_catalog(&options) {
        Ok(rendered) => rendered,
        Err(error) => return output::fail(global, &error),
    };
    if global.json {
        output::print_json(&rendered);
        return Exit::Success;
    }
    output::raw(&rendered.text);
    shadow_note(global, &rendered.shadows_user);
    let report = rendered.budget.as_ref().filter(|report| {
        !global.quiet
            && (!report.shortened.is_empty() || !report.dropped.is_empty() || !report.fits)
    });
    if let Some(report) = report {
        eprintln!(
            "{DIM}budget{DIM:#}: {} of {} characters; {} description(s) shortened, {} skill(s) dropped{}",
            report.used_chars,
            report.budget_chars,
            report.shortened.len(),
            report.dropped.len(),
            if report.fits {
                ""
            } else {
                "; the pinned skills alone exceed the budget"
            }
        );
    }
    Exit::Success
}

pub(crate) fn sync(global: &Global, args: &SyncArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let mut options = SyncOptions::default();
    options.output = Some(args.output.clone());
    options.project_only = args.project_only;
    let outcome = match skills.sync_agents_md(&options) {
        Ok(outcome) => outcome,
        Err(error) => return output::fail(global, &error),
    };
    if global.json {
        output::print_json(&outcome);
        return Exit::Success;
    }
    shadow_note(global, &outcome.shadows_user);
    if !global.quiet {
        let state = if outcome.changed {
            "wrote"
        } else {
            "up to date:"
        };
        output::line(format_args!(
            "{state} {} ({} skill{})",
            outcome.path.display(),
            outcome.skills,
            if outcome.skills == 1 { "" } else { "s" }
        ));
    }
    Exit::Success
}

/// One line on stderr naming the user skills a workspace skill shadows: the agent is about to
/// see (or be told to read) the tree's copy, not the user's own.
pub(crate) fn shadow_note(global: &Global, names: &[String]) {
    if global.quiet || names.is_empty() {
        return;
    }
    // A name is shown without control characters: it came from a file in the workspace.
    let shown: Vec<String> = names
        .iter()
        .map(|name| name.chars().filter(|c| !c.is_control()).collect())
        .collect();
    eprintln!(
        "{DIM}note{DIM:#}: workspace skills shadow your user skills of the same name: {} ('skills explain NAME' shows every copy)",
        shown.join(", ")
    );
}
