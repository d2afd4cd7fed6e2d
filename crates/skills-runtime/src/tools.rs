//! Declared tools (07 §Tools): every `[[tools]]` of every skill in the catalog, offered as
//! `<skill>__<tool>`, and a call of one: the arguments checked against the tool's schema,
//! then its script run like any other run, with the arguments on stdin and in
//! `SKILL_TOOL_ARGS`.
//!
//! A call never takes a second path to a process: it builds an ordinary `RunRequest` for the
//! tool's script, so [`prepare::prepare`] applies every check a run gets (permission,
//! confirmation, the no-symlink walk, the interpreter, read-only), and the one spawner runs
//! it under the same policy, sandbox and log. Only the plan's stdin and three variables are
//! added before it starts.
//!
//! The schema check comes first and refuses before anything is registered, logged or
//! spawned. Schemas are compiled offline: `jsonschema` is built without its HTTP and file
//! retrievers, and [`compile`] also installs its refusing retriever, so a `$ref` naming a URL
//! is an error rather than a request. A skill's schema must not make the host fetch
//! anything (a tracking pixel, or a probe of the local network, in a file nobody reads).

use std::time::Instant;

use serde_json::{Value, json};
use skills_types::catalog::Catalog;
use skills_types::event::{DomainEvent, SkillsEvent};
use skills_types::run::{RunHooks, RunOutcome, RunRequest, RunTarget};
use skills_types::tool::{
    MAX_TOOL_ARGS_BYTES, ToolCall, ToolContent, ToolExecution, ToolInfo, ToolResult, ToolSpec,
};
use skills_types::{Error, Skill, SkillsConfig};

use crate::{Runtime, prepare};

/// The variable holding the arguments as compact JSON.
const ARGS_VAR: &str = "SKILL_TOOL_ARGS";
/// The variable holding the offered name of the tool called.
const NAME_VAR: &str = "SKILL_TOOL_NAME";
/// Set to `1` when the caller prefers Markdown and the tool supports it.
const MARKDOWN_VAR: &str = "SKILL_PREFER_MARKDOWN";

/// The most schema violations one refusal lists; the rest are counted. Arguments of 127 KiB
/// can break a schema thousands of times, and a message that size helps no one.
const MAX_LISTED_VIOLATIONS: usize = 50;
/// The most characters of one violation's message (they quote the offending value).
const MAX_VIOLATION_CHARS: usize = 200;

/// Every declared tool of the catalog, sorted by name. Tools whose offered name a model API
/// would refuse, or whose schema holds text validation reads that an agent cannot be shown,
/// are left out (discovery reports them as `invalid-tool-name` and `invalid-tool-schema`),
/// denied or disabled skills offer none (discovery hides them), and neither does a skill
/// started by name only (`Skill::offered_to_model`): the list is offered to a model. Its
/// tools can still be called by name.
pub(crate) fn list_tools(config: &SkillsConfig) -> Result<Vec<ToolInfo>, Error> {
    let catalog = skills_ops::discover::discover(config)?;
    Ok(offered(&catalog))
}

/// The tools of every visible skill of `catalog`. One sidecar read per skill: a folder
/// without one costs a failed `lstat`.
fn offered(catalog: &Catalog) -> Vec<ToolInfo> {
    let mut tools: Vec<ToolInfo> = catalog
        .skills
        .iter()
        .filter(|skill| skill.offered_to_model())
        .flat_map(|skill| declared(skill).into_iter().map(|(info, _)| info))
        .collect();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    drop_ambiguous(&mut tools);
    tools
}

/// Two declarations offered under one name (the skill `a__b`'s tool `c` and the skill `a`'s
/// tool `b__c`, or one tool declared twice) cannot be told apart by a model; neither is
/// offered. `tools` is sorted by name.
fn drop_ambiguous(tools: &mut Vec<ToolInfo>) {
    let mut shared = Vec::new();
    for pair in tools.windows(2) {
        if pair[0].name == pair[1].name {
            shared.push(pair[0].name.clone());
        }
    }
    if !shared.is_empty() {
        tracing::warn!(names = ?shared, "tools offered under one name twice are left out");
        tools.retain(|tool| shared.binary_search(&tool.name).is_err());
    }
}

/// The tools `skill` offers (`skills_ops::discover::is_offered`), with their declarations. A
/// tool that is not offered cannot be called either.
fn declared(skill: &Skill) -> Vec<(ToolInfo, ToolSpec)> {
    let (manifest, _diagnostics) = skills_ops::discover::read_skill_manifest(&skill.dir);
    manifest
        .tools
        .into_iter()
        .filter(|spec| skills_ops::discover::is_offered(&skill.name, spec))
        .map(|spec| {
            let name = skills_ops::discover::tool_name(&skill.name, &spec.name);
            let info = ToolInfo::new(name, &skill.name, &spec, skill.permission, skill.scope);
            (info, spec)
        })
        .collect()
}

/// Finds the tool `name` names: only the skills whose names end before a `__` of it are read,
/// so a call costs one discovery and a sidecar or two, not every sidecar of the catalog.
fn find(catalog: &Catalog, name: &str) -> Result<(ToolInfo, ToolSpec), Error> {
    if !skills_ops::discover::is_model_tool_name(name) {
        // Never offered, and the edit distance to every tool of a long name is not worth it.
        return Err(Error::ToolNotFound {
            name: name.to_owned(),
            suggestion: None,
        });
    }
    let prefixes: Vec<&str> = name
        .match_indices("__")
        .map(|(at, _)| &name[..at])
        .collect();
    let mut found: Vec<(ToolInfo, ToolSpec)> = catalog
        .skills
        .iter()
        .filter(|skill| prefixes.contains(&skill.name.as_str()))
        .flat_map(declared)
        .filter(|(info, _)| info.name == name)
        .collect();
    match found.len() {
        1 => return Ok(found.remove(0)),
        0 => {}
        _ => {
            return Err(Error::InvalidInput(format!(
                "'{name}' names more than one declared tool ({}); rename one of them in its skill.toml",
                found
                    .iter()
                    .map(|(info, _)| format!("the skill '{}' declares '{}'", info.skill, info.tool))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    // The skill exists but is denied or disabled: that is the answer, not "no such tool".
    if let Some(hidden) = catalog
        .hidden
        .iter()
        .find(|hidden| prefixes.contains(&hidden.name.as_str()))
    {
        return Err(match &hidden.reason {
            skills_types::catalog::HiddenReason::Denied { pattern } => Error::SkillDenied {
                name: hidden.name.clone(),
                pattern: pattern.clone(),
            },
            _ => Error::SkillDisabled {
                name: hidden.name.clone(),
            },
        });
    }
    let tools = offered(catalog);
    Err(Error::ToolNotFound {
        name: name.to_owned(),
        suggestion: skills_ops::catalog::nearest(name, tools.iter().map(|tool| tool.name.as_str()))
            .map(str::to_owned),
    })
}

/// Compiles a tool's `parameters` with no retrieval of any kind: a `$ref` outside the schema
/// (a URL, a file) fails here. The JSON Schema drafts' own meta-schemas are built in.
fn compile(tool: &ToolInfo) -> Result<jsonschema::Validator, Error> {
    jsonschema::options()
        .offline()
        .build(&tool.parameters)
        .map_err(|error| {
            Error::InvalidInput(format!(
                "the tool '{}' declares a `parameters` schema that cannot be used ({}); nothing was run; \
                 fix `[[tools]] parameters` of '{}' in the skill '{}''s skill.toml (a schema may not \
                 refer to anything outside itself)",
                tool.name,
                shorten(&error.to_string()),
                tool.tool,
                tool.skill
            ))
        })
}

/// The arguments as compact JSON, when they fit the bound and the tool's schema; otherwise
/// every violation (up to [`MAX_LISTED_VIOLATIONS`]), each with where it is.
fn check_args(tool: &ToolInfo, args: &Value) -> Result<String, Error> {
    let compact = args.to_string();
    if compact.len() > MAX_TOOL_ARGS_BYTES {
        return Err(Error::InvalidInput(format!(
            "the arguments of '{}' are {} bytes as JSON, over the {} KiB a tool call may pass; nothing was run",
            tool.name,
            compact.len(),
            MAX_TOOL_ARGS_BYTES / 1024
        )));
    }
    let validator = compile(tool)?;
    let mut violations = Vec::new();
    let mut count = 0usize;
    for error in validator.iter_errors(args) {
        count += 1;
        if violations.len() < MAX_LISTED_VIOLATIONS {
            let path = error.instance_path().to_string();
            let path = if path.is_empty() {
                "the arguments".to_owned()
            } else {
                path
            };
            violations.push(format!("{path}: {}", shorten(&error.to_string())));
        }
    }
    if count == 0 {
        return Ok(compact);
    }
    let more = count - violations.len();
    let rest = if more > 0 {
        format!("; and {more} more")
    } else {
        String::new()
    };
    Err(Error::InvalidInput(format!(
        "the arguments of '{}' do not match its schema, so nothing was run ({count} problem{}): {}{rest}",
        tool.name,
        if count == 1 { "" } else { "s" },
        violations.join("; ")
    )))
}

/// `text` cut to [`MAX_VIOLATION_CHARS`] characters, with `…` when cut.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(MAX_VIOLATION_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// Calls one declared tool: found, its arguments checked, its script run to the end.
pub(crate) fn execute_tool(
    runtime: &Runtime,
    config: &SkillsConfig,
    call: &ToolCall,
    hooks: &RunHooks,
) -> Result<ToolExecution, Error> {
    let started = Instant::now();
    let catalog = skills_ops::discover::discover(config)?;
    let (tool, spec) = find(&catalog, &call.tool_name)?;
    let compact = check_args(&tool, &call.args)?;

    let mut request = RunRequest::new(
        tool.skill.clone(),
        RunTarget::Script {
            path: spec.script.clone(),
        },
    );
    request.timeout_secs = call.timeout_secs;
    request.confirmed = call.confirmed;
    let mut prepared = prepare::prepare_for(
        &runtime.inner.runtimes,
        config,
        &request,
        prepare::Purpose::Tool,
    )?;
    let markdown = call.prefer_markdown && tool.supports_markdown;
    prepared.target = format!("tool {}: {}", tool.name, prepared.target);
    let mut stdin = compact.clone().into_bytes();
    stdin.push(b'\n');
    prepared.stdin = Some(stdin);
    prepared.env.push((ARGS_VAR.to_owned(), compact));
    prepared.env.push((NAME_VAR.to_owned(), tool.name.clone()));
    if markdown {
        prepared.env.push((MARKDOWN_VAR.to_owned(), "1".to_owned()));
    }

    let run = runtime.start_prepared(config, prepared, hooks)?;
    let run_id = run.run_id.clone();
    let event = |slug: SkillsEvent, extra: Value| {
        if let Some(events) = &hooks.events {
            let mut payload = json!({
                "tool_name": tool.name,
                "skill": tool.skill,
                "session_id": call.session_id,
                "run_id": run_id,
            });
            if let (Some(payload), Value::Object(extra)) = (payload.as_object_mut(), extra) {
                payload.extend(extra);
            }
            events.publish(DomainEvent::skills(slug, payload));
        }
    };
    event(SkillsEvent::ToolStarted, Value::Null);
    let outcome = run.wait();
    let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    event(
        SkillsEvent::ToolFinished,
        json!({
            "elapsed_ms": elapsed_ms,
            "is_error": outcome.as_ref().map_or(true, RunOutcome::is_error),
        }),
    );
    let outcome = outcome?;
    Ok(ToolExecution::new(
        tool.name,
        run_id,
        elapsed_ms,
        tool_result(&outcome, markdown),
    ))
}

/// The run as a tool's answer: the text a run's result has (stdout, then stderr and how it
/// ended when there is something to say), the value stdout holds when it is one JSON value
/// (the structured content an MCP host shows programs), and stdout as the Markdown rendering
/// when the caller asked for it and the run succeeded (a failed run's Markdown would hide
/// its failure from the model, which reads the rendering first).
fn tool_result(outcome: &RunOutcome, markdown: bool) -> ToolResult {
    let mut content = vec![ToolContent::Text {
        text: outcome.text_for_model(),
    }];
    let printed = outcome.stdout.trim();
    if !printed.is_empty()
        && let Ok(data) = serde_json::from_str::<Value>(printed)
    {
        content.push(ToolContent::Json { data });
    }
    ToolResult {
        content,
        is_error: outcome.is_error(),
        markdown_formatted: (markdown && !outcome.is_error() && !printed.is_empty())
            .then(|| outcome.stdout.clone()),
    }
}

#[cfg(test)]
mod tests;
