//! Running skills' code (07): one strict process policy for every script a skill bundles.
//!
//! A [`Runtime`] belongs to one handle. It resolves the interpreters once, holds the runs in
//! flight (so they can be cancelled and counted against the limits), and writes every run's
//! log under `<home>/<app_dir>/runs/`. A run goes through the same stages whatever asks for
//! it (the library, the command line, RPC):
//!
//! 1. **prepare**: the skill is found and allowed, the target and inputs are checked, the
//!    interpreter is chosen, confirmation and the read-only flag are honoured, and the
//!    kernel is checked for the sandbox configured. Any refusal happens here, before
//!    anything is registered or spawned;
//! 2. **register**: a run id (UUIDv7) is taken, the log's `start` record is written and the
//!    run becomes cancellable;
//! 3. **spawn**: argv only, the workspace as working directory, an environment rebuilt from
//!    the allowlist, its own process group, its own temporary folder, and (unless
//!    `sandbox = "off"`) the sandbox helper in front of the interpreter (`sandbox`), which
//!    restricts itself with Landlock and seccomp and then execs it;
//! 4. **supervise**: output read live and capped, the deadline and cancel enforced on the
//!    whole group, the `end` record written, retention applied.

#![warn(missing_docs)]

mod cancel;
mod dependencies;
mod diagnose;
mod environment;
mod inherited_env;
mod inputs;
mod log;
mod managed_node;
mod npm;
mod output;
mod pid;
mod prepare;
mod process;
mod runtimes;
mod sandbox;
mod selftest;
mod setup;
mod spawn;
mod task;
#[cfg(test)]
mod tests;
mod tools;
mod versions;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use skills_types::event::{DomainEvent, SkillsEvent};
use skills_types::run::{
    RunHooks, RunLogChunk, RunNotice, RunOutcome, RunRequest, RunSummary, RuntimeInfo, RuntimeKind,
    SetupOutcome, SetupRequest, StartedRun, Task, TestOutcome, TestRequest,
};
use skills_types::tool::{ToolCall, ToolExecution, ToolInfo};
use skills_types::{Error, SkillsConfig};

use process::Control;
pub use sandbox::{MARKER as SANDBOX_MARKER, sandbox_main};

/// The window of `max_runs_per_minute`.
const RATE_WINDOW: Duration = Duration::from_secs(60);

/// The runtime of one handle: cached interpreters, runs in flight, limits.
#[derive(Clone, Debug, Default)]
pub struct Runtime {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    runtimes: runtimes::Runtimes,
    registry: Mutex<Registry>,
    /// Tests hold a run between registration and spawn with this.
    #[cfg(test)]
    hold_before_spawn: Mutex<Option<process::Hold>>,
}

/// The runs in flight and the recent starts, for cancel and the limits.
#[derive(Debug, Default)]
struct Registry {
    runs: HashMap<String, Arc<Control>>,
    started: VecDeque<Instant>,
}

impl Inner {
    fn unregister(&self, run_id: &str) {
        let mut registry = self.registry.lock().unwrap_or_else(PoisonError::into_inner);
        registry.runs.remove(run_id);
    }

    /// The runs registered now: their logs are never removed by retention.
    fn running(&self) -> Vec<String> {
        let registry = self.registry.lock().unwrap_or_else(PoisonError::into_inner);
        registry.runs.keys().cloned().collect()
    }
}

/// The time now, RFC 3339 UTC with milliseconds.
pub(crate) fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

impl Runtime {
    /// A runtime with nothing resolved and nothing running.
    pub fn new() -> Self {
        Self::default()
    }

    /// The interpreters (all, or one kind): path, version and whether runs may use it.
    /// Resolved once per runtime and cached.
    pub fn resolve_runtimes(
        &self,
        config: &SkillsConfig,
        kind: Option<RuntimeKind>,
    ) -> Vec<RuntimeInfo> {
        self.inner.runtimes.know(config);
        let settings = skills_ops::discover::effective_config(config).runtime;
        let kinds: Vec<RuntimeKind> = match kind {
            Some(kind) => vec![kind],
            None => RuntimeKind::ALL.to_vec(),
        };
        kinds
            .into_iter()
            .map(|kind| self.inner.runtimes.get(&settings, kind))
            .collect()
    }

    /// Runs `request` to its end, telling `hooks` as it goes.
    pub fn run(
        &self,
        config: &SkillsConfig,
        request: &RunRequest,
        hooks: &RunHooks,
    ) -> Result<RunOutcome, Error> {
        self.start(config, request, hooks)?.wait()
    }

    /// Checks and registers `request`, then runs it on a thread of its own: the id comes back
    /// at once and the run is cancellable from then on.
    pub fn start(
        &self,
        config: &SkillsConfig,
        request: &RunRequest,
        hooks: &RunHooks,
    ) -> Result<StartedRun, Error> {
        let prepared = prepare::prepare(&self.inner.runtimes, config, request)?;
        self.start_prepared(config, prepared, hooks)
    }

    /// Installs what the skill declares (`requirements.txt`, its scripts' `# /// script`
    /// dependencies, `package.json`) and what `request` adds into the skill's own
    /// environment under `<home>/<app_dir>/runtimes/envs/`, each step a run under the home's
    /// sandbox with `[runtime] setup_network`; runs of the skill use it from then on.
    pub fn setup(
        &self,
        config: &SkillsConfig,
        request: &SetupRequest,
        hooks: &RunHooks,
    ) -> Result<SetupOutcome, Error> {
        setup::setup(self, config, request, hooks)
    }

    /// The interpreters of this runtime.
    pub(crate) fn runtimes(&self) -> &runtimes::Runtimes {
        &self.inner.runtimes
    }

    /// Registers a run already checked and planned, then runs it on a thread of its own.
    pub(crate) fn start_prepared(
        &self,
        config: &SkillsConfig,
        prepared: prepare::Prepared,
        hooks: &RunHooks,
    ) -> Result<StartedRun, Error> {
        let runs = log::create_runs(config)?;
        let (run_id, control, writer) = self.register(&prepared, &runs)?;
        let (sender, receiver) = mpsc::channel();
        let inner = Arc::clone(&self.inner);
        let hooks = hooks.clone();
        let thread_id = run_id.clone();
        let thread_control = Arc::clone(&control);
        let thread_runs = runs.clone();
        let spawned = std::thread::Builder::new()
            .name("skills-run".to_owned())
            .spawn(move || {
                let run_id = thread_id;
                let runs = thread_runs;
                // Older logs are pruned while the script runs, not after it: the newest logs
                // and every registered run (this one included) are kept, and the run's end
                // is not held up by a walk of the runs folder.
                let retention = {
                    let runs = runs.clone();
                    let keep = inner.running();
                    std::thread::Builder::new()
                        .name("skills-run-retention".to_owned())
                        .spawn(move || log::apply_retention(&runs, &keep))
                };
                let (outcome, error) =
                    process::execute(&prepared, &run_id, &runs, &thread_control, writer, &hooks);
                thread_control.end();
                inner.unregister(&run_id);
                drop(runs.remove(&log::marker_name(&run_id)));
                match retention {
                    Ok(retention) => drop(retention.join()),
                    Err(error) => tracing::warn!(%error, "could not start pruning old run logs"),
                }
                if let Some(notices) = &hooks.notices {
                    notices(&RunNotice::Finished {
                        run_id: run_id.clone(),
                        status: outcome.status,
                        outcome: Box::new(outcome.clone()),
                    });
                }
                if let Some(events) = &hooks.events {
                    events.publish(DomainEvent::skills(
                        SkillsEvent::RunFinished,
                        json!({
                            "run_id": run_id,
                            "skill": outcome.skill,
                            "status": outcome.status,
                            "exit_code": outcome.exit_code,
                            "duration_ms": outcome.duration_ms,
                        }),
                    ));
                }
                drop(sender.send(error.map_or(Ok(outcome), Err)));
            });
        if let Err(error) = spawned {
            control.end();
            self.inner.unregister(&run_id);
            return Err(Error::io(
                "start a thread for",
                runs.join(&log::log_name(&run_id)),
                error,
            ));
        }
        Ok(StartedRun::new(run_id, receiver))
    }

    /// Admits a run under the limits, takes its id, writes its `start` record and makes it
    /// cancellable, all under one lock so two starts cannot both take the last place.
    fn register(
        &self,
        prepared: &prepare::Prepared,
        runs: &skills_ops::state::Folder,
    ) -> Result<(String, Arc<Control>, log::LogWriter), Error> {
        let mut registry = self
            .inner
            .registry
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        while registry
            .started
            .front()
            .is_some_and(|at| now.duration_since(*at) >= RATE_WINDOW)
        {
            registry.started.pop_front();
        }
        let concurrent = prepared.settings.max_concurrent_runs;
        if registry.runs.len() >= concurrent {
            return Err(Error::Busy {
                reason: format!(
                    "{} runs are going, the most at once (`[runtime] max_concurrent_runs = {concurrent}`)",
                    registry.runs.len()
                ),
            });
        }
        let per_minute = prepared.settings.max_runs_per_minute;
        if registry.started.len() >= per_minute {
            return Err(Error::Busy {
                reason: format!(
                    "{} runs started in the last minute, the most allowed (`[runtime] max_runs_per_minute = {per_minute}`)",
                    registry.started.len()
                ),
            });
        }
        let run_id = uuid::Uuid::now_v7().hyphenated().to_string();
        let writer =
            log::LogWriter::create(runs, &run_id, &process::start_record(prepared, &run_id))?;
        #[cfg(test)]
        let control = Arc::new(Control::held(
            self.inner
                .hold_before_spawn
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
        ));
        #[cfg(not(test))]
        let control = Arc::new(Control::default());
        registry.runs.insert(run_id.clone(), Arc::clone(&control));
        registry.started.push_back(now);
        Ok((run_id, control, writer))
    }

    /// Stops a run (its whole process group: SIGTERM, then SIGKILL after 2 s): `true` when a
    /// running run was signalled, `false` when it is unknown or already ended. Works across
    /// processes through the run's log.
    pub fn cancel(&self, config: &SkillsConfig, run_id: &str) -> Result<bool, Error> {
        let run_id = log::check_run_id(run_id)?;
        let control = self
            .inner
            .registry
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .runs
            .get(run_id)
            .cloned();
        if let Some(control) = control {
            return Ok(control.cancel());
        }
        match log::open_runs(config)? {
            Some(runs) => cancel::cancel_elsewhere(&runs, run_id),
            None => Ok(false),
        }
    }

    /// The newest runs first (`limit` clamped to 1..=100), each with its status.
    pub fn recent_runs(
        &self,
        config: &SkillsConfig,
        limit: usize,
    ) -> Result<Vec<RunSummary>, Error> {
        log::recent(config, limit)
    }

    /// Up to `max_bytes` (clamped to 1..=256 KiB) of a run's log from `offset`.
    pub fn read_run_log(
        &self,
        config: &SkillsConfig,
        run_id: &str,
        offset: u64,
        max_bytes: usize,
    ) -> Result<RunLogChunk, Error> {
        log::read(config, run_id, offset, max_bytes)
    }

    /// An instruction-only skill as an agent session: its body with an inputs block that no
    /// value can close, its `[agent]` table and its preflight.
    pub fn render_task(
        &self,
        config: &SkillsConfig,
        skill: &str,
        inputs: &Map<String, Value>,
    ) -> Result<Task, Error> {
        task::render_task(config, skill, inputs)
    }

    /// Every tool every skill of the catalog declares, as `<skill>__<tool>`.
    pub fn list_tools(&self, config: &SkillsConfig) -> Result<Vec<ToolInfo>, Error> {
        tools::list_tools(config)
    }

    /// Calls a declared tool: its arguments checked against its schema before anything runs,
    /// then its script run like any run, with the arguments as JSON on stdin and in
    /// `SKILL_TOOL_ARGS`.
    pub fn execute_tool(
        &self,
        config: &SkillsConfig,
        call: &ToolCall,
        hooks: &RunHooks,
    ) -> Result<ToolExecution, Error> {
        tools::execute_tool(self, config, call, hooks)
    }

    /// Runs the self-tests of one skill, or of every skill that declares any.
    pub fn run_tests(
        &self,
        config: &SkillsConfig,
        request: &TestRequest,
        hooks: &RunHooks,
    ) -> Result<Vec<TestOutcome>, Error> {
        selftest::run_tests(self, config, request, hooks)
    }
}
