//! The twin of `skills-runtime`: nothing runs. The lists (`resolve_runtimes`, `recent_runs`)
//! are honestly empty; every other call is `Err(Error::Disabled)`.

use serde_json::{Map, Value};
use skills_types::run::{
    RunHooks, RunLogChunk, RunOutcome, RunRequest, RunSummary, RuntimeInfo, RuntimeKind,
    SetupOutcome, SetupRequest, StartedRun, Task, TestOutcome, TestRequest,
};
use skills_types::tool::{ToolCall, ToolExecution, ToolInfo};
use skills_types::{Error, SkillsConfig};

/// The twin of `skills_runtime::sandbox_main`: with nothing compiled in there is no helper
/// to dispatch, so it returns at once and `main` goes on.
pub fn sandbox_main() {}

/// The twin of `skills_runtime::Runtime`: holds nothing.
#[derive(Clone, Debug, Default)]
pub struct Runtime;

impl Runtime {
    /// A runtime that runs nothing.
    pub fn new() -> Self {
        Self
    }

    /// Empty: no interpreter is resolved.
    pub fn resolve_runtimes(
        &self,
        _config: &SkillsConfig,
        _kind: Option<RuntimeKind>,
    ) -> Vec<RuntimeInfo> {
        Vec::new()
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn run(
        &self,
        _config: &SkillsConfig,
        _request: &RunRequest,
        _hooks: &RunHooks,
    ) -> Result<RunOutcome, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn start(
        &self,
        _config: &SkillsConfig,
        _request: &RunRequest,
        _hooks: &RunHooks,
    ) -> Result<StartedRun, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn setup(
        &self,
        _config: &SkillsConfig,
        _request: &SetupRequest,
        _hooks: &RunHooks,
    ) -> Result<SetupOutcome, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn cancel(&self, _config: &SkillsConfig, _run_id: &str) -> Result<bool, Error> {
        Err(Error::Disabled)
    }

    /// Empty: nothing has run.
    pub fn recent_runs(
        &self,
        _config: &SkillsConfig,
        _limit: usize,
    ) -> Result<Vec<RunSummary>, Error> {
        Ok(Vec::new())
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn read_run_log(
        &self,
        _config: &SkillsConfig,
        _run_id: &str,
        _offset: u64,
        _max_bytes: usize,
    ) -> Result<RunLogChunk, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn render_task(
        &self,
        _config: &SkillsConfig,
        _skill: &str,
        _inputs: &Map<String, Value>,
    ) -> Result<Task, Error> {
        Err(Error::Disabled)
    }

    /// Empty: no tool can be called.
    pub fn list_tools(&self, _config: &SkillsConfig) -> Result<Vec<ToolInfo>, Error> {
        Ok(Vec::new())
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn execute_tool(
        &self,
        _config: &SkillsConfig,
        _call: &ToolCall,
        _hooks: &RunHooks,
    ) -> Result<ToolExecution, Error> {
        Err(Error::Disabled)
    }

    /// Disabled: always `Err(Error::Disabled)`.
    pub fn run_tests(
        &self,
        _config: &SkillsConfig,
        _request: &TestRequest,
        _hooks: &RunHooks,
    ) -> Result<Vec<TestOutcome>, Error> {
        Err(Error::Disabled)
    }
}
