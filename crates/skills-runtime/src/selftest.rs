//! Self-tests (07 §Self-tests): the `[[tests]]` of a skill's `skill.toml`, each one run
//! through the same runtime as any other run (the same checks, policy, sandbox and log) and
//! compared with what it must give: an exit status and, optionally, text on stdout. This is
//! how an author proves a skill works instead of claiming it does.
//!
//! Tests run one after another, so their runs never compete for the handle's concurrency
//! limit; a test refused before it starts (its skill needs confirmation, its interpreter is
//! missing) fails with the refusal as its reason, and the others still run.

use std::time::{Duration, Instant};

use skills_types::run::{
    RunHooks, RunOutcome, RunRequest, RunStatus, RunTarget, SelfTest, TestOutcome, TestRequest,
};
use skills_types::{Error, SkillsConfig};

use crate::Runtime;

/// A test's deadline when it names none: a test that hangs fails instead of waiting forever.
const DEFAULT_TEST_TIMEOUT_SECS: u64 = 60;
/// How long a test waits for a place when the handle's rate limit is reached.
const BUSY_WAIT: Duration = Duration::from_secs(65);
/// How much of a failing run's output its reason quotes.
const QUOTED_BYTES: usize = 600;

/// Runs the self-tests `request` selects: every test of one skill (a skill without any is an
/// `invalid_input` saying how to declare one), or of every enabled skill that declares any.
pub(crate) fn run_tests(
    runtime: &Runtime,
    config: &SkillsConfig,
    request: &TestRequest,
    hooks: &RunHooks,
) -> Result<Vec<TestOutcome>, Error> {
    // The whole call is refused, as a run is, while a configuration file cannot be honoured:
    // each test would only fail with the same refusal.
    skills_ops::discover::run_policy(config)?;
    let skills = match &request.skill {
        Some(name) => {
            let skill = skills_ops::resources::describe(config, name)?;
            let (manifest, _) = skills_ops::discover::read_skill_manifest(&skill.dir);
            if manifest.tests.is_empty() {
                return Err(Error::InvalidInput(format!(
                    "the skill '{}' declares no self-tests; add one to its skill.toml \
                     (`[[tests]]` with `name`, a `script` or the entry, `inputs`, \
                     `expect_exit`, `expect_stdout_contains`)",
                    skill.name
                )));
            }
            // A skill the audit refuses is refused as a whole, with the refusal's code, before
            // any of its tests starts (with --all, each of its tests fails with it instead).
            let dir = crate::prepare::real_dir(&skill.dir)?;
            skills_audit::Reviewer::new(config)?.check_run("self-testing", &skill.name, &dir)?;
            vec![(skill.name, manifest.tests)]
        }
        None => skills_ops::discover::discover(config)?
            .skills
            .into_iter()
            // Disabled and denied skills are hidden: they are not in the catalog to test.
            .filter_map(|skill| {
                let (manifest, _) = skills_ops::discover::read_skill_manifest(&skill.dir);
                (!manifest.tests.is_empty()).then_some((skill.name, manifest.tests))
            })
            .collect(),
    };
    // A skill whose runs need the user's yes stops the whole call before anything runs, as
    // a single run does: the caller asks once (or says to pass --yes) and calls again.
    if !request.confirmed {
        for (skill, tests) in &skills {
            if let Some(test) = tests.first()
                && let Err(error @ Error::NeedsConfirmation { .. }) = crate::prepare::prepare(
                    &runtime.inner.runtimes,
                    config,
                    &run_request(skill, test, false),
                )
            {
                return Err(error);
            }
        }
    }
    let mut outcomes = Vec::new();
    for (skill, tests) in skills {
        for test in tests {
            outcomes.push(run_one(runtime, config, &skill, &test, request, hooks));
        }
    }
    Ok(outcomes)
}

/// The run `test` of `skill` is: its script, inline code or the skill's entry.
fn run_request(skill: &str, test: &SelfTest, confirmed: bool) -> RunRequest {
    let target = match (&test.script, &test.inline) {
        (Some(path), _) => RunTarget::Script { path: path.clone() },
        (None, Some(code)) => RunTarget::Inline {
            language: test
                .language
                .unwrap_or(skills_types::run::InlineLanguage::Sh),
            code: code.clone(),
        },
        (None, None) => RunTarget::Entry,
    };
    let mut run = RunRequest::new(skill, target)
        .with_args(test.args.iter().cloned())
        .with_inputs(test.inputs.clone())
        .with_timeout_secs(Some(test.timeout_secs.unwrap_or(DEFAULT_TEST_TIMEOUT_SECS)));
    run.confirmed = confirmed;
    run
}

fn run_one(
    runtime: &Runtime,
    config: &SkillsConfig,
    skill: &str,
    test: &SelfTest,
    request: &TestRequest,
    hooks: &RunHooks,
) -> TestOutcome {
    if test.script.is_some() && test.inline.is_some() {
        return failed(
            skill,
            test,
            "the test names both a `script` and `inline` code; keep one".to_owned(),
        );
    }
    let run = run_request(skill, test, request.confirmed);
    let started = Instant::now();
    let outcome = loop {
        match runtime.run(config, &run, hooks) {
            // The per-minute limit frees a place within a minute; a long suite waits for it
            // rather than failing tests that never ran.
            Err(Error::Busy { .. }) if started.elapsed() < BUSY_WAIT => {
                std::thread::sleep(Duration::from_millis(250));
            }
            other => break other,
        }
    };
    match outcome {
        Ok(outcome) => judged(skill, test, &outcome),
        Err(error) => failed(skill, test, format!("it could not run: {error}")),
    }
}

/// Whether `outcome` is what `test` expects, and why not.
fn judged(skill: &str, test: &SelfTest, outcome: &RunOutcome) -> TestOutcome {
    let mut problems = Vec::new();
    match outcome.status {
        RunStatus::TimedOut => problems.push(format!(
            "it was stopped at its deadline ({} s)",
            test.timeout_secs.unwrap_or(DEFAULT_TEST_TIMEOUT_SECS)
        )),
        RunStatus::Cancelled => problems.push("it was cancelled".to_owned()),
        _ => match (outcome.exit_code, outcome.signal) {
            (Some(code), _) if code != test.expect_exit => problems.push(format!(
                "it exited with status {code}, expected {}",
                test.expect_exit
            )),
            (None, Some(signal)) => problems.push(format!("it was killed by signal {signal}")),
            (None, None) => problems.push("it did not exit normally".to_owned()),
            _ => {}
        },
    }
    if let Some(expected) = &test.expect_stdout_contains
        && !outcome.stdout.contains(expected.as_str())
    {
        problems.push(format!(
            "stdout does not contain {expected:?}; it was {:?}",
            quoted(&outcome.stdout)
        ));
    }
    if !problems.is_empty() && !outcome.stderr.is_empty() {
        problems.push(format!("stderr: {:?}", quoted(&outcome.stderr)));
    }
    let mut result = TestOutcome::new(skill, &test.name, problems.is_empty());
    result.reason = (!problems.is_empty()).then(|| problems.join("; "));
    result.run_id = Some(outcome.run_id.clone());
    result.status = Some(outcome.status);
    result.exit_code = outcome.exit_code;
    result.duration_ms = outcome.duration_ms;
    result
}

fn failed(skill: &str, test: &SelfTest, reason: String) -> TestOutcome {
    let mut result = TestOutcome::new(skill, &test.name, false);
    result.reason = Some(reason);
    result
}

/// The end of `text`, at most [`QUOTED_BYTES`] on a character boundary: where a failing
/// script says what went wrong.
fn quoted(text: &str) -> &str {
    if text.len() <= QUOTED_BYTES {
        return text;
    }
    let mut start = text.len() - QUOTED_BYTES;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_the_end_on_a_character_boundary() {
        let text = format!("{}é{}", "a".repeat(10), "b".repeat(QUOTED_BYTES - 1));
        let end = quoted(&text);
        assert!(end.len() <= QUOTED_BYTES);
        assert!(end.ends_with('b'));
        assert_eq!(quoted("short"), "short");
    }

    #[test]
    fn a_run_is_judged_on_status_and_stdout() {
        let mut test = SelfTest::named("t");
        test.expect_stdout_contains = Some("ok".to_owned());
        let mut outcome = RunOutcome::new("r", "s", RunStatus::Succeeded);
        outcome.exit_code = Some(0);
        outcome.stdout = "all ok\n".to_owned();
        assert!(judged("s", &test, &outcome).passed);
        outcome.stdout = "nope\n".to_owned();
        outcome.stderr = "trace".to_owned();
        let judged_failed = judged("s", &test, &outcome);
        assert!(!judged_failed.passed);
        let reason = judged_failed.reason.unwrap();
        assert!(reason.contains("does not contain \"ok\""), "{reason}");
        assert!(reason.contains("stderr: \"trace\""), "{reason}");
        test.expect_exit = 3;
        test.expect_stdout_contains = None;
        outcome.exit_code = Some(3);
        outcome.status = RunStatus::Failed;
        assert!(
            judged("s", &test, &outcome).passed,
            "a non-zero exit can be expected"
        );
        outcome.status = RunStatus::TimedOut;
        outcome.exit_code = None;
        assert!(!judged("s", &test, &outcome).passed);
    }
}
