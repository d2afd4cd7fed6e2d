//! `skills prompt` (the catalog as an agent sees it, ranked for a task with `--query`) and
//! `skills sync` (the same catalog as the skills block of `AGENTS.md`).
//!
//! `sync` also checks the command the block tells the agent to run: another tool's binary is
//! called `skills` too (the vercel `skills` package), and an agent that runs `skills read X`
//! with that one first on `PATH` gets its answer, not ours.

use std::path::{Path, PathBuf};

use anstream::eprintln;
use skills::render::{Rendered, SyncOptions};

use crate::Exit;
use crate::cli::{Global, PromptArgs, SyncArgs};
use crate::context;
use crate::output::{self, DIM};

pub(crate) fn prompt(global: &Global, args: &PromptArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let mut options = skills::render::Options::new(args.format.into());
    options.budget_chars = args.budget;
    options.pinned = args.pin.clone();
    // A blank task ranks nothing: it is no query, and nothing is said about it.
    options.query = args.query.clone().filter(|task| !task.trim().is_empty());
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
    if options.query.is_some() {
        query_note(global, &rendered);
    }
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
        if options.query.is_some() {
            left_out_note(&report.dropped);
        }
    }
    Exit::Success
}

/// The most names the left-out line of a ranked prompt shows; `--json` has them all.
const LEFT_OUT_SHOWN: usize = 10;

/// One line on stderr saying how many skills the query matched (they are listed first) and
/// how many of those the budget left out.
fn query_note(global: &Global, rendered: &Rendered) {
    if global.quiet {
        return;
    }
    if rendered.matched.is_empty() {
        eprintln!("{DIM}query{DIM:#}: no skill matches; the catalog's order");
        return;
    }
    let left_out = rendered.budget.as_ref().map_or(0, |report| {
        rendered
            .matched
            .iter()
            .filter(|name| report.dropped.contains(name))
            .count()
    });
    eprintln!(
        "{DIM}query{DIM:#}: {} skill(s) match, listed first{}",
        rendered.matched.len(),
        if left_out == 0 {
            String::new()
        } else {
            format!("; {left_out} of them left out by the budget")
        }
    );
}

/// Names what a ranked prompt left out, most relevant first (the reverse of the drop order),
/// at most [`LEFT_OUT_SHOWN`] of them.
fn left_out_note(dropped: &[String]) {
    if dropped.is_empty() {
        return;
    }
    // A name came from a file in the workspace: it goes through the sanitiser.
    let shown: Vec<String> = dropped
        .iter()
        .rev()
        .take(LEFT_OUT_SHOWN)
        .map(|name| output::shown(name).into_owned())
        .collect();
    let more = dropped.len().saturating_sub(LEFT_OUT_SHOWN);
    eprintln!(
        "{DIM}left out{DIM:#}, most relevant first: {}{}",
        shown.join(", "),
        if more == 0 {
            String::new()
        } else {
            format!(" and {more} more (--json lists them all)")
        }
    );
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
    if !global.quiet {
        for name in &outcome.left_out {
            output::warn(&format!(
                "'{name}' is not listed in the block: neither its name nor its folder name is a \
                 valid skill name (lowercase letters, digits and '-'), so it cannot be named \
                 safely in a command; rename its folder"
            ));
        }
        warn_about_read_command(
            global,
            outcome
                .read_command
                .as_deref()
                .unwrap_or(skills::render::DEFAULT_READ_COMMAND),
        );
    }
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
    // A name came from a file in the workspace: it goes through the sanitiser.
    let shown: Vec<String> = names
        .iter()
        .map(|name| output::shown(name).into_owned())
        .collect();
    eprintln!(
        "{DIM}note{DIM:#}: workspace skills shadow your user skills of the same name: {} ('skills explain NAME' shows every copy)",
        shown.join(", ")
    );
}

/// Warns when the program an agent would run as `command` is not this one: another `skills`
/// first on `PATH`. Nothing is said when `command` is not found at all (this program may be
/// reached some other way, such as an agent's own `PATH`); `-v` says so.
fn warn_about_read_command(global: &Global, command: &str) {
    let Ok(this) = std::env::current_exe().and_then(std::fs::canonicalize) else {
        return;
    };
    let Some(found) = find_command(global, command) else {
        tracing::info!(
            "'{command}' is not on PATH; the agent must find {} another way",
            this.display()
        );
        return;
    };
    let canonical = std::fs::canonicalize(&found).unwrap_or_else(|_| found.clone());
    if canonical != this {
        output::warn(&format!(
            "the '{command}' found on PATH is {}, not this program ({}): an agent told to run \
             '{command} read NAME' would run that one. Put {} first on PATH, or set \
             [sync] read_command in the home skills.toml to a command that runs this program",
            output::shown_path(&found),
            output::shown_path(&this),
            output::shown_path(this.parent().unwrap_or(Path::new("/"))),
        ));
    }
}

/// Where the shell would find `command`: itself when it holds a `/` (`~/` is the home), else
/// the first executable file of that name in a `PATH` folder.
fn find_command(global: &Global, command: &str) -> Option<PathBuf> {
    if let Some(rest) = command.strip_prefix("~/") {
        let home = global.home.clone().or_else(std::env::home_dir)?;
        return Some(home.join(rest)).filter(|path| is_executable(path));
    }
    if command.contains('/') {
        return Some(PathBuf::from(command)).filter(|path| is_executable(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|folder| !folder.as_os_str().is_empty())
        .map(|folder| folder.join(command))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}
