//! `skills read NAME[,NAME...]`: skill bodies for an agent, each with the base directory its
//! relative paths resolve against (progressive disclosure: the catalog lists, this loads).

use crate::Exit;
use crate::cli::{Global, ReadArgs};
use crate::context;
use crate::output;

pub(crate) fn run(global: &Global, args: &ReadArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let names: Vec<&str> = args
        .names
        .iter()
        .flat_map(|names| names.split(','))
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .collect();
    if names.is_empty() {
        return output::usage(global, "no skill name given");
    }
    let bodies = match skills.read(&names) {
        Ok(bodies) => bodies,
        Err(error) => return output::fail(global, &error),
    };
    if global.json {
        output::print_json(&bodies);
    } else {
        output::raw(&skills::render::read_text(&bodies));
        let shadowing: Vec<String> = bodies
            .iter()
            .filter(|body| body.shadows_user)
            .map(|body| body.name.clone())
            .collect();
        crate::prompt::shadow_note(global, &shadowing);
    }
    Exit::Success
}
