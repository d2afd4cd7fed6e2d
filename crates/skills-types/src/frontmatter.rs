//! `Frontmatter`: the YAML header of a `SKILL.md`, as the loader normalises it (01 §Frontmatter
//! fields).
//!
//! The JSON form of this type is the wire form: field names as written in `SKILL.md`
//! (`allowed-tools`), unknown keys flattened back beside the known ones.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The frontmatter of one skill.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Frontmatter {
    /// The skill's name (defaults to its directory name).
    #[serde(default)]
    pub name: String,
    /// What the skill does and when to use it; this is what an agent reads in the catalog.
    // Shared with the catalog's record of the skill (`Skill::description`): held once.
    #[serde(default)]
    pub description: crate::Text,
    /// The license, by SPDX id or a file name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// Environment requirements in prose (products, system packages, network).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compatibility: Option<String>,
    /// Free-form string properties. Scalars keep their source text (`1.0` stays `"1.0"`);
    /// nested values are kept as compact JSON text.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
    /// Tools the skill may use without asking (`allowed-tools`, also read as `allowed_tools`).
    #[serde(
        default,
        rename = "allowed-tools",
        alias = "allowed_tools",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub allowed_tools: Vec<String>,
    /// Platforms the skill supports; empty means all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub platforms: Vec<String>,
    /// Event patterns that activate the skill.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub triggers: Vec<String>,
    /// Every other key, preserved for round-trips.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// Top-level fields that older skills wrote beside `name` and that now belong in `metadata`.
pub const LEGACY_TOP_LEVEL_FIELDS: [&str; 3] = ["version", "author", "tags"];

/// Claude Code's field that keeps a skill from the model: only a person starts it, by name.
pub const DISABLE_MODEL_INVOCATION: &str = "disable-model-invocation";

/// The words Claude Code reads as a true boolean in frontmatter (case-insensitively), besides
/// YAML's own `true`; any other value leaves the field off.
const TRUE_WORDS: [&str; 4] = ["true", "yes", "on", "1"];

impl Frontmatter {
    /// Whether the frontmatter says `disable-model-invocation: true` (or `yes`, `on`, `1`, as
    /// Claude Code reads it): the skill is started by name only, never offered to a model.
    pub fn disables_model_invocation(&self) -> bool {
        match self.extra.get(DISABLE_MODEL_INVOCATION) {
            Some(serde_json::Value::Bool(flag)) => *flag,
            Some(serde_json::Value::String(text)) => is_true_word(text),
            Some(serde_json::Value::Number(number)) => is_true_word(&number.to_string()),
            _ => false,
        }
    }

    /// The skill's version: `metadata.version`, else a legacy top-level `version`.
    pub fn version(&self) -> Option<String> {
        self.legacy_text("version")
    }

    /// The skill's author: `metadata.author`, else a legacy top-level `author`.
    pub fn author(&self) -> Option<String> {
        self.legacy_text("author")
    }

    /// The skill's tags: `metadata.tags` (a JSON list, or comma-separated text), else a legacy
    /// top-level `tags` list or string. Blank tags are dropped.
    pub fn tags(&self) -> Vec<String> {
        if let Some(text) = self.metadata.get("tags") {
            return match serde_json::from_str::<serde_json::Value>(text) {
                Ok(list @ serde_json::Value::Array(_)) => json_strings(&list),
                _ => split_tags(text),
            };
        }
        match self.extra.get("tags") {
            Some(serde_json::Value::String(text)) => split_tags(text),
            Some(list) => json_strings(list),
            None => Vec::new(),
        }
    }

    fn legacy_text(&self, key: &str) -> Option<String> {
        if let Some(value) = self.metadata.get(key) {
            return Some(value.clone());
        }
        match self.extra.get(key)? {
            serde_json::Value::String(text) => Some(text.clone()),
            serde_json::Value::Null => None,
            other => Some(other.to_string()),
        }
    }
}

/// Whether `text` is one of `TRUE_WORDS`, ignoring case and surrounding blanks.
pub fn is_true_word(text: &str) -> bool {
    let text = text.trim();
    TRUE_WORDS
        .iter()
        .any(|word| word.eq_ignore_ascii_case(text))
}

/// Whether `text` is a boolean as Claude Code reads one in frontmatter: a true word, or
/// `false`, `no`, `off`, `0` (any case).
pub fn is_boolean_word(text: &str) -> bool {
    let text = text.trim();
    is_true_word(text)
        || ["false", "no", "off", "0"]
            .iter()
            .any(|word| word.eq_ignore_ascii_case(text))
}

fn split_tags(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|tag| !tag.is_empty())
        .map(str::to_owned)
        .collect()
}

fn json_strings(value: &serde_json::Value) -> Vec<String> {
    let serde_json::Value::Array(items) = value else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| match item {
            serde_json::Value::String(text) => Some(text.trim().to_owned()),
            serde_json::Value::Number(number) => Some(number.to_string()),
            serde_json::Value::Bool(flag) => Some(flag.to_string()),
            _ => None,
        })
        .filter(|tag| !tag.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wire_form_uses_skill_md_names_and_flattens_extra() {
        let mut frontmatter = Frontmatter {
            name: "pdf".into(),
            description: "Reads PDFs.".into(),
            allowed_tools: vec!["Read".into()],
            ..Frontmatter::default()
        };
        frontmatter.extra.insert("x-team".into(), json!("docs"));
        let value = serde_json::to_value(&frontmatter).unwrap();
        assert_eq!(
            value,
            json!({"name": "pdf", "description": "Reads PDFs.", "allowed-tools": ["Read"], "x-team": "docs"})
        );
        assert_eq!(
            serde_json::from_value::<Frontmatter>(value).unwrap(),
            frontmatter
        );
    }

    #[test]
    fn underscore_spelling_of_allowed_tools_is_read() {
        let parsed: Frontmatter =
            serde_json::from_value(json!({"name": "a", "allowed_tools": ["Bash"]})).unwrap();
        assert_eq!(parsed.allowed_tools, ["Bash"]);
        assert!(parsed.extra.is_empty());
    }

    #[test]
    fn accessors_prefer_metadata_then_legacy_fields() {
        let mut frontmatter = Frontmatter::default();
        frontmatter.extra.insert("version".into(), json!(2));
        frontmatter.extra.insert("author".into(), json!("Old"));
        frontmatter
            .extra
            .insert("tags".into(), json!(["a", " b ", ""]));
        assert_eq!(frontmatter.version().as_deref(), Some("2"));
        assert_eq!(frontmatter.author().as_deref(), Some("Old"));
        assert_eq!(frontmatter.tags(), ["a", "b"]);

        frontmatter.metadata.insert("version".into(), "1.0".into());
        frontmatter.metadata.insert("author".into(), "New".into());
        frontmatter.metadata.insert("tags".into(), "x, y".into());
        assert_eq!(frontmatter.version().as_deref(), Some("1.0"));
        assert_eq!(frontmatter.author().as_deref(), Some("New"));
        assert_eq!(frontmatter.tags(), ["x", "y"]);

        frontmatter
            .metadata
            .insert("tags".into(), r#"["p","q"]"#.into());
        assert_eq!(frontmatter.tags(), ["p", "q"]);
    }

    #[test]
    fn missing_accessors_are_empty() {
        let frontmatter = Frontmatter::default();
        assert_eq!(frontmatter.version(), None);
        assert_eq!(frontmatter.author(), None);
        assert!(frontmatter.tags().is_empty());
    }

    #[test]
    fn disable_model_invocation_reads_as_claude_code_reads_booleans() {
        let with = |value: serde_json::Value| {
            let mut frontmatter = Frontmatter::default();
            frontmatter
                .extra
                .insert(DISABLE_MODEL_INVOCATION.into(), value);
            frontmatter.disables_model_invocation()
        };
        for on in [
            json!(true),
            json!("yes"),
            json!("On"),
            json!(" TRUE "),
            json!(1),
        ] {
            assert!(with(on.clone()), "{on}");
        }
        for off in [
            json!(false),
            json!("no"),
            json!("0"),
            json!("maybe"),
            json!(["true"]),
        ] {
            assert!(!with(off.clone()), "{off}");
        }
        assert!(!Frontmatter::default().disables_model_invocation());
        assert!(is_boolean_word("Off") && is_boolean_word("1") && !is_boolean_word("2"));
    }
}
