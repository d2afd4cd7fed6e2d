//! Refreshing remote packs (09 §Remote packs in configuration): each URL of `urls` fetched
//! like an install source, and its skills written as one whole copy into the cache discovery
//! lists in the `remote` scope.
//!
//! A copy is replaced only by a complete new one: the skills are written into a staging folder
//! beside it and the folders are exchanged in one rename. A fetch that fails leaves the copy
//! as it was and records the failure in its `state.json`, which every listing then reports
//! (`remote-failed`) while it goes on listing the last good copy.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use skills_ops::discover::remote::{self as cache, now_secs};
use skills_types::files::STAGING_PREFIX;
use skills_types::install::Hooks;
use skills_types::limits::PackageLimits;
use skills_types::remote::{
    REMOTE_DIR, REMOTE_SKILLS_DIR, REMOTE_STATE_FILE, Refresh, Refreshed, State,
};
use skills_types::{Error, SkillsConfig};

use crate::client::Client;
use crate::fetch::{self, Download};
use crate::install;
use crate::write;

/// Fetches every configured pack (only the stale ones with `request.stale_only`) into the
/// cache; one line per pack. A pack that fails is reported in its line, never as the call's
/// error: the others are still refreshed.
pub async fn refresh(
    config: &SkillsConfig,
    hooks: &Hooks,
    request: &Refresh,
) -> Result<Vec<Refreshed>, Error> {
    let urls = cache::configured_urls(config);
    let client = install::client(
        install::policy_of(config)?,
        hooks,
        install::timeout(request.timeout_secs),
    )?;
    let now = now_secs();
    let mut refreshed = Vec::with_capacity(urls.len());
    for url in urls {
        let dir = cache::cache_dir(config, &url);
        let state = cache::read_state(&dir);
        if request.stale_only && !cache::is_stale(state.as_ref(), now) {
            refreshed.push(Refreshed {
                skills: state.map(|state| state.skills).unwrap_or_default(),
                url,
                fetched: false,
                error: None,
            });
            continue;
        }
        let fetched = download(config, &client, &url).await;
        let line = tokio::task::spawn_blocking(move || store(&dir, &url, state, fetched, now))
            .await
            .map_err(|error| {
                Error::InvalidInput(format!("the refresh was interrupted: {error}"))
            })??;
        refreshed.push(line);
    }
    Ok(refreshed)
}

/// The skills `url` offers, by folder name, fetched as `install` would fetch them.
async fn download(
    config: &SkillsConfig,
    client: &Client,
    url: &str,
) -> Result<Vec<(String, Download)>, String> {
    let policy = &client.settings().policy;
    let source = install::resolve(config, url, policy).map_err(|error| error.to_string())?;
    let deadline = client.settings().total;
    let limits = PackageLimits::default();
    let downloaded = tokio::time::timeout(
        deadline,
        fetch::download(client, &source, &limits, fetch::Want::default()),
    )
    .await
    .map_err(|_| {
        format!(
            "the download took longer than {} seconds",
            deadline.as_secs()
        )
    })?;
    let fetched =
        downloaded.map_err(|problem| install::error_of(&source, problem, policy).to_string())?;
    let mut seen = BTreeSet::new();
    let mut skills = Vec::with_capacity(fetched.offers.len());
    for offer in fetched.offers {
        let slug = write::slug(&offer.download)?;
        if !seen.insert(slug.clone()) {
            return Err(format!("two skills of the pack would both be '{slug}'"));
        }
        skills.push((slug, offer.download));
    }
    if skills.is_empty() {
        return Err("the pack offers no skills".to_owned());
    }
    Ok(skills)
}

/// Puts a fetch's result in the cache: a new copy swapped in whole, or the failure recorded
/// beside the old copy. Under the cache's lock, so two refreshes never interleave.
fn store(
    dir: &Path,
    url: &str,
    previous: Option<State>,
    fetched: Result<Vec<(String, Download)>, String>,
    now: u64,
) -> Result<Refreshed, Error> {
    let base = dir
        .parent()
        .map_or_else(|| PathBuf::from(REMOTE_DIR), Path::to_path_buf);
    std::fs::create_dir_all(&base).map_err(|error| Error::io("create", &base, error))?;
    let _lock =
        skills_ops::fs::lock_root(&base).map_err(|error| Error::io("lock", &base, error))?;
    remove_stale_staging(&base);
    let skills = match fetched {
        Ok(skills) => skills,
        Err(error) => {
            let state = State {
                url: url.to_owned(),
                checked_at: now,
                fetched_at: previous.as_ref().and_then(|state| state.fetched_at),
                error: Some(error.clone()),
                skills: previous.map(|state| state.skills).unwrap_or_default(),
            };
            std::fs::create_dir_all(dir).map_err(|error| Error::io("create", dir, error))?;
            let path = dir.join(REMOTE_STATE_FILE);
            skills_ops::fs::write_atomic(&path, &json(&state)?)
                .map_err(|error| Error::io("write", &path, error))?;
            return Ok(Refreshed {
                url: url.to_owned(),
                fetched: true,
                skills: state.skills,
                error: Some(error),
            });
        }
    };
    let state = State {
        url: url.to_owned(),
        checked_at: now,
        fetched_at: Some(now),
        error: None,
        skills: skills.iter().map(|(slug, _)| slug.clone()).collect(),
    };
    let name = dir
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let staging = base.join(format!(
        "{STAGING_PREFIX}{name}-{}",
        skills_ops::fs::unique_suffix()
    ));
    let result = stage(&staging, &skills, &state).and_then(|()| {
        if std::fs::symlink_metadata(dir).is_ok() {
            skills_ops::fs::exchange(&staging, dir)?;
            std::fs::remove_dir_all(&staging)
        } else {
            skills_ops::fs::rename_noreplace(&staging, dir)
        }
    });
    if let Err(error) = result {
        drop(std::fs::remove_dir_all(&staging));
        return Err(Error::io("store the remote pack in", dir, error));
    }
    Ok(Refreshed {
        url: url.to_owned(),
        fetched: true,
        skills: state.skills,
        error: None,
    })
}

/// Removes staging folders a crashed refresh left. Called under the lock, so none of them is
/// in use.
fn remove_stale_staging(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let stale = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.starts_with(STAGING_PREFIX));
        if stale && entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            drop(std::fs::remove_dir_all(entry.path()));
        }
    }
}

fn stage(staging: &Path, skills: &[(String, Download)], state: &State) -> std::io::Result<()> {
    let root = staging.join(REMOTE_SKILLS_DIR);
    std::fs::create_dir_all(&root)?;
    for (slug, download) in skills {
        let folder = root.join(slug);
        std::fs::create_dir(&folder)?;
        for (relative, bytes) in &download.files {
            // Paths were checked by the download (the relative-path rule of 03); checked again
            // here because this writer trusts nothing it did not check itself.
            skills_ops::path::check_relative(relative).map_err(std::io::Error::other)?;
            let path = folder.join(relative);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            skills_ops::fs::write_new(&path, bytes)?;
        }
    }
    let bytes = json(state).map_err(std::io::Error::other)?;
    skills_ops::fs::write_new(&staging.join(REMOTE_STATE_FILE), &bytes)?;
    skills_ops::fs::sync_directory(staging)
}

fn json(state: &State) -> Result<Vec<u8>, Error> {
    let mut bytes = serde_json::to_vec_pretty(state)
        .map_err(|error| Error::InvalidInput(format!("the state cannot be written: {error}")))?;
    bytes.push(b'\n');
    Ok(bytes)
}
