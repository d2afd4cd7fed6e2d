//! Spawning and supervising a run's process: the one place this subsystem starts a child.
//!
//! The child gets argv only (never a shell string), the workspace as working directory, an
//! environment rebuilt from the allowlist, a null stdin, and a process group of its own, so
//! a deadline or a cancel reaches everything it started: TERM to the group, KILL to the group
//! after the grace. Every run gets its own temporary folder (`TMPDIR`), removed when the run
//! ends however it ends. The sandbox is one stage between the plan and [`Command::spawn`]:
//! unless it is off, the program spawned is the sandbox helper, which restricts itself and
//! then execs the interpreter with the same pid and group (see `sandbox`).
//!
//! stdout and stderr are read on threads of their own while the process runs; the
//! supervisor waits on the child, the deadline, a cancel (in this process, or a marker left
//! by another) and the two readers. A grandchild that ignores TERM and holds the pipes is
//! killed with the group; one that left the group cannot keep the run alive either: once the
//! group is killed and the pipes stay open past a short grace, the readers are abandoned.

use std::os::unix::process::ExitStatusExt as _;
use std::process::{Child, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rustix::process::Signal;
use serde_json::json;
use skills_types::Error;
use skills_types::event::{DomainEvent, SkillsEvent};
use skills_types::run::{
    KILL_GRACE_MILLIS, LogRecord, PRINTED_NOTHING, RunHooks, RunNotice, RunOutcome, RunStatus,
    Stream,
};
use skills_types::runtime::{NetworkMode, SandboxMode};

use crate::cancel::signal_group;
use crate::diagnose;
use crate::log::{self, LogWriter};
use crate::output::{Capture, Decoder};
use crate::prepare::Prepared;
use crate::sandbox::{self, TempDir};

/// How often the supervisor looks at the child, the clock and the cancel flags.
const TICK: Duration = Duration::from_millis(20);
/// How often a process whose output is closed is checked for its exit.
const SETTLE: Duration = Duration::from_millis(1);
/// For how long after its output closes a process is checked that often (then every tick:
/// one that closed its output and goes on must not cost a busy loop).
const SETTLE_FOR: Duration = Duration::from_millis(50);
/// How often it looks for another process's cancel marker.
const MARKER_EVERY: Duration = Duration::from_millis(100);
/// How long pipes may stay open after the child exited before the rest of its group is told
/// to stop: the run is over when its process is, not when a background job it left ends.
const LINGER: Duration = Duration::from_millis(250);
/// How long pipes may stay open after the group was killed before the readers are abandoned
/// (something holding them escaped the group).
const ABANDON_AFTER_KILL: Duration = Duration::from_millis(500);
/// The size of one read.
const CHUNK: usize = 64 * 1024;

/// What a test holds a run with between registration and spawn: a flag and its condvar.
#[cfg(test)]
pub(crate) type Hold = Arc<(Mutex<bool>, std::sync::Condvar)>;

/// The cancel side of a run in flight, shared by the registry and the supervisor.
#[derive(Debug, Default)]
pub(crate) struct Control {
    cancelled: AtomicBool,
    ended: AtomicBool,
    #[cfg(test)]
    pub(crate) hold_before_spawn: Option<Hold>,
}

impl Control {
    /// A control whose run waits before spawning while `hold` says so.
    #[cfg(test)]
    pub(crate) fn held(hold: Option<Hold>) -> Self {
        Self {
            hold_before_spawn: hold,
            ..Self::default()
        }
    }

    /// Asks the run to stop; `false` when it has already ended.
    pub(crate) fn cancel(&self) -> bool {
        if self.ended.load(Ordering::SeqCst) {
            return false;
        }
        self.cancelled.store(true, Ordering::SeqCst);
        !self.ended.load(Ordering::SeqCst)
    }

    fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    /// Marks the run ended: later cancels answer `false`.
    pub(crate) fn end(&self) {
        self.ended.store(true, Ordering::SeqCst);
    }
}

/// What the reader threads share: the log and the notice sink, both closed once the run
/// has ended, so a reader left behind writes nothing after `end`.
struct Shared {
    run_id: String,
    log: Mutex<LogWriter>,
    notices: Option<skills_types::run::RunSink>,
    finished: AtomicBool,
}

impl Shared {
    fn output(&self, stream: Stream, text: &str) {
        if text.is_empty() || self.finished.load(Ordering::SeqCst) {
            return;
        }
        if let Some(notices) = &self.notices {
            notices(&RunNotice::Output {
                run_id: self.run_id.clone(),
                stream,
                text: text.to_owned(),
            });
        }
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .output(stream, text);
    }

    fn record(&self, record: &LogRecord) {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .write(record);
    }
}

/// Why the supervisor stopped the group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    Deadline,
    Cancel,
    /// The child exited and left something holding its pipes.
    Leftover,
}

/// Runs a registered run to its end: spawn, supervise, `end` record. The caller does what
/// follows (unregistering, retention, the `finished` notice and event). A process that could
/// not be started still has an outcome (failed, logged), so whoever waits for the `finished`
/// notice gets one; the error is what `wait` returns.
pub(crate) fn execute(
    prepared: &Prepared,
    run_id: &str,
    runs: &skills_ops::state::Folder,
    control: &Control,
    log: LogWriter,
    hooks: &RunHooks,
) -> (RunOutcome, Option<Error>) {
    let shared = Arc::new(Shared {
        run_id: run_id.to_owned(),
        log: Mutex::new(log),
        notices: hooks.notices.clone(),
        finished: AtomicBool::new(false),
    });
    let marker = log::Marker::of(runs, run_id);

    #[cfg(test)]
    if let Some(hold) = &control.hold_before_spawn {
        let (held, released) = &**hold;
        let mut held = held.lock().unwrap_or_else(PoisonError::into_inner);
        while *held {
            held = released.wait(held).unwrap_or_else(PoisonError::into_inner);
        }
    }

    let started = Instant::now();
    if control.is_cancelled() || marker.exists() {
        control.end();
        let outcome = ended(prepared, run_id, Ending::not_spawned(), started);
        finish(&shared, &outcome);
        return (outcome, None);
    }

    // Dropped on every way out of this function: the folder goes with the run.
    let temp = match TempDir::create(&prepared.settings, run_id) {
        Ok(temp) => temp,
        Err(error) => {
            let outcome = ended(prepared, run_id, Ending::not_spawned_failed(), started);
            finish(&shared, &outcome);
            return (outcome, Some(error));
        }
    };
    let (program, argv) = match &prepared.sandbox {
        None => (prepared.program.clone(), prepared.argv.clone()),
        Some(plan) => match sandbox::helper_argv(
            plan,
            temp.path(),
            &prepared.write_dirs,
            &prepared.program,
            &prepared.argv,
        ) {
            Ok(argv) => (plan.helper.clone(), argv),
            Err(error) => {
                let outcome = ended(prepared, run_id, Ending::not_spawned_failed(), started);
                finish(&shared, &outcome);
                return (outcome, Some(error));
            }
        },
    };
    let env = prepared.env.iter().map(|(name, value)| (name, value));
    let mut command = crate::spawn::command(&program, env);
    command
        .args(&argv)
        .current_dir(&prepared.cwd)
        .env("TMPDIR", temp.path())
        .env("SKILL_RUN_ID", run_id)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if prepared.stdin.is_some() {
        command.stdin(Stdio::piped());
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            let outcome = ended(prepared, run_id, Ending::not_spawned_failed(), started);
            finish(&shared, &outcome);
            return (outcome, Some(Error::io("start", program, error)));
        }
    };
    if let (Some(input), Some(pipe)) = (&prepared.stdin, child.stdin.take()) {
        feed_stdin(pipe, input.clone());
    }
    let pid = child.id();
    shared.record(&LogRecord::Spawned {
        pid,
        start_time: crate::pid::start_time(pid).unwrap_or(0),
    });
    if let Some(events) = &hooks.events {
        events.publish(DomainEvent::skills(
            SkillsEvent::RunStarted,
            json!({"run_id": run_id, "skill": prepared.skill, "target": prepared.target}),
        ));
    }

    let (done, readers) = mpsc::channel::<()>();
    let captures = [
        Arc::new(Mutex::new(Capture::new(Stream::Stdout))),
        Arc::new(Mutex::new(Capture::new(Stream::Stderr))),
    ];
    let mut open_readers = 0;
    if let Some(stdout) = child.stdout.take() {
        open_readers += spawn_reader(stdout, Stream::Stdout, &captures[0], &shared, &done);
    }
    if let Some(stderr) = child.stderr.take() {
        open_readers += spawn_reader(stderr, Stream::Stderr, &captures[1], &shared, &done);
    }
    drop(done);

    let ending = supervise(
        &mut child,
        pid,
        prepared.deadline(),
        control,
        &marker,
        &readers,
        open_readers,
    );
    let mut ending = ending;
    // Ended first, then the cancel flag read: a cancel that answered `true` set its flag
    // before this, so the run it signalled is reported as cancelled.
    control.end();
    if ending.stop != Some(Stop::Deadline) && (control.is_cancelled() || marker.exists()) {
        ending.stop = Some(Stop::Cancel);
    }
    let (stdout, stdout_cut) = captures[0]
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .text();
    let (stderr, stderr_cut) = captures[1]
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .text();
    ending.stdout_bytes = captures[0]
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .total();
    ending.stderr_bytes = captures[1]
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .total();
    ending.stdout = stdout;
    ending.stderr = stderr;
    ending.truncated = stdout_cut || stderr_cut;
    let mut outcome = ended(prepared, run_id, ending, started);
    if outcome.status == RunStatus::Failed {
        outcome.hints = diagnose::hints(prepared, &outcome, temp.path());
    }
    finish(&shared, &outcome);
    drop(temp);
    // The helper refused to exec (the kernel could not enforce the policy in full): nothing
    // of the skill ran, and the caller is told why, as if the parent had seen it first.
    let refused = sandbox::refusal(outcome.exit_code, &outcome.stderr)
        .filter(|_| prepared.sandbox.is_some())
        .map(|missing| Error::SandboxUnavailable { missing });
    (outcome, refused)
}

/// Writes `input` to the child's stdin on a thread of its own, then closes it. A child that
/// never reads (or exits first) only ends the write with a broken pipe: nothing waits on it.
fn feed_stdin(mut pipe: std::process::ChildStdin, input: Vec<u8>) {
    let spawned = std::thread::Builder::new()
        .name("skills-run-stdin".to_owned())
        .spawn(move || {
            use std::io::Write as _;
            drop(pipe.write_all(&input));
        });
    if let Err(error) = spawned {
        tracing::warn!(%error, "could not start the thread feeding the run's stdin");
    }
}

/// Reads `pipe` to its end on a thread of its own; 1 when the thread started.
fn spawn_reader(
    mut pipe: impl std::io::Read + Send + 'static,
    stream: Stream,
    capture: &Arc<Mutex<Capture>>,
    shared: &Arc<Shared>,
    done: &mpsc::Sender<()>,
) -> usize {
    let capture = Arc::clone(capture);
    let shared = Arc::clone(shared);
    let done = done.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("skills-run-{stream:?}").to_lowercase())
        .spawn(move || {
            let mut buffer = vec![0u8; CHUNK];
            let mut decoder = Decoder::default();
            loop {
                match pipe.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(read) => {
                        let chunk = &buffer[..read];
                        capture
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .push(chunk);
                        shared.output(stream, &decoder.decode(chunk));
                    }
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            shared.output(stream, &decoder.finish());
            done.send(()).ok();
        });
    usize::from(spawned.is_ok())
}

/// How a run ended, before it becomes an outcome.
#[derive(Debug, Default)]
struct Ending {
    status: Option<ExitStatus>,
    stop: Option<Stop>,
    spawned: bool,
    spawn_failed: bool,
    stdout: String,
    stderr: String,
    stdout_bytes: u64,
    stderr_bytes: u64,
    truncated: bool,
}

impl Ending {
    fn not_spawned() -> Self {
        Self {
            stop: Some(Stop::Cancel),
            ..Self::default()
        }
    }

    fn not_spawned_failed() -> Self {
        Self {
            spawn_failed: true,
            ..Self::default()
        }
    }
}

/// Waits for the child and its output, enforcing the deadline and cancels.
fn supervise(
    child: &mut Child,
    pid: u32,
    deadline: Option<Duration>,
    control: &Control,
    marker: &log::Marker,
    readers: &mpsc::Receiver<()>,
    mut open_readers: usize,
) -> Ending {
    let started = Instant::now();
    let mut ending = Ending {
        spawned: true,
        ..Ending::default()
    };
    let mut exited_at: Option<Instant> = None;
    let mut termed_at: Option<Instant> = None;
    let mut killed_at: Option<Instant> = None;
    let mut marker_checked = started;
    let mut closed_at: Option<Instant> = None;
    let grace = Duration::from_millis(KILL_GRACE_MILLIS);
    let exit = Exit::of(pid);
    loop {
        if ending.status.is_none() && exited_at.is_none() {
            match child.try_wait() {
                Ok(Some(status)) => {
                    ending.status = Some(status);
                    exited_at = Some(Instant::now());
                }
                Ok(None) => {}
                // The child cannot be waited for (it was reaped elsewhere): it is gone, with
                // no status to report; the run ends as failed once its output is read.
                Err(error) => {
                    tracing::warn!(pid, %error, "could not wait for the run's process");
                    exited_at = Some(Instant::now());
                }
            }
        }
        if open_readers == 0 && exited_at.is_some() {
            break;
        }
        let now = Instant::now();
        if ending.stop.is_none() || ending.stop == Some(Stop::Leftover) {
            let mut cancelled = control.is_cancelled();
            if !cancelled && now.duration_since(marker_checked) >= MARKER_EVERY {
                marker_checked = now;
                cancelled = marker.exists();
            }
            let stop = if cancelled {
                Some(Stop::Cancel)
            } else if deadline.is_some_and(|deadline| now.duration_since(started) >= deadline) {
                Some(Stop::Deadline)
            } else if exited_at.is_some_and(|at| now.duration_since(at) >= LINGER) {
                Some(Stop::Leftover)
            } else {
                None
            };
            if let Some(stop) = stop
                && ending.stop != Some(stop)
            {
                // A cancel or the deadline that comes after the leftover TERM keeps the
                // grace already running; it only changes what the run is reported as.
                if ending.stop.is_none() {
                    signal_group(pid, Signal::TERM);
                    termed_at = Some(now);
                }
                ending.stop = Some(stop);
            }
        }
        if let Some(termed) = termed_at
            && killed_at.is_none()
            && now.duration_since(termed) >= grace
        {
            signal_group(pid, Signal::KILL);
            killed_at = Some(now);
        }
        if exited_at.is_some()
            && killed_at.is_some_and(|killed| now.duration_since(killed) >= ABANDON_AFTER_KILL)
        {
            tracing::warn!(
                pid,
                "a process outside the run's group holds its output open; not waiting for it"
            );
            break;
        }
        match readers.recv_timeout(TICK) {
            Ok(()) => open_readers = open_readers.saturating_sub(1),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                open_readers = 0;
                // Both streams are closed: the process is ending (or has closed them and
                // goes on). Wait for its exit itself, so a run ends when its process does.
                if exited_at.is_none() {
                    let closed = *closed_at.get_or_insert_with(Instant::now);
                    let quick = closed.elapsed() < SETTLE_FOR;
                    exit.wait(if quick { SETTLE } else { TICK });
                }
            }
        }
    }
    ending
}

/// The child's exit, to wait on: its pidfd (readable the instant it exits), or a plain
/// sleep where the kernel has none (before Linux 5.3).
struct Exit(Option<std::os::fd::OwnedFd>);

impl Exit {
    fn of(pid: u32) -> Self {
        let pidfd = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
            .and_then(|pid| {
                rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
            });
        Self(pidfd)
    }

    /// Returns when the child has exited or `most` has passed.
    fn wait(&self, most: Duration) {
        let Some(pidfd) = &self.0 else {
            std::thread::sleep(most);
            return;
        };
        let timeout = rustix::event::Timespec {
            tv_sec: i64::try_from(most.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(most.subsec_nanos()),
        };
        let mut fds = [rustix::event::PollFd::new(
            pidfd,
            rustix::event::PollFlags::IN,
        )];
        if rustix::event::poll(&mut fds, Some(&timeout)).is_err() {
            std::thread::sleep(most);
        }
    }
}

/// The outcome of `ending`.
fn ended(prepared: &Prepared, run_id: &str, ending: Ending, started: Instant) -> RunOutcome {
    let timed_out = ending.stop == Some(Stop::Deadline);
    let cancelled = ending.stop == Some(Stop::Cancel);
    let exit_code = ending.status.and_then(|status| status.code());
    let signal = ending.status.and_then(|status| status.signal());
    let status = if timed_out {
        RunStatus::TimedOut
    } else if cancelled {
        RunStatus::Cancelled
    } else if exit_code == Some(0) && !ending.spawn_failed {
        RunStatus::Succeeded
    } else {
        RunStatus::Failed
    };
    let note = (status == RunStatus::Succeeded && ending.stdout_bytes == 0)
        .then(|| PRINTED_NOTHING.to_owned());
    let mut outcome = RunOutcome::new(run_id, prepared.skill.clone(), status);
    outcome.exit_code = exit_code;
    outcome.signal = signal;
    outcome.timed_out = timed_out;
    outcome.cancelled = cancelled;
    if ending.spawned {
        outcome.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    }
    outcome.stdout = ending.stdout;
    outcome.stderr = ending.stderr;
    outcome.stdout_bytes = ending.stdout_bytes;
    outcome.stderr_bytes = ending.stderr_bytes;
    outcome.truncated = ending.truncated;
    outcome.sandbox = applied(prepared);
    outcome.network = applied_network(prepared);
    outcome.note = note;
    outcome
}

/// Writes `end` and closes the log and the notices to readers left behind.
fn finish(shared: &Shared, outcome: &RunOutcome) {
    shared.record(&LogRecord::End {
        status: outcome.status,
        exit_code: outcome.exit_code,
        signal: outcome.signal,
        timed_out: outcome.timed_out,
        cancelled: outcome.cancelled,
        duration_ms: outcome.duration_ms,
        stdout_bytes: outcome.stdout_bytes,
        stderr_bytes: outcome.stderr_bytes,
        ended_at: crate::now(),
    });
    shared.finished.store(true, Ordering::SeqCst);
}

/// The sandbox a run gets: the helper execs the interpreter only once every restriction is
/// enforced, so what runs runs under the planned mode; `off` when there is none.
fn applied(prepared: &Prepared) -> SandboxMode {
    prepared
        .sandbox
        .as_ref()
        .map_or(SandboxMode::Off, |plan| plan.mode)
}

/// The network rule a run gets: the planned one, `allow` when there is no sandbox.
fn applied_network(prepared: &Prepared) -> NetworkMode {
    prepared
        .sandbox
        .as_ref()
        .map_or(NetworkMode::Allow, |plan| plan.network)
}

/// The `start` record of a run.
pub(crate) fn start_record(prepared: &Prepared, run_id: &str) -> LogRecord {
    LogRecord::Start {
        run_id: run_id.to_owned(),
        skill: prepared.skill.clone(),
        skill_dir: prepared.skill_dir.display().to_string(),
        target: prepared.target.clone(),
        args: prepared.args.clone(),
        input_names: prepared.input_names.clone(),
        interpreter: prepared.program.display().to_string(),
        interpreter_version: prepared.program_version.clone(),
        sandbox: applied(prepared),
        network: applied_network(prepared),
        timeout_secs: prepared.timeout_secs,
        started_at: crate::now(),
        recorder_pid: std::process::id(),
    }
}
