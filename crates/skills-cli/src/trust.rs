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
    let workspace = skills.config().workspace.display().to_string();
    let result = if args.revoke {
        skills.revoke_trust().map(|removed| {
            let message = if removed {
                format!("{workspace} is no longer trusted; its project skills will not be loaded")
            } else {
                format!("{workspace} was not trusted")
            };
            (false, message)
        })
    } else {
        skills.trust().map(|marker| {
            (
                true,
                format!(
                    "{workspace} is trusted: its project skills are loaded (marker: {})",
                    marker.display()
                ),
            )
        })
    };
    match result {
        Ok((trusted, message)) => {
            if global.json {
                output::print_json(&serde_json::json!({
                    "workspace": workspace,
                    "trusted": trusted,
                }));
            } else if !global.quiet {
                output::line(message);
            }
            Exit::Success
        }
        Err(error) => output::fail(global, &error),
    }
}
