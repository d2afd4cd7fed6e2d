//! `skills test NAME | --all`: a skill's self-tests (07 §Self-tests), each a run through the
//! runtime like any other. One line per test (PASS or FAIL, with the reason a failure has),
//! then a count; exit 1 when any test failed. Confirmation works as for `skills run`: asked
//! once on a terminal, `--yes` otherwise.

use skills::Error;
use skills::run::{TestOutcome, TestRequest};

use crate::Exit;
use crate::cli::{Global, TestArgs};
use crate::context;
use crate::output;
use crate::run::{ask, can_ask, refused};

pub(crate) fn run(global: &Global, args: &TestArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    output::print_settings_problems(&skills);
    let mut request = TestRequest::new(args.name.clone());
    request.confirmed = args.yes;
    let outcomes = match skills.run_tests(&request, None) {
        Err(Error::NeedsConfirmation { skill, reason }) if !request.confirmed && can_ask() => {
            if !ask(&skill, &reason) {
                output::print_error("the tests were not confirmed; nothing was run", None);
                return Exit::Failure;
            }
            request.confirmed = true;
            skills.run_tests(&request, None)
        }
        other => other,
    };
    let outcomes = match outcomes {
        Ok(outcomes) => outcomes,
        Err(error) => return refused(global, &error),
    };
    if global.json {
        output::print_json(&outcomes);
    } else {
        report(global, &outcomes);
    }
    if outcomes.iter().all(|outcome| outcome.passed) {
        Exit::Success
    } else {
        Exit::Failure
    }
}

/// One line per test (failures always, passes unless `--quiet`), then the count.
fn report(global: &Global, outcomes: &[TestOutcome]) {
    if outcomes.is_empty() {
        if !global.quiet {
            output::line("no skill declares self-tests ([[tests]] in skill.toml)");
        }
        return;
    }
    for outcome in outcomes {
        let name = format!(
            "{}/{}",
            output::shown(&outcome.skill),
            output::shown(&outcome.test)
        );
        if outcome.passed {
            if !global.quiet {
                output::line(format_args!("PASS {name} ({} ms)", outcome.duration_ms));
            }
        } else {
            let reason = outcome.reason.as_deref().unwrap_or("it failed");
            output::line(format_args!("FAIL {name}: {}", output::shown(reason)));
            if let Some(run_id) = &outcome.run_id {
                output::line(format_args!("     skills logs {run_id}"));
            }
        }
    }
    let failed = outcomes.iter().filter(|outcome| !outcome.passed).count();
    if !global.quiet || failed > 0 {
        output::line(format_args!(
            "{} passed, {failed} failed",
            outcomes.len() - failed
        ));
    }
}
