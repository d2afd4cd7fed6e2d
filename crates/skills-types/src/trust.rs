//! The per-user record of trusted workspaces (02 §Scopes and roots, **Trust**, as changed by
//! `docs/decisions.md` §Trust belongs to the user).
//!
//! Trust is the user's word about one folder, so it is kept in the user's home
//! (`<home>/<app_dir>/trusted-workspaces.json`), never in the tree it is about: a repository
//! that commits a marker must not be able to trust itself. Each record names the folder by its
//! canonical path *and* its identity (device and inode), so a renamed, moved or copied tree, or
//! a folder deleted and made again at the same path, is a different folder and is not trusted.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The record file's name inside `<home>/<app_dir>`.
pub const TRUST_FILE: &str = "trusted-workspaces.json";
/// The old in-workspace marker's name inside `<workspace>/<app_dir>`: read only to say it is
/// ignored.
pub const LEGACY_TRUST_MARKER: &str = "trust";
/// The version of the record file this build writes and reads.
pub const TRUST_FILE_VERSION: u32 = 1;

/// The record file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrustFile {
    /// The format version ([`TRUST_FILE_VERSION`]).
    pub version: u32,
    /// The trusted workspaces, in the order they were trusted.
    pub workspaces: Vec<TrustRecord>,
}

/// One trusted workspace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrustRecord {
    /// The workspace's canonical path (symlinks resolved).
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub path: PathBuf,
    /// The device of the workspace folder when it was trusted.
    pub device: u64,
    /// The inode of the workspace folder when it was trusted.
    pub inode: u64,
    /// When it was trusted, in seconds since the Unix epoch.
    pub trusted_at: u64,
}

/// Where a recorded workspace stands now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TrustState {
    /// The folder at the path is the one that was trusted: it is trusted.
    Trusted,
    /// A different folder is at the path now (the trusted one was moved away, or deleted and
    /// made again): it is not trusted.
    Replaced,
    /// Nothing is at the path now.
    Missing,
}

impl TrustState {
    /// The lowercase name used in JSON and in human output.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Trusted => "trusted",
            Self::Replaced => "replaced",
            Self::Missing => "missing",
        }
    }
}

/// One entry of `skills trust --list`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TrustedWorkspace {
    /// The recorded canonical path.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub path: PathBuf,
    /// When it was trusted, in seconds since the Unix epoch.
    pub trusted_at: u64,
    /// Whether the recorded folder is still the one at the path.
    pub state: TrustState,
}

/// What `trust` or `revoke` did to one workspace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TrustChange {
    /// The workspace, canonical when it exists (as given, made absolute, when it does not).
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub workspace: PathBuf,
    /// Whether it is trusted now.
    pub trusted: bool,
    /// Whether this call changed the record.
    pub changed: bool,
}
