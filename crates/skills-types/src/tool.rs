//! `ToolResult` and `ToolContent`: how an operation's result is handed to an agent core that
//! exposes skills as tools.
//!
//! The JSON shape is part of the wire contract (04 §ToolResult): content parts are tagged by
//! `"type"`, and the optional Markdown rendering travels as `markdownFormatted`.
//!
//! A result carries what an MCP `CallToolResult` needs without a second shape: its text parts
//! become MCP text content, and its first JSON part ([`ToolResult::structured`]) becomes the
//! structured content. Declared tools (`[[tools]]`, 07 §Tools) are described here too, with
//! what a call of one sends and gets back.

use serde::{Deserialize, Serialize};

/// The result of a tool call as an agent core shows it to a model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// The parts of the result, in order.
    pub content: Vec<ToolContent>,
    /// Whether the call failed; the content then explains why.
    #[serde(default)]
    pub is_error: bool,
    /// A Markdown rendering of the whole result, preferred by [`ToolResult::output_for_llm`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown_formatted: Option<String>,
}

/// One part of a [`ToolResult`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ToolContent {
    /// Plain text.
    Text {
        /// The text itself.
        text: String,
    },
    /// Structured data.
    Json {
        /// The data itself.
        data: serde_json::Value,
    },
}

impl ToolResult {
    /// A successful result holding one text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ToolContent::Text { text: text.into() }],
            is_error: false,
            markdown_formatted: None,
        }
    }

    /// A successful result holding one JSON part.
    pub fn json(data: serde_json::Value) -> Self {
        Self {
            content: vec![ToolContent::Json { data }],
            is_error: false,
            markdown_formatted: None,
        }
    }

    /// A failed result whose text says what went wrong.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            is_error: true,
            ..Self::text(message)
        }
    }

    /// The same result with a Markdown rendering attached.
    #[must_use]
    pub fn with_markdown(mut self, markdown: impl Into<String>) -> Self {
        self.markdown_formatted = Some(markdown.into());
        self
    }

    /// The structured part of the result: the data of its first JSON part, if any. A
    /// declared tool whose script printed one JSON value has it here (and the same text as
    /// a text part); a run's result has its whole outcome here. MCP's structured content
    /// must be an object, so a host that gets another value wraps it (`{"result": value}`).
    pub fn structured(&self) -> Option<&serde_json::Value> {
        self.content.iter().find_map(|part| match part {
            ToolContent::Json { data } => Some(data),
            ToolContent::Text { .. } => None,
        })
    }

    /// What a model should read: the Markdown rendering when it is not blank, otherwise the
    /// text parts joined by newlines (JSON parts are for programs and are left out).
    pub fn output_for_llm(&self) -> String {
        if let Some(markdown) = &self.markdown_formatted
            && !markdown.trim().is_empty()
        {
            return markdown.clone();
        }
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|part| match part {
                ToolContent::Text { text } => Some(text.as_str()),
                ToolContent::Json { .. } => None,
            })
            .collect();
        texts.join("\n")
    }
}

/// The most a tool call's arguments may hold, as compact JSON. They travel in one
/// environment variable (`SKILL_TOOL_ARGS`), and Linux refuses to start a program when any
/// one environment string is over 128 KiB (`MAX_ARG_STRLEN`, the name and `=` included):
/// arguments past that would pass the check and then fail to spawn. The 1 KiB kept back
/// covers the name.
pub const MAX_TOOL_ARGS_BYTES: usize = 127 * 1024;

/// A tool a skill declares in `skill.toml` (`[[tools]]`): a script that takes JSON arguments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ToolSpec {
    /// The tool's own name; it is offered as `<skill>__<name>`.
    pub name: String,
    /// What the tool does, for a model.
    #[serde(default)]
    pub description: String,
    /// The script that answers, relative to the skill folder.
    pub script: String,
    /// A JSON Schema object the arguments must satisfy.
    #[serde(default = "empty_object_schema")]
    pub parameters: serde_json::Value,
    /// A grouping for hosts that show tools by kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Whether the script can answer in Markdown when asked (`SKILL_PREFER_MARKDOWN=1`).
    #[serde(default)]
    pub supports_markdown: bool,
}

/// The schema of a tool that declares no parameters: any object.
pub fn empty_object_schema() -> serde_json::Value {
    serde_json::json!({"type": "object"})
}

/// JSON Schema keywords whose values are for a reader only: validation never reads them, so
/// the one sanitiser may clean them on the way to an agent without changing what the schema
/// accepts.
pub const SCHEMA_ANNOTATIONS: &[&str] = &["$comment", "description", "title"];

/// JSON Schema keywords whose values are data, compared as written (`enum`, `const`) or
/// handed on as values (`default`, `examples`): everything inside them, keys included, is
/// data, whatever it is called.
pub const SCHEMA_DATA: &[&str] = &["const", "default", "enum", "examples"];

/// Where a declared tool's `parameters` hold text that validation reads as written (a
/// property name, a `pattern`, an `enum` or `const` value, a `default`, a `$ref`, a type
/// name: anything but an annotation, [`SCHEMA_ANNOTATIONS`]) and that the one sanitiser
/// would change on its way to an agent (a control, format or line-break character): the
/// JSON Pointer of the first such place, its keys shown sanitised; `None` when there is none.
///
/// Such a tool is not offered. Cleaned, the schema an agent is shown would differ from the
/// one its arguments are checked against — an `enum` value it could never send, a property
/// it would name wrongly — and left as it is, the text would reach the agent raw.
pub fn unshowable_schema_text(parameters: &serde_json::Value) -> Option<String> {
    use crate::sanitize::{is_clean_line, key};
    use serde_json::Value;

    // (value, its pointer, whether it is data)
    let mut stack = vec![(parameters, String::new(), false)];
    while let Some((value, pointer, is_data)) = stack.pop() {
        match value {
            Value::String(text) if !is_clean_line(text) => return Some(pointer),
            Value::Array(items) => stack.extend(
                items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| (item, format!("{pointer}/{index}"), is_data)),
            ),
            Value::Object(members) => {
                for (name, member) in members {
                    let here = format!(
                        "{pointer}/{}",
                        key(name).replace('~', "~0").replace('/', "~1")
                    );
                    if !is_clean_line(name) {
                        return Some(here);
                    }
                    let annotation = !is_data
                        && member.is_string()
                        && SCHEMA_ANNOTATIONS.contains(&name.as_str());
                    if !annotation {
                        let is_data = is_data || SCHEMA_DATA.contains(&name.as_str());
                        stack.push((member, here, is_data));
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// One tool of the catalog as `list_tools` offers it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct ToolInfo {
    /// `<skill>__<tool>`, matching `^[a-zA-Z0-9_-]{1,64}$`.
    pub name: String,
    /// The skill that declares it.
    pub skill: String,
    /// The tool's own name inside the skill.
    pub tool: String,
    /// What the tool does.
    pub description: String,
    /// Its category (`"skill"` when it declares none).
    pub category: String,
    /// The skill's permission: whether calling it is allowed, needs confirmation, or not.
    pub permission_level: crate::config::Permission,
    /// The skill's scope.
    pub scope: crate::SkillScope,
    /// Whether it can answer in Markdown.
    pub supports_markdown: bool,
    /// The JSON Schema of its arguments.
    pub parameters: serde_json::Value,
}

/// The category of a tool that declares none.
pub const DEFAULT_TOOL_CATEGORY: &str = "skill";

impl ToolInfo {
    /// `spec` of `skill` offered as `name`, with the skill's permission and scope; a tool
    /// that declares no category is in [`DEFAULT_TOOL_CATEGORY`].
    pub fn new(
        name: impl Into<String>,
        skill: impl Into<String>,
        spec: &ToolSpec,
        permission_level: crate::config::Permission,
        scope: crate::SkillScope,
    ) -> Self {
        Self {
            name: name.into(),
            skill: skill.into(),
            tool: spec.name.clone(),
            description: spec.description.clone(),
            category: spec
                .category
                .clone()
                .unwrap_or_else(|| DEFAULT_TOOL_CATEGORY.to_owned()),
            permission_level,
            scope,
            supports_markdown: spec.supports_markdown,
            parameters: spec.parameters.clone(),
        }
    }
}

/// A call of a declared tool (also the params of the `skill_runtime.execute_tool` method, so
/// an unknown field is refused rather than silently dropped).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ToolCall {
    /// `<skill>__<tool>`.
    pub tool_name: String,
    /// The arguments (checked against the tool's `parameters` before anything runs).
    #[serde(default = "empty_object")]
    pub args: serde_json::Value,
    /// Whether the caller would rather have Markdown (honoured by tools that support it).
    #[serde(default)]
    pub prefer_markdown: bool,
    /// The agent session the call belongs to (carried on the tool events).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The user confirmed the call (needed where a run needs it).
    #[serde(default)]
    pub confirmed: bool,
    /// A deadline in seconds, as for a run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

impl ToolCall {
    /// A call of `tool_name` with `args`, unconfirmed, in no session.
    pub fn new(tool_name: impl Into<String>, args: serde_json::Value) -> Self {
        Self {
            tool_name: tool_name.into(),
            args,
            prefer_markdown: false,
            session_id: None,
            confirmed: false,
            timeout_secs: None,
        }
    }
}

/// What a tool call gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct ToolExecution {
    /// The tool called.
    pub tool_name: String,
    /// How long it took, in milliseconds.
    pub elapsed_ms: u64,
    /// The run that answered it.
    pub run_id: String,
    /// The answer as a model sees it.
    pub result: ToolResult,
}

impl ToolExecution {
    /// The execution of `tool_name` by `run_id`.
    pub fn new(
        tool_name: impl Into<String>,
        run_id: impl Into<String>,
        elapsed_ms: u64,
        result: ToolResult,
    ) -> Self {
        Self {
            tool_name: tool_name.into(),
            elapsed_ms,
            run_id: run_id.into(),
            result,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schema_text_validation_reads_must_be_showable() {
        let clean = json!({
            "type": "object",
            "title": "T\u{202e}itle \u{1b}[31m",
            "description": "Who\u{7}\nnext",
            "properties": {
                "who": { "type": "string", "description": "\u{200b}", "enum": ["a", "b c"] },
                "description": { "type": "string", "title": "a property named like a keyword" },
            },
            "$comment": "\u{1b}]0;t\u{7}",
        });
        assert_eq!(unshowable_schema_text(&clean), None);
        for (schema, at) in [
            (json!({ "enum": ["a\u{200b}b"] }), "/enum/0"),
            (
                json!({ "properties": { "w\u{7}ho": {} } }),
                "/properties/w\\u{7}ho",
            ),
            (json!({ "pattern": "^a\u{202e}$" }), "/pattern"),
            (json!({ "const": { "title": "x\u{7}" } }), "/const/title"),
            (json!({ "default": "two\nlines" }), "/default"),
            (
                json!({ "examples": [{ "description": "\u{1b}[31m" }] }),
                "/examples/0/description",
            ),
            (
                json!({ "items": [{ "$ref": "#/a\u{85}" }] }),
                "/items/0/$ref",
            ),
            (
                json!({ "properties": { "a/b~": { "const": "\u{7f}" } } }),
                "/properties/a~1b~0/const",
            ),
            (json!({ "required": ["x\ty"] }), "/required/0"),
        ] {
            assert_eq!(
                unshowable_schema_text(&schema).as_deref(),
                Some(at),
                "{schema}"
            );
        }
    }

    #[test]
    fn text_result_has_the_wire_shape() {
        let value = serde_json::to_value(ToolResult::text("hello")).unwrap();
        assert_eq!(
            value,
            json!({"content": [{"type": "text", "text": "hello"}], "isError": false})
        );
    }

    #[test]
    fn json_part_and_markdown_have_the_wire_shape() {
        let result = ToolResult::json(json!({"a": 1})).with_markdown("**a**: 1");
        let value = serde_json::to_value(&result).unwrap();
        assert_eq!(
            value,
            json!({
                "content": [{"type": "json", "data": {"a": 1}}],
                "isError": false,
                "markdownFormatted": "**a**: 1"
            })
        );
        let back: ToolResult = serde_json::from_value(value).unwrap();
        assert_eq!(back, result);
    }

    #[test]
    fn error_result_sets_is_error() {
        let value = serde_json::to_value(ToolResult::error("boom")).unwrap();
        assert_eq!(
            value,
            json!({"content": [{"type": "text", "text": "boom"}], "isError": true})
        );
    }

    #[test]
    fn unknown_content_type_is_refused() {
        let parsed: Result<ToolResult, _> =
            serde_json::from_value(json!({"content": [{"type": "image", "url": "x"}]}));
        assert!(parsed.is_err());
    }

    #[test]
    fn output_prefers_non_blank_markdown() {
        let result = ToolResult::text("plain").with_markdown("# rich");
        assert_eq!(result.output_for_llm(), "# rich");
        let blank = ToolResult::text("plain").with_markdown("  \n");
        assert_eq!(blank.output_for_llm(), "plain");
    }

    #[test]
    fn structured_is_the_first_json_part() {
        assert_eq!(ToolResult::text("plain").structured(), None);
        let result = ToolResult {
            content: vec![
                ToolContent::Text {
                    text: "{\"a\":1}".into(),
                },
                ToolContent::Json {
                    data: json!({"a": 1}),
                },
                ToolContent::Json { data: json!(2) },
            ],
            is_error: false,
            markdown_formatted: None,
        };
        assert_eq!(result.structured(), Some(&json!({"a": 1})));
    }

    #[test]
    fn a_call_with_an_unknown_field_is_refused() {
        let call: ToolCall = serde_json::from_value(json!({"tool_name": "a__b"})).unwrap();
        assert_eq!(call, ToolCall::new("a__b", json!({})));
        let typo: Result<ToolCall, _> =
            serde_json::from_value(json!({"tool_name": "a__b", "arguments": {}}));
        assert!(typo.is_err());
    }

    #[test]
    fn output_joins_text_parts_and_skips_json() {
        let result = ToolResult {
            content: vec![
                ToolContent::Text { text: "one".into() },
                ToolContent::Json { data: json!(1) },
                ToolContent::Text { text: "two".into() },
            ],
            is_error: false,
            markdown_formatted: None,
        };
        assert_eq!(result.output_for_llm(), "one\ntwo");
    }
}
