//! `skills run`: one run of a skill's script, entry or inline code through the runtime, its
//! output streamed live, the command ending with the script's own status (124 at the deadline,
//! 130 when cancelled).
//!
//! A script's output is the script's answer, so it is passed on byte for byte when it goes to
//! a pipe or a file (`skills run x > out.json` must hold exactly what the script printed). On a
//! terminal it is skill-supplied text like any other and goes through the one sanitiser's
//! [`block`](skills::sanitize::block): escape sequences and controls are removed, line
//! structure stays, so a script cannot retitle, recolour or rewrite the user's terminal.
//!
//! The script runs in a process group of its own, so Ctrl-C at the terminal reaches only this
//! process. It must not leave the script running unwatched: SIGINT, SIGTERM and SIGHUP are
//! blocked before any thread starts and taken by one thread with `sigwait`, which cancels the
//! run (the whole group is stopped and the log gets its end; the command exits 130). Before a
//! run exists (at the confirmation prompt) the signal ends the command at once.
//!
//! Confirmation (07 §Permission and confirmation) is the runtime's decision; the command line
//! only carries the answer. When the runtime says `needs_confirmation` and a person is there
//! (stdin and stderr are terminals), they are asked; otherwise the run is refused with the
//! advice to pass `--yes`. Nothing runs before the answer.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};
use skills::Error;
use skills::Skills;
use skills::run::{InputType, SetupOutcome, SetupRequest, SetupStatus, Stream};
use skills::sanitize;

use crate::Exit;
use crate::cli::{Global, RunArgs};
use crate::context;
use crate::output;

/// The hint under a run that needs confirmation and has nobody to ask.
const PASS_YES: &str = "pass --yes to confirm the run (off a terminal there is nobody to ask)";

pub(crate) fn run(global: &Global, args: &RunArgs) -> Exit {
    // First, while this is the only thread: a thread started earlier would keep the signals
    // deliverable, and their default action would end the command without a cancel.
    let signals = interrupt::block();
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let running = interrupt::watch(signals, &skills);
    output::print_settings_problems(&skills);
    if args.setup
        && let Err(exit) = before_run(global, &skills, &args.name, args.yes)
    {
        return exit;
    }
    let target = match (&args.script, &args.code, args.lang) {
        _ if args.npm.is_some() => skills::run::Target::Npm {
            args: args.npm.clone().unwrap_or_default(),
        },
        (Some(path), None, _) => skills::run::Target::Script { path: path.clone() },
        (None, Some(code), Some(lang)) => skills::run::Target::Inline {
            language: lang.into(),
            code: code.clone(),
        },
        (None, None, _) => skills::run::Target::Entry,
        _ => {
            return output::usage(
                global,
                "give a SCRIPT or -e CODE --lang LANG, not both (neither runs the skill's entry)",
            );
        }
    };
    let inputs = match input_values(&skills, &args.name, &args.inputs) {
        Ok(inputs) => inputs,
        Err(message) => return refused_text(global, &message),
    };
    let request = skills::run::Request::new(&args.name, target)
        .with_args(args.args.iter().cloned())
        .with_inputs(inputs)
        .with_timeout_secs(args.timeout)
        .confirmed(args.yes);
    let sink = (!global.json).then(live_output);
    let start = |request: &skills::run::Request| -> Result<skills::run::Outcome, Error> {
        // Held while the run starts, so a signal in between waits for the id to cancel.
        let mut slot = running.lock().unwrap_or_else(PoisonError::into_inner);
        let started = skills.start_run(request, sink.clone())?;
        *slot = Some(started.run_id.clone());
        drop(slot);
        started.wait()
    };
    let outcome = match start(&request) {
        Err(Error::NeedsConfirmation { skill, reason }) if !request.confirmed && can_ask() => {
            if !ask(&skill, &reason) {
                return refused_text(global, "the run was not confirmed; nothing was started");
            }
            start(&request.clone().confirmed(true))
        }
        other => other,
    };
    match outcome {
        Ok(outcome) => finished(global, &outcome),
        Err(error) => refused(global, &error),
    }
}

/// `run --setup`: sets the skill up when it is not, before its run. `Ok` to go on with the
/// run (also when the skill declares nothing: the run says what it misses); the exit status
/// of a setup that failed otherwise.
fn before_run(global: &Global, skills: &Skills, skill: &str, yes: bool) -> Result<(), Exit> {
    let request = SetupRequest::new(skill).confirmed(yes);
    let outcome = set_up(global, skills, &request)?;
    match outcome.status {
        SetupStatus::SetUp => {
            if !global.quiet && !global.json {
                output::print_setup_outcome(global, &outcome);
            }
            Ok(())
        }
        SetupStatus::Failed => {
            if global.json {
                output::print_json(&outcome);
            } else {
                output::print_setup_outcome(global, &outcome);
            }
            Err(Exit::Failure)
        }
        _ => Ok(()),
    }
}

/// The setup, asking the user when it needs their yes and a person is there.
pub(crate) fn set_up(
    global: &Global,
    skills: &Skills,
    request: &SetupRequest,
) -> Result<SetupOutcome, Exit> {
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

/// Reports the end of a run and passes its status on.
fn finished(global: &Global, outcome: &skills::run::Outcome) -> Exit {
    if global.json {
        output::print_json(outcome);
    } else {
        // What the run ran into that the user can fix: said even with --quiet, which keeps
        // problems.
        output::print_run_hints(&outcome.hints);
    }
    if !global.json && !global.quiet {
        let ending = if outcome.timed_out {
            Some("the run was stopped at its deadline".to_owned())
        } else if outcome.cancelled {
            Some("the run was cancelled".to_owned())
        } else {
            match (outcome.exit_code, outcome.signal) {
                (None, Some(signal)) => Some(format!("the script was killed by signal {signal}")),
                _ => None,
            }
        };
        if let Some(ending) = ending {
            output::warn(&format!("{ending} (run {})", outcome.run_id));
        }
    }
    Exit::Status(u8::try_from(outcome.exit_status()).unwrap_or(1))
}

/// A run refused before anything was started: the error (its kind too with `--json`), and
/// status 1 whatever the kind, so a caller tells "not run" from a script's own usage error
/// only by the message, as with any command that runs another.
pub(crate) fn refused(global: &Global, error: &Error) -> Exit {
    let hint = match error {
        Error::NeedsConfirmation { .. } => Some(PASS_YES),
        Error::ReadOnly { .. } => Some("the handle was opened with --read-only"),
        Error::Busy { .. } => Some("wait for a run to end ('skills runs' lists them)"),
        _ => output::hint_of(error),
    };
    let _ = output::fail_with_hint(global, error, hint);
    Exit::Failure
}

/// A refusal the command line itself makes (an input value that cannot be read).
fn refused_text(global: &Global, message: &str) -> Exit {
    output::print_error(message, None);
    if global.json {
        output::print_json(
            &serde_json::json!({ "error": { "kind": "invalid_input", "message": message } }),
        );
    }
    Exit::Failure
}

/// Whether a person can be asked: stdin to read the answer from and stderr to ask on are
/// both terminals.
pub(crate) fn can_ask() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Asks on stderr whether to run; anything but `y` or `yes` is a no.
pub(crate) fn ask(skill: &str, reason: &str) -> bool {
    let mut stderr = std::io::stderr().lock();
    let _ = write!(
        stderr,
        "Run '{}'? ({}) [y/N] ",
        output::shown(skill),
        output::shown(reason)
    );
    let _ = stderr.flush();
    drop(stderr);
    let mut answer = String::new();
    if std::io::stdin().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// The sink that prints a run's output as it arrives: each stream to the same stream of
/// this process, raw into a pipe or file, sanitised onto a terminal (see the module
/// documentation). Flushed per chunk, so a script's prompt without a line feed shows.
pub(crate) fn live_output() -> skills::run::Sink {
    let terminal = Terminals::now();
    // The runtime reads the two streams on two threads; one lock keeps a chunk whole.
    let order = Mutex::new(());
    Arc::new(move |notice: &skills::run::Notice| {
        if let skills::run::Notice::Output { stream, text, .. } = notice {
            let _turn = order.lock();
            write_output(*stream, text, terminal);
        }
    })
}

/// Which of this process's output streams are terminals.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Terminals {
    /// Standard output is a terminal.
    pub(crate) stdout: bool,
    /// Standard error is a terminal.
    pub(crate) stderr: bool,
}

impl Terminals {
    /// The streams of this process, as they are now.
    pub(crate) fn now() -> Self {
        Self {
            stdout: std::io::stdout().is_terminal(),
            stderr: std::io::stderr().is_terminal(),
        }
    }
}

/// Writes a script's text to the stream it came from: raw unless that stream is a
/// terminal, then through [`sanitize::block`]. A closed pipe is ignored (the run goes on; its
/// log keeps the output).
pub(crate) fn write_output(stream: Stream, text: &str, terminal: Terminals) {
    let (is_terminal, mut out): (bool, Box<dyn Write>) = match stream {
        Stream::Stdout => (terminal.stdout, Box::new(std::io::stdout().lock())),
        Stream::Stderr => (terminal.stderr, Box::new(std::io::stderr().lock())),
    };
    let shown = if is_terminal {
        sanitize::block(text)
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    let _ = out.write_all(shown.as_bytes());
    let _ = out.flush();
}

/// `--input NAME=VALUE` values as the request takes them: each read as the type the skill
/// declares for it ([`skills::run::parse_input_text`]), an undeclared one as a string so the
/// runtime reports it as unknown together with every other problem.
///
/// A `number` or `boolean` value that does not parse is passed on as the string typed, so
/// the runtime names it as a value of the wrong type in the same message as a missing or an
/// unknown input. A `json` value that does not parse is refused here: as a string it would be
/// valid JSON, and the script would get a value the user never meant.
pub(crate) fn input_values(
    skills: &Skills,
    skill: &str,
    given: &[String],
) -> Result<Map<String, Value>, String> {
    let mut values = Map::new();
    if given.is_empty() {
        return Ok(values);
    }
    // An unknown skill is the runtime's error to report, with the nearest names.
    let declared = skills
        .get(skill)
        .map(|skill| skill.inputs)
        .unwrap_or_default();
    let mut problems = Vec::new();
    for text in given {
        let Some((name, value)) = text.split_once('=') else {
            problems.push(format!(
                "--input '{}' has no '='; write NAME=VALUE",
                text.escape_debug()
            ));
            continue;
        };
        let name = name.trim();
        if name.is_empty() {
            problems.push(format!(
                "--input '{}' has no name; write NAME=VALUE",
                text.escape_debug()
            ));
            continue;
        }
        if values.contains_key(name) {
            problems.push(format!("input '{name}' is given twice"));
            continue;
        }
        let kind = declared
            .iter()
            .find(|input| input.name.eq_ignore_ascii_case(name))
            .map(|input| input.kind);
        let parsed = match kind {
            None | Some(InputType::String) => Value::String(value.to_owned()),
            Some(kind) => match skills::run::parse_input_text(kind, value) {
                Ok(parsed) => parsed,
                Err(reason) if kind == InputType::Json => {
                    problems.push(format!("input '{name}' must be JSON: {reason}"));
                    continue;
                }
                Err(_) => Value::String(value.to_owned()),
            },
        };
        values.insert(name.to_owned(), parsed);
    }
    if problems.is_empty() {
        Ok(values)
    } else {
        Err(format!("{}; nothing was started", problems.join("; ")))
    }
}

/// The run a signal cancels: its id once started, `None` before.
type Running = Arc<Mutex<Option<String>>>;

/// SIGINT, SIGTERM and SIGHUP as a cancel of the run (see the module documentation).
#[cfg(unix)]
mod interrupt {
    use std::sync::{Arc, Mutex, PoisonError};

    use nix::sys::signal::{SigSet, Signal};
    use skills::Skills;

    use super::Running;

    /// Blocks the signals in this thread (and every thread it starts); `None` when that
    /// fails, and the signals keep their default action.
    pub(super) fn block() -> Option<SigSet> {
        let mut signals = SigSet::empty();
        for signal in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
            signals.add(signal);
        }
        signals.thread_block().ok().map(|()| signals)
    }

    /// Starts the thread that waits for the blocked signals: each cancels the run in the
    /// slot, or, before there is one, ends the command with 128 + the signal.
    pub(super) fn watch(signals: Option<SigSet>, skills: &Skills) -> Running {
        let running: Running = Arc::new(Mutex::new(None));
        let Some(signals) = signals else {
            return running;
        };
        let slot = Arc::clone(&running);
        let skills = skills.clone();
        std::thread::spawn(move || {
            while let Ok(signal) = signals.wait() {
                let run_id = slot.lock().unwrap_or_else(PoisonError::into_inner).clone();
                match run_id {
                    Some(run_id) => {
                        let _ = skills.cancel_run(&run_id);
                    }
                    None => std::process::exit(128 + signal as i32),
                }
            }
        });
        running
    }
}

/// Elsewhere the signals keep their default action.
#[cfg(not(unix))]
mod interrupt {
    use std::sync::{Arc, Mutex};

    use skills::Skills;

    use super::Running;

    pub(super) fn block() -> Option<()> {
        None
    }

    pub(super) fn watch(_signals: Option<()>, _skills: &Skills) -> Running {
        Arc::new(Mutex::new(None))
    }
}
