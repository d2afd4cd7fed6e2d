//! One skill's files in memory, and the digest every source and the writer spell the same
//! way: the pieces both the extractor (`archive`) and the fetching (`fetch`) need, kept below
//! both so that neither imports the other's module for them.

use sha2::{Digest, Sha256};
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

/// Lowercase hex SHA-256.
pub fn hex_digest(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}
