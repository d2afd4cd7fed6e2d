//! `skills publish DIR… --out SITE`: skill folders as an agent-skills v0.2 site (09
//! §Publishing), one line per skill.
//!
//! Exit status: 0 when the site holds the skills (written now, or already), 1 when a skill is
//! not valid (every report is printed, as `validate --strict` would) or the site cannot be
//! written, 2 for bad input (a missing folder, a symlink inside a skill).

use skills::Error;
use skills::publish::{Outcome, Request};

use crate::Exit;
use crate::cli::{Global, PublishArgs};
use crate::output::{self, DIM, ErrorRecord, OK};

pub(crate) fn run(global: &Global, args: &PublishArgs) -> Exit {
    let request = Request::new(args.dirs.clone(), &args.out);
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
    } else if !global.quiet {
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
    for warning in &outcome.warnings {
        output::warn(warning);
    }
    Exit::Success
}
