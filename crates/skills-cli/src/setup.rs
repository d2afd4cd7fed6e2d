//! `skills setup NAME` (and `skills run NAME --setup`): a skill's declared dependencies
//! installed into its own environment in the home, through the runtime (each step a run under
//! the sandbox, its output streamed like a run's). Nothing is installed unless asked for here.

use skills::Error;
use skills::Skills;
use skills::run::{SetupOutcome, SetupRequest, SetupStatus};

use crate::Exit;
use crate::cli::{Global, SetupArgs};
use crate::context;
use crate::output;
use crate::run::{ask, can_ask, live_output, refused};

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
        report(global, &outcome);
    }
    match outcome.status {
        SetupStatus::SetUp | SetupStatus::UpToDate => Exit::Success,
        _ => Exit::Failure,
    }
}

/// `run --setup`: sets the skill up when it is not, before its run. `Ok` to go on with the
/// run (also when the skill declares nothing: the run says what it misses); the exit status
/// of a setup that failed otherwise.
pub(crate) fn before_run(
    global: &Global,
    skills: &Skills,
    skill: &str,
    yes: bool,
) -> Result<(), Exit> {
    let request = SetupRequest::new(skill).confirmed(yes);
    let outcome = set_up(global, skills, &request)?;
    match outcome.status {
        SetupStatus::SetUp => {
            if !global.quiet && !global.json {
                report(global, &outcome);
            }
            Ok(())
        }
        SetupStatus::Failed => {
            if global.json {
                output::print_json(&outcome);
            } else {
                report(global, &outcome);
            }
            Err(Exit::Failure)
        }
        _ => Ok(()),
    }
}

/// The setup, asking the user when it needs their yes and a person is there.
fn set_up(global: &Global, skills: &Skills, request: &SetupRequest) -> Result<SetupOutcome, Exit> {
    let sink = (!global.json).then(live_output);
    match skills.setup_skill(request, sink.clone()) {
        Err(Error::NeedsConfirmation { skill, reason }) if !request.confirmed && can_ask() => {
            if !ask(&skill, &reason) {
                output::print_error("the setup was not confirmed; nothing was installed", None);
                return Err(Exit::Failure);
            }
            skills
                .setup_skill(&request.clone().confirmed(true), sink)
                .map_err(|error| refused(global, &error))
        }
        other => other.map_err(|error| refused(global, &error)),
    }
}

/// What a setup did, in words on stderr (the steps' own output went by above).
fn report(global: &Global, outcome: &SetupOutcome) {
    let skill = output::shown(&outcome.skill);
    let place = outcome
        .environment
        .as_deref()
        .map(output::shown_path)
        .unwrap_or_default();
    match outcome.status {
        SetupStatus::SetUp => {
            if global.quiet {
                return;
            }
            let mut what = Vec::new();
            if !outcome.requirements.is_empty() {
                what.push(format!(
                    "Python: {}",
                    output::shown(&outcome.requirements.join(", "))
                ));
            }
            if !outcome.node_dependencies.is_empty() {
                what.push(format!(
                    "npm: {}",
                    output::shown(&outcome.node_dependencies.join(", "))
                ));
            }
            anstream::eprintln!(
                "set up '{skill}' ({}; declared in {}); its runs use {place}",
                what.join("; "),
                output::shown(&outcome.declared_in.join(", "))
            );
        }
        SetupStatus::UpToDate => {
            if !global.quiet {
                anstream::eprintln!(
                    "'{skill}' is set up already ({place}); --force sets it up again"
                );
            }
        }
        SetupStatus::Failed => {
            let step = outcome.steps.last();
            let failed = step.map_or_else(
                || "a step failed".to_owned(),
                |step| {
                    format!(
                        "step {} (run {}) ended {} with status {}",
                        outcome.steps.len(),
                        step.run_id,
                        step.status.as_str(),
                        step.exit_status()
                    )
                },
            );
            output::print_error(
                &format!(
                    "setting up '{}' failed: {failed}; the environment runs use is as it was, \
                     and nothing of this setup was kept",
                    outcome.skill
                ),
                None,
            );
            if let Some(step) = step {
                output::print_run_hints(&step.hints);
            }
        }
        _ => output::print_error(
            &format!(
                "'{}' declares no dependencies: no requirements.txt (in its folder or \
                 scripts/), no `# /// script` block in its Python scripts, no dependencies in a \
                 package.json",
                outcome.skill
            ),
            Some(&format!(
                "`skills setup {} --package NAME` installs a Python package into the skill's own environment",
                outcome.skill
            )),
        ),
    }
}
