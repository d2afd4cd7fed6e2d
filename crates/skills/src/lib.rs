//! The skills subsystem for agent cores: parse, validate, discover, render, install and serve
//! [Agent Skills](https://agentskills.io) — `SKILL.md` directories of instructions and files.
//!
//! This facade is the only crate an agent core depends on. With the default `skills` feature
//! it re-exports the behaviour of `skills-ops` (and, as they grow, `skills-install`,
//! `skills-bus` and `skills-schemas`). With `default-features = false` every function keeps
//! its signature and comes from `skills-stub` instead: queries return empty results, anything
//! else returns [`Error::Disabled`]. [`ENABLED`] tells which side was compiled.
//!
//! Every name has one path. The records every module shares sit at the root ([`Skill`],
//! [`Catalog`], [`SkillsConfig`], [`Error`], ...); each module lists by hand what an agent core
//! needs of its part, under module-scoped names (`install::Request`, `run::Outcome`,
//! `watch::Event`), and keeps the helpers the sub-crates share among themselves out.
//! The RPC method parameters live under [`rpc::methods`] alone.
//!
//! ```no_run
//! use std::path::Path;
//! use skills::validate::{Options, Profile};
//!
//! let report = skills::validate::validate_path(Path::new("skills/pdf-tools"), &Options::new(Profile::Agentskills))?;
//! for diagnostic in &report.diagnostics {
//!     eprintln!("{}: {diagnostic}", report.file.display());
//! }
//! # Ok::<(), skills::Error>(())
//! ```

#![warn(missing_docs)]

mod handle;

pub use handle::Skills;
pub use skills_types::{
    Catalog, Diagnostic, DiagnosticCode, Error, Frontmatter, Severity, Skill, SkillDocument,
    SkillScope, SkillSummary, SkillsConfig, Text, ToolContent, ToolResult,
};

/// `true` when the subsystem is compiled in (the `skills` feature), `false` for the stub.
pub const ENABLED: bool = cfg!(feature = "skills");

#[cfg(feature = "skills")]
use skills_audit as audit_impl;
#[cfg(feature = "skills")]
use skills_bus as bus_impl;
#[cfg(feature = "skills")]
use skills_install as install_impl;
#[cfg(feature = "mcp")]
use skills_mcp as mcp_impl;
#[cfg(feature = "skills")]
use skills_ops as ops;
#[cfg(feature = "skills")]
use skills_runtime as runtime_impl;
#[cfg(feature = "skills")]
use skills_schemas as schemas_impl;
#[cfg(not(feature = "mcp"))]
use skills_stub::mcp as mcp_impl;
#[cfg(not(feature = "skills"))]
use skills_stub::{
    audit as audit_impl, bus as bus_impl, install as install_impl, ops, runtime as runtime_impl,
    schemas as schemas_impl,
};

pub mod load {
    //! Reading one definition file leniently: [`load_document`] keeps a skill usable whenever
    //! it can and records what it forgave as diagnostics (01 §Splitting, §Frontmatter fields).

    pub use crate::ops::load::{find_definition, load_document, parse_document};
    pub use skills_types::files::SKILL_MD;
}

pub mod config {
    //! The handle's configuration beyond [`SkillsConfig`](crate::SkillsConfig) itself: the
    //! application directory's default and its check (one plain folder name).

    pub use skills_types::config::{AppDirError, DEFAULT_APP_DIR, check_app_dir};
}

pub mod sanitize {
    //! The one sanitiser every agent-facing text goes through (escape sequences, controls,
    //! bidi and zero-width characters removed): what a core prints of a skill, a script or a
    //! file passes here first.

    pub use skills_types::sanitize::{
        SanitizingWriter, block, description, is_clean_line, json, json_text, line, message,
        message_text,
    };
}

pub mod audit {
    //! What a skill would make an agent do, found before it is installed or run (issue 31):
    //! offline, deterministic, with no model and no network. [`crate::Skills::audit`] scans
    //! skill folders or catalog names (or the whole catalog) against the configuration's
    //! `[audit]` thresholds and the user's acceptances ([`crate::Skills::audit_each`] hands
    //! each report on as it is made and keeps none: a whole catalog in the memory of a few
    //! dozen reports); [`crate::Skills::audit_accept`] accepts a skill's findings for its
    //! files as they are now. Every scan's verdict is kept in the home; `list`, `get` and the
    //! rendered catalog carry a skill's last one as its `audit` mark, and
    //! [`crate::Skills::audit_recheck`] (`skills check`) scans again the skills whose verdict
    //! the rules or their files outdated. [`scan_dir`] and [`scan_files`] scan one folder, or
    //! files held in memory, with no configuration.
    //!
    //! A [`Report`]'s JSON is the shape skillhub's scanner integration reads (`is_safe`,
    //! `max_severity`, `findings_count`, `findings`). Without the `skills` feature every scan
    //! is `Err(Error::Disabled)` (an empty report would claim a skill clean), and
    //! [`scan_files`] answers a report that is not safe.
    //!
    //! ```no_run
    //! use skills::audit::{Request, Severity};
    //!
    //! let skills = skills::Skills::new(skills::SkillsConfig::new(".", "/home/me"));
    //! let reports = skills.audit(&Request::new().with_targets(vec!["pdf-tools".into()]))?;
    //! for report in &reports.results {
    //!     for finding in report.blocking(Severity::High) {
    //!         eprintln!("{}: {} ({})", report.skill_name, finding.title, finding.rule_id);
    //!     }
    //! }
    //! # Ok::<(), skills::Error>(())
    //! ```

    pub use crate::audit_impl::{Caps, Options, RULES_VERSION, scan_dir, scan_files, stamp};
    pub use skills_types::audit::{
        Accepted, AuditConfig as Config, AuditConsent as Consent, Category, Decision, Finding,
        Gate, Location, Mark, MarkState, Recheck, Report, Reports, Request, Severity, Skipped,
        Summary, Target, Verdict,
    };
}

pub mod bus {
    //! Events and triggers (04 §The bus, §Triggers): give a [`crate::Skills`] handle an
    //! [`EventBus`] with [`crate::Skills::with_events`], subscribe to it, and start a
    //! [`TriggeredSkillSubscriber`] with [`crate::Skills::start_triggers`] to turn matching
    //! events into [`Activation`]s.

    pub use crate::bus_impl::{
        Activations, CatalogSource, EventBus, Subscription, TriggeredSkillIndex,
        TriggeredSkillSubscriber,
    };
    pub use skills_types::event::{
        Activation, DomainEvent, EventSink, Received, SKILLS_DOMAIN, SharedSink, SkillsEvent,
    };
    pub use skills_types::trigger::{TriggerError, TriggerPattern};
}

pub mod catalog {
    //! What discovery returns and the questions asked of it (02): see [`crate::Skills`].

    pub use skills_types::catalog::{
        Candidate, Explanation, Hidden, HiddenReason, ListOptions, Listing, Root, SkillBody,
        Standing,
    };
    pub use skills_types::config::{
        DiscoveryLimits, Permission, PermissionRule, SymlinkPolicy, TrustPolicy,
    };
    pub use skills_types::skill::{
        Invocation, Resource, ResourceBytes, ResourceContent, ResourceKind, Shadowed, SkillInput,
    };
}

pub mod search {
    //! Ranked search over the catalog (08 §Relevance): see [`crate::Skills::search`].

    pub use skills_types::search::{
        DEFAULT_LIMIT, MAX_LIMIT, SearchHit as Hit, SearchResults as Results,
    };
}

pub mod watch {
    //! The live catalog (08 §The live catalog): see [`crate::Skills::watch`].

    pub use skills_types::watch::{
        DEFAULT_DEBOUNCE, DEFAULT_POLL_INTERVAL, Watch, WatchEvent as Event, WatchMode as Mode,
        WatchOptions as Options,
    };
}

pub mod install {
    //! Installing skills from the network (03): see [`crate::Skills::install`]. The agents
    //! an install can link a skill into are [`AGENTS`] (by name, or [`DETECTED`]).

    pub use skills_types::agents::{AGENTS, Agent, DETECTED};
    pub use skills_types::install::{
        ALLOW_LOCAL_HTTP_VAR, AgentTarget, ConnectGuard, GITHUB_TOKEN_VARS, GithubConfig,
        InstallOutcome as Outcome, InstallProgress as Progress, InstallRequest as Request,
        NetworkConfig, ProgressSink, RegistryConfig, RegistryKind, Resolver, github_access_advice,
        local_http_advice,
    };
    pub use skills_types::limits::DEFAULT_INSTALL_TIMEOUT_SECS as DEFAULT_TIMEOUT_SECS;
}

pub mod mcp {
    //! The subsystem as a Model Context Protocol server (08 §`skills mcp`, the `mcp`
    //! feature): [`serve_stdio`] serves a handle over stdin and stdout with the official Rust
    //! SDK, so any MCP host gets the catalog as instructions, `load_skill`,
    //! `read_skill_resource`, `search_skills` (and, unless [`Options::scripts`] is off,
    //! `run_skill_script` and every declared tool), one `skill://` resource and one prompt
    //! per skill. Without the feature it returns [`Error::Disabled`](crate::Error::Disabled).
    //!
    //! ```no_run
    //! use std::sync::Arc;
    //!
    //! let skills = skills::Skills::new(skills::SkillsConfig::new(".", "/home/me"));
    //! skills::mcp::serve_stdio(Arc::new(skills), &skills::mcp::Options::new())?;
    //! # Ok::<(), skills::Error>(())
    //! ```

    pub use crate::mcp_impl::{HTTP_PATH, serve_http, serve_stdio};
    pub use skills_types::mcp::Options;

    /// `true` when the server is compiled in (the `mcp` feature).
    pub const ENABLED: bool = cfg!(feature = "mcp");
}

pub mod publish {
    //! Publishing skills as an agent-skills discovery v0.2 site (09 §Publishing): [`publish`]
    //! validates every skill strictly, then writes `<out>/.well-known/agent-skills/` (the
    //! index, one `SKILL.md` or reproducible `.tar.gz` per skill, snapshots of older versions)
    //! with one atomic swap. Any static host serves the result.

    pub use crate::install_impl::publish::publish;
    pub use skills_types::publish::{
        ArtifactKind, Index, IndexEntry, Outcome, Published, Refused, Request, Snapshot,
        VersionEntry, Versions, WELL_KNOWN_DIR,
    };
}

pub mod registry {
    //! The registry catalog and its coordinates (03 §Registry catalog, §Coordinates): see
    //! [`crate::Skills::registry_browse`], [`crate::Skills::registry_search`] and
    //! [`crate::Skills::registry_install`].

    pub use skills_types::registry::{
        Coordinates, CoordinatesError, Count, Counts, Details, Entry, InstallRequest, Listing, Pin,
        Query, Status,
    };
}

pub mod remote {
    //! Remote packs (09 §Remote packs in configuration): the `urls` of `skills.toml`, fetched
    //! by [`crate::Skills::refresh_remotes`] into a cache listed in the `remote` scope.

    pub use skills_types::remote::{Refresh, Refreshed, State};
}

pub mod restore {
    //! Restoring the skills the install records list (`npm ci` for skills): see
    //! [`crate::Skills::restore`].

    pub use skills_types::restore::{Action, Difference, Outcome, RecordKind, Report, Request};
}

pub mod update {
    //! Checking installed skills against their sources and updating them (09 §Updates): see
    //! [`crate::Skills::check_updates`] and [`crate::Skills::update_installed`].

    pub use skills_types::update::{Action, Check, Outcome, Request};
}

pub mod manage {
    //! Creating, updating and uninstalling skills (02 §Create, update, uninstall): see
    //! [`crate::Skills::create`], [`crate::Skills::update`], [`crate::Skills::uninstall`].

    pub use skills_types::manage::{CreateSkill, Uninstalled, UpdateSkill, Written};
}

pub mod render {
    //! The catalog as an agent sees it, and the `AGENTS.md` block (02 §Rendering the catalog).

    pub use skills_types::render::{
        AGENTS_MD, BudgetReport, DEFAULT_READ_COMMAND, Format, RenderOptions as Options, Rendered,
        SyncOptions, SyncOutcome, UnknownFormat, read_text,
    };
}

pub mod rpc {
    //! Every operation as a JSON-RPC method (04 §RPC): the controllers with their schemas, the
    //! decoder and the dispatcher. Bind the controllers to a handle and serve them:
    //!
    //! ```no_run
    //! # async fn serve(line: &str) {
    //! use std::sync::Arc;
    //! use skills::rpc::{Dispatcher, all_skills_registered_controllers};
    //!
    //! let skills = skills::Skills::new(skills::SkillsConfig::new(".", "/home/me"));
    //! let dispatcher = Dispatcher::new(all_skills_registered_controllers(Arc::new(skills)));
    //! if let Some(reply) = dispatcher.handle_text(line).await.reply {
    //!     println!("{reply}");
    //! }
    //! # }
    //! ```
    //!
    //! With the feature off both lists are empty, so every method is `-32601`.

    pub use crate::schemas_impl::{
        all_skills_controller_schemas, all_skills_registered_controllers,
    };
    pub use skills_types::rpc::{
        ControllerSchema, Dispatcher, Handled, Handler, HandlerFuture, Incoming, JSONRPC_VERSION,
        MAX_BATCH, Presenter, RegisteredController, Request, Response, RpcError as Error, codes,
        decode, methods, params, result,
    };
    pub use skills_types::service::{BoxFuture, SkillsService};
}

pub mod run {
    //! Running skills' code (07): a [`Request`] names a script, inline code or the
    //! skill's entry; [`crate::Skills::run`] checks it, runs it under the process policy
    //! (argv only, an environment rebuilt from an allowlist, the whole process group stopped
    //! on deadline or cancel, output capped at 1 MiB per stream) and records it in a log.
    //!
    //! Runs are sandboxed by default (Landlock, Linux): call [`sandbox_main`] first thing in
    //! your `main`, so your own binary can be the helper that confines a script before it
    //! execs the interpreter, or set `[runtime] sandbox_helper` to one that does (the `skills`
    //! binary). Without either, sandboxed runs are refused with `sandbox_unavailable`.

    pub use crate::runtime_impl::sandbox_main;
    pub use skills_types::run::{
        AgentSpec, GithubIdentity, InlineLanguage, InputType, LogRecord, MAX_INPUT_BYTES,
        MAX_INPUTS_BYTES, MAX_LOG_READ_BYTES, MAX_RECENT_RUNS, MAX_STREAM_BYTES, MAX_TIMEOUT_SECS,
        PRINTED_NOTHING, Preflight, RunHint as Hint, RunHintKind as HintKind,
        RunLogChunk as LogChunk, RunNotice as Notice, RunOutcome as Outcome, RunRequest as Request,
        RunSink as Sink, RunStatus as Status, RunSummary as Summary, RunTarget as Target,
        RuntimeInfo, RuntimeKind, RuntimeSource, ScriptLanguage, SelfTest, SetupOutcome,
        SetupRequest, SetupStatus, SkillManifest, StartedRun as Started, Stream, Task, TestOutcome,
        TestRequest, parse_input_text,
    };
    pub use skills_types::runtime::{
        ConfirmMode, NetworkMode, RuntimeConfig, SandboxMode, Strictness,
    };
    pub use skills_types::tool::{
        DEFAULT_TOOL_CATEGORY, MAX_TOOL_ARGS_BYTES, ToolCall, ToolExecution, ToolInfo, ToolSpec,
    };
}

pub mod trust {
    //! Which workspaces this user trusts (the per-user record; 02 §Scopes and roots,
    //! **Trust**).

    pub use skills_types::trust::{
        TrustChange as Change, TrustState as State, TrustedWorkspace as Workspace,
    };
}

pub mod validate {
    //! Linting skills strictly against a profile, reporting every violation with its code
    //! (01 §The validator and its profiles).

    pub use crate::ops::validate::{validate_bytes, validate_path, validate_tree};
    pub use skills_types::validate::{
        ComplianceEntry, ComplianceSnapshot, Evidence, Options, Profile, Report, UnknownProfile,
    };
}
