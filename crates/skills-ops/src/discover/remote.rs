//! The remote packs' cached copies as discovery sees them (09 §Remote packs in configuration):
//! one skill root per configured URL, in the `remote` scope, and a diagnostic when a copy is
//! missing, stale or kept after a failed fetch.
//!
//! Nothing here touches the network: a listing reads the copy a refresh left (`skills update
//! --remote`, or a long-running `serve` in the background) and one small `state.json` per URL.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};
use skills_types::catalog::Root;
use skills_types::remote::{
    REMOTE_DIR, REMOTE_KEY_HEX, REMOTE_SKILLS_DIR, REMOTE_STATE_FILE, REMOTE_TTL_SECS, State,
};
use skills_types::{Diagnostic, DiagnosticCode, SkillScope, SkillsConfig};

use crate::state::{self, Folder, REMOTE_COPY, REMOTE_STATE};

/// The app folder the remote copies are kept in, absolute (a copy is a root discovery lists).
pub fn app_dir(config: &SkillsConfig) -> PathBuf {
    let home = std::path::absolute(&config.home).unwrap_or_else(|_| config.home.clone());
    home.join(&config.app_dir)
}

/// The name of `url`'s folder in `<app>/remote/`: the start of the URL's SHA-256.
pub fn key(url: &str) -> String {
    let digest = format!("{:x}", Sha256::digest(url.trim().as_bytes()));
    digest[..REMOTE_KEY_HEX].to_owned()
}

/// The folder of `url`'s cached copy: `<home>/<app_dir>/remote/<key>`.
pub fn cache_dir(config: &SkillsConfig, url: &str) -> PathBuf {
    app_dir(config).join(REMOTE_DIR).join(key(url))
}

/// The URLs the configuration files give (the home `skills.toml`, and the workspace's when it
/// is trusted) besides the caller's own, each once: what a refresh fetches.
pub fn configured_urls(config: &SkillsConfig) -> Vec<String> {
    let trusted = crate::trust::is_trusted(config);
    let layered = super::settings::effective(config, trusted);
    let mut all = layered.config.clone();
    all.urls.extend(layered.project.urls);
    urls(&all)
}

/// The configured URLs, each once, in the order configured.
pub fn urls(config: &SkillsConfig) -> Vec<String> {
    unique(&config.urls)
}

/// `listed`, trimmed, each once, in order, without empty ones.
fn unique(listed: &[String]) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    listed
        .iter()
        .map(|url| url.trim().to_owned())
        .filter(|url| !url.is_empty() && seen.insert(url.clone()))
        .collect()
}

/// The last fetch recorded for `url`, if a readable record is there (read through
/// [`state`]: a record that is a link, a FIFO or too large is no record, and a trap is named
/// in a warning).
pub fn read_state(config: &SkillsConfig, url: &str) -> Option<State> {
    let folder = match Folder::open(&app_dir(config), &[REMOTE_DIR, &key(url)]) {
        Ok(folder) => folder?,
        Err(refusal) => {
            state::warn(&REMOTE_STATE, &cache_dir(config, url), &refusal);
            return None;
        }
    };
    let bytes = folder.read_or_miss(&REMOTE_STATE, REMOTE_STATE_FILE)?;
    serde_json::from_slice(&bytes).ok()
}

/// Seconds since the Unix epoch.
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// Whether `state` calls for a fetch: none yet, the last one failed, or older than the TTL.
pub fn is_stale(state: Option<&State>, now: u64) -> bool {
    match state {
        Some(state) if state.error.is_none() => state
            .fetched_at
            .is_none_or(|fetched| now.saturating_sub(fetched) >= REMOTE_TTL_SECS),
        _ => true,
    }
}

/// One root per URL of `listed`, in the order configured, in `scope`: `remote` for the packs
/// the caller and the home name, `project` for a trusted workspace's (a repository chose them).
/// A copy whose folders are not the program's own (a link at `remote/`, at the URL's folder or
/// at `skills/`) is not listed: it would list skills from wherever the link points.
pub(crate) fn roots(config: &SkillsConfig, listed: &[String], scope: SkillScope) -> Vec<Root> {
    let app = app_dir(config);
    unique(listed)
        .iter()
        .filter(|url| {
            let key = key(url);
            match Folder::open(&app, &[REMOTE_DIR, &key, REMOTE_SKILLS_DIR]) {
                Ok(_) => true,
                Err(refusal) => {
                    state::warn(&REMOTE_COPY, &cache_dir(config, url), &refusal);
                    false
                }
            }
        })
        .map(|url| Root {
            scope,
            path: cache_dir(config, url).join(REMOTE_SKILLS_DIR),
            interop: false,
        })
        .collect()
}

/// What a listing says about the copy of each pack of `listed`.
pub(crate) fn diagnostics(config: &SkillsConfig, listed: &[String]) -> Vec<Diagnostic> {
    let now = now_secs();
    let mut found = Vec::new();
    for url in unique(listed) {
        let dir = cache_dir(config, &url);
        let shown = shown(&url);
        let state = read_state(config, &url);
        let diagnostic = match &state {
            None => Diagnostic::warning(
                DiagnosticCode::RemoteNotFetched,
                format!(
                    "the remote pack {shown} has not been fetched yet, so its skills are not listed; run `skills update --remote`"
                ),
            ),
            Some(state) if state.error.is_some() => Diagnostic::warning(
                DiagnosticCode::RemoteFailed,
                format!(
                    "the last fetch of the remote pack {shown} failed ({}); {}",
                    state.error.as_deref().unwrap_or_default(),
                    match state.fetched_at {
                        Some(fetched) => format!(
                            "the copy fetched {} ago is listed",
                            age(now.saturating_sub(fetched))
                        ),
                        None => "no copy of it has ever been fetched".to_owned(),
                    }
                ),
            ),
            Some(state) if is_stale(Some(state), now) => Diagnostic::warning(
                DiagnosticCode::RemoteStale,
                format!(
                    "the copy of the remote pack {shown} is {} old; it is listed as it is (run `skills update --remote` to refresh it)",
                    age(now.saturating_sub(state.fetched_at.unwrap_or_default()))
                ),
            ),
            Some(_) => continue,
        };
        found.push(diagnostic.with_path(&dir));
    }
    found
}

/// A URL for a message: no query or fragment, no user info (a token configured in a URL must
/// not end up in a listing's output).
fn shown(url: &str) -> String {
    let cut = url.split(['?', '#']).next().unwrap_or_default();
    match cut.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let host = authority.rsplit('@').next().unwrap_or_default();
            format!("{scheme}://{host}{path}")
        }
        None => cut.to_owned(),
    }
}

/// `3 days`, `5 hours`, `12 minutes`.
fn age(seconds: u64) -> String {
    let (count, unit) = match seconds {
        s if s >= 2 * 86_400 => (s / 86_400, "days"),
        s if s >= 2 * 3_600 => (s / 3_600, "hours"),
        s => (s / 60, "minutes"),
    };
    format!("{count} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_url_has_a_folder_of_its_own_under_the_home() {
        let config = SkillsConfig::new("/ws", "/home/me");
        let a = cache_dir(&config, "https://a.example.com/");
        let b = cache_dir(&config, "https://b.example.com/");
        assert_ne!(a, b);
        assert!(
            a.starts_with("/home/me/.openhuman/remote"),
            "{}",
            a.display()
        );
        assert_eq!(
            a.file_name().unwrap().to_str().unwrap().len(),
            REMOTE_KEY_HEX
        );
        assert_eq!(cache_dir(&config, " https://a.example.com/ "), a);
    }

    #[test]
    fn urls_in_messages_lose_secrets() {
        assert_eq!(
            shown("https://user:token@skills.example.com/pack/?key=secret#x"),
            "https://skills.example.com/pack/"
        );
        assert_eq!(shown("owner/repo"), "owner/repo");
    }

    #[test]
    fn staleness() {
        let fresh = State {
            fetched_at: Some(1_000),
            ..State::default()
        };
        assert!(!is_stale(Some(&fresh), 1_000 + REMOTE_TTL_SECS - 1));
        assert!(is_stale(Some(&fresh), 1_000 + REMOTE_TTL_SECS));
        assert!(is_stale(None, 0));
        let failed = State {
            error: Some("404".to_owned()),
            ..fresh
        };
        assert!(is_stale(Some(&failed), 1_000));
    }
}
