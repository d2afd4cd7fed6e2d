//! `skills watch`: follows the catalog's roots, the trust record and the configuration files,
//! and prints each change as it happens until interrupted (08 §The live catalog). One line per
//! event; `--json` makes each line one JSON object (`{"kind": "catalog_changed", ...}`), the
//! [`skills::watch::Event`] as the library gives it. Ids, paths and messages come from skill folders and
//! are sanitised, for the terminal and in the JSON alike. A skill a change added or touched is
//! audited again, and a verdict that changed is an `audit_changed` line.

use std::io::Write;
use std::time::Duration;

use crate::Exit;
use crate::cli::{Global, WatchArgs};
use crate::context;
use crate::output;

pub(crate) fn run(global: &Global, args: &WatchArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let mut options = skills::watch::Options::default();
    options.debounce = Duration::from_millis(args.debounce_ms);
    options.poll_interval = Duration::from_millis(args.poll_ms);
    let mut watch = match skills.watch(&options) {
        Ok(watch) => watch,
        Err(error) => return output::fail(global, &error),
    };
    while let Some(event) = watch.blocking_next() {
        let line = if global.json {
            output::json_line(&event)
        } else {
            match described(&event) {
                Some(line) => line,
                None => continue,
            }
        };
        let mut stdout = std::io::stdout().lock();
        // A closed pipe (`skills watch | head -3`) ends the watch quietly.
        if writeln!(stdout, "{line}")
            .and_then(|()| stdout.flush())
            .is_err()
        {
            return Exit::Success;
        }
    }
    Exit::Success
}

/// One event as a line for a person; `None` for an empty change.
fn described(event: &skills::watch::Event) -> Option<String> {
    let ids = |ids: &[String]| {
        ids.iter()
            .map(|id| output::shown(id).into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    Some(match event {
        skills::watch::Event::Ready { skills, watching } => format!(
            "watching {} path(s); the catalog holds {skills} skill(s) (Ctrl-C stops)",
            watching.len()
        ),
        skills::watch::Event::CatalogChanged {
            added,
            changed,
            removed,
        } => {
            let parts: Vec<String> = [("added", added), ("changed", changed), ("removed", removed)]
                .into_iter()
                .filter(|(_, ids_of)| !ids_of.is_empty())
                .map(|(label, ids_of)| format!("{label}: {}", ids(ids_of)))
                .collect();
            if parts.is_empty() {
                return None;
            }
            parts.join("; ")
        }
        skills::watch::Event::LoadError {
            path,
            kept,
            diagnostic,
        } => {
            let path = path.as_deref().map(output::shown_path).unwrap_or_default();
            let message = output::shown(&diagnostic.message);
            match kept {
                Some(id) => format!(
                    "load error: {path}: {message} (the last valid version of {} is kept)",
                    output::shown(id)
                ),
                None => format!("load error: {path}: {message}"),
            }
        }
        skills::watch::Event::Watching {
            path,
            mode,
            diagnostic,
        } => {
            let how = match mode {
                skills::watch::Mode::Events => "events",
                skills::watch::Mode::Polling => "polling",
            };
            format!(
                "{how}: {}: {}",
                output::shown_path(path),
                output::shown(&diagnostic.message)
            )
        }
        skills::watch::Event::AuditChanged { skill, after, .. } => {
            let name = output::shown(skill);
            match after.note(&name) {
                Some(note) => format!("audit: {name}: {}", output::shown(&note)),
                None => format!(
                    "audit: {name}: no high or critical finding now ({} finding(s))",
                    after.findings_count
                ),
            }
        }
        // A kind added later: its JSON says what it is.
        _ => output::json_line(event),
    })
}
