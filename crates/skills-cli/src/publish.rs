//! `skills publish DIR… --out SITE`: skill folders as an agent-skills v0.2 site (09
//! §Publishing), one line per skill.
//!
//! Exit status: 0 when the site holds the skills (written now, or already), 1 when a skill is
//! not valid (every report is printed, as `validate --strict` would) or the site cannot be
//! written, 2 for bad input (a missing folder, a symlink inside a skill). With `--keep-going`
//! the skills that pass are published and each refused one is listed by its folder with why;
//! the status is then 1 when any was refused, whatever the reason.

use skills::Error;
use skills::publish::{Outcome, Request};

use crate::Exit;
use crate::cli::{Global, PublishArgs};
use crate::output::{self, DIM, ErrorRecord, FAIL, OK};

pub(crate) fn run(global: &Global, args: &PublishArgs) -> Exit {
    let request = Request::new(args.dirs.clone(), &args.out).keep_going(args.keep_going);
    match skills::publish::publish(&request) {
        Ok(outcome) => print_outcome(global, &outcome),
        Err(Error::NotPublishable { reports }) => {
            let error = Error::NotPublishable {
                reports: reports.clone(),
            };
            if global.json {
                output::print_json(&serde_json::json!({
                    "error": ErrorRecord::new(&error, None),
                    "reports": reports,
                }));
            } else {
                let mut text = String::new();
                for report in &reports {
                    crate::validate::write_report(&mut text, report, false);
                }
                output::block(&text);
            }
            output::print_error(
                &error.to_string(),
                Some("fix what the reports say ('skills validate --strict DIR' checks again)"),
            );
            Exit::Failure
        }
        Err(error) => output::fail(global, &error),
    }
}

fn print_outcome(global: &Global, outcome: &Outcome) -> Exit {
    if global.json {
        output::print_json(outcome);
    } else {
        print_refused(outcome);
    }
    if !global.json && !global.quiet {
        for skill in &outcome.skills {
            let entry = &skill.entry;
            output::line(format_args!(
                "{OK}published{OK:#} {} {DIM}({}{}, {} file{}, {}){DIM:#}",
                output::shown(&entry.name),
                entry.kind.as_str(),
                entry
                    .version
                    .as_deref()
                    .map(|version| format!(" {}", output::shown(version)))
                    .unwrap_or_default(),
                skill.files,
                if skill.files == 1 { "" } else { "s" },
                output::shown(&entry.url),
            ));
        }
        for snapshot in &outcome.snapshots {
            output::line(format_args!(
                "{OK}kept{OK:#} {} {} {DIM}({}){DIM:#}",
                output::shown(&snapshot.name),
                output::shown(&snapshot.version),
                output::shown(&snapshot.url),
            ));
        }
        if outcome.skills.is_empty() {
            output::line("nothing written: no skill could be published");
        } else {
            output::line(format_args!(
                "{} {}",
                if outcome.changed {
                    "wrote"
                } else {
                    "unchanged:"
                },
                output::shown_path(&outcome.index)
            ));
        }
    }
    for warning in &outcome.warnings {
        output::warn(warning);
    }
    if outcome.refused.is_empty() {
        return Exit::Success;
    }
    let count = outcome.refused.len();
    output::print_error(
        &format!(
            "{count} skill{} not published (--keep-going published the {} other{})",
            if count == 1 { " was" } else { "s were" },
            outcome.skills.len(),
            if outcome.skills.len() == 1 { "" } else { "s" },
        ),
        Some(
            "fix what is said for each refused folder ('skills validate --strict DIR' checks again)",
        ),
    );
    Exit::Failure
}

/// Each refused skill, named by its folder: the validation report as `validate` prints it
/// when that is what failed, then one line saying why and whether the site keeps its earlier
/// copy. Printed even with `--quiet`: these are the problems.
fn print_refused(outcome: &Outcome) {
    if outcome.refused.is_empty() {
        return;
    }
    let mut text = String::new();
    for refused in &outcome.refused {
        if let Some(report) = &refused.report {
            crate::validate::write_report(&mut text, report, false);
        }
    }
    output::block(&text);
    for refused in &outcome.refused {
        // The report above already lists each error.
        let why = match &refused.report {
            Some(report) => {
                let errors = report.count(skills::Severity::Error);
                format!(
                    "not valid under the strict agentskills profile ({errors} error{} above)",
                    if errors == 1 { "" } else { "s" }
                )
            }
            None => output::shown(&refused.reason).into_owned(),
        };
        output::line(format_args!(
            "{FAIL}refused{FAIL:#} {}: {why}{}",
            output::shown_path(&refused.dir),
            if refused.kept {
                format!(" {DIM}(the site keeps the copy it published before){DIM:#}")
            } else {
                String::new()
            }
        ));
    }
}
