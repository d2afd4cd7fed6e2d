//! The host profiles of the validator: the fields and name rules Claude Code, Codex and
//! OpenCode each document for a skill, and the checks of each host's own fields.
//!
//! Each table is taken from the host's documentation (docs/decisions.md, "Host profiles of
//! `validate`", names the pages), not from what its loader happens to tolerate: a profile
//! answers "does this skill follow what the host says", while `lenient` answers "does our
//! own loader load it". Where a host documents a field as text and coerces other values (Claude
//! Code turns `argument-hint: [issue]`, a YAML list, into text), the coercion is a warning;
//! a value the host cannot use at all is an error.

use std::path::Path;

use skills_types::frontmatter::{DISABLE_MODEL_INVOCATION, is_boolean_word};
use skills_types::limits::{MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS};
use skills_types::{Diagnostic, DiagnosticCode};

use super::Rules;
use crate::discover::AgentPolicy;
use crate::yaml::{Node, ScalarKind};

/// The fields Claude Code documents for a skill beyond the specification's six (which it
/// reads too), in the order of its frontmatter reference.
pub(super) const CLAUDE_CODE_FIELDS: [&str; 13] = [
    "when_to_use",
    "argument-hint",
    "arguments",
    DISABLE_MODEL_INVOCATION,
    "user-invocable",
    "disallowed-tools",
    "model",
    "effort",
    "context",
    "agent",
    "hooks",
    "paths",
    "shell",
];

/// The specification's fields OpenCode documents: all but `allowed-tools`.
pub(super) const OPENCODE_FIELDS: [&str; 5] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
];

/// The effort levels Claude Code documents for `effort`.
const EFFORT_LEVELS: [&str; 5] = ["low", "medium", "high", "xhigh", "max"];
/// The shells Claude Code documents for `shell`.
const SHELLS: [&str; 2] = ["bash", "powershell"];
/// The one value Claude Code documents for `context`.
const FORK: &str = "fork";
/// Claude Code cuts `description` plus `when_to_use` to this many characters in its listing.
const CLAUDE_CODE_LISTING_CHARS: usize = 1536;
/// The `metadata` key Codex shows as a skill's short description.
const CODEX_SHORT_DESCRIPTION: &str = "short-description";

/// Whether `key` is a field Claude Code documents and the specification does not.
pub(super) fn is_claude_code_field(key: &str) -> bool {
    CLAUDE_CODE_FIELDS.contains(&key)
}

/// A scalar that YAML typed as text (Codex and OpenCode read `name: 3000` as a number, which
/// their string fields refuse).
fn is_string(node: &Node) -> bool {
    matches!(
        node,
        Node::Scalar(scalar) if scalar.kind == ScalarKind::String
    )
}

/// Text or a list of texts: the shape of Claude Code's list fields (`arguments`, `paths`,
/// `disallowed-tools`), each a space- or comma-separated string or a YAML list.
fn is_text_or_list(node: &Node) -> bool {
    match node {
        Node::Scalar(_) => !node.is_null(),
        Node::Sequence(items) => items.iter().all(|item| item.as_text().is_some()),
        Node::Mapping(_) => false,
    }
}

/// Whitespace runs folded to one space, as Codex folds `name` and `description` to one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Rules<'_> {
    /// Claude Code's `name`: optional (the directory name is used), and when given "lowercase
    /// letters, numbers, and hyphens only (max 64 characters)".
    pub(super) fn claude_code_name(&mut self, node: Option<&Node>) -> Option<String> {
        let node = node?;
        let Some(text) = node.as_text().filter(|_| !node.is_null()) else {
            if node.is_null() {
                self.error(
                    DiagnosticCode::NameEmpty,
                    "name",
                    "the field 'name' is empty; leave it out to use the directory name",
                );
            } else {
                self.error(
                    DiagnosticCode::InvalidFieldType,
                    "name",
                    format!("'name' must be a string, not a {}", node.type_name()),
                );
            }
            return None;
        };
        let name = text.trim();
        if name.is_empty() {
            self.error(
                DiagnosticCode::NameEmpty,
                "name",
                "the field 'name' is empty; leave it out to use the directory name",
            );
            return Some(text.to_owned());
        }
        let length = name.chars().count();
        if length > MAX_NAME_CHARS {
            self.error(
                DiagnosticCode::NameTooLong,
                "name",
                format!("the name is {length} characters long; Claude Code allows at most {MAX_NAME_CHARS}"),
            );
        }
        if name.chars().any(char::is_uppercase) {
            self.error(
                DiagnosticCode::NameNotLowercase,
                "name",
                format!(
                    "the name '{}' must be lowercase for Claude Code",
                    name.escape_debug()
                ),
            );
        }
        let mut others: Vec<char> = name
            .chars()
            // An ASCII capital is `name-not-lowercase` alone: lowercasing fixes it.
            .filter(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
            .filter(|c| !c.is_ascii_uppercase())
            .collect();
        if !others.is_empty() {
            others.dedup();
            let shown: Vec<String> = others.iter().take(8).map(|c| format!("{c:?}")).collect();
            self.error(
                DiagnosticCode::NameInvalidCharacters,
                "name",
                format!(
                    "the name '{}' contains {}; Claude Code allows only lowercase letters (a-z), digits and '-'",
                    name.escape_debug(),
                    shown.join(", ")
                ),
            );
        }
        Some(text.to_owned())
    }

    /// Claude Code's `description`: recommended, not required (the body's first paragraph is
    /// used), and cut with `when_to_use` to [`CLAUDE_CODE_LISTING_CHARS`] in its listing.
    pub(super) fn claude_code_description(
        &mut self,
        description: Option<&Node>,
        when_to_use: Option<&Node>,
    ) {
        let text = match description {
            None => {
                self.warning(
                    DiagnosticCode::DescriptionMissing,
                    "description",
                    "there is no 'description'; Claude Code uses the body's first paragraph, and decides when to use the skill from it",
                );
                return;
            }
            Some(node) if node.is_null() => {
                self.warning(
                    DiagnosticCode::DescriptionEmpty,
                    "description",
                    "the field 'description' is empty; Claude Code uses the body's first paragraph",
                );
                return;
            }
            Some(node) => match node.as_text() {
                Some(text) => text,
                None => {
                    self.error(
                        DiagnosticCode::InvalidFieldType,
                        "description",
                        format!("'description' must be a string, not a {}", node.type_name()),
                    );
                    return;
                }
            },
        };
        if text.trim().is_empty() {
            self.warning(
                DiagnosticCode::DescriptionEmpty,
                "description",
                "the field 'description' is empty; Claude Code uses the body's first paragraph",
            );
            return;
        }
        let extra = when_to_use
            .and_then(Node::as_text)
            .map_or(0, |text| text.trim().chars().count());
        let length = text.trim().chars().count() + extra;
        if length > CLAUDE_CODE_LISTING_CHARS {
            self.warning(
                DiagnosticCode::DescriptionTooLong,
                "description",
                format!(
                    "'description' and 'when_to_use' are {length} characters together; Claude Code cuts them to {CLAUDE_CODE_LISTING_CHARS} in its listing, so put what matters first"
                ),
            );
        }
    }

    /// The fields Claude Code adds, each of the type its reference gives.
    pub(super) fn claude_code_fields<'n>(&mut self, field: &dyn Fn(&str) -> Option<&'n Node>) {
        for key in [DISABLE_MODEL_INVOCATION, "user-invocable"] {
            if let Some(node) = field(key) {
                let boolean = match node {
                    Node::Scalar(scalar) => {
                        matches!(scalar.kind, ScalarKind::Bool(_)) || is_boolean_word(&scalar.text)
                    }
                    _ => false,
                };
                if !boolean {
                    self.error(
                        DiagnosticCode::InvalidFieldType,
                        key,
                        format!("'{key}' must be true or false, not {}", shown(node)),
                    );
                }
            }
        }
        for key in ["when_to_use", "model", "agent"] {
            if let Some(node) = field(key)
                && (node.as_text().is_none() || node.is_null())
            {
                self.error(
                    DiagnosticCode::InvalidFieldType,
                    key,
                    format!("'{key}' must be a string, not a {}", node.type_name()),
                );
            }
        }
        if let Some(node) = field("argument-hint") {
            match node {
                Node::Scalar(_) => {}
                Node::Sequence(_) => self.warning(
                    DiagnosticCode::InvalidFieldType,
                    "argument-hint",
                    "'argument-hint' is a YAML list (brackets start one); Claude Code turns it into text, so quote it: argument-hint: \"[issue-number]\"",
                ),
                Node::Mapping(_) => self.error(
                    DiagnosticCode::InvalidFieldType,
                    "argument-hint",
                    "'argument-hint' must be a string, not a mapping",
                ),
            }
        }
        for key in ["arguments", "disallowed-tools", "paths"] {
            if let Some(node) = field(key)
                && !is_text_or_list(node)
            {
                self.error(
                    DiagnosticCode::InvalidFieldType,
                    key,
                    format!("'{key}' must be a string or a list of strings"),
                );
            }
        }
        if let Some(node) = field("hooks")
            && !matches!(node, Node::Mapping(_))
        {
            self.error(
                DiagnosticCode::InvalidFieldType,
                "hooks",
                format!(
                    "'hooks' must be a mapping of hook events, not a {}",
                    node.type_name()
                ),
            );
        }
        self.one_of("effort", field("effort"), &EFFORT_LEVELS);
        self.one_of("shell", field("shell"), &SHELLS);
        self.one_of("context", field("context"), &[FORK]);
        let forked = field("context").and_then(Node::as_text) == Some(FORK);
        if field("agent").is_some() && !forked {
            self.warning(
                DiagnosticCode::InvalidFieldValue,
                "agent",
                "'agent' only applies with 'context: fork'; Claude Code ignores it here",
            );
        }
    }

    /// A field whose documented values are `values`: another string is a warning (the host may
    /// ignore it), anything but a string an error.
    fn one_of(&mut self, key: &str, node: Option<&Node>, values: &[&str]) {
        let Some(node) = node else { return };
        match node.as_text().filter(|_| !node.is_null()) {
            Some(text) if values.contains(&text.trim()) => {}
            Some(text) => self.warning(
                DiagnosticCode::InvalidFieldValue,
                key,
                format!(
                    "'{key}' is '{}'; Claude Code documents {}",
                    text.escape_debug(),
                    values.join(", ")
                ),
            ),
            None => self.error(
                DiagnosticCode::InvalidFieldType,
                key,
                format!("'{key}' must be one of {}", values.join(", ")),
            ),
        }
    }

    /// Codex's `name` or `description`: required, a YAML string, not empty and at most `limit`
    /// characters once folded to one line.
    pub(super) fn codex_text(
        &mut self,
        key: &'static str,
        node: Option<&Node>,
        limit: usize,
    ) -> Option<String> {
        let (missing, empty, too_long) = if key == "name" {
            (
                DiagnosticCode::NameMissing,
                DiagnosticCode::NameEmpty,
                DiagnosticCode::NameTooLong,
            )
        } else {
            (
                DiagnosticCode::DescriptionMissing,
                DiagnosticCode::DescriptionEmpty,
                DiagnosticCode::DescriptionTooLong,
            )
        };
        let Some(node) = node else {
            self.error(missing, key, format!("Codex requires the field '{key}'"));
            return None;
        };
        if node.is_null() {
            self.error(empty, key, format!("the field '{key}' is empty"));
            return None;
        }
        let Some(text) = node.as_text().filter(|_| is_string(node)) else {
            self.error(
                DiagnosticCode::InvalidFieldType,
                key,
                format!(
                    "Codex reads '{key}' as a string, and this is a {}: quote it",
                    node.type_name()
                ),
            );
            return node.as_text().map(str::to_owned);
        };
        let folded = one_line(text);
        let length = folded.chars().count();
        if folded.is_empty() {
            self.error(empty, key, format!("the field '{key}' is empty"));
        } else if length > limit {
            self.error(
                too_long,
                key,
                format!("the {key} is {length} characters long; Codex allows at most {limit}"),
            );
        }
        Some(text.to_owned())
    }

    /// Codex's `metadata`: a mapping (Codex refuses a skill whose `metadata` is not), whose
    /// `short-description` is a string of at most the description's length.
    pub(super) fn codex_metadata(&mut self, node: &Node) {
        let Node::Mapping(entries) = node else {
            if !node.is_null() {
                self.error(
                    DiagnosticCode::MetadataNotMap,
                    "metadata",
                    format!("'metadata' must be a mapping, not a {}", node.type_name()),
                );
            }
            return;
        };
        let Some((_, short)) = entries
            .iter()
            .find(|(key, _)| key == CODEX_SHORT_DESCRIPTION)
        else {
            return;
        };
        match short.as_text().filter(|_| is_string(short)) {
            None if short.is_null() => {}
            None => self.error(
                DiagnosticCode::InvalidFieldType,
                "metadata",
                format!(
                    "'metadata.{CODEX_SHORT_DESCRIPTION}' must be a string, not a {}",
                    short.type_name()
                ),
            ),
            Some(text) => {
                let length = one_line(text).chars().count();
                if length > MAX_DESCRIPTION_CHARS {
                    self.error(
                        DiagnosticCode::DescriptionTooLong,
                        "metadata",
                        format!(
                            "'metadata.{CODEX_SHORT_DESCRIPTION}' is {length} characters long; Codex allows at most {MAX_DESCRIPTION_CHARS}"
                        ),
                    );
                }
            }
        }
    }

    /// OpenCode's `name`: required, `^[a-z0-9]+(-[a-z0-9]+)*$`, 1 to 64 characters, equal to
    /// the directory's name.
    pub(super) fn opencode_name(&mut self, node: Option<&Node>, directory: &str) -> Option<String> {
        let Some(node) = node else {
            self.error(
                DiagnosticCode::NameMissing,
                "name",
                "OpenCode requires the field 'name'",
            );
            return None;
        };
        let Some(text) = node.as_text().filter(|_| !node.is_null()) else {
            let (code, message) = if node.is_null() {
                (
                    DiagnosticCode::NameEmpty,
                    "the field 'name' is empty".to_owned(),
                )
            } else {
                (
                    DiagnosticCode::InvalidFieldType,
                    format!("'name' must be a string, not a {}", node.type_name()),
                )
            };
            self.error(code, "name", message);
            return None;
        };
        let name = text.trim();
        let length = name.chars().count();
        let mut problems = Vec::new();
        if name.is_empty() {
            problems.push((DiagnosticCode::NameEmpty, "the name is empty".to_owned()));
        }
        if length > MAX_NAME_CHARS {
            problems.push((
                DiagnosticCode::NameTooLong,
                format!(
                    "the name is {length} characters long; OpenCode allows at most {MAX_NAME_CHARS}"
                ),
            ));
        }
        if name.chars().any(char::is_uppercase) {
            problems.push((
                DiagnosticCode::NameNotLowercase,
                format!(
                    "the name '{}' must be lowercase for OpenCode",
                    name.escape_debug()
                ),
            ));
        }
        if name
            .chars()
            .any(|c| !(c.is_ascii_alphanumeric() || c == '-'))
        {
            problems.push((
                DiagnosticCode::NameInvalidCharacters,
                format!(
                    "the name '{}' may hold only a-z, 0-9 and '-' for OpenCode",
                    name.escape_debug()
                ),
            ));
        }
        if name.starts_with('-') || name.ends_with('-') {
            problems.push((
                DiagnosticCode::NameLeadingTrailingHyphen,
                format!(
                    "the name '{}' must not start or end with '-'",
                    name.escape_debug()
                ),
            ));
        }
        if name.contains("--") {
            problems.push((
                DiagnosticCode::NameConsecutiveHyphens,
                format!("the name '{}' must not contain '--'", name.escape_debug()),
            ));
        }
        let empty = name.is_empty();
        for (code, message) in problems {
            self.error(code, "name", message);
        }
        if !empty && name != directory {
            self.error(
                DiagnosticCode::NameDirectoryMismatch,
                "name",
                format!(
                    "the name '{}' differs from its directory '{directory}'; OpenCode requires them to match",
                    name.escape_debug()
                ),
            );
        }
        Some(text.to_owned())
    }

    /// OpenCode's `metadata`: a map of strings to strings.
    pub(super) fn opencode_metadata(&mut self, node: &Node) {
        match node {
            Node::Mapping(entries) => {
                let nested: Vec<&str> = entries
                    .iter()
                    .filter(|(_, value)| value.as_text().is_none())
                    .map(|(key, _)| key.as_str())
                    .collect();
                if !nested.is_empty() {
                    self.error(
                        DiagnosticCode::InvalidFieldType,
                        "metadata",
                        format!(
                            "OpenCode's 'metadata' maps strings to strings; {} hold collections",
                            nested.join(", ")
                        ),
                    );
                }
            }
            _ if node.is_null() => {}
            _ => self.error(
                DiagnosticCode::MetadataNotMap,
                "metadata",
                format!("'metadata' must be a mapping, not a {}", node.type_name()),
            ),
        }
    }
}

/// A value as a message shows it: a scalar's text, else its type.
fn shown(node: &Node) -> String {
    match node.as_text() {
        Some(text) if !node.is_null() => format!("'{}'", text.escape_debug()),
        _ => format!("a {}", node.type_name()),
    }
}

/// What is wrong with a skill's `agents/openai.yaml` as Codex reads it: Codex ignores a file
/// it cannot parse (and with it the skill's policy), so a problem is a warning.
pub(super) fn openai_metadata(dir: &Path) -> Vec<Diagnostic> {
    match crate::discover::agent_policy(dir) {
        AgentPolicy::Ignored { path, reason } => vec![
            Diagnostic::warning(
                DiagnosticCode::InvalidSidecar,
                format!("{reason}; Codex ignores the file"),
            )
            .with_path(&path),
        ],
        AgentPolicy::Absent | AgentPolicy::Read(_) => Vec::new(),
    }
}
