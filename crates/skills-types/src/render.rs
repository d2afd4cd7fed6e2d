//! Rendering the catalog an agent sees (02 §Rendering the catalog): the formats, the budget
//! and its report, and the `AGENTS.md` block.

use std::borrow::Cow;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::catalog::SkillBody;

/// How the catalog is rendered.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// The agentskills.io `<available_skills>` block, every text node escaped.
    #[default]
    Xml,
    /// `## Installed Skills` and one `- **name**: description` line per skill.
    Markdown,
    /// The skill summaries as JSON.
    Json,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 3] = [Self::Xml, Self::Markdown, Self::Json];

    /// The lowercase name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Xml => "xml",
            Self::Markdown => "markdown",
            Self::Json => "json",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a format name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown format '{0}': expected one of xml, markdown, json")]
pub struct UnknownFormat(pub String);

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|format| format.as_str() == text)
            .ok_or_else(|| UnknownFormat(text.to_owned()))
    }
}

/// How to render.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct RenderOptions {
    /// The format.
    #[serde(default)]
    pub format: Format,
    /// At most this many characters; `None` uses the configured budget, if any.
    #[serde(default)]
    pub budget_chars: Option<usize>,
    /// Names never shortened or dropped.
    #[serde(default)]
    pub pinned: Vec<String>,
    /// A task to rank the catalog for, as a user phrases it (`fill in a PDF form`): the pinned
    /// skills come first, then the skills the task matches in the search index, best first,
    /// then the rest in the catalog's order, and a budget shortens and drops the least relevant
    /// first. Without a task, or with a blank one, the order is the catalog's.
    #[serde(default)]
    pub query: Option<String>,
}

impl RenderOptions {
    /// Options for a format, no budget, nothing pinned.
    pub fn new(format: Format) -> Self {
        Self {
            format,
            ..Self::default()
        }
    }

    /// The same options with a character budget.
    #[must_use]
    pub fn budget(mut self, budget_chars: usize) -> Self {
        self.budget_chars = Some(budget_chars);
        self
    }

    /// The same options ranked for a task.
    #[must_use]
    pub fn query(mut self, task: impl Into<String>) -> Self {
        self.query = Some(task.into());
        self
    }
}

/// A rendered catalog.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Rendered {
    /// The text to put in front of the agent.
    pub text: String,
    /// What the budget did, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetReport>,
    /// Names of user skills a workspace skill of the same name shadows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shadows_user: Vec<String>,
    /// With a query: the skills it matched, best first (at most as many as one search
    /// returns), pinned ones included, whether or not a budget left them out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matched: Vec<String>,
}

/// What fitting the catalog into its budget took.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BudgetReport {
    /// The budget, in characters.
    pub budget_chars: usize,
    /// Characters the rendered text holds.
    pub used_chars: usize,
    /// Whether the text fits (it may not when the pinned skills alone exceed the budget).
    pub fits: bool,
    /// Names whose descriptions were shortened, in the order rendered (the catalog's, without
    /// a query).
    pub shortened: Vec<String>,
    /// Names left out, in the order they were dropped: the least relevant first (with a query,
    /// the skills it did not match, then those it matched from the worst up), and among equals
    /// the lowest precedence first.
    pub dropped: Vec<String>,
}

/// The command word `AGENTS.md` tells the agent to run (`skills read NAME`) when `[sync]
/// read_command` is not set.
pub const DEFAULT_READ_COMMAND: &str = "skills";

/// The default `AGENTS.md` path, relative to the workspace.
pub const AGENTS_MD: &str = "AGENTS.md";

/// How to write the `AGENTS.md` block.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SyncOptions {
    /// The file, relative to the workspace unless absolute; `AGENTS.md` when `None`.
    #[serde(default)]
    pub output: Option<PathBuf>,
    /// Only skills of the project scope.
    #[serde(default)]
    pub project_only: bool,
}

/// What `sync` did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SyncOutcome {
    /// The file written.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub path: PathBuf,
    /// Whether its bytes changed.
    pub changed: bool,
    /// How many skills the block lists.
    pub skills: usize,
    /// Names of user skills a workspace skill of the same name shadows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shadows_user: Vec<String>,
    /// Skills left out of the block because neither their name nor their folder id can be
    /// named safely in a command (both fail the name rule), by sanitised name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    /// The command word the block tells the agent to run (`<read_command> read NAME`) when
    /// `[sync] read_command` sets one; `None` is `skills`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_command: Option<String>,
}

/// What `skills read a,b` prints: each skill's body (sanitised as a block) under a header naming the skill
/// and the directory its relative paths resolve against.
///
/// The body is not wrapped in tags: it may hold any text, including a closing tag, so
/// wrapping would only suggest a boundary the body could fake.
pub fn read_text(bodies: &[SkillBody]) -> String {
    let mut out = String::new();
    for (index, body) in bodies.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        // The header fields are kept on one line: a name or directory holding a line break
        // could otherwise forge a second header with another base directory.
        out.push_str("==> Skill: ");
        out.push_str(&one_line(&body.name));
        out.push_str(" <==\nBase directory: ");
        out.push_str(&one_line(&body.dir.to_string_lossy()));
        out.push_str(
            "\nRelative paths in this skill (references/..., scripts/..., assets/...) are \
             relative to the base directory above; resolve them against it.\n",
        );
        // A flagged skill says so before its instructions, as its catalog entry does: the
        // agent that loads it by name may never have seen the catalog.
        if let Some(note) = body
            .audit
            .as_ref()
            .and_then(|mark| mark.agent_note(&one_line(&body.name)))
        {
            out.push_str("Audit: ");
            out.push_str(&one_line(&note));
            out.push('\n');
        }
        if let Some(when) = &body.when_to_use {
            out.push_str("When to use: ");
            out.push_str(&one_line(when));
            out.push('\n');
        }
        for input in &body.inputs {
            out.push_str("Input: ");
            out.push_str(&one_line(&input.name));
            if input.required {
                out.push_str(" (required)");
            }
            if !input.description.is_empty() {
                out.push_str(" - ");
                out.push_str(&one_line(&input.description));
            }
            out.push('\n');
        }
        // The body keeps its lines and words; only what could steer a terminal or hide text
        // from a person is removed (`sanitize::block`). Most open with the blank line that
        // follows their frontmatter, and only the others get one added.
        let text = crate::sanitize::block(&body.body);
        if !text.starts_with(['\n', '\r']) {
            out.push('\n');
        }
        out.push_str(&text);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

pub use crate::sanitize::is_line_break;

/// The text on one line and sanitised: [`crate::sanitize::line`].
pub fn one_line(text: &str) -> Cow<'_, str> {
    crate::sanitize::line(text)
}
