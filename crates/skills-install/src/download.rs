//! One skill's files in memory: what the skill finder (`finder`) yields and the fetching
//! (`fetch`) and the writer (`write`) pass on, kept below all three so that none imports
//! another's module for it.

use url::Url;

/// One skill's files, in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Download {
    /// The name the source gave it (a pack or index entry, or its folder), if any.
    pub name: Option<String>,
    /// `(relative path, bytes)`, the definition file named `SKILL.md`.
    pub files: Vec<(String, Vec<u8>)>,
    /// The version the source declared.
    pub version: Option<String>,
    /// Where the definition file came from.
    pub url: Url,
}
