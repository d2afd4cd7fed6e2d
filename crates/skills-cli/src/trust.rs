//! `skills trust [PATH] [--revoke] [--list]`: records (or removes) the user's trust in a
//! workspace, in `<home>/<app_dir>/trusted-workspaces.json`, which decides whether its
//! project and legacy skills are loaded. Nothing is ever written into the workspace.

use std::path::Path;

use crate::Exit;
use crate::cli::{Global, TrustArgs};
use crate::context;
use crate::output;

pub(crate) fn run(global: &Global, args: &TrustArgs) -> Exit {
    let skills = match context::skills(global, None) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    if args.list {
        return list(global, &skills);
    }
    let workspace = args
        .path
        .clone()
        .unwrap_or_else(|| skills.config().workspace.clone());
    let result = if args.revoke {
        skills.revoke_trust(&workspace)
    } else {
        skills.trust(&workspace)
    };
    let change = match result {
        Ok(change) => change,
        Err(error) => return output::fail(global, &error),
    };
    if global.json {
        output::print_json(&serde_json::json!({
            "workspace": change.workspace.display().to_string(),
            "trusted": change.trusted,
            "changed": change.changed,
        }));
    } else if !global.quiet {
        let shown = output::shown_path(&change.workspace);
        output::line(match (change.trusted, change.changed) {
            (true, true) => format!("{shown} is now trusted: its project skills are loaded"),
            (true, false) => format!("{shown} was already trusted"),
            (false, true) => {
                format!("{shown} is no longer trusted: its project skills are not loaded")
            }
            (false, false) => format!("{shown} was not trusted"),
        });
    }
    Exit::Success
}

/// `--list`: every record, with whether its folder is still the one trusted.
fn list(global: &Global, skills: &skills::Skills) -> Exit {
    let workspaces = match skills.trusted_workspaces() {
        Ok(workspaces) => workspaces,
        Err(error) => return output::fail(global, &error),
    };
    if global.json {
        output::print_json(&serde_json::json!({ "workspaces": workspaces }));
        return Exit::Success;
    }
    if workspaces.is_empty() {
        if !global.quiet {
            anstream::eprintln!("no workspace is trusted");
        }
        return Exit::Success;
    }
    let mut text = String::new();
    for workspace in &workspaces {
        let state = match workspace.state {
            skills::trust::State::Trusted => "trusted",
            skills::trust::State::Replaced => {
                "not trusted: another folder is at this path now (run 'skills trust PATH' again, or --revoke)"
            }
            skills::trust::State::Missing => {
                "not trusted: the folder is gone (remove with --revoke PATH)"
            }
            skills::trust::State::Outdated => {
                "not trusted: recorded by an older version that cannot tell this folder from one made again here (run 'skills trust PATH' again, or --revoke)"
            }
            skills::trust::State::Unverifiable => {
                "not trusted: its file system reports no birth time, so it cannot be told from a folder made again here (--revoke PATH)"
            }
        };
        text.push_str(&format!(
            "{}  {state}\n",
            output::shown_path(&workspace.path)
        ));
    }
    output::raw(&text);
    Exit::Success
}

/// The command that trusts this configuration's workspace, as a person would type it: with
/// the path unless the workspace is the current directory, and with the home and app dir when
/// they are not the defaults (the record lives there).
pub(crate) fn command_for(config: &skills::SkillsConfig) -> String {
    let mut command = "skills".to_owned();
    let home = std::env::home_dir();
    if home.as_deref().map(canonical) != Some(canonical(&config.home)) {
        command.push_str(&format!(" --home {}", output::shown_path(&config.home)));
    }
    if config.app_dir != skills::config::DEFAULT_APP_DIR {
        command.push_str(&format!(" --app-dir {}", output::shown(&config.app_dir)));
    }
    command.push_str(" trust");
    let current = std::env::current_dir().ok();
    let same = current
        .as_deref()
        .is_some_and(|current| canonical(current) == canonical(&config.workspace));
    if !same {
        command.push_str(&format!(" {}", output::shown_path(&config.workspace)));
    }
    command
}

fn canonical(path: &Path) -> Option<std::path::PathBuf> {
    std::fs::canonicalize(path).ok()
}
