//! The methods: one line each in [`all`], built by [`blocking`] (file operations, run on a
//! blocking thread) or [`asynchronous`] (network operations); `skill_runtime.run` has its
//! own builder ([`run`]), since its params are checked beyond their shape and `wait` decides
//! what it answers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use skills_types::audit::{Reports, Request as AuditRequest, Target};
use skills_types::catalog::{Explanation, ListOptions, Listing};
use skills_types::install::{InstallOutcome, InstallRequest};
use skills_types::manage::{CreateSkill, Uninstalled, Written};
use skills_types::render::{RenderOptions, Rendered};
use skills_types::rpc::methods::{
    BrowseParams, CancelParams, CancelResult, DescribeParams, ExplainParams, InstallResult,
    ListToolsResult, NoParams, ReadParams, ReadResourceParams, ReadResult, ReadRunLogParams,
    RecentRunsParams, RecentRunsResult, RenderTaskParams, ResolveRuntimesParams,
    ResolveRuntimesResult, RunParams, RunResult, RunStarted, SearchParams, SubscribeResult,
    UninstallParams, UpdateParams, ValidateParams,
};
use skills_types::rpc::{
    ControllerSchema, Handler, HandlerFuture, Presenter, RpcError, params, result,
};
use skills_types::run::{MAX_LOG_READ_BYTES, RunLogChunk, Task};
use skills_types::search::{DEFAULT_LIMIT, SearchResults};
use skills_types::service::{BoxFuture, SkillsService};
use skills_types::skill::ResourceContent;
use skills_types::tool::{ToolCall, ToolExecution};
use skills_types::validate::{Options, Report};
use skills_types::{Error, Skill, registry};

use crate::markdown;

/// A method before it is bound to a service.
pub(crate) struct Method {
    pub(crate) schema: ControllerSchema,
    pub(crate) bind: Box<dyn Fn(Arc<dyn SkillsService>) -> Handler>,
    pub(crate) presenter: Option<Presenter>,
}

/// The name, aliases, description and example of a method.
struct Spec {
    method: &'static str,
    aliases: &'static [&'static str],
    description: &'static str,
    example: Value,
}

/// Every method, in the order of 04 §RPC.
pub(crate) fn all() -> Vec<Method> {
    vec![
        blocking::<ListOptions, Listing>(
            Spec {
                method: "skills.list",
                aliases: &["skills.skills_list"],
                description: "The catalog: every skill an agent sees, as summaries, with what discovery noticed. `include_shadowed` adds the copies that lost a name collision and the hidden skills.",
                example: json!({ "include_shadowed": false, "scope": "user" }),
            },
            Some(markdown::list),
            |service, options| service.list(&options),
        ),
        blocking::<DescribeParams, Skill>(
            Spec {
                method: "skills.describe",
                aliases: &[],
                description: "One skill: frontmatter, `when_to_use`, inputs, bundled files, diagnostics and location.",
                example: json!({ "id": "pdf-tools" }),
            },
            None,
            |service, params| service.get(&params.id),
        ),
        blocking::<ReadParams, ReadResult>(
            Spec {
                method: "skills.read",
                aliases: &[],
                description: "Skill bodies for an agent, each with its base directory, in the order asked.",
                example: json!({ "ids": ["pdf-tools"] }),
            },
            Some(markdown::read),
            |service, params| {
                let ids: Vec<&str> = params.ids.iter().map(String::as_str).collect();
                service.read(&ids).map(|skills| ReadResult { skills })
            },
        ),
        blocking::<ReadResourceParams, ResourceContent>(
            Spec {
                method: "skills.read_resource",
                aliases: &["skills.skills_read_resource"],
                description: "One file bundled with a skill, read through the safe reader: no traversal, no symlinks, no hard links, no special files, at most 128 KiB of UTF-8.",
                example: json!({ "id": "pdf-tools", "relative_path": "references/forms.md" }),
            },
            None,
            |service, params| service.read_resource(&params.id, &params.relative_path),
        ),
        blocking::<ExplainParams, Explanation>(
            Spec {
                method: "skills.explain",
                aliases: &[],
                description: "Every copy of a skill name, where each was found, and the rule that made the winner win.",
                example: json!({ "name": "pdf-tools" }),
            },
            None,
            |service, params| service.explain(&params.name),
        ),
        blocking::<SearchParams, SearchResults>(
            Spec {
                method: "skills.search",
                aliases: &[],
                description: "The skills that best fit a task, ranked (BM25 over name, description, when_to_use, tags and headings; the index is kept in the cache folder), each with its score and the fields it matched. The query is plain words, never query syntax.",
                example: json!({ "query": "pull the tables out of a scanned invoice", "limit": 5 }),
            },
            None,
            |service, params| {
                let limit = params.limit.unwrap_or(DEFAULT_LIMIT);
                service
                    .search(&params.query, limit)
                    .map(|results| SearchResults {
                        query: params.query,
                        results,
                    })
            },
        ),
        blocking::<ValidateParams, Report>(
            Spec {
                method: "skills.validate",
                aliases: &[],
                description: "Lints one skill folder or definition file against a profile. The path is relative to the server's workspace; an absolute path must lie inside the workspace or the home.",
                example: json!({ "path": ".openhuman/skills/pdf-tools", "profile": "agentskills", "strict": false }),
            },
            None,
            validate,
        ),
        blocking::<AuditRequest, Reports>(
            Spec {
                method: "skills.audit",
                aliases: &[],
                description: "Scans skills offline for what they would make an agent do (prompt injection, hidden text, credential reads, download-and-run, committed secrets, ...): no model, no network, nothing executed. `targets` are catalog names or skill folders (a target holding a `/` is a folder: relative to the server's workspace, and inside the workspace or the home); none is every skill of the catalog. The answer is `{summary, results}`: one report per skill (`is_safe`, `max_severity`, `findings` with `rule_id`, `severity`, `location`, sanitised `snippet`, `remediation`; the rules accepted for the skill's files as they are in `accepted`), each verdict taken against `fail_on` (default: the configuration's `[audit] fail_on`, else `HIGH`); a target that could not be scanned is in `summary.skills_skipped` with why.",
                example: json!({ "targets": ["pdf-tools"], "fail_on": "HIGH" }),
            },
            None,
            audit,
        ),
        blocking::<RenderOptions, Rendered>(
            Spec {
                method: "skills.render_catalog",
                aliases: &[],
                description: "The catalog as an agent sees it (`xml`, `markdown` or `json`), ranked for a task when `query` is given (pinned skills first, then the ones it matches, best first), fitted into a character budget, with a report of what the budget did.",
                example: json!({ "format": "markdown", "budget_chars": 4000, "query": "fill in a PDF form" }),
            },
            Some(markdown::rendered),
            |service, options| service.render_catalog(&options),
        ),
        blocking::<CreateSkill, Written>(
            Spec {
                method: "skills.create",
                aliases: &["skills.skills_create"],
                description: "Creates a skill in the first root of its scope (`user` by default; `project` needs a trusted workspace), atomically; never overwrites.",
                example: json!({ "name": "pdf-forms", "description": "Fills PDF forms from a CSV file." }),
            },
            None,
            |service, request| service.create(&request),
        ),
        blocking::<UpdateParams, Written>(
            Spec {
                method: "skills.update",
                aliases: &[],
                description: "Changes a skill's frontmatter fields or body, atomically; what is not given is kept.",
                example: json!({ "id": "pdf-forms", "changes": { "description": "Fills and checks PDF forms." } }),
            },
            None,
            |service, params| service.update(&params.id, &params.changes),
        ),
        blocking::<UninstallParams, Uninstalled>(
            Spec {
                method: "skills.uninstall",
                aliases: &["skills.skills_uninstall"],
                description: "Removes a skill folder from a user root or a trusted project root, and its lock entry.",
                example: json!({ "name": "pdf-forms", "scope": "user" }),
            },
            None,
            |service, params| service.uninstall(&params.name, params.scope),
        ),
        asynchronous::<InstallRequest, InstallResult>(
            Spec {
                method: "skills.install_from_url",
                aliases: &["skills.skills_install_from_url"],
                description: "Installs the skills an https URL names (a SKILL.md, a GitHub file page, a pack index.json, a site's well-known index): every URL, redirect and address checked, the whole download validated, then written atomically. One outcome per skill.",
                example: json!({ "url": "https://skills.example.com/pack/index.json", "scope": "user", "force": false }),
            },
            install,
        ),
        asynchronous::<BrowseParams, registry::Listing>(
            Spec {
                method: "skill_registry.browse",
                aliases: &[],
                description: "The registry catalog's entries, sorted by name (of one category when given). A cache younger than an hour answers at once; an older one answers too and is refreshed once in the background; `force_refresh` fetches first.",
                example: json!({ "force_refresh": false, "category": "documents" }),
            },
            |service, params| {
                service.registry_browse(params.category.as_deref(), params.force_refresh)
            },
        ),
        asynchronous::<registry::Query, registry::Listing>(
            Spec {
                method: "skill_registry.search",
                aliases: &[],
                description: "The registry entries matching a query: every word, ignoring case, in the name, description or tags; `category` and `source` narrow it. A stale cache is refreshed first.",
                example: json!({ "query": "pdf forms", "category": "documents" }),
            },
            |service, query| service.registry_search(query),
        ),
        asynchronous::<NoParams, registry::Counts>(
            Spec {
                method: "skill_registry.categories",
                aliases: &[],
                description: "The registry's categories, each with how many entries it holds.",
                example: json!({}),
            },
            |service, NoParams {}| service.registry_categories(),
        ),
        asynchronous::<NoParams, registry::Counts>(
            Spec {
                method: "skill_registry.sources",
                aliases: &[],
                description: "The registry's sources, each with how many entries it holds.",
                example: json!({}),
            },
            |service, NoParams {}| service.registry_sources(),
        ),
        asynchronous::<registry::InstallRequest, InstallOutcome>(
            Spec {
                method: "skill_registry.install",
                aliases: &[],
                description: "Installs a registry entry (by name or coordinates such as `@acme/pdf@1.2.0`) under its bare slug, with the same checks and atomic writes as `skills.install_from_url`; a skill of another namespace under that slug is a conflict unless `force`.",
                example: json!({ "entry_id": "pdf-forms", "scope": "user" }),
            },
            |service, request| service.registry_install(request),
        ),
        blocking::<UninstallParams, Uninstalled>(
            Spec {
                method: "skill_registry.uninstall",
                aliases: &[],
                description: "Removes the skill installed under the slug of a registry name or coordinates, and its lock entry.",
                example: json!({ "name": "pdf-forms" }),
            },
            None,
            |service, params| service.registry_uninstall(&params.name, params.scope),
        ),
        blocking::<NoParams, SubscribeResult>(
            Spec {
                method: "skills.subscribe",
                aliases: &[],
                description: "Subscribes the connection to the event bus: `skills.event` notifications follow, one per event, params a DomainEvent `{domain, slug, payload, at}`.",
                example: json!({}),
            },
            None,
            |_, NoParams {}| Ok(SubscribeResult { subscribed: true }),
        ),
        blocking::<ResolveRuntimesParams, ResolveRuntimesResult>(
            Spec {
                method: "skill_runtime.resolve_runtimes",
                aliases: &[],
                description: "The interpreters runs use (node, npm, python, sh, or the one asked for): the path found (the home configuration's first, then `PATH`), the version, and whether runs may use it. Resolved once per server.",
                example: json!({ "runtime": "python" }),
            },
            None,
            |service, params| {
                Ok(ResolveRuntimesResult {
                    runtimes: service.resolve_runtimes(params.runtime),
                })
            },
        ),
        run(Spec {
            method: "skill_runtime.run",
            aliases: &["skills.run", "workflows.run"],
            description: "Runs a skill's script (`script`), inline code (`inline`, when the home configuration allows it), npm in its folder (`npm`: `ci`, `install`, `run SCRIPT` or `test`, for a skill with a `package.json`) or its `entry` (none of them), under the runtime's process policy. Without `wait` the run's id comes back at once and the run goes on: its output arrives as `skill_runtime.output` notifications `{run_id, stream, text}` and its end as `skill_runtime.finished` `{run_id, status, outcome}`. With `wait: true` the answer is the outcome.",
            example: json!({ "skill_id": "pdf-tools", "script": "scripts/fill.py", "args": ["form.pdf"], "inputs": { "file": "data.csv" }, "timeout_secs": 60, "wait": false }),
        }),
        blocking::<CancelParams, CancelResult>(
            Spec {
                method: "skill_runtime.cancel",
                aliases: &["skills.cancel", "workflows.cancel"],
                description: "Stops a run (its whole process group: SIGTERM, then SIGKILL after 2 s). `cancelled` is true when a running run was signalled, false when the id is unknown or the run had ended. Answered while runs go on.",
                example: json!({ "run_id": "0193a5c2-7f10-7cc1-9a43-2b1e0f5d6a77" }),
            },
            None,
            |service, params| {
                service
                    .cancel_run(&params.run_id)
                    .map(|cancelled| CancelResult { cancelled })
            },
        ),
        blocking::<RecentRunsParams, RecentRunsResult>(
            Spec {
                method: "skill_runtime.recent_runs",
                aliases: &[],
                description: "The newest runs first (`limit` clamped to 1..=100, 20 by default), each with its status: running, succeeded, failed, timed_out, cancelled or interrupted.",
                example: json!({ "limit": 20 }),
            },
            None,
            |service, params| {
                service
                    .recent_runs(params.limit.unwrap_or(DEFAULT_RECENT_RUNS))
                    .map(|runs| RecentRunsResult { runs })
            },
        ),
        blocking::<ReadRunLogParams, RunLogChunk>(
            Spec {
                method: "skill_runtime.read_run_log",
                aliases: &[],
                description: "A slice of a run's log (JSON Lines: start, output and end records) from `offset`, at most `max_bytes` (clamped to 1..=256 KiB), with the offset to read from next and whether the run has ended.",
                example: json!({ "run_id": "0193a5c2-7f10-7cc1-9a43-2b1e0f5d6a77", "offset": 0, "max_bytes": 65536 }),
            },
            None,
            |service, params| {
                service.read_run_log(
                    &params.run_id,
                    params.offset.unwrap_or(0),
                    params.max_bytes.unwrap_or(MAX_LOG_READ_BYTES),
                )
            },
        ),
        blocking::<RenderTaskParams, Task>(
            Spec {
                method: "skill_runtime.render_task",
                aliases: &[],
                description: "An instruction-only skill as an agent session for the core's own loop: the body followed by a block of the inputs (checked as a run checks them, escaped so no value can close the block), the skill's `[agent]` table and its `[github]` preflight.",
                example: json!({ "skill_id": "release-notes", "inputs": { "version": "1.2.0" } }),
            },
            None,
            |service, params| service.render_task(&params.skill_id, &params.inputs),
        ),
        blocking::<NoParams, ListToolsResult>(
            Spec {
                method: "skill_runtime.list_tools",
                aliases: &[],
                description: "Every tool the catalog's skills declare (`[[tools]]` in skill.toml), sorted by name: `name` (`<skill>__<tool>`, matching `^[a-zA-Z0-9_-]{1,64}$`), `description`, `category` (`skill` when none is declared), `permission_level` (the skill's permission), `scope`, `supports_markdown` and `parameters` (a JSON Schema). Tools of denied or disabled skills, and tools whose name a model API would refuse, are not offered.",
                example: json!({}),
            },
            None,
            |service, NoParams {}| service.list_tools().map(|tools| ListToolsResult { tools }),
        ),
        blocking::<ToolCall, ToolExecution>(
            Spec {
                method: "skill_runtime.execute_tool",
                aliases: &[],
                description: "Calls a declared tool and waits for its answer. `args` is checked against the tool's `parameters` first (no `$ref` outside the schema is fetched); a mismatch is `invalid_input` listing each problem, and nothing runs. Then the tool's script runs like any run (the same checks, confirmation, policy, sandbox and log) with `args` as JSON on stdin and in `SKILL_TOOL_ARGS`, the tool's name in `SKILL_TOOL_NAME`, and `SKILL_PREFER_MARKDOWN=1` when `prefer_markdown` is asked and the tool supports it. The answer is `{tool_name, elapsed_ms, run_id, result}`; `result.content` holds the script's output as text and, when stdout is one JSON value, that value as a `json` part. `tool_started` and `tool_finished` events carry `session_id`.",
                example: json!({ "tool_name": "pdf-tools__fill", "args": { "form": "form.pdf", "values": { "name": "Ada" } }, "prefer_markdown": false, "session_id": "chat-42", "confirmed": false, "timeout_secs": 60 }),
            },
            None,
            |service, call| service.execute_tool(&call),
        ),
    ]
}

/// How many runs `skill_runtime.recent_runs` lists when no limit is given.
const DEFAULT_RECENT_RUNS: usize = 20;

/// `skill_runtime.run`: both `script` and `inline` are invalid params (`-32602`); the run is
/// started on a blocking thread, and with `wait` that thread also waits for its end.
fn run(spec: Spec) -> Method {
    Method {
        schema: schema::<RunParams, RunResult>(spec),
        bind: Box::new(move |service| {
            Arc::new(move |value| -> HandlerFuture {
                let service = service.clone();
                Box::pin(async move {
                    let params: RunParams = params(value)?;
                    let request = params.to_request().map_err(RpcError::invalid_params)?;
                    let wait = params.wait;
                    let outcome = tokio::task::spawn_blocking(move || {
                        let started = service.start_run(&request)?;
                        if wait {
                            started
                                .wait()
                                .map(|outcome| RunResult::Finished(Box::new(outcome)))
                        } else {
                            Ok::<_, Error>(RunResult::Started(RunStarted {
                                run_id: started.run_id,
                            }))
                        }
                    })
                    .await
                    .map_err(RpcError::internal)?;
                    result(&outcome?)
                })
            })
        }),
        presenter: None,
    }
}

fn install<'a>(
    service: &'a dyn SkillsService,
    request: &'a InstallRequest,
) -> BoxFuture<'a, Result<InstallResult, Error>> {
    Box::pin(async move {
        let installed: Vec<InstallOutcome> = service.install(request).await?;
        Ok(InstallResult { installed })
    })
}

/// `skills.validate`: only paths inside the workspace or the home are read.
fn validate(service: &dyn SkillsService, params: ValidateParams) -> Result<Report, Error> {
    let config = service.config();
    let path = inside(
        &[&config.workspace, &config.home],
        &config.workspace,
        &params.path,
        "validated",
    )?;
    let options = Options::new(params.profile.unwrap_or_default()).strict(params.strict);
    service.validate(&path, &options)
}

/// `skills.audit`: a folder target is read only inside the workspace or the home (a name is
/// the catalog's); a folder that does not exist is left for the scan to report as skipped.
fn audit(service: &dyn SkillsService, mut request: AuditRequest) -> Result<Reports, Error> {
    let config = service.config();
    for target in &mut request.targets {
        if matches!(Target::of(target), Target::Path(_)) {
            let folder = match inside(
                &[&config.workspace, &config.home],
                &config.workspace,
                target,
                "scanned",
            ) {
                Ok(folder) => folder,
                Err(Error::NotFound { path }) => path,
                Err(error) => return Err(error),
            };
            *target = folder.to_string_lossy().into_owned();
        }
    }
    service.audit(&request)
}

/// `text` resolved against `base` (when relative) and then canonicalized; refused unless it
/// lies inside one of `allowed` (canonicalized too, so a symlink cannot lead outside). `done`
/// says what the method does with such paths (`validated`), for the refusal.
fn inside(allowed: &[&Path], base: &Path, text: &str, done: &str) -> Result<PathBuf, Error> {
    let given = Path::new(text);
    let candidate = if given.is_absolute() {
        given.to_path_buf()
    } else {
        base.join(given)
    };
    let real = candidate.canonicalize().map_err(|_| Error::NotFound {
        path: candidate.clone(),
    })?;
    let permitted = allowed
        .iter()
        .filter_map(|root| root.canonicalize().ok())
        .any(|root| real.starts_with(root));
    if permitted {
        Ok(real)
    } else {
        Err(Error::PathRefused {
            path: text.to_owned(),
            reason: format!("only paths inside the workspace or the home are {done} over RPC"),
            refusal: "outside",
        })
    }
}

/// The JSON Schema of `T` as a value.
fn schema_of<T: JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null)
}

fn schema<P: JsonSchema, R: JsonSchema>(spec: Spec) -> ControllerSchema {
    ControllerSchema {
        method: spec.method.to_owned(),
        aliases: spec
            .aliases
            .iter()
            .map(|alias| (*alias).to_owned())
            .collect(),
        description: spec.description.to_owned(),
        params: schema_of::<P>(),
        result: schema_of::<R>(),
        example: spec.example,
    }
}

/// A method whose work blocks (files): decoded params, then `run` on a blocking thread.
fn blocking<P, R>(
    spec: Spec,
    presenter: Option<Presenter>,
    run: fn(&dyn SkillsService, P) -> Result<R, Error>,
) -> Method
where
    P: DeserializeOwned + JsonSchema + Send + 'static,
    R: Serialize + JsonSchema + Send + 'static,
{
    Method {
        schema: schema::<P, R>(spec),
        bind: Box::new(move |service| {
            Arc::new(move |value| -> HandlerFuture {
                let service = service.clone();
                Box::pin(async move {
                    let params: P = params(value)?;
                    let outcome = tokio::task::spawn_blocking(move || run(&*service, params))
                        .await
                        .map_err(RpcError::internal)?;
                    result(&outcome?)
                })
            })
        }),
        presenter,
    }
}

/// A method whose work is async (network).
fn asynchronous<P, R>(
    spec: Spec,
    run: for<'a> fn(&'a dyn SkillsService, &'a P) -> BoxFuture<'a, Result<R, Error>>,
) -> Method
where
    P: DeserializeOwned + JsonSchema + Send + Sync + 'static,
    R: Serialize + JsonSchema + Send + 'static,
{
    Method {
        schema: schema::<P, R>(spec),
        bind: Box::new(move |service| {
            Arc::new(move |value| -> HandlerFuture {
                let service = service.clone();
                Box::pin(async move {
                    let params: P = params(value)?;
                    let outcome = run(&*service, &params).await?;
                    result(&outcome)
                })
            })
        }),
        presenter: None,
    }
}
