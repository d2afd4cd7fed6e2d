//! `skills test NAME | --all`: a skill's self-tests, each a run through the runtime.

use crate::Exit;
use crate::cli::{Global, TestArgs};
use crate::context;
use crate::output;

pub(crate) fn run(global: &Global, args: &TestArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let mut request = skills::run::TestRequest::new(args.name.clone());
    request.confirmed = args.yes;
    match skills.run_tests(&request, None) {
        Ok(outcomes) => {
            output::print_json(&outcomes);
            if outcomes.iter().all(|outcome| outcome.passed) {
                Exit::Success
            } else {
                Exit::Failure
            }
        }
        Err(error) => output::fail(global, &error),
    }
}
