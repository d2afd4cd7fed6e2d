//! The files beside a definition file (01 §Files a skill directory may define): the
//! `skill.toml` / `workflow.toml` sidecar and the oldest manifest form, `skill.json`, whose
//! name, description, version and author fill in what the frontmatter lacks.
//!
//! Both are optional and forgiving: a malformed file is an `invalid-sidecar` diagnostic on the
//! skill, never a reason to drop it. The sidecar is read as a TOML table and taken key by key
//! (07 §The sidecar grows): an unknown key, or a key of the wrong type, is a diagnostic naming
//! that key (and the input it sits in), and every other key still applies. Reading it as one
//! strict struct made a single typo drop the skill's inputs and `when_to_use` with it.
//!
//! Discovery keeps `when_to_use` and `inputs` in the catalog; the runtime reads the whole
//! [`SkillManifest`] through [`super::read_skill_manifest`]. Both use [`parse_sidecar`], so
//! they can never disagree about what a file says.

use std::collections::HashSet;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;
use skills_types::limits::MAX_SKILL_MD_BYTES;
use skills_types::run::{AgentSpec, GithubIdentity, InputType, Preflight, SelfTest, SkillManifest};
use skills_types::skill::SkillInput;
use skills_types::tool::{ToolSpec, unshowable_schema_text};
use skills_types::{Diagnostic, DiagnosticCode};

use crate::load::{self, Fallback};

/// The agent keys, accepted both inside `[agent]` and (OpenHuman's form) at the top level.
const AGENT_KEYS: [&str; 5] = [
    "system_prompt",
    "tools",
    "max_iterations",
    "temperature",
    "sandbox_mode",
];

/// Reads a `skill.toml` or `workflow.toml`; a missing or unreadable file is an empty manifest
/// (with a diagnostic when it exists but cannot be read).
pub(crate) fn read_sidecar(path: &Path, diagnostics: &mut Vec<Diagnostic>) -> SkillManifest {
    match read_text(path, diagnostics) {
        Some(text) => parse_sidecar(&text, path, diagnostics),
        None => SkillManifest::default(),
    }
}

/// The manifest `text` describes; `path` names the file in diagnostics.
///
/// The agent keys (`system_prompt`, `tools`, `max_iterations`, `temperature`,
/// `sandbox_mode`) may sit in `[agent]` or, as OpenHuman writes them, at the top level; when
/// a key is in both, the `[agent]` table wins for that key (it is the explicit form) and the
/// top-level one is reported as ignored. A top-level `tools` is told apart by its shape: an
/// array of tables is `[[tools]]` (declared tools), an array of strings is the agent's tool
/// list.
pub(crate) fn parse_sidecar(
    text: &str,
    path: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> SkillManifest {
    let mut manifest = SkillManifest::default();
    let table: toml::Table = match toml::from_str(text) {
        Ok(table) => table,
        Err(error) => {
            diagnostics.push(invalid(
                path,
                format!("not a valid sidecar: {}", error.message()),
            ));
            return manifest;
        }
    };
    let mut report = |message: String| diagnostics.push(invalid(path, message));
    let mut flat = toml::Table::new();
    let mut explicit: Option<toml::Table> = None;
    for (key, value) in table {
        match key.as_str() {
            "when_to_use" => {
                if let Some(text) = string_of(&key, value, &mut report) {
                    manifest.when_to_use =
                        Some(text.trim().to_owned()).filter(|text| !text.is_empty());
                }
            }
            "entry" => {
                if let Some(text) = string_of(&key, value, &mut report) {
                    let text = text.trim();
                    if text.is_empty() {
                        report("`entry` is empty; it is ignored".to_owned());
                    } else {
                        manifest.entry = Some(text.to_owned());
                    }
                }
            }
            "inputs" => manifest.inputs = inputs_of(value, &mut report),
            "interpreters" => manifest.interpreters = interpreters_of(value, &mut report),
            "github" => manifest.github = github_of(value, &mut report),
            "agent" => match value {
                toml::Value::Table(table) => explicit = Some(table),
                other => report(wrong_type("agent", "a table", &other)),
            },
            "tests" => manifest.tests = declared_of("tests", value, &mut report),
            "tools" if is_array_of_tables(&value) => {
                manifest.tools = declared_of("tools", value, &mut report);
            }
            name if AGENT_KEYS.contains(&name) => {
                flat.insert(key, value);
            }
            _ => report(format!(
                "`{}` is not a sidecar key; it is ignored",
                key.escape_debug()
            )),
        }
    }
    if let Some(explicit) = &explicit {
        for key in flat.keys() {
            if explicit.contains_key(key) {
                report(format!(
                    "`{key}` is set both at the top level and in [agent]; the [agent] value is used"
                ));
            }
        }
    }
    let mut merged = flat;
    let mut unknown_in_agent = Vec::new();
    for (key, value) in explicit.into_iter().flatten() {
        if AGENT_KEYS.contains(&key.as_str()) {
            merged.insert(key, value);
        } else {
            unknown_in_agent.push(key);
        }
    }
    for key in unknown_in_agent {
        report(format!(
            "`agent.{}` is not an agent key; it is ignored",
            key.escape_debug()
        ));
    }
    manifest.agent = agent_of(merged, &mut report);
    manifest
}

/// The agent spec the merged keys describe; `None` when no key gave anything.
fn agent_of(keys: toml::Table, report: &mut impl FnMut(String)) -> Option<AgentSpec> {
    let mut agent = AgentSpec::default();
    for (key, value) in keys {
        match key.as_str() {
            "system_prompt" => {
                agent.system_prompt = string_of("agent.system_prompt", value, report)
            }
            "sandbox_mode" => agent.sandbox_mode = string_of("agent.sandbox_mode", value, report),
            "tools" => match value {
                toml::Value::Array(items) if items.iter().all(toml::Value::is_str) => {
                    agent.tools = items
                        .into_iter()
                        .filter_map(|item| item.as_str().map(str::to_owned))
                        .collect();
                }
                other => report(wrong_type("agent.tools", "an array of tool names", &other)),
            },
            "max_iterations" => match value {
                toml::Value::Integer(number) => match u32::try_from(number) {
                    Ok(number) if number > 0 => agent.max_iterations = Some(number),
                    _ => report(format!(
                        "`agent.max_iterations` is {number}; it must be a positive whole number, and is ignored"
                    )),
                },
                other => report(wrong_type("agent.max_iterations", "a whole number", &other)),
            },
            "temperature" => match value {
                toml::Value::Float(number) if number.is_finite() && number >= 0.0 => {
                    agent.temperature = Some(number);
                }
                #[expect(
                    clippy::cast_precision_loss,
                    reason = "a temperature written as a whole number is small"
                )]
                toml::Value::Integer(number) if number >= 0 => {
                    agent.temperature = Some(number as f64);
                }
                other => report(wrong_type(
                    "agent.temperature",
                    "a number of at least 0",
                    &other,
                )),
            },
            _ => {}
        }
    }
    (!agent.is_empty()).then_some(agent)
}

fn inputs_of(value: toml::Value, report: &mut impl FnMut(String)) -> Vec<SkillInput> {
    let toml::Value::Array(items) = value else {
        report(wrong_type(
            "inputs",
            "an array of tables ([[inputs]])",
            &value,
        ));
        return Vec::new();
    };
    let mut seen = HashSet::new();
    let mut inputs = Vec::new();
    for (index, item) in items.into_iter().enumerate() {
        let position = index + 1;
        let toml::Value::Table(table) = item else {
            report(format!(
                "input {position} is {}, not a table; it is ignored",
                type_name(&item)
            ));
            continue;
        };
        let Some(input) = input_of(position, table, report) else {
            continue;
        };
        if !seen.insert(input.name.to_lowercase()) {
            report(format!(
                "the input '{}' is declared twice (names are compared ignoring case); the second is ignored",
                input.name.escape_debug()
            ));
        } else {
            inputs.push(input);
        }
    }
    inputs
}

/// One `[[inputs]]` table; `None` when it has no usable name.
fn input_of(
    position: usize,
    mut table: toml::Table,
    report: &mut impl FnMut(String),
) -> Option<SkillInput> {
    let name = match table.remove("name") {
        Some(toml::Value::String(name)) if !name.trim().is_empty() => name.trim().to_owned(),
        Some(toml::Value::String(_)) | None => {
            report(format!("input {position} has no name; it is ignored"));
            return None;
        }
        Some(other) => {
            report(format!(
                "input {position}: `name` is {}, not a string; the input is ignored",
                type_name(&other)
            ));
            return None;
        }
    };
    let shown = name.escape_debug().to_string();
    // An agent passes an input by the name it was shown, and is shown names only through the
    // one sanitiser: a name it would change could never be passed (and `a` plus a zero-width
    // space would be shown as another input's name).
    if !skills_types::sanitize::is_clean_line(&name) {
        report(format!(
            "input {position}: the name '{shown}' holds a control, format or line-break character, so it cannot be shown to an agent, which could then never pass it; the input is ignored"
        ));
        return None;
    }
    let mut input = SkillInput::new(name);
    let mut default = None;
    for (key, value) in table {
        match key.as_str() {
            "description" => match value {
                toml::Value::String(text) => input.description = text,
                other => report(format!(
                    "input '{shown}': `description` is {}, not a string; it is ignored",
                    type_name(&other)
                )),
            },
            "required" => match value {
                toml::Value::Boolean(required) => input.required = required,
                other => report(format!(
                    "input '{shown}': `required` is {}, not true or false; it is ignored",
                    type_name(&other)
                )),
            },
            "type" => match value {
                toml::Value::String(kind) => match InputType::from_name(kind.trim()) {
                    Some(kind) => input.kind = kind,
                    None => report(format!(
                        "input '{shown}': the type '{}' is not one of string, number, boolean, json; it is treated as string",
                        kind.escape_debug()
                    )),
                },
                other => report(format!(
                    "input '{shown}': `type` is {}, not a string; it is treated as string",
                    type_name(&other)
                )),
            },
            "default" => default = Some(value),
            _ => report(format!(
                "input '{shown}': `{}` is not an input key; it is ignored",
                key.escape_debug()
            )),
        }
    }
    // The type is known only once every key was seen, so the default is checked last.
    if let Some(value) = default {
        match toml_to_json(&value) {
            Some(value) if input.kind.accepts(&value) => input.default = Some(value),
            _ => report(format!(
                "input '{shown}': the default is {}, not a {} value; it is ignored",
                type_name(&value),
                input.kind.as_str()
            )),
        }
    }
    Some(input)
}

fn interpreters_of(
    value: toml::Value,
    report: &mut impl FnMut(String),
) -> std::collections::BTreeMap<String, String> {
    let mut interpreters = std::collections::BTreeMap::new();
    let toml::Value::Table(table) = value else {
        report(wrong_type("interpreters", "a table", &value));
        return interpreters;
    };
    for (extension, program) in table {
        let key = extension.trim_start_matches('.').to_owned();
        let shown = extension.escape_debug();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric()) {
            report(format!(
                "`interpreters.{shown}` is not a file extension (letters and digits); it is ignored"
            ));
            continue;
        }
        match program {
            // A path would let a skill pick any file on the machine as its interpreter; only
            // a program name, looked up on `PATH` like the built-in interpreters, is taken.
            toml::Value::String(program)
                if !program.trim().is_empty()
                    && !program.contains(['/', '\\', '\0'])
                    && program.trim() == program =>
            {
                interpreters.insert(key, program);
            }
            toml::Value::String(program) => report(format!(
                "`interpreters.{shown}` is '{}'; it must be a bare program name (no path, no spaces around it), and is ignored",
                program.escape_debug()
            )),
            other => report(wrong_type(
                &format!("interpreters.{shown}"),
                "a program name",
                &other,
            )),
        }
    }
    interpreters
}

fn github_of(value: toml::Value, report: &mut impl FnMut(String)) -> Option<Preflight> {
    let toml::Value::Table(table) = value else {
        report(wrong_type("github", "a table", &value));
        return None;
    };
    let mut preflight = Preflight::default();
    for (key, value) in table {
        match (key.as_str(), value) {
            ("required", toml::Value::Boolean(required)) => preflight.required = required,
            ("identity", toml::Value::String(identity)) => match identity.as_str() {
                "strict" => preflight.identity = GithubIdentity::Strict,
                "any" => preflight.identity = GithubIdentity::Any,
                "none" => preflight.identity = GithubIdentity::None,
                _ => report(format!(
                    "`github.identity` is '{}', not one of strict, any, none; the default (any) is used",
                    identity.escape_debug()
                )),
            },
            ("required", other) => report(wrong_type("github.required", "true or false", &other)),
            ("identity", other) => report(wrong_type("github.identity", "a string", &other)),
            (_, _) => report(format!(
                "`github.{}` is not a [github] key; it is ignored",
                key.escape_debug()
            )),
        }
    }
    Some(preflight)
}

/// `[[tools]]` or `[[tests]]`, each table taken on its own: one that does not fit is a
/// diagnostic naming it (by position and name) and the others still apply. Names repeat
/// nowhere: a second table of a name already taken is reported and left out.
fn declared_of<T: serde::de::DeserializeOwned + Named>(
    key: &str,
    value: toml::Value,
    report: &mut impl FnMut(String),
) -> Vec<T> {
    let mut taken = HashSet::new();
    let mut declared = Vec::new();
    for (index, table) in tables_of(key, value, report).into_iter().enumerate() {
        let label = match table.get("name").and_then(Value::as_str) {
            Some(name) => format!("`{key}[{index}]` ({})", name.escape_debug()),
            None => format!("`{key}[{index}]`"),
        };
        match serde_json::from_value::<T>(table) {
            Ok(item) if !taken.insert(item.name().to_owned()) => report(format!(
                "{label} repeats a name already declared; it is ignored"
            )),
            Ok(item) => declared.push(item),
            Err(error) => report(format!("{label} is malformed ({error}); it is ignored")),
        }
    }
    declared
}

/// A declared thing with a name of its own.
trait Named {
    fn name(&self) -> &str;
}

impl Named for ToolSpec {
    fn name(&self) -> &str {
        &self.name
    }
}

impl Named for SelfTest {
    fn name(&self) -> &str {
        &self.name
    }
}

/// Whether `name` is a tool name every model API accepts: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_model_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

/// The name `skill`'s tool `tool` is offered under.
pub fn tool_name(skill: &str, tool: &str) -> String {
    format!("{skill}__{tool}")
}

/// Whether `skill`'s tool `spec` is offered to agents: its offered name is one every model API
/// accepts, and its schema holds no text validation reads that an agent could not be shown
/// ([`unshowable_schema_text`]). The runtime offers and answers only these; discovery reports
/// the others (`tool_diagnostics`).
pub fn is_offered(skill: &str, spec: &ToolSpec) -> bool {
    is_model_tool_name(&tool_name(skill, &spec.name))
        && unshowable_schema_text(&spec.parameters).is_none()
}

/// One diagnostic for each of `skill`'s tools that is not offered ([`is_offered`]), saying why.
pub(crate) fn tool_diagnostics(
    skill: &str,
    manifest: &SkillManifest,
    path: &Path,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for tool in &manifest.tools {
        let offered = tool_name(skill, &tool.name);
        if !is_model_tool_name(&offered) {
            found.push(
                Diagnostic::warning(
                    DiagnosticCode::InvalidToolName,
                    format!(
                        "the tool `{}` would be offered as `{}`, which model APIs refuse (letters, digits, `_` and `-` only, at most 64 in all); it is not offered",
                        tool.name.escape_debug(),
                        offered.escape_debug()
                    ),
                )
                .with_path(path),
            );
        } else if let Some(at) = unshowable_schema_text(&tool.parameters) {
            found.push(
                Diagnostic::warning(
                    DiagnosticCode::InvalidToolSchema,
                    format!(
                        "the tool `{}` is not offered: its `parameters` hold a control, format or line-break character at {at}, where validation reads the text as written; an agent is shown the schema without it, so it would be checked against another (descriptions and titles may hold anything: they are cleaned for the agent)",
                        tool.name.escape_debug()
                    ),
                )
                .with_path(path),
            );
        }
    }
    found
}

/// `[[tools]]` or `[[tests]]` as JSON tables.
fn tables_of(key: &str, value: toml::Value, report: &mut impl FnMut(String)) -> Vec<Value> {
    if !is_array_of_tables(&value) {
        report(wrong_type(
            key,
            &format!("an array of tables ([[{key}]])"),
            &value,
        ));
        return Vec::new();
    }
    match toml_to_json(&value) {
        Some(Value::Array(items)) => items,
        _ => {
            report(format!(
                "`{key}` holds a value JSON cannot carry (a float that is not finite); it is ignored"
            ));
            Vec::new()
        }
    }
}

fn is_array_of_tables(value: &toml::Value) -> bool {
    matches!(value, toml::Value::Array(items) if !items.is_empty() && items.iter().all(toml::Value::is_table))
}

fn string_of(key: &str, value: toml::Value, report: &mut impl FnMut(String)) -> Option<String> {
    match value {
        toml::Value::String(text) => Some(text),
        other => {
            report(wrong_type(key, "a string", &other));
            None
        }
    }
}

fn wrong_type(key: &str, expected: &str, value: &toml::Value) -> String {
    format!(
        "`{key}` is {}, not {expected}; it is ignored",
        type_name(value)
    )
}

fn type_name(value: &toml::Value) -> &'static str {
    match value {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a float",
        toml::Value::Boolean(_) => "a boolean",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "an array",
        toml::Value::Table(_) => "a table",
    }
}

/// A TOML value as JSON: dates become their text; `None` for a float JSON cannot hold.
fn toml_to_json(value: &toml::Value) -> Option<Value> {
    Some(match value {
        toml::Value::String(text) => Value::String(text.clone()),
        toml::Value::Integer(number) => Value::from(*number),
        toml::Value::Float(number) => Value::from(serde_json::Number::from_f64(*number)?),
        toml::Value::Boolean(flag) => Value::Bool(*flag),
        toml::Value::Datetime(date) => Value::String(date.to_string()),
        toml::Value::Array(items) => {
            Value::Array(items.iter().map(toml_to_json).collect::<Option<_>>()?)
        }
        toml::Value::Table(table) => Value::Object(
            table
                .iter()
                .map(|(key, value)| Some((key.clone(), toml_to_json(value)?)))
                .collect::<Option<_>>()?,
        ),
    })
}

#[derive(Deserialize)]
struct ManifestFile {
    name: Option<Value>,
    description: Option<Value>,
    version: Option<Value>,
    author: Option<Value>,
}

/// Reads a `skill.json` into the fallbacks it offers the loader.
pub(crate) fn read_manifest(path: &Path, diagnostics: &mut Vec<Diagnostic>) -> Fallback {
    let mut fallback = Fallback {
        source: skills_types::files::SKILL_JSON,
        ..Fallback::default()
    };
    let Some(text) = read_text(path, diagnostics) else {
        return fallback;
    };
    let file: ManifestFile = match serde_json::from_str(&text) {
        Ok(file) => file,
        Err(error) => {
            diagnostics.push(invalid(path, format!("not a valid manifest: {error}")));
            return fallback;
        }
    };
    let text_of = |value: Option<Value>| match value? {
        Value::String(text) => Some(text.trim().to_owned()).filter(|t| !t.is_empty()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    };
    fallback.name = text_of(file.name);
    fallback.description = text_of(file.description);
    for (key, value) in [("version", file.version), ("author", file.author)] {
        if let Some(text) = text_of(value) {
            fallback.metadata.push((key.to_owned(), text));
        }
    }
    fallback
}

fn read_text(path: &Path, diagnostics: &mut Vec<Diagnostic>) -> Option<String> {
    let bytes = match load::read_definition(path, MAX_SKILL_MD_BYTES) {
        Ok(bytes) => bytes,
        Err(error) => {
            diagnostics.push(invalid(path, error.to_string()));
            return None;
        }
    };
    match String::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(_) => {
            diagnostics.push(invalid(path, "the file is not valid UTF-8".to_owned()));
            None
        }
    }
}

fn invalid(path: &Path, message: String) -> Diagnostic {
    Diagnostic::warning(DiagnosticCode::InvalidSidecar, message).with_path(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (SkillManifest, Vec<String>) {
        let mut diagnostics = Vec::new();
        let manifest = parse_sidecar(text, Path::new("skill.toml"), &mut diagnostics);
        for diagnostic in &diagnostics {
            assert_eq!(diagnostic.code, DiagnosticCode::InvalidSidecar);
        }
        let messages = diagnostics.into_iter().map(|d| d.message).collect();
        (manifest, messages)
    }

    #[test]
    fn sidecar_inputs_and_when_to_use() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skill.toml");
        std::fs::write(
            &path,
            "when_to_use = ' When releasing. '\n[[inputs]]\nname = 'version'\ndescription = 'The version'\nrequired = true\n\n[[inputs]]\nname = 'Version'\n\n[[inputs]]\nname = 'notes'\ntype = 'path'\n\n[github]\nrequired = true\nidentity = 'strict'\n",
        )
        .unwrap();
        let mut diagnostics = Vec::new();
        let sidecar = read_sidecar(&path, &mut diagnostics);
        assert_eq!(sidecar.when_to_use.as_deref(), Some("When releasing."));
        let names: Vec<&str> = sidecar
            .inputs
            .iter()
            .map(|input| input.name.as_str())
            .collect();
        assert_eq!(names, ["version", "notes"]);
        assert!(sidecar.inputs[0].required);
        // An unknown type is a diagnostic and the input is a string.
        assert_eq!(sidecar.inputs[1].kind, InputType::String);
        assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
        assert!(diagnostics[0].message.contains("declared twice"));
        assert!(diagnostics[1].message.contains("'path'"));
        let github = sidecar.github.unwrap();
        assert!(github.required);
        assert_eq!(github.identity, GithubIdentity::Strict);
    }

    #[test]
    fn one_typo_costs_only_its_key() {
        let (manifest, messages) = parse(
            "when_to_use = 'When asked.'\nwhen_to_sue = 'typo'\nentry = 3\n[[inputs]]\nname = 'file'\nrequird = true\ntype = 'number'\ndefault = 'three'\n[[inputs]]\nname = 'mode'\ndefault = 'fast'\n",
        );
        assert_eq!(manifest.when_to_use.as_deref(), Some("When asked."));
        assert_eq!(manifest.entry, None);
        assert_eq!(manifest.inputs.len(), 2);
        assert_eq!(manifest.inputs[0].name, "file");
        assert_eq!(manifest.inputs[0].kind, InputType::Number);
        assert!(!manifest.inputs[0].required);
        assert_eq!(manifest.inputs[0].default, None);
        assert_eq!(
            manifest.inputs[1].default,
            Some(Value::String("fast".into()))
        );
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert!(messages[0].contains("`when_to_sue`"), "{messages:?}");
        assert!(messages[1].contains("`entry`"), "{messages:?}");
        assert!(
            messages[2].contains("'file'") && messages[2].contains("`requird`"),
            "{messages:?}"
        );
        assert!(
            messages[3].contains("'file'") && messages[3].contains("default"),
            "{messages:?}"
        );
    }

    #[test]
    fn malformed_sidecar_is_a_diagnostic() {
        let (manifest, messages) = parse("when_to_use = [unclosed\n");
        assert_eq!(manifest, SkillManifest::default());
        assert_eq!(messages.len(), 1);
        let (manifest, messages) = parse("when_to_use = 3\nunknown = 1\n");
        assert_eq!(manifest, SkillManifest::default());
        assert_eq!(messages.len(), 2, "{messages:?}");
    }

    #[test]
    fn everything_the_runtime_reads() {
        let (manifest, messages) = parse(
            r#"
entry = "scripts/main.py"
system_prompt = "flat prompt"
temperature = 1
max_iterations = 8

[agent]
system_prompt = "table prompt"
tools = ["read", "write"]
sandbox_mode = "workspace-write"

[interpreters]
rb = "ruby"
".lua" = "lua"
pl = "/usr/bin/perl"
sh2 = 3

[[inputs]]
name = "count"
type = "number"
default = 3

[[inputs]]
name = "options"
type = "json"
default = { depth = 2, tags = ["a"] }

[[tools]]
name = "lint"
script = "scripts/lint.py"

[[tests]]
name = "smoke"
expect_exit = 0
"#,
        );
        assert_eq!(manifest.entry.as_deref(), Some("scripts/main.py"));
        let agent = manifest.agent.unwrap();
        assert_eq!(agent.system_prompt.as_deref(), Some("table prompt"));
        assert_eq!(agent.tools, ["read", "write"]);
        assert_eq!(agent.max_iterations, Some(8));
        assert_eq!(agent.temperature, Some(1.0));
        assert_eq!(agent.sandbox_mode.as_deref(), Some("workspace-write"));
        assert_eq!(
            manifest.interpreters.into_iter().collect::<Vec<_>>(),
            [
                ("lua".to_owned(), "lua".to_owned()),
                ("rb".to_owned(), "ruby".to_owned())
            ]
        );
        assert_eq!(manifest.inputs[0].default, Some(serde_json::json!(3)));
        assert_eq!(
            manifest.inputs[1].default,
            Some(serde_json::json!({"depth": 2, "tags": ["a"]}))
        );
        assert_eq!(manifest.tools.len(), 1);
        assert_eq!(manifest.tools[0].name, "lint");
        assert_eq!(manifest.tools[0].script, "scripts/lint.py");
        assert_eq!(
            manifest.tools[0].parameters,
            skills_types::tool::empty_object_schema()
        );
        assert_eq!(manifest.tests.len(), 1);
        assert_eq!(manifest.tests[0].name, "smoke");
        assert_eq!(manifest.tests[0].expect_exit, 0);
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(messages[0].contains("`interpreters.pl`"), "{messages:?}");
        assert!(messages[1].contains("`interpreters.sh2`"), "{messages:?}");
        assert!(
            messages[2].contains("`system_prompt`") && messages[2].contains("[agent]"),
            "{messages:?}"
        );
    }

    #[test]
    fn flattened_agent_keys_alone() {
        let (manifest, messages) =
            parse("system_prompt = 'p'\ntools = ['a']\nmax_iterations = 0\n[agent]\nmodel = 'x'\n");
        let agent = manifest.agent.unwrap();
        assert_eq!(agent.system_prompt.as_deref(), Some("p"));
        assert_eq!(agent.tools, ["a"]);
        assert_eq!(agent.max_iterations, None);
        assert!(manifest.tools.is_empty());
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages.iter().any(|m| m.contains("`agent.model`")));
        assert!(messages.iter().any(|m| m.contains("max_iterations")));
        let (manifest, messages) = parse("[github]\nrequired = 'yes'\nrepo = 'o/r'\n");
        assert_eq!(manifest.github, Some(Preflight::default()));
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert_eq!(manifest.agent, None);
    }

    #[test]
    fn a_bad_tool_or_test_costs_only_itself() {
        let (manifest, messages) = parse(
            "[[tools]]\nname = 'ok'\nscript = 's.py'\n[[tools]]\nname = 'noscript'\n\
             [[tools]]\nname = 'ok'\nscript = 'again.py'\n[[tests]]\nname = 't'\nexpect_exit = 'zero'\n\
             [[tests]]\nname = 'u'\nexpect_stdout_contains = 'hi'\n",
        );
        assert_eq!(manifest.tools.len(), 1);
        assert_eq!(manifest.tools[0].script, "s.py");
        assert_eq!(manifest.tests.len(), 1);
        assert_eq!(manifest.tests[0].name, "u");
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(
            messages[0].contains("`tools[1]` (noscript)"),
            "{messages:?}"
        );
        assert!(messages[1].contains("repeats a name"), "{messages:?}");
        assert!(messages[2].contains("`tests[0]` (t)"), "{messages:?}");
    }

    #[test]
    fn offered_tool_names_fit_model_apis() {
        assert!(is_model_tool_name("pdf__extract-text_2"));
        assert!(!is_model_tool_name("pdf__extract text"));
        assert!(!is_model_tool_name("pdf__ünï"));
        assert!(!is_model_tool_name(""));
        assert!(!is_model_tool_name(&"a".repeat(65)));
        let (manifest, _) = parse(&format!(
            "[[tools]]\nname = 'fine'\nscript = 'a.py'\n[[tools]]\nname = 'has.dot'\nscript = 'b.py'\n\
             [[tools]]\nname = '{}'\nscript = 'c.py'\n",
            "x".repeat(60)
        ));
        let found = tool_diagnostics("pdf", &manifest, Path::new("skill.toml"));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].message.contains("`pdf__has.dot`"));
        assert!(
            found
                .iter()
                .all(|d| d.code == DiagnosticCode::InvalidToolName)
        );
    }

    #[test]
    fn a_schema_whose_data_an_agent_cannot_be_shown_is_not_offered() {
        let (manifest, messages) = parse(
            r#"
[[tools]]
name = "fine"
script = "a.py"
parameters = { type = "object", title = "T\u202Eitle", properties = { who = { type = "string", description = "Who \u0007\u001B[2J", enum = ["a", "b"] } } }

[[tools]]
name = "hidden"
script = "b.py"
parameters = { type = "object", properties = { who = { type = "string", enum = ["a\u200Bb"] } } }
"#,
        );
        assert!(messages.is_empty(), "{messages:?}");
        let [fine, hidden] = &manifest.tools[..] else {
            panic!("{:?}", manifest.tools);
        };
        assert!(
            is_offered("pdf", fine),
            "a description or title is cleaned, not refused"
        );
        assert!(!is_offered("pdf", hidden));
        let found = tool_diagnostics("pdf", &manifest, Path::new("skill.toml"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].code, DiagnosticCode::InvalidToolSchema);
        assert!(
            found[0].message.contains("`hidden`")
                && found[0].message.contains("/properties/who/enum/0"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn an_input_whose_name_an_agent_cannot_be_shown_is_ignored() {
        let (manifest, messages) = parse(
            r#"
[[inputs]]
name = "ti\u200Btle"

[[inputs]]
name = "two\nlines"

[[inputs]]
name = "title"
"#,
        );
        assert_eq!(
            manifest
                .inputs
                .iter()
                .map(|input| input.name.as_str())
                .collect::<Vec<_>>(),
            ["title"]
        );
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages
                .iter()
                .all(|message| message.contains("cannot be shown")),
            "{messages:?}"
        );
    }

    #[test]
    fn manifest_fallbacks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skill.json");
        std::fs::write(
            &path,
            r#"{"name": "old", "description": "Old form.", "version": 2, "author": "A"}"#,
        )
        .unwrap();
        let mut diagnostics = Vec::new();
        let fallback = read_manifest(&path, &mut diagnostics);
        assert!(diagnostics.is_empty());
        assert_eq!(fallback.name.as_deref(), Some("old"));
        assert_eq!(fallback.description.as_deref(), Some("Old form."));
        assert_eq!(
            fallback.metadata,
            [
                ("version".to_owned(), "2".to_owned()),
                ("author".to_owned(), "A".to_owned())
            ]
        );
    }
}
