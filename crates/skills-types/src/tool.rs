//! `ToolResult` and `ToolContent`: how an operation's result is handed to an agent core that
//! exposes skills as tools.
//!
//! The JSON shape is part of the wire contract (04 §ToolResult): content parts are tagged by
//! `"type"`, and the optional Markdown rendering travels as `markdownFormatted`.

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
