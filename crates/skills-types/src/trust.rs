//! The per-user record of trusted workspaces (02 §Scopes and roots, **Trust**, as changed by
//! `docs/decisions.md` §Trust belongs to the user).
//!
//! Trust is the user's word about one folder, so it is kept in the user's home
//! (`<home>/<app_dir>/trusted-workspaces.json`), never in the tree it is about: a repository
//! that commits a marker must not be able to trust itself. Each record names the folder by its
//! canonical path *and* its identity: device, inode and birth time. A renamed, moved or copied
//! tree has another path or inode; a folder deleted and made again at the same path (a new
//! `git clone`) often gets the same inode back on ext4, but never the same birth time, so it is
//! a different folder and is not trusted (`docs/decisions.md` §Trust is bound to the folder's
//! birth).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The record file's name inside `<home>/<app_dir>`.
pub const TRUST_FILE: &str = "trusted-workspaces.json";
/// The old in-workspace marker's name inside `<workspace>/<app_dir>`: read only to say it is
/// ignored.
pub const LEGACY_TRUST_MARKER: &str = "trust";
/// The version of the record file this build writes.
pub const TRUST_FILE_VERSION: u32 = 2;
/// The oldest version this build reads. Version 1 records have no birth time: they are read
/// (so `skills trust --list` and `--revoke` still see them) but trust nothing, because they
/// cannot tell the trusted folder from one made again at its path with the same inode.
pub const TRUST_FILE_OLDEST_VERSION: u32 = 1;

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
    /// When the workspace folder was made, as its file system reports it (`statx`
    /// `STATX_BTIME`). Absent in version 1 records, which therefore trust nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub birth: Option<Birth>,
    /// When it was trusted, in seconds since the Unix epoch.
    pub trusted_at: u64,
}

/// A folder's birth time, to the nanosecond, as its file system reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Birth {
    /// Whole seconds since the Unix epoch (negative before it).
    pub seconds: i64,
    /// Nanoseconds past `seconds`, below 1,000,000,000.
    pub nanoseconds: u32,
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
    /// The record was made by an older version, without the folder's birth time, so a folder
    /// made again at the path could pass for the trusted one: it is not trusted until the
    /// user trusts it again.
    Outdated,
    /// The folder's file system reports no birth time, so it cannot be told from a folder
    /// made again at the path: it is not trusted.
    Unverifiable,
}

impl TrustState {
    /// The lowercase name used in JSON and in human output.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Trusted => "trusted",
            Self::Replaced => "replaced",
            Self::Missing => "missing",
            Self::Outdated => "outdated",
            Self::Unverifiable => "unverifiable",
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
