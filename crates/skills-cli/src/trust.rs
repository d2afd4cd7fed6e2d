//! `skills trust [--revoke]`: creates or removes the workspace trust marker, which decides
//! whether the workspace's project and legacy skills are loaded.

use crate::Exit;
use crate::cli::{Global, TrustArgs};
use crate::context;
use crate::output;

pub(crate) fn run(global: &Global, args: &TrustArgs) -> Exit {
    let skills = match context::skills(global, None) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let workspace = std::path::absolute(&skills.config().workspace)
        .unwrap_or_else(|_| skills.config().workspace.clone());
    let was_trusted = skills.is_trusted();
    let result = if args.revoke {
        skills.revoke_trust().map(|_| ())
    } else {
        skills.trust().map(|_| ())
    };
    if let Err(error) = result {
        return output::fail(global, &error);
    }
    let trusted = !args.revoke;
    if global.json {
        output::print_json(&serde_json::json!({
            "workspace": workspace.display().to_string(),
            "trusted": trusted,
            "changed": trusted != was_trusted,
        }));
    } else if !global.quiet {
        let shown = output::shown_path(&workspace);
        output::line(match (trusted, was_trusted) {
            (true, false) => format!("{shown} is now trusted: its project skills are loaded"),
            (true, true) => format!("{shown} was already trusted"),
            (false, true) => {
                format!("{shown} is no longer trusted: its project skills are not loaded")
            }
            (false, false) => format!("{shown} was not trusted"),
        });
    }
    Exit::Success
}

/// The command that trusts this configuration's workspace, as a person would type it: with
/// `--workspace` unless the workspace is the current directory.
pub(crate) fn command_for(config: &skills::SkillsConfig) -> String {
    let current = std::env::current_dir().ok();
    let same = current.as_deref().is_some_and(|current| {
        std::fs::canonicalize(current).ok() == std::fs::canonicalize(&config.workspace).ok()
    });
    if same {
        "skills trust".to_owned()
    } else {
        format!("skills trust --workspace {}", config.workspace.display())
    }
}
