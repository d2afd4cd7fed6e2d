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
    } else if !global.quiet {
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
