//! The tools: `load_skill`, `read_skill_resource` and `search_skills` always; with scripts
//! served, `run_skill_script` and every tool the skills declare, under its `<skill>__<tool>`
//! name with its own `parameters` as the input schema.
//!
//! A failure the model can act on (a run that needs the user's confirmation, a script that
//! failed) is a tool result with `is_error`, because hosts show those to the model; a request
//! naming something that does not exist, or a refused path, is an MCP error whose data
//! carries the stable `kind`.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde_json::{Map, Value, json};
use skills_types::Error;
use skills_types::catalog::SkillBody;
use skills_types::render::read_text;
use skills_types::run::{RunOutcome, RunRequest, RunStatus, RunTarget};
use skills_types::sanitize;
use skills_types::search::{DEFAULT_LIMIT, MAX_LIMIT, SearchResults};
use skills_types::service::SkillsService;
use skills_types::skill::ResourceContent;
use skills_types::tool::{ToolCall, ToolContent, ToolResult};

use crate::errors::{self, to_mcp};

/// The built-in tools' names; a declared tool's name always holds `__`, so none collides.
const LOAD_SKILL: &str = "load_skill";
const READ_SKILL_RESOURCE: &str = "read_skill_resource";
const SEARCH_SKILLS: &str = "search_skills";
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
    ];
    tools[0].output_schema = Some(schema_of::<SkillBody>());
    tools[1].output_schema = Some(schema_of::<ResourceContent>());
    tools[2].output_schema = Some(schema_of::<SearchResults>());
    if !scripts {
        return Ok(tools);
    }
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
    tools.push(run);
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

/// Answers one `tools/call`.
/// `confirmed` says the user agreed to the run in the host (an elicitation answered yes).
pub(crate) fn call(
    service: &dyn SkillsService,
    scripts: bool,
    name: &str,
    arguments: JsonObject,
    confirmed: bool,
) -> Result<CallToolResult, ErrorData> {
    match name {
        LOAD_SKILL => {
            let skill = text_argument(&arguments, "name")?;
            let bodies = service.read(&[skill]).map_err(|error| to_mcp(&error))?;
            let structured = serde_json::to_value(bodies.first()).unwrap_or_default();
            Ok(success(read_text(&bodies), structured))
        }
        READ_SKILL_RESOURCE => {
            let skill = text_argument(&arguments, "name")?;
            let path = text_argument(&arguments, "path")?;
            let read = service
                .read_resource(skill, path)
                .map_err(|error| not_text_hint(&error, skill, path))?;
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
                    .ok_or_else(|| errors::invalid("`limit` must be a positive whole number"))?,
            };
            let hits = service
                .search(query, limit.clamp(1, MAX_LIMIT))
                .map_err(|error| to_mcp(&error))?;
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
        RUN_SKILL_SCRIPT if scripts => run_script(service, &arguments, confirmed),
        declared if scripts && declared.contains("__") => {
            let mut call = ToolCall::new(declared, Value::Object(arguments));
            call.confirmed = confirmed;
            match service.execute_tool(&call) {
                Ok(execution) => Ok(from_tool_result(&execution.result)),
                Err(error) => refusal(&error),
            }
        }
        unknown => Err(ErrorData::new(
            rmcp::model::ErrorCode::INVALID_PARAMS,
            if scripts {
                format!("no tool named '{unknown}'; `tools/list` names every tool")
            } else {
                format!(
                    "no tool named '{unknown}' (this server was started with --no-scripts, \
                     so it runs nothing)"
                )
            },
            Some(json!({ "kind": "tool_not_found" })),
        )),
    }
}

fn run_script(
    service: &dyn SkillsService,
    arguments: &JsonObject,
    confirmed: bool,
) -> Result<CallToolResult, ErrorData> {
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
            .map_err(|_| errors::invalid("`args` must be an array of strings"))?;
    }
    if let Some(inputs) = arguments.get("inputs") {
        request.inputs = serde_json::from_value(inputs.clone())
            .map_err(|_| errors::invalid("`inputs` must be an object of input values"))?;
    }
    if let Some(timeout) = arguments.get("timeout_secs") {
        request.timeout_secs =
            Some(timeout.as_u64().ok_or_else(|| {
                errors::invalid("`timeout_secs` must be a positive whole number")
            })?);
    }
    let outcome = match service
        .start_run(&request)
        .and_then(|started| started.wait())
    {
        Ok(outcome) => outcome,
        Err(error) => return refusal(&error),
    };
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
    let structured = serde_json::to_value(&outcome).unwrap_or_default();
    let mut result = success(text, structured);
    result.is_error = Some(outcome.status != RunStatus::Succeeded);
    Ok(result)
}

/// A run the subsystem refused before anything started. A confirmation the user must give
/// is a tool result the model reads (the server asks the host first where it can:
/// `server.rs`); every other refusal is an MCP error with its `kind`.
fn refusal(error: &Error) -> Result<CallToolResult, ErrorData> {
    if let Error::NeedsConfirmation { .. } = error {
        let message = format!(
            "{error}. The host did not ask the user: confirm it there, or run it with \
             `skills run` after reading what it does."
        );
        let mut result = CallToolResult::error(vec![ContentBlock::text(message)]);
        result.structured_content =
            Some(json!({ "kind": error.kind(), "reason": error.to_string() }));
        return Ok(result);
    }
    Err(to_mcp(error))
}

/// What the user is asked when `result` is a run refused for want of confirmation.
pub(crate) fn confirmation_needed(result: &CallToolResult) -> Option<String> {
    let structured = result.structured_content.as_ref()?;
    (structured["kind"] == "needs_confirmation")
        .then(|| structured["reason"].as_str().unwrap_or_default().to_owned())
}

/// The answer when the user said no: nothing ran.
pub(crate) fn declined(tool: &str) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
        "The user declined running '{tool}'; nothing was started. Do not retry it unless \
         the user asks."
    ))]);
    result.structured_content = Some(json!({ "kind": "declined" }));
    result
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
fn not_text_hint(error: &Error, skill: &str, path: &str) -> ErrorData {
    let mut mapped = to_mcp(error);
    if let Error::PathRefused {
        refusal: "not_utf8",
        ..
    } = error
    {
        mapped.message = format!(
            "{}; this tool returns text, so read the resource {} instead, which serves \
             binary files as base64",
            mapped.message,
            crate::resources::uri(skill, path)
        )
        .into();
    }
    mapped
}

fn success(text: String, structured: Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result
}

fn text_argument<'a>(arguments: &'a JsonObject, name: &str) -> Result<&'a str, ErrorData> {
    arguments
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| errors::invalid(format!("the argument `{name}` (a string) is required")))
}
