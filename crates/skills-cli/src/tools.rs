//! `skills tools`: every tool the catalog's skills declare, as an agent is offered them.

use crate::Exit;
use crate::cli::{Global, ToolsArgs};
use crate::context;
use crate::output;

pub(crate) fn run(global: &Global, args: &ToolsArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    match skills.list_tools() {
        Ok(tools) => {
            output::print_json(&tools);
            Exit::Success
        }
        Err(error) => output::fail(global, &error),
    }
}
