//! `SkillDocument`: one definition file as the lenient loader reads it.

use serde::{Deserialize, Serialize};

use crate::{Diagnostic, Frontmatter};

/// A parsed definition file: normalised frontmatter, the body verbatim, and what the loader
/// noticed on the way.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkillDocument {
    /// The frontmatter, with defaults filled in and legacy fields migrated.
    pub frontmatter: Frontmatter,
    /// Every byte after the closing `---` line (or the whole file when there is no frontmatter).
    pub body: String,
    /// Warnings and notes; a document that could not be loaded at all is an error instead.
    pub diagnostics: Vec<Diagnostic>,
}
