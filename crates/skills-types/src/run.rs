//! Running a skill's code (07): what a run is asked to do, what it gives back, what its log
//! holds, the interpreters it uses and the task an instruction-only skill becomes.
//!
//! Everything here is data. The runtime (`skills-runtime`) does the work; its stub twin
//! answers the same signatures with empty lists and [`Error::Disabled`](crate::Error).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, mpsc};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::runtime::{NetworkMode, SandboxMode};
pub use crate::skill::InputType;
use crate::skill::SkillInput;
use crate::{Error, ToolContent, ToolResult};

/// The most bytes of stdout (and, separately, of stderr) a result and a log keep.
pub const MAX_STREAM_BYTES: usize = 1024 * 1024;
/// The longest explicit deadline, in seconds; a longer one is clamped to it.
pub const MAX_TIMEOUT_SECS: u64 = 1800;
/// The deadline of a sandboxed run that asked for none, in seconds (24 hours): a confined
/// process must still end, so a forgotten one cannot hold its sandbox's grants forever.
pub const SANDBOXED_DEADLINE_SECS: u64 = 24 * 60 * 60;
/// How long a process group has between SIGTERM and SIGKILL.
pub const KILL_GRACE_MILLIS: u64 = 2000;
/// The largest value of one input, in bytes of its text (JSON values as compact JSON).
pub const MAX_INPUT_BYTES: usize = 64 * 1024;
/// The largest `SKILL_INPUTS` text (every input as one compact JSON object), in bytes. Linux
/// refuses to start a program when any one environment string is over 128 KiB
/// (`MAX_ARG_STRLEN`), so the 256 KiB of 07 cannot be carried in one variable; 120 KiB
/// leaves room for the name and the end of the string.
pub const MAX_INPUTS_BYTES: usize = 120 * 1024;
/// The bounds of `recent_runs`'s limit.
pub const MAX_RECENT_RUNS: usize = 100;
/// The most bytes `read_run_log` returns at once.
pub const MAX_LOG_READ_BYTES: usize = 256 * 1024;
/// The most run logs kept; older ones are removed after a run ends.
pub const MAX_KEPT_RUNS: usize = 200;
/// The most bytes of run logs kept in all.
pub const MAX_KEPT_LOG_BYTES: u64 = 64 * 1024 * 1024;

/// The language of inline code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InlineLanguage {
    /// `node -e CODE`.
    #[serde(alias = "javascript", alias = "js")]
    Node,
    /// `python3 -c CODE`.
    #[serde(alias = "python3", alias = "py")]
    Python,
    /// `sh -c CODE`.
    #[serde(alias = "shell")]
    Sh,
}

impl InlineLanguage {
    /// The interpreter that runs it.
    pub const fn runtime(self) -> RuntimeKind {
        match self {
            Self::Node => RuntimeKind::Node,
            Self::Python => RuntimeKind::Python,
            Self::Sh => RuntimeKind::Sh,
        }
    }
}

/// The language a bundled script runs as: decided by its extension, as the runtime decides
/// (07 §Interpreters), with a `#!` line asking for bash making a `.sh` file bash. The audit
/// reads scripts in the language they would run as, so both ask this one table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ScriptLanguage {
    /// `.py`: `python3`.
    Python,
    /// `.js`, `.mjs`, `.cjs`: `node`.
    JavaScript,
    /// `.ts`: a `node` that strips types.
    TypeScript,
    /// `.sh`: `sh`.
    Sh,
    /// `.sh` whose `#!` line names bash: `bash`.
    Bash,
}

/// The extensions the runtime runs, and as what (`.sh` may become bash by its `#!` line).
const SCRIPT_EXTENSIONS: [(&str, ScriptLanguage); 6] = [
    ("py", ScriptLanguage::Python),
    ("js", ScriptLanguage::JavaScript),
    ("mjs", ScriptLanguage::JavaScript),
    ("cjs", ScriptLanguage::JavaScript),
    ("ts", ScriptLanguage::TypeScript),
    ("sh", ScriptLanguage::Sh),
];

/// The program a `#!` line runs, without its folder (`#!/usr/bin/env bash` → `bash`,
/// `#!/bin/sh -e` → `sh`): the first word, or the first non-option word after `env`.
fn shebang_program(head: &[u8]) -> Option<&str> {
    let line = head.strip_prefix(b"#!")?;
    let line = &line[..line
        .iter()
        .position(|&byte| byte == b'\n')
        .unwrap_or(line.len())];
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_whitespace();
    let first = words.next()?.rsplit('/').next()?;
    if first == "env" {
        return words.find(|word| !word.starts_with('-'));
    }
    Some(first)
}

impl ScriptLanguage {
    /// The language the runtime runs `path` as, given the file's first bytes (`head`, for the
    /// `#!` line); `None` for a file it does not run.
    pub fn of(path: &str, head: &[u8]) -> Option<Self> {
        let extension = path.rsplit_once('.')?.1;
        let language = SCRIPT_EXTENSIONS
            .iter()
            .find(|(known, _)| *known == extension)?
            .1;
        if language == Self::Sh && shebang_program(head) == Some("bash") {
            return Some(Self::Bash);
        }
        Some(language)
    }

    /// The language a `#!` line names (`#!/usr/bin/env python3`, `#!/bin/bash`), for a file
    /// an agent could run directly whatever its name.
    pub fn of_shebang(head: &[u8]) -> Option<Self> {
        let program = shebang_program(head)?;
        let program = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        match program {
            "python" => Some(Self::Python),
            "node" | "nodejs" | "deno" | "bun" => Some(Self::JavaScript),
            "sh" | "dash" | "ash" => Some(Self::Sh),
            "bash" | "zsh" | "ksh" => Some(Self::Bash),
            _ => None,
        }
    }

    /// The interpreter kind that runs it.
    pub const fn runtime(self) -> RuntimeKind {
        match self {
            Self::Python => RuntimeKind::Python,
            Self::JavaScript | Self::TypeScript => RuntimeKind::Node,
            Self::Sh | Self::Bash => RuntimeKind::Sh,
        }
    }
}

/// What a run executes: exactly one of these.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunTarget {
    /// A file bundled with the skill, relative to its folder (`scripts/extract.py`).
    Script {
        /// The path, relative to the skill folder.
        path: String,
    },
    /// Code passed to the interpreter as one argument (`node -e`, `python3 -c`, `sh -c`);
    /// runs only when the home configuration says `[runtime] allow_inline = true`.
    Inline {
        /// Which interpreter.
        language: InlineLanguage,
        /// The code.
        code: String,
    },
    /// The script `skill.toml` names as `entry`.
    Entry,
    /// `npm` in the skill folder of a skill with a `package.json`: `ci`, `install`,
    /// `run SCRIPT` or `test`, with their arguments.
    Npm {
        /// The npm arguments (`["ci"]`, `["run", "build"]`).
        args: Vec<String>,
    },
}

/// A request to run a skill's code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct RunRequest {
    /// The skill's name or folder name.
    pub skill: String,
    /// What to run.
    pub target: RunTarget,
    /// Arguments after the script, each one argv element, never parsed by a shell.
    #[serde(default)]
    pub args: Vec<String>,
    /// Values of the skill's declared inputs.
    #[serde(default)]
    pub inputs: serde_json::Map<String, Value>,
    /// A deadline in seconds: clamped to 1..=1800; `None` or `0` means none.
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// The user confirmed this run (needed for `ask` and project skills).
    #[serde(default)]
    pub confirmed: bool,
}

impl RunRequest {
    /// A run of `target` in `skill`, with no arguments, inputs or deadline, unconfirmed.
    pub fn new(skill: impl Into<String>, target: RunTarget) -> Self {
        Self {
            skill: skill.into(),
            target,
            args: Vec::new(),
            inputs: serde_json::Map::new(),
            timeout_secs: None,
            confirmed: false,
        }
    }

    /// The same request with these arguments.
    #[must_use]
    pub fn with_args(mut self, args: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.args = args.into_iter().map(Into::into).collect();
        self
    }

    /// The same request with these input values.
    #[must_use]
    pub fn with_inputs(mut self, inputs: serde_json::Map<String, Value>) -> Self {
        self.inputs = inputs;
        self
    }

    /// The same request with a deadline.
    #[must_use]
    pub fn with_timeout_secs(mut self, seconds: Option<u64>) -> Self {
        self.timeout_secs = seconds;
        self
    }

    /// The same request, confirmed (or not) by the user.
    #[must_use]
    pub fn confirmed(mut self, confirmed: bool) -> Self {
        self.confirmed = confirmed;
        self
    }
}

/// One of a process's two output streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Where a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Started and not ended.
    Running,
    /// Exited with status 0.
    Succeeded,
    /// Exited with another status, or was killed by a signal it did not ask for.
    Failed,
    /// Stopped at its deadline.
    TimedOut,
    /// Stopped by a cancel.
    Cancelled,
    /// Its log has no end: the process recording it died.
    Interrupted,
}

impl RunStatus {
    /// The name on the wire (`timed_out`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::TimedOut => "timed_out",
            Self::Cancelled => "cancelled",
            Self::Interrupted => "interrupted",
        }
    }
}

/// The network rule of a record that names none: written before runs were confined.
fn unrestricted() -> NetworkMode {
    NetworkMode::Allow
}

/// What a finished run did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct RunOutcome {
    /// The run's id (a UUIDv7).
    pub run_id: String,
    /// The skill's name.
    pub skill: String,
    /// How it ended.
    pub status: RunStatus,
    /// The exit status, when the process exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// Stopped at its deadline.
    pub timed_out: bool,
    /// Stopped by a cancel.
    pub cancelled: bool,
    /// From spawn to the end of its output, in milliseconds.
    pub duration_ms: u64,
    /// What it printed on stdout, at most 1 MiB, then the truncation marker.
    pub stdout: String,
    /// What it printed on stderr, at most 1 MiB, then the truncation marker.
    pub stderr: String,
    /// Every byte it printed on stdout, kept or not.
    pub stdout_bytes: u64,
    /// Every byte it printed on stderr, kept or not.
    pub stderr_bytes: u64,
    /// Whether either stream was cut.
    pub truncated: bool,
    /// The sandbox actually applied.
    pub sandbox: SandboxMode,
    /// The network rule actually applied: `allow` when the sandbox is off, since nothing
    /// restricts the network then.
    #[serde(default = "unrestricted")]
    pub network: NetworkMode,
    /// Set when the run succeeded and printed nothing: only printed output reaches an agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// What a failed run's error output shows the user can fix: a write or a connection the
    /// sandbox refused (which rule, and the home setting that allows it), a module the skill's
    /// environment lacks (and how to set it up). Empty for a run that succeeded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<RunHint>,
}

impl RunOutcome {
    /// An outcome of `run_id` with `status` and nothing else yet (no exit, no output, no
    /// sandbox); the runtime fills the public fields.
    pub fn new(run_id: impl Into<String>, skill: impl Into<String>, status: RunStatus) -> Self {
        Self {
            run_id: run_id.into(),
            skill: skill.into(),
            status,
            exit_code: None,
            signal: None,
            timed_out: false,
            cancelled: false,
            duration_ms: 0,
            stdout: String::new(),
            stderr: String::new(),
            stdout_bytes: 0,
            stderr_bytes: 0,
            truncated: false,
            sandbox: SandboxMode::Off,
            network: NetworkMode::Allow,
            note: None,
            hints: Vec::new(),
        }
    }
}

/// What a failed run ran into that the user can fix, as the runtime found it in the run's
/// error output and checked against what it knows (the sandbox it applied, the skill's
/// environment).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct RunHint {
    /// What kind of thing went wrong.
    pub kind: RunHintKind,
    /// What was refused or is missing: a path, a host or `network`, a module's name.
    pub subject: String,
    /// The whole hint in one sentence: which rule refused what (or what is missing), and what
    /// allows it.
    pub message: String,
    /// The setting or command that allows it (`[runtime] writable = ["/srv/out"]` in the home
    /// `skills.toml`, `skills setup pdf`), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remedy: Option<String>,
}

impl RunHint {
    /// A hint of `kind` about `subject`, saying `message`, with `remedy` when there is one.
    pub fn new(
        kind: RunHintKind,
        subject: impl Into<String>,
        message: impl Into<String>,
        remedy: Option<String>,
    ) -> Self {
        Self {
            kind,
            subject: subject.into(),
            message: message.into(),
            remedy,
        }
    }
}

/// The kinds of [`RunHint`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunHintKind {
    /// The sandbox refused a write outside the folders the run may write.
    SandboxWrite,
    /// The sandbox refused a connection (or a new socket) under `network = "deny"`.
    SandboxNetwork,
    /// A module (Python) or package (Node) the script imports is not installed for it.
    MissingModule,
}

impl RunHintKind {
    /// The name on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SandboxWrite => "sandbox_write",
            Self::SandboxNetwork => "sandbox_network",
            Self::MissingModule => "missing_module",
        }
    }
}

/// A request to install a skill's dependencies into its own environment (`skills setup
/// NAME`): what its `requirements.txt`, its scripts' inline metadata (`# /// script`) and its
/// `package.json` declare, plus what the user adds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct SetupRequest {
    /// The skill's name or folder name.
    pub skill: String,
    /// Python requirements to install besides what the skill declares (`pypdf>=4`), for a
    /// skill that declares none; kept in the environment's record, so later setups keep them.
    #[serde(default)]
    pub packages: Vec<String>,
    /// Set the environment up again even when it is up to date.
    #[serde(default)]
    pub force: bool,
    /// The user confirmed the setup (needed for `ask` and project skills, as for a run: a
    /// setup fetches what a repository declares).
    #[serde(default)]
    pub confirmed: bool,
}

impl SetupRequest {
    /// A setup of `skill` with nothing added, not forced, unconfirmed.
    pub fn new(skill: impl Into<String>) -> Self {
        Self {
            skill: skill.into(),
            packages: Vec::new(),
            force: false,
            confirmed: false,
        }
    }

    /// With these Python requirements added.
    #[must_use]
    pub fn with_packages(mut self, packages: impl IntoIterator<Item = String>) -> Self {
        self.packages = packages.into_iter().collect();
        self
    }

    /// Set up again even when up to date.
    #[must_use]
    pub fn forced(mut self, force: bool) -> Self {
        self.force = force;
        self
    }

    /// Marked as confirmed by the user.
    #[must_use]
    pub fn confirmed(mut self, confirmed: bool) -> Self {
        self.confirmed = confirmed;
        self
    }
}

/// How a setup ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SetupStatus {
    /// The environment was made, and runs of the skill use it now.
    SetUp,
    /// It was already made from the same declarations and interpreter: nothing ran.
    UpToDate,
    /// A step failed: the environment in use (if any) is as it was.
    Failed,
    /// The skill declares no dependencies (no `requirements.txt`, no `# /// script` block,
    /// no `package.json` dependencies) and none were added: nothing to set up.
    NothingDeclared,
}

/// What a setup did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct SetupOutcome {
    /// The skill's name.
    pub skill: String,
    /// How it ended.
    pub status: SetupStatus,
    /// The environment runs of the skill use, when there is one.
    #[schemars(with = "Option<String>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<PathBuf>,
    /// The Python requirements installed (declared, then added).
    pub requirements: Vec<String>,
    /// The npm dependencies installed (from `package.json`).
    pub node_dependencies: Vec<String>,
    /// Where the dependencies were declared (`requirements.txt`, `scripts/x.py`,
    /// `package.json`, `--package`).
    pub declared_in: Vec<String>,
    /// Each step as a run (`python3 -m venv`, `pip install`, `npm install`), in order; the
    /// last one failed when the setup did.
    pub steps: Vec<RunOutcome>,
}

impl SetupOutcome {
    /// An outcome of `skill` with `status` and nothing else yet.
    pub fn new(skill: impl Into<String>, status: SetupStatus) -> Self {
        Self {
            skill: skill.into(),
            status,
            environment: None,
            requirements: Vec::new(),
            node_dependencies: Vec::new(),
            declared_in: Vec::new(),
            steps: Vec::new(),
        }
    }
}

/// What a run that exits 0 and prints nothing is told.
pub const PRINTED_NOTHING: &str = "the script printed nothing; print what the agent should see";

impl RunOutcome {
    /// Whether the run failed in any way (status, signal, deadline, cancel).
    pub fn is_error(&self) -> bool {
        self.status != RunStatus::Succeeded
    }

    /// The exit status a command line ends with: the script's own, 124 on timeout, 130 on
    /// cancel, 128 + the signal when killed by one.
    pub fn exit_status(&self) -> i32 {
        if self.timed_out {
            124
        } else if self.cancelled {
            130
        } else if let Some(code) = self.exit_code {
            code
        } else {
            128 + self.signal.unwrap_or(0)
        }
    }

    /// The outcome as a tool result: [`RunOutcome::text_for_model`] as text, and the whole
    /// outcome as JSON.
    pub fn to_tool_result(&self) -> ToolResult {
        ToolResult {
            content: vec![
                ToolContent::Text {
                    text: self.text_for_model(),
                },
                ToolContent::Json {
                    data: serde_json::to_value(self).unwrap_or_default(),
                },
            ],
            is_error: self.is_error(),
            markdown_formatted: None,
        }
    }

    /// What a model reads of the run: stdout, then stderr under a `[stderr]` line when there
    /// is any, then how the run ended when it failed (or the "printed nothing" note), in
    /// brackets. A declared tool's result and a run's result say the same in the same words.
    pub fn text_for_model(&self) -> String {
        let mut text = self.stdout.clone();
        if !self.stderr.is_empty() {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("[stderr]\n");
            text.push_str(&self.stderr);
        }
        let ending = match self.status {
            RunStatus::Succeeded => None,
            RunStatus::TimedOut => Some("the run was stopped at its deadline".to_owned()),
            RunStatus::Cancelled => Some("the run was cancelled".to_owned()),
            _ => Some(match (self.exit_code, self.signal) {
                (Some(code), _) => format!("the script exited with status {code}"),
                (None, Some(signal)) => format!("the script was killed by signal {signal}"),
                (None, None) => "the script failed".to_owned(),
            }),
        };
        if let Some(note) = ending.as_ref().or(self.note.as_ref()) {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!("[{note}]"));
        }
        for hint in &self.hints {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!("[hint: {}]", hint.message));
        }
        text
    }
}

/// What a run tells its caller while it goes (the CLI prints it; `skills serve` sends it as
/// `skill_runtime.output` and `skill_runtime.finished` notifications).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "notice", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunNotice {
    /// Output as it was read (lossy UTF-8, in chunks; not cut at 1 MiB, the result is).
    Output {
        /// The run.
        run_id: String,
        /// Which stream.
        stream: Stream,
        /// The text.
        text: String,
    },
    /// The run ended.
    Finished {
        /// The run.
        run_id: String,
        /// How it ended.
        status: RunStatus,
        /// Everything about it.
        outcome: Box<RunOutcome>,
    },
}

/// Receives a run's notices, on the thread that reads the output; it must not block long.
pub type RunSink = Arc<dyn Fn(&RunNotice) + Send + Sync>;

/// A run that was checked, registered and started in the background.
#[derive(Debug)]
pub struct StartedRun {
    /// The run's id, cancellable from now on.
    pub run_id: String,
    outcome: mpsc::Receiver<Result<RunOutcome, Error>>,
}

impl StartedRun {
    /// A started run whose outcome arrives on `outcome`.
    pub fn new(run_id: String, outcome: mpsc::Receiver<Result<RunOutcome, Error>>) -> Self {
        Self { run_id, outcome }
    }

    /// Blocks until the run ends.
    pub fn wait(self) -> Result<RunOutcome, Error> {
        self.outcome.recv().unwrap_or_else(|_| {
            Err(Error::Interrupted {
                action: "the run".to_owned(),
                reason: "its thread stopped before it sent an outcome".to_owned(),
            })
        })
    }
}

/// One run as `recent_runs` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct RunSummary {
    /// The run's id.
    pub run_id: String,
    /// The skill's name.
    pub skill: String,
    /// Where it stands.
    pub status: RunStatus,
    /// What ran, in words (`script scripts/x.py`, `inline python`, `entry scripts/main.py`).
    pub target: String,
    /// When it started, RFC 3339 UTC.
    pub started_at: String,
    /// How long it ran, when it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Its exit status, when it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

impl RunSummary {
    /// A summary of `run_id` with nothing but its skill, status, target and start.
    pub fn new(
        run_id: impl Into<String>,
        skill: impl Into<String>,
        status: RunStatus,
        target: impl Into<String>,
        started_at: impl Into<String>,
    ) -> Self {
        Self {
            run_id: run_id.into(),
            skill: skill.into(),
            status,
            target: target.into(),
            started_at: started_at.into(),
            duration_ms: None,
            exit_code: None,
        }
    }
}

/// A slice of a run log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct RunLogChunk {
    /// The run's id.
    pub run_id: String,
    /// The log's bytes from `offset` (JSON Lines; a chunk may end mid-line).
    pub text: String,
    /// Where this chunk starts.
    pub offset: u64,
    /// Where the next read starts.
    pub next_offset: u64,
    /// The log's size when it was read.
    pub size: u64,
    /// Whether the run has ended (nothing more will be written).
    pub finished: bool,
}

impl RunLogChunk {
    /// An empty chunk of `run_id`'s log at `offset`.
    pub fn new(run_id: impl Into<String>, offset: u64) -> Self {
        Self {
            run_id: run_id.into(),
            text: String::new(),
            offset,
            next_offset: offset,
            size: 0,
            finished: false,
        }
    }
}

/// One record of a run log (`<home>/<app_dir>/runs/<run_id>.jsonl`), one per line. The tag
/// is written by the runtime, so text a script prints is always inside an `output` record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "record", rename_all = "snake_case")]
#[non_exhaustive]
pub enum LogRecord {
    /// Written when the run is registered, before anything is spawned.
    Start {
        /// The run's id.
        run_id: String,
        /// The skill's name.
        skill: String,
        /// The skill's folder.
        skill_dir: String,
        /// What ran, in words.
        target: String,
        /// The arguments.
        args: Vec<String>,
        /// The names of the inputs given (never their values).
        input_names: Vec<String>,
        /// The interpreter's path.
        interpreter: String,
        /// Its version, when known.
        interpreter_version: Option<String>,
        /// The sandbox applied.
        sandbox: SandboxMode,
        /// The network rule applied (`allow` in logs written before there was a sandbox).
        #[serde(default = "unrestricted")]
        network: NetworkMode,
        /// The deadline in seconds, when there is one.
        timeout_secs: Option<u64>,
        /// When, RFC 3339 UTC.
        started_at: String,
        /// The process that recorded the run (it writes the `end`).
        recorder_pid: u32,
    },
    /// Written once the process exists: what a cancel from another process checks before
    /// it signals, so a recycled pid is never signalled.
    Spawned {
        /// The child's pid, which is also its process group.
        pid: u32,
        /// The child's start time, in clock ticks since boot (`/proc/PID/stat` field 22).
        start_time: u64,
    },
    /// Output, in the order read.
    Output {
        /// Which stream.
        stream: Stream,
        /// The text (lossy UTF-8).
        text: String,
    },
    /// A stream went past what the log keeps; the rest is counted only.
    Truncated {
        /// Which stream.
        stream: Stream,
    },
    /// Written when the run ends.
    End {
        /// How it ended.
        status: RunStatus,
        /// The exit status.
        exit_code: Option<i32>,
        /// The signal.
        signal: Option<i32>,
        /// Stopped at its deadline.
        timed_out: bool,
        /// Stopped by a cancel.
        cancelled: bool,
        /// How long it ran.
        duration_ms: u64,
        /// Bytes printed on stdout.
        stdout_bytes: u64,
        /// Bytes printed on stderr.
        stderr_bytes: u64,
        /// When, RFC 3339 UTC.
        ended_at: String,
    },
}

/// An interpreter the runtime can use.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RuntimeKind {
    /// Node.js (≥ 18).
    Node,
    /// npm.
    Npm,
    /// Python 3 (≥ 3.8).
    Python,
    /// A POSIX shell.
    Sh,
}

impl RuntimeKind {
    /// Every kind, in display order.
    pub const ALL: [Self; 4] = [Self::Node, Self::Npm, Self::Python, Self::Sh];

    /// The name on the wire and on the command line.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Node => "node",
            Self::Npm => "npm",
            Self::Python => "python",
            Self::Sh => "sh",
        }
    }
}

/// Where an interpreter's path came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RuntimeSource {
    /// `[runtime] node = "..."` (and the others) in the home `skills.toml`.
    Config,
    /// Found on `PATH`.
    Path,
    /// Managed Node (`[runtime] managed_node`), under `<home>/<app_dir>/runtimes/`.
    Managed,
}

/// One interpreter as resolved for a handle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct RuntimeInfo {
    /// Which interpreter.
    pub kind: RuntimeKind,
    /// What was looked for (`python3` on `PATH`, or the configured path).
    pub looked_for: String,
    /// The file found.
    #[schemars(with = "Option<String>")]
    pub path: Option<PathBuf>,
    /// Where the path came from.
    pub source: Option<RuntimeSource>,
    /// The version it reports (`22.11.0`, `3.11.2`); `sh` reports none.
    pub version: Option<String>,
    /// Whether runs may use it.
    pub usable: bool,
    /// Why not, when it is not usable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

impl RuntimeInfo {
    /// `kind`, looked for as `looked_for` and not found (not usable, no problem named yet).
    pub fn new(kind: RuntimeKind, looked_for: impl Into<String>) -> Self {
        Self {
            kind,
            looked_for: looked_for.into(),
            path: None,
            source: None,
            version: None,
            usable: false,
            problem: None,
        }
    }
}

/// The `[agent]` table of `skill.toml` (or OpenHuman's same keys at its top level): how a
/// core runs the skill as an agent of its own.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
#[non_exhaustive]
pub struct AgentSpec {
    /// The agent's system prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The tools it may use.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// Its most turns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_iterations: Option<u32>,
    /// Its sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The sandbox it asks for (a core's own names).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox_mode: Option<String>,
}

impl AgentSpec {
    /// Whether no key is set.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }
}

/// Which GitHub identity a skill's preflight needs.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum GithubIdentity {
    /// The identity must match exactly.
    Strict,
    /// Any signed-in identity.
    #[default]
    Any,
    /// No identity.
    None,
}

/// The `[github]` table of `skill.toml`: what a core checks before starting the skill.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
#[non_exhaustive]
pub struct Preflight {
    /// Whether GitHub access is required.
    pub required: bool,
    /// Which identity.
    pub identity: GithubIdentity,
}

/// Everything a skill's `skill.toml` (or `workflow.toml`) says, as the runtime reads it.
/// Discovery keeps only `when_to_use` and `inputs` in the catalog.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct SkillManifest {
    /// When an agent should use the skill.
    pub when_to_use: Option<String>,
    /// The declared inputs.
    pub inputs: Vec<SkillInput>,
    /// The script `Entry` runs, relative to the skill folder.
    pub entry: Option<String>,
    /// Interpreters for further extensions (`rb = "ruby"`): a program name looked up on
    /// `PATH`, keyed by the extension without its dot.
    pub interpreters: BTreeMap<String, String>,
    /// How a core runs the skill as an agent.
    pub agent: Option<AgentSpec>,
    /// What a core checks before starting it.
    pub github: Option<Preflight>,
    /// The declared tools (`[[tools]]`).
    pub tools: Vec<crate::tool::ToolSpec>,
    /// The declared self-tests (`[[tests]]`).
    pub tests: Vec<SelfTest>,
}

/// A self-test a skill declares in `skill.toml` (`[[tests]]`): a run and what it must give.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SelfTest {
    /// The test's name.
    pub name: String,
    /// The script to run, relative to the skill folder; with neither this nor `inline`, the
    /// skill's `entry`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// Inline code to run instead (needs `[runtime] allow_inline = true`, like any inline run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline: Option<String>,
    /// The language of `inline` (default `sh`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<InlineLanguage>,
    /// Arguments after the script.
    #[serde(default)]
    pub args: Vec<String>,
    /// Input values.
    #[serde(default)]
    pub inputs: serde_json::Map<String, Value>,
    /// The exit status the run must end with.
    #[serde(default)]
    pub expect_exit: i32,
    /// Text stdout must contain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect_stdout_contains: Option<String>,
    /// A deadline in seconds (default 60: a test that hangs fails instead of waiting).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
}

impl SelfTest {
    /// A test named `name` of the skill's entry: no arguments or inputs, expecting exit 0.
    pub fn named(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            script: None,
            inline: None,
            language: None,
            args: Vec::new(),
            inputs: serde_json::Map::new(),
            expect_exit: 0,
            expect_stdout_contains: None,
            timeout_secs: None,
        }
    }
}

/// Which self-tests to run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct TestRequest {
    /// The skill whose tests run; `None` for every skill that declares any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
    /// The user confirmed running them (needed where a run needs it).
    #[serde(default)]
    pub confirmed: bool,
}

impl TestRequest {
    /// The tests of `skill`, or of every skill.
    pub fn new(skill: Option<String>) -> Self {
        Self {
            skill,
            confirmed: false,
        }
    }
}

/// How one self-test went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct TestOutcome {
    /// The skill.
    pub skill: String,
    /// The test.
    pub test: String,
    /// Whether it passed.
    pub passed: bool,
    /// Why it failed (or could not run), in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The run, when one was started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The run's status, when one was started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<RunStatus>,
    /// The exit status, when it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// How long the run took, in milliseconds.
    pub duration_ms: u64,
}

impl TestOutcome {
    /// The outcome of `test` of `skill`: passed or not, nothing else known yet.
    pub fn new(skill: impl Into<String>, test: impl Into<String>, passed: bool) -> Self {
        Self {
            skill: skill.into(),
            test: test.into(),
            passed,
            reason: None,
            run_id: None,
            status: None,
            exit_code: None,
            duration_ms: 0,
        }
    }
}

/// An instruction-only skill as an agent session for the core's own loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Task {
    /// The skill's name.
    pub skill: String,
    /// The body, then a block of the inputs (name, description, value) that no value can
    /// close.
    pub prompt: String,
    /// The skill's `[agent]` table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentSpec>,
    /// The skill's `[github]` table, which the core checks before starting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preflight: Option<Preflight>,
}

impl Task {
    /// A task of `skill` with this prompt, no agent table and no preflight.
    pub fn new(skill: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            skill: skill.into(),
            prompt: prompt.into(),
            agent: None,
            preflight: None,
        }
    }
}

/// Who hears about a run: a sink for its output and end, and an event sink for
/// `run_started` / `run_finished`.
#[derive(Clone, Default)]
pub struct RunHooks {
    /// Receives output as it is read and the end.
    pub notices: Option<RunSink>,
    /// Receives `run_started` and `run_finished` in the `skills` domain.
    pub events: Option<crate::event::SharedSink>,
}

impl std::fmt::Debug for RunHooks {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("RunHooks")
            .field("notices", &self.notices.is_some())
            .field("events", &self.events.is_some())
            .finish()
    }
}

/// A value given as text (`--input k=v` on a command line, an MCP prompt argument) read as
/// the declared type: `number` and `boolean` must parse, `json` must be JSON, `string` is
/// taken as it is. The error says what was expected.
pub fn parse_input_text(kind: InputType, text: &str) -> Result<Value, String> {
    match kind {
        InputType::String => Ok(Value::String(text.to_owned())),
        InputType::Number => match serde_json::from_str::<Value>(text.trim()) {
            Ok(Value::Number(number)) => Ok(Value::Number(number)),
            _ => Err(format!("'{}' is not a number", text.escape_debug())),
        },
        InputType::Boolean => match text.trim() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(format!(
                "'{}' is not a boolean (true or false)",
                text.escape_debug()
            )),
        },
        InputType::Json => {
            serde_json::from_str(text).map_err(|error| format!("not valid JSON ({error})"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_runs_as_its_extension_says_and_a_bash_line_makes_sh_bash() {
        assert_eq!(
            ScriptLanguage::of("scripts/a.py", b""),
            Some(ScriptLanguage::Python)
        );
        assert_eq!(
            ScriptLanguage::of("a.cjs", b""),
            Some(ScriptLanguage::JavaScript)
        );
        assert_eq!(
            ScriptLanguage::of("a.ts", b""),
            Some(ScriptLanguage::TypeScript)
        );
        assert_eq!(
            ScriptLanguage::of("a.sh", b"#!/bin/sh\n"),
            Some(ScriptLanguage::Sh)
        );
        assert_eq!(
            ScriptLanguage::of("a.sh", b"#!/usr/bin/env bash\necho"),
            Some(ScriptLanguage::Bash)
        );
        // The runtime runs a `.sh` with bash only when its line names bash itself.
        assert_eq!(
            ScriptLanguage::of("a.sh", b"#!/bin/zsh\n"),
            Some(ScriptLanguage::Sh)
        );
        assert_eq!(ScriptLanguage::of("README.md", b"#!/bin/sh"), None);
        assert_eq!(ScriptLanguage::of("noextension", b""), None);
    }

    #[test]
    fn a_shebang_names_its_interpreter_through_env_and_versions() {
        let of = ScriptLanguage::of_shebang;
        assert_eq!(
            of(b"#!/usr/bin/env python3\n"),
            Some(ScriptLanguage::Python)
        );
        assert_eq!(of(b"#!/usr/bin/python3.11"), Some(ScriptLanguage::Python));
        assert_eq!(
            of(b"#!/usr/bin/env -S node --flag"),
            Some(ScriptLanguage::JavaScript)
        );
        assert_eq!(of(b"#!/bin/bash -e"), Some(ScriptLanguage::Bash));
        assert_eq!(of(b"#!/usr/bin/perl"), None);
        assert_eq!(of(b"print('no line')"), None);
    }

    #[test]
    fn text_is_read_as_the_declared_type() {
        assert_eq!(
            parse_input_text(InputType::Number, " 4.5 "),
            Ok(serde_json::json!(4.5))
        );
        assert!(parse_input_text(InputType::Number, "four").is_err());
        assert!(parse_input_text(InputType::Number, "\"4\"").is_err());
        assert_eq!(
            parse_input_text(InputType::Boolean, "true"),
            Ok(Value::Bool(true))
        );
        assert!(parse_input_text(InputType::Boolean, "yes").is_err());
        assert_eq!(
            parse_input_text(InputType::Json, r#"{"a":[1]}"#),
            Ok(serde_json::json!({"a": [1]}))
        );
        assert_eq!(
            parse_input_text(InputType::String, "$(x)"),
            Ok(Value::String("$(x)".to_owned()))
        );
    }

    #[test]
    fn exit_statuses_follow_the_command_line_convention() {
        let mut outcome = RunOutcome {
            run_id: "r".into(),
            skill: "s".into(),
            status: RunStatus::Failed,
            exit_code: Some(3),
            signal: None,
            timed_out: false,
            cancelled: false,
            duration_ms: 1,
            stdout: String::new(),
            stderr: String::new(),
            stdout_bytes: 0,
            stderr_bytes: 0,
            truncated: false,
            sandbox: SandboxMode::Off,
            network: NetworkMode::Allow,
            note: None,
            hints: Vec::new(),
        };
        assert_eq!(outcome.exit_status(), 3);
        assert!(outcome.to_tool_result().is_error);
        // A hint reaches the model with the rest of the run.
        outcome.hints.push(RunHint::new(
            RunHintKind::MissingModule,
            "pypdf",
            "the script needs the Python module 'pypdf'",
            Some("skills setup pdf".to_owned()),
        ));
        assert!(
            outcome
                .text_for_model()
                .ends_with("[the script exited with status 3]\n[hint: the script needs the Python module 'pypdf']"),
            "{}",
            outcome.text_for_model()
        );
        outcome.timed_out = true;
        outcome.status = RunStatus::TimedOut;
        assert_eq!(outcome.exit_status(), 124);
        outcome.timed_out = false;
        outcome.cancelled = true;
        assert_eq!(outcome.exit_status(), 130);
        outcome.cancelled = false;
        outcome.exit_code = None;
        outcome.signal = Some(9);
        assert_eq!(outcome.exit_status(), 137);
    }
}
