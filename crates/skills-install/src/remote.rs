//! Refreshing remote packs (09 §Remote packs in configuration): each URL of `urls` fetched
//! like an install source, and its skills written as one whole copy into the cache discovery
//! lists in the `remote` scope.
//!
//! A copy is replaced only by a complete new one: the skills are written into a staging folder
//! beside it and the folders are exchanged in one rename. A fetch that fails leaves the copy
//! as it was and records the failure in its `state.json`, which every listing then reports
//! (`remote-failed`) while it goes on listing the last good copy.

use std::collections::BTreeSet;
use std::path::Path;

use skills_net::client::Client;
use skills_ops::discover::remote::{self as cache, now_secs};
use skills_ops::state::{EntryKind, Folder, REMOTE_LOCK, REMOTE_STATE, Wait};
use skills_types::audit::{AuditConsent, Gate, Report};
use skills_types::files::{INSTALL_LOCK, STAGING_PREFIX};
use skills_types::install::Hooks;
use skills_types::limits::PackageLimits;
use skills_types::remote::{
    REMOTE_DIR, REMOTE_SKILLS_DIR, REMOTE_STATE_FILE, Refresh, Refreshed, State,
};
use skills_types::{Error, SkillsConfig};

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
    let client = install::install_client(config, hooks, install::timeout(request.timeout_secs))?;
    // The user's thresholds, rules and acceptances: unreadable settings fail the refresh
    // closed rather than store a pack unreviewed.
    let reviewer = skills_audit::Reviewer::new(config)?;
    let now = now_secs();
    let mut refreshed = Vec::with_capacity(urls.len());
    let app = cache::app_dir(config);
    for url in urls {
        let key = cache::key(&url);
        let state = cache::read_state(config, &url);
        if request.stale_only && !cache::is_stale(state.as_ref(), now) {
            refreshed.push(Refreshed {
                skills: state.map(|state| state.skills).unwrap_or_default(),
                url,
                fetched: false,
                error: None,
            });
            continue;
        }
        let folder = app.join(REMOTE_DIR).join(&key).join(REMOTE_SKILLS_DIR);
        let mut reports = Vec::new();
        let fetched = download(config, &client, &url).await.and_then(|skills| {
            reports = review(&reviewer, &folder, &skills, request.audit)?;
            Ok(skills)
        });
        let app = app.clone();
        let line =
            tokio::task::spawn_blocking(move || store(&app, &key, &url, state, fetched, now))
                .await
                .map_err(|error| Error::Interrupted {
                    action: "the refresh".to_owned(),
                    reason: error.to_string(),
                })??;
        // The verdicts, for `list` and `show` to mark: the bytes scanned are the bytes stored.
        // A store that cannot be written only leaves the marks out; the pack is stored.
        if line.error.is_none() {
            drop(skills_audit::record(config, &reports));
        }
        refreshed.push(line);
    }
    Ok(refreshed)
}

/// The audit's gate over a pack's skills as fetched, before anything is stored (each scanned
/// as the folder it would be stored in, so the home's acceptances of that folder apply): a
/// finding at or above `refuse_on` fails the refresh unless `consent` is `force`, one at or
/// above `ask_on` unless it is `yes` or `force`. A failed refresh keeps the last good copy,
/// so a pack turned hostile upstream never replaces what the user had.
fn review(
    reviewer: &skills_audit::Reviewer,
    folder: &Path,
    skills: &[(String, Download)],
    consent: AuditConsent,
) -> Result<Vec<Report>, String> {
    let mut refused = Vec::new();
    let mut asked = Vec::new();
    let mut reports = Vec::with_capacity(skills.len());
    for (slug, download) in skills {
        let report = reviewer.files(&folder.join(slug), &download.files);
        match reviewer.gate(&report) {
            Gate::Refuse(findings) => refused.push(said(slug, &findings)),
            Gate::Ask(findings) => asked.push(said(slug, &findings)),
            Gate::Pass => {}
        }
        reports.push(report);
    }
    if !refused.is_empty() && consent != AuditConsent::Force {
        return Err(format!(
            "the audit refused the pack: {}; nothing was stored (`skills update --remote \
             --force` stores it anyway, the findings recorded)",
            refused.join("; ")
        ));
    }
    if !asked.is_empty() && consent == AuditConsent::None {
        return Err(format!(
            "the audit asks before storing the pack: {}; nothing was stored (`skills update \
             --remote --yes` agrees)",
            asked.join("; ")
        ));
    }
    Ok(reports)
}

/// One skill's findings on one line, for a pack's failure: the skill, then each finding.
fn said(slug: &str, findings: &[skills_types::audit::Finding]) -> String {
    format!("{slug}: {}", skills_audit::lines(findings).join(", "))
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
        downloaded.map_err(|problem| install::error_of(client, &source, problem).to_string())?;
    let mut seen = BTreeSet::new();
    let mut skills = Vec::with_capacity(fetched.offers.len());
    for offer in fetched.offers {
        let slug = write::slug(&offer.download).map_err(|problem| problem.to_string())?;
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

/// Puts a fetch's result in the cache (`<app>/remote/<key>`): a new copy swapped in whole,
/// or the failure recorded beside the old copy. Under the cache's lock, so two refreshes
/// never interleave. Every folder and file goes through [`state`]: a link at `remote/` or at
/// the copy's folder is neither followed nor replaced, but refused, naming it.
fn store(
    app: &Path,
    key: &str,
    url: &str,
    previous: Option<State>,
    fetched: Result<Vec<(String, Download)>, String>,
    now: u64,
) -> Result<Refreshed, Error> {
    let base_path = app.join(REMOTE_DIR);
    let dir_path = base_path.join(key);
    let refused = |path: &Path, error: std::io::Error| {
        if error.kind() == std::io::ErrorKind::InvalidInput {
            Error::StateFileInvalid {
                path: path.to_path_buf(),
                reason: error.to_string(),
            }
        } else {
            Error::io("store the remote pack in", path, error)
        }
    };
    let base = Folder::create(app, &[REMOTE_DIR])
        .map_err(|refusal| refused(&base_path, refusal.into()))?;
    let _lock = base
        .lock(&REMOTE_LOCK, INSTALL_LOCK, Wait::Forever)
        .map_err(|error| refused(&base_path.join(INSTALL_LOCK), error))?;
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
            let dir = base
                .create_child(key)
                .map_err(|refusal| refused(&dir_path, refusal.into()))?;
            dir.replace(&REMOTE_STATE, REMOTE_STATE_FILE, &json(&state)?)
                .map_err(|error| refused(&dir_path.join(REMOTE_STATE_FILE), error))?;
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
    // The copy there now must be a folder of ours (or nothing): a link is refused, not
    // swapped out and removed.
    let existing = base
        .child(key)
        .map_err(|refusal| refused(&dir_path, refusal.into()))?;
    let staging = format!("{STAGING_PREFIX}{key}-{}", skills_ops::fs::unique_suffix());
    let result = base
        .create_child(&staging)
        .map_err(std::io::Error::from)
        .and_then(|folder| stage(&folder, &skills, &state))
        .and_then(|()| {
            if existing.is_some() {
                base.exchange(&staging, key)?;
                base.remove_tree(&staging)
            } else {
                base.rename_noreplace(&staging, key)
            }
        })
        .and_then(|()| base.sync());
    if let Err(error) = result {
        drop(base.remove_tree(&staging));
        return Err(Error::io("store the remote pack in", &dir_path, error));
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
fn remove_stale_staging(base: &Folder) {
    let Ok(entries) = base.entries() else {
        return;
    };
    for entry in entries {
        if entry.name.starts_with(STAGING_PREFIX) && entry.kind == EntryKind::Folder {
            drop(base.remove_tree(&entry.name));
        }
    }
}

/// Writes the copy into the fresh folder `staging`: every file created new below
/// `skills/<slug>/`, no folder followed, then the fetch record.
fn stage(staging: &Folder, skills: &[(String, Download)], state: &State) -> std::io::Result<()> {
    let root = staging.create_child(REMOTE_SKILLS_DIR)?;
    for (slug, download) in skills {
        for (relative, bytes) in &download.files {
            // Paths were checked by the download (the relative-path rule of 03); checked again
            // here because this writer trusts nothing it did not check itself.
            let components =
                skills_types::path::check_relative(relative).map_err(std::io::Error::other)?;
            let mut path: Vec<&str> = vec![slug.as_str()];
            path.extend(components.iter().copied());
            root.write_new_below(&path, bytes, 0o644)?;
        }
    }
    let bytes = json(state).map_err(std::io::Error::other)?;
    let mut file = staging.create_new(&REMOTE_STATE, REMOTE_STATE_FILE)?;
    std::io::Write::write_all(&mut file, &bytes)?;
    file.sync_all()?;
    staging.sync()
}

fn json(state: &State) -> Result<Vec<u8>, Error> {
    let mut bytes = serde_json::to_vec_pretty(state).map_err(|error| Error::Internal {
        action: "encoding the remote pack's state".to_owned(),
        reason: error.to_string(),
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}
