//! The tools: `load_skill`, `read_skill_resource`, `search_skills` and `audit_skill` always
//! (the audit reads, it runs nothing); with scripts served, `run_skill_script` and every tool
//! the skills declare, under its `<skill>__<tool>` name with its own `parameters` as the input
//! schema.
//!
//! Every failure of a tool the server offers is a tool result with `isError` (MCP 2025-11-25,
//! Tools §Error Handling: hosts give those to the model, which can correct itself; a JSON-RPC
//! error it never sees): an unknown skill, a refused path, a missing argument, a denied or
//! unconfirmed run, a script that failed. Its text is the error's own sentence, and its
//! `_meta` carries the stable `kind` ([`KIND`]), so a host tells `refused_path` from
//! `not_found` without reading English. Only a call the server cannot take at all is a
//! protocol error: a tool name it does not offer, or a call whose thread was lost.
//!
//! A failure carries no `structuredContent`: a tool with an `outputSchema` promises structured
//! content of that shape, and clients check whatever structured content comes back against it
//! (the TypeScript SDK does, error or not), so an error record there would fail the call. A
//! script that ran and failed is the exception: its run outcome is the declared shape.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject, Tool};
use serde_json::{Map, Value, json};
use skills_types::Error;
use skills_types::audit::{Report, Request, Target};
use skills_types::catalog::SkillBody;
use skills_types::render::read_text;
use skills_types::run::{RunOutcome, RunRequest, RunStatus, RunTarget};
use skills_types::sanitize;
use skills_types::search::{DEFAULT_LIMIT, MAX_LIMIT, SearchResults};
use skills_types::service::SkillsService;
use skills_types::skill::ResourceContent;
use skills_types::tool::{ToolCall, ToolContent, ToolResult};

use crate::errors::to_mcp;
use crate::schema::keep_standard_formats;

/// The `_meta` key of a failed call's stable kind (`not_found`, `refused_path`, ...; the
/// subsystem's `Error::kind`, or `declined` when the user said no).
pub(crate) const KIND: &str = "skills/kind";

/// The built-in tools' names; a declared tool's name always holds `__`, so none collides.
const LOAD_SKILL: &str = "load_skill";
const READ_SKILL_RESOURCE: &str = "read_skill_resource";
const SEARCH_SKILLS: &str = "search_skills";
const AUDIT_SKILL: &str = "audit_skill";
const RUN_SKILL_SCRIPT: &str = "run_skill_script";

/// Every tool offered, built-ins first.
pub(crate) fn list(service: &dyn SkillsService, scripts: bool) -> Result<Vec<Tool>, ErrorData> {
    let mut tools = vec![
        tool(
            LOAD_SKILL,
            "Read a skill's instructions (its SKILL.md body) with the base directory its \
             relative paths resolve against. Call it before following a skill.",
            json!({
                "type": "object",
                "properties": { "name": { "type": "string", "description": "The skill's name." } },
                "required": ["name"],
            }),
        ),
        tool(
            READ_SKILL_RESOURCE,
            "Read one file bundled with a skill (references/..., assets/..., scripts/...), as \
             text, through the safe reader: no path outside the skill's folder.",
            json!({
                "type": "object",
                "properties": {
                    "name": { "type": "string", "description": "The skill's name." },
                    "path": { "type": "string", "description": "The file's path inside the skill folder." },
                },
                "required": ["name", "path"],
            }),
        ),
        tool(
            SEARCH_SKILLS,
            "Find the skills that best fit a task, ranked (BM25 over each skill's name, \
             description, when_to_use, tags and headings), with scores and the fields that \
             matched.",
            json!({
                "type": "object",
                "properties": {
                    "query": { "type": "string", "description": "What the task is about, in a few words." },
                    "limit": { "type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": "The most results (default 10)." },
                },
                "required": ["query"],
            }),
        ),
        tool(
            AUDIT_SKILL,
            "Scan a skill of the catalog, offline, for what it would make an agent do \
             (prompt injection, hidden text, credential reads, download-and-run, committed \
             secrets): each finding with its rule, severity, file, line and fix, and whether \
             the skill is safe. Nothing is run. Call it before following or running a skill \
             you have doubts about.",
            json!({
                "type": "object",
                "properties": { "name": { "type": "string", "description": "The skill's name." } },
                "required": ["name"],
            }),
        ),
    ];
    tools[0].output_schema = Some(schema_of::<SkillBody>());
    tools[1].output_schema = Some(schema_of::<ResourceContent>());
    tools[2].output_schema = Some(schema_of::<SearchResults>());
    tools[3].output_schema = Some(schema_of::<Report>());
    if scripts {
        tools.extend(runnable(service)?);
    }
    for listed in &mut tools {
        keep_standard_formats(Arc::make_mut(&mut listed.input_schema));
        if let Some(output) = listed.output_schema.as_mut() {
            keep_standard_formats(Arc::make_mut(output));
        }
    }
    Ok(tools)
}

/// The tools that run something: `run_skill_script` and every tool the skills declare.
fn runnable(service: &dyn SkillsService) -> Result<Vec<Tool>, ErrorData> {
    let mut run = tool(
        RUN_SKILL_SCRIPT,
        "Run a script bundled with a skill (under the skill's process policy and sandbox) and \
         return its exit status and output.",
        json!({
            "type": "object",
            "properties": {
                "name": { "type": "string", "description": "The skill's name." },
                "script": { "type": "string", "description": "The script's path inside the skill folder, e.g. scripts/run.py." },
                "args": { "type": "array", "items": { "type": "string" }, "description": "Arguments passed to the script as argv." },
                "inputs": { "type": "object", "description": "Values of the skill's declared inputs." },
                "timeout_secs": { "type": "integer", "minimum": 1, "description": "A deadline in seconds." },
            },
            "required": ["name", "script"],
        }),
    );
    run.output_schema = Some(schema_of::<RunOutcome>());
    let mut tools = vec![run];
    for declared in service.list_tools().map_err(|error| to_mcp(&error))? {
        let schema = match declared.parameters {
            Value::Object(schema) => schema,
            // A tool without an object schema takes no arguments; MCP requires an object.
            _ => Map::from_iter([("type".to_owned(), json!("object"))]),
        };
        // A declared tool's words come from a skill folder: sanitised like every skill text.
        let description = sanitize::description(&declared.description).into_owned();
        let mut listed = Tool::new(declared.name, description, Arc::new(schema));
        listed.title = Some(format!(
            "{} (skill {})",
            sanitize::line(&declared.tool),
            sanitize::line(&declared.skill)
        ));
        tools.push(listed);
    }
    Ok(tools)
}

fn tool(name: &'static str, description: &'static str, schema: Value) -> Tool {
    Tool::new(name, description, object(schema))
}

/// A schema as the object MCP carries (anything else, which none of ours is, as `{}`).
fn object(schema: Value) -> Arc<JsonObject> {
    Arc::new(match schema {
        Value::Object(schema) => schema,
        _ => JsonObject::new(),
    })
}

/// The output schema of a tool whose structured content is a `T`, from the type itself, so
/// the two cannot drift apart.
fn schema_of<T: schemars::JsonSchema>() -> Arc<JsonObject> {
    object(schemars::schema_for!(T).to_value())
}

/// What one `tools/call` comes to.
#[derive(Debug)]
pub(crate) enum Called {
    /// The answer to send as it is: the tool's result, or a tool error.
    Answered(CallToolResult),
    /// A run that needs the user's confirmation; nothing was started. `reason` says why, for
    /// the question the host shows the user; `refused` is the tool error sent when the host
    /// cannot ask.
    NeedsConfirmation {
        reason: String,
        refused: CallToolResult,
    },
}

/// Why a call did not succeed, and so how it is told.
enum Failure {
    /// The tool failed: a tool error the model reads, with what to do next when the error's
    /// own sentence does not say it.
    Tool { error: Error, hint: Option<String> },
    /// The call names no tool this server offers: a protocol error.
    Protocol(ErrorData),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Self::Tool { error, hint: None }
    }
}

/// Answers one `tools/call`.
/// `confirmed` says the user agreed to the run in the host (an elicitation answered yes).
/// `Err` is a protocol error: only for a tool name this server does not offer.
pub(crate) fn call(
    service: &dyn SkillsService,
    scripts: bool,
    name: &str,
    arguments: JsonObject,
    confirmed: bool,
) -> Result<Called, ErrorData> {
    match answer(service, scripts, name, arguments, confirmed) {
        Ok(result) => Ok(Called::Answered(result)),
        Err(Failure::Protocol(error)) => Err(error),
        Err(Failure::Tool { error, hint }) => {
            let refused = failed(&error, hint.as_deref());
            Ok(match error {
                Error::NeedsConfirmation { .. } => Called::NeedsConfirmation {
                    reason: error.to_string(),
                    refused,
                },
                _ => Called::Answered(refused),
            })
        }
    }
}

fn answer(
    service: &dyn SkillsService,
    scripts: bool,
    name: &str,
    arguments: JsonObject,
    confirmed: bool,
) -> Result<CallToolResult, Failure> {
    match name {
        LOAD_SKILL => {
            let skill = text_argument(&arguments, "name")?;
            let bodies = service.read(&[skill])?;
            let structured = serde_json::to_value(bodies.first()).unwrap_or_default();
            Ok(success(read_text(&bodies), structured))
        }
        READ_SKILL_RESOURCE => {
            let skill = text_argument(&arguments, "name")?;
            let path = text_argument(&arguments, "path")?;
            let read = service
                .read_resource(skill, path)
                .map_err(|error| not_text_hint(error, skill, path))?;
            let structured = serde_json::to_value(&read).unwrap_or_default();
            Ok(success(read.content, structured))
        }
        SEARCH_SKILLS => {
            let query = text_argument(&arguments, "query")?;
            let limit = match arguments.get("limit") {
                None | Some(Value::Null) => DEFAULT_LIMIT,
                Some(limit) => limit
                    .as_u64()
                    .and_then(|limit| usize::try_from(limit).ok())
                    .ok_or_else(|| invalid("`limit` must be a positive whole number"))?,
            };
            let hits = service.search(query, limit.clamp(1, MAX_LIMIT))?;
            let text = if hits.is_empty() {
                format!("No skill matches '{}'.", sanitize::line(query))
            } else {
                hits.iter()
                    .map(|hit| {
                        format!(
                            "{}: {}",
                            sanitize::line(&hit.name),
                            sanitize::description(&hit.description)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let results = SearchResults {
                query: query.to_owned(),
                results: hits,
            };
            Ok(success(
                text,
                serde_json::to_value(&results).unwrap_or_default(),
            ))
        }
        AUDIT_SKILL => audit_skill(service, &arguments),
        RUN_SKILL_SCRIPT if scripts => run_script(service, &arguments, confirmed),
        declared if scripts && declared.contains("__") => {
            let mut call = ToolCall::new(declared, Value::Object(arguments));
            call.confirmed = confirmed;
            match service.execute_tool(&call) {
                Ok(execution) => Ok(from_tool_result(&execution.result)),
                // Not a tool of a skill (any more): as unknown as any other name.
                Err(error @ Error::ToolNotFound { .. }) => Err(unknown_tool(error.to_string())),
                Err(error) => Err(error.into()),
            }
        }
        unknown => Err(unknown_tool(if scripts {
            format!("no tool named '{unknown}'; `tools/list` names every tool")
        } else {
            format!(
                "no tool named '{unknown}' (this server was started with --no-scripts, so it \
                 runs nothing)"
            )
        })),
    }
}

/// A call of a tool this server does not offer: the protocol error MCP 2025-11-25 gives for
/// it (Tools §Error Handling: "Unknown tools", code -32602), whose data carries the kind.
fn unknown_tool(message: String) -> Failure {
    Failure::Protocol(ErrorData::new(
        rmcp::model::ErrorCode::INVALID_PARAMS,
        message,
        Some(json!({ "kind": "tool_not_found" })),
    ))
}

/// `audit_skill`: the report of one skill of the catalog, by name (never a folder: a model
/// names skills, not places on the user's disk). A name that is no skill is the error a
/// lookup of it gives (`not_found`, with "did you mean").
fn audit_skill(
    service: &dyn SkillsService,
    arguments: &JsonObject,
) -> Result<CallToolResult, Failure> {
    let name = text_argument(arguments, "name")?;
    if matches!(Target::of(name), Target::Path(_)) {
        return Err(invalid(
            "`name` is the name of a skill of the catalog, not a path",
        ));
    }
    let mut reports = service.audit(&Request::new().with_targets(vec![name.to_owned()]))?;
    let Some(report) = reports.results.pop() else {
        let why = reports
            .summary
            .skills_skipped
            .pop()
            .map(|skipped| skipped.reason)
            .unwrap_or_default();
        return Err(service
            .get(name)
            .err()
            .unwrap_or(Error::InvalidInput(why))
            .into());
    };
    let structured = serde_json::to_value(&report).unwrap_or_default();
    Ok(success(audit_text(&report), structured))
}

/// The report in a few lines for the model: the verdict, then each finding worst first.
fn audit_text(report: &Report) -> String {
    let verdict = match (report.is_safe, report.max_severity) {
        (_, None) => "no findings".to_owned(),
        (true, Some(worst)) => format!(
            "safe: nothing unaccepted at the threshold (worst finding {})",
            worst.as_str().to_uppercase()
        ),
        (false, Some(worst)) => {
            format!("NOT safe (worst finding {})", worst.as_str().to_uppercase())
        }
    };
    let mut text = format!(
        "Audit of '{}': {verdict}; {} finding(s), rules {}.",
        sanitize::line(&report.skill_name),
        report.findings_count,
        report.rules_version
    );
    for finding in &report.findings {
        let accepted = if report.accepted.contains(&finding.rule_id) {
            " (accepted by the user)"
        } else {
            ""
        };
        text.push_str(&format!(
            "\n- {} {} at {}:{}: {}{accepted}. Fix: {}",
            finding.severity.as_str().to_uppercase(),
            sanitize::line(&finding.rule_id),
            sanitize::line(&finding.location.file),
            finding.location.line,
            sanitize::line(&finding.message),
            sanitize::line(&finding.remediation)
        ));
    }
    text
}

fn run_script(
    service: &dyn SkillsService,
    arguments: &JsonObject,
    confirmed: bool,
) -> Result<CallToolResult, Failure> {
    let skill = text_argument(arguments, "name")?;
    let script = text_argument(arguments, "script")?;
    let mut request = RunRequest::new(
        skill,
        RunTarget::Script {
            path: script.to_owned(),
        },
    )
    .confirmed(confirmed);
    if let Some(args) = arguments.get("args") {
        request.args = serde_json::from_value(args.clone())
            .map_err(|_| invalid("`args` must be an array of strings"))?;
    }
    if let Some(inputs) = arguments.get("inputs") {
        request.inputs = serde_json::from_value(inputs.clone())
            .map_err(|_| invalid("`inputs` must be an object of input values"))?;
    }
    if let Some(timeout) = arguments.get("timeout_secs") {
        request.timeout_secs = Some(
            timeout
                .as_u64()
                .ok_or_else(|| invalid("`timeout_secs` must be a positive whole number"))?,
        );
    }
    let outcome = service
        .start_run(&request)
        .and_then(|started| started.wait())?;
    let mut text = format!("exit status: {:?}\n", outcome.status);
    if !outcome.stdout.is_empty() {
        text.push_str("stdout:\n");
        text.push_str(&outcome.stdout);
    }
    if !outcome.stderr.is_empty() {
        text.push_str("\nstderr:\n");
        text.push_str(&outcome.stderr);
    }
    // What the run ran into that the user can fix (a sandbox refusal, a missing module),
    // for the model to pass on.
    for hint in &outcome.hints {
        text.push_str(&format!("\nhint: {}", hint.message));
    }
    // A script that ran and failed is still a run outcome, the shape the output schema
    // declares: it stays the structured content of the tool error.
    let structured = serde_json::to_value(&outcome).unwrap_or_default();
    let mut result = success(text, structured);
    result.is_error = Some(outcome.status != RunStatus::Succeeded);
    Ok(result)
}

/// The tool error of `error`: its sentence, then `hint` (or the usual next step for its kind),
/// with its stable kind in `_meta`, and no structured content (see the module's header).
fn failed(error: &Error, hint: Option<&str>) -> CallToolResult {
    let next = hint.or(match error {
        Error::SkillNotFound { .. } => Some(
            "The catalog in this server's instructions names every skill, and `search_skills` \
             finds one by what it does.",
        ),
        Error::NeedsConfirmation { .. } => Some(
            "The host did not ask the user: confirm it there, or run it with `skills run` \
             after reading what it does.",
        ),
        _ => None,
    });
    let mut text = error.to_string();
    // The error's sentence may end on its own question ("did you mean 'pdf-tools'?").
    if !text.ends_with(['.', '?', '!']) {
        text.push('.');
    }
    if let Some(next) = next {
        text.push(' ');
        text.push_str(next);
    }
    with_kind(
        CallToolResult::error(vec![ContentBlock::text(text)]),
        error.kind(),
    )
}

/// `result` with the stable `kind` of its failure in `_meta`.
fn with_kind(mut result: CallToolResult, kind: &str) -> CallToolResult {
    let mut meta = JsonObject::new();
    meta.insert(KIND.to_owned(), json!(kind));
    result.meta = Some(MetaObject(meta));
    result
}

/// The answer when the user said no: nothing ran.
pub(crate) fn declined(tool: &str) -> CallToolResult {
    let result = CallToolResult::error(vec![ContentBlock::text(format!(
        "The user declined running '{tool}'; nothing was started. Do not retry it unless \
         the user asks."
    ))]);
    with_kind(result, "declined")
}

/// A declared tool's result: its text and JSON parts as content, its JSON as structured
/// content, and its error flag.
fn from_tool_result(result: &ToolResult) -> CallToolResult {
    let content = result
        .content
        .iter()
        .map(|part| match part {
            ToolContent::Text { text } => ContentBlock::text(text.clone()),
            // Rendered here, so rendered from the sanitised value: the exit sees only text
            // then, and JSON text spells a control as `\u001b`, which it leaves as written.
            ToolContent::Json { data } => {
                let mut data = data.clone();
                sanitize::json(&mut data);
                ContentBlock::text(data.to_string())
            }
        })
        .collect();
    let mut mapped = if result.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    mapped.structured_content = result.structured().cloned();
    mapped
}

/// A refused `read_skill_resource`; a file that is not text says where its bytes are served.
fn not_text_hint(error: Error, skill: &str, path: &str) -> Failure {
    let hint = matches!(
        error,
        Error::PathRefused {
            refusal: "not_utf8",
            ..
        }
    )
    .then(|| {
        format!(
            "This tool returns text: read the resource {} instead, which serves binary files \
             as base64.",
            crate::resources::uri(skill, path)
        )
    });
    Failure::Tool { error, hint }
}

fn success(text: String, structured: Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result
}

/// An argument the model got wrong: a tool error it can correct (MCP 2025-11-25 counts input
/// validation among tool execution errors).
fn invalid(message: impl Into<String>) -> Failure {
    Error::InvalidInput(message.into()).into()
}

fn text_argument<'a>(arguments: &'a JsonObject, name: &str) -> Result<&'a str, Failure> {
    arguments
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(format!("the argument `{name}` (a string) is required")))
}
