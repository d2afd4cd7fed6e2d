//! Remote packs (09 §Remote packs in configuration): the `urls` of `skills.toml`, fetched into
//! a cache under the home and listed in the `remote` scope. The cache's layout, its refresh
//! interval, and what a refresh reports.
//!
//! Each URL has a folder of its own, `<home>/<app_dir>/remote/<key>/`, where `key` is the
//! first 16 hex digits of the SHA-256 of the URL as configured: `skills/` is the skill root
//! discovery scans and `state.json` records the last fetch. A refresh builds a new folder
//! beside the old and swaps it in with one rename, so a listing always sees one whole copy;
//! a failed fetch only rewrites `state.json`, so the last good copy stays listed.

use serde::{Deserialize, Serialize};

/// The folder of the remote caches inside `<home>/<app_dir>`.
pub const REMOTE_DIR: &str = "remote";
/// The skill root inside one URL's folder.
pub const REMOTE_SKILLS_DIR: &str = "skills";
/// The record of the last fetch inside one URL's folder.
pub const REMOTE_STATE_FILE: &str = "state.json";
/// How old a copy may be before a long-running process refetches it (and a listing calls it
/// stale): a day. Packs change rarely, and a listing never waits on one.
pub const REMOTE_TTL_SECS: u64 = 24 * 60 * 60;
/// How many hex digits of the URL's SHA-256 name its folder.
pub const REMOTE_KEY_HEX: usize = 16;

/// `state.json`: the last fetch of one remote pack.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct State {
    /// The URL as configured.
    pub url: String,
    /// When the last fetch was tried, in seconds since the Unix epoch.
    pub checked_at: u64,
    /// When the copy listed was fetched, in seconds since the Unix epoch (absent until one
    /// fetch succeeded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetched_at: Option<u64>,
    /// Why the last fetch failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The folder names of the skills in the copy listed.
    #[serde(default)]
    pub skills: Vec<String>,
}

/// What to refresh.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Refresh {
    /// Only packs whose copy is older than [`REMOTE_TTL_SECS`] (or missing, or failed).
    #[serde(default)]
    pub stale_only: bool,
    /// The deadline of each pack's download, in seconds (1 to 600; default 60).
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// What the user agreed to of the audit's findings: a pack whose skills have a finding
    /// that refuses (`[audit] refuse_on`) is stored only with `force`, one that asks
    /// (`ask_on`) with `yes` or `force`; otherwise its refresh fails and the last good copy
    /// stays.
    #[serde(default)]
    pub audit: crate::audit::AuditConsent,
}

impl Refresh {
    /// Every configured pack, now.
    pub fn all() -> Self {
        Self::default()
    }

    /// Only the packs a long-running process should refetch.
    pub fn stale() -> Self {
        Self {
            stale_only: true,
            ..Self::default()
        }
    }
}

/// What a refresh did with one pack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Refreshed {
    /// The URL as configured.
    pub url: String,
    /// Whether it was fetched now (`false`: fresh enough, skipped).
    pub fetched: bool,
    /// The skills its listed copy holds now.
    pub skills: Vec<String>,
    /// Why the fetch failed (the last good copy stays listed).
    pub error: Option<String>,
}
