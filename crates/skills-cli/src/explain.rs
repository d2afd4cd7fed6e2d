//! `skills explain NAME`: every copy of a name, where each stands, and the rule that decided.

use skills::catalog::Standing;

use crate::Exit;
use crate::cli::{Global, NameArgs};
use crate::context;
use crate::output::{self, DIM, OK, WARNING};

pub(crate) fn run(global: &Global, args: &NameArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let explanation = match skills.explain(&args.name) {
        Ok(explanation) => explanation,
        Err(error) => return output::fail(global, &error),
    };
    if global.json {
        output::print_json(&explanation);
        return Exit::Success;
    }
    for candidate in &explanation.candidates {
        let (style, label) = match candidate.standing {
            Standing::Winner => (OK, "wins    "),
            Standing::Shadowed => (DIM, "shadowed"),
            Standing::Hidden => (WARNING, "hidden  "),
        };
        output::line(format_args!(
            "{style}{label}{style:#}  {:<7}  {}",
            candidate.scope.as_str(),
            output::shown_path(&candidate.location)
        ));
        output::line(format_args!(
            "          {DIM}{}{DIM:#}",
            output::shown(&candidate.reason)
        ));
    }
    output::line(format_args!(
        "\n{DIM}rule{DIM:#}: {}",
        output::shown(&explanation.rule)
    ));
    Exit::Success
}
