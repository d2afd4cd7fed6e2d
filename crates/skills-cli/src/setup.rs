//! `skills setup NAME`: a skill's declared dependencies installed into its own environment
//! in the home, through the runtime (each step a run under the sandbox, its output streamed
//! like a run's). Nothing is installed unless asked for here or by `skills run NAME --setup`;
//! both go through `run::set_up` (the confirmation prompt and the live output a run has) and
//! `output::print_setup_outcome`.

use skills::run::{SetupRequest, SetupStatus};

use crate::Exit;
use crate::cli::{Global, SetupArgs};
use crate::context;
use crate::output;
use crate::run::set_up;

pub(crate) fn run(global: &Global, args: &SetupArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    output::print_settings_problems(&skills);
    let request = SetupRequest::new(&args.name)
        .with_packages(args.packages.iter().cloned())
        .forced(args.force)
        .confirmed(args.yes);
    let outcome = match set_up(global, &skills, &request) {
        Ok(outcome) => outcome,
        Err(exit) => return exit,
    };
    if global.json {
        output::print_json(&outcome);
    } else {
        output::print_setup_outcome(global, &outcome);
    }
    match outcome.status {
        SetupStatus::SetUp | SetupStatus::UpToDate => Exit::Success,
        _ => Exit::Failure,
    }
}
