//! `check` and `update` (09 §Updates): every installed skill compared with its source, as its
//! provenance record (`.skill-source.json`) names it, and re-installed through the same staged,
//! atomic writer as `install`.
//!
//! Three digests are compared per skill: the one recorded at install (per file), the one of the
//! files on disk now, and the one of what the source serves now. The source differs from the
//! record: an update is available. The disk differs from the record: the skill was changed
//! locally, and an update would destroy that work, so it is refused unless forced. This is the
//! check the peers skip: their `update` overwrites a skill someone edited in place.

use std::collections::{BTreeMap, BTreeSet};

use skills_types::files::PROVENANCE_FILE;
use skills_types::install::Hooks;
use skills_types::limits::MAX_LOCK_FILE_BYTES;
use skills_types::registry::Coordinates;
use skills_types::update::{Action, Check, Outcome, Request};
use skills_types::{Error, SkillScope, SkillsConfig};

use crate::client::Client;
use crate::fetch::{self, Download, hex_digest};
use crate::install;
use crate::policy;
use crate::source;
use crate::write::{self, Item, Provenance, Registered, Target};

/// Compares every installed skill `request.names` selects (all when empty) with its source.
pub async fn check(
    config: &SkillsConfig,
    hooks: &Hooks,
    request: &Request,
) -> Result<Vec<Check>, Error> {
    let installed = installed(config, &request.names)?;
    let client = install::client(
        install::policy_of(config)?,
        hooks,
        install::timeout(request.timeout_secs),
    )?;
    let mut sources = Sources::default();
    let mut checks = Vec::with_capacity(installed.len());
    for skill in &installed {
        let (check, _) = compare(&client, &mut sources, skill).await;
        checks.push(check);
    }
    Ok(checks)
}

/// Re-installs every selected skill whose source changed; a skill changed locally is kept
/// unless `request.force` is set. One outcome per selected skill.
pub async fn update(
    config: &SkillsConfig,
    hooks: &Hooks,
    request: &Request,
) -> Result<Vec<Outcome>, Error> {
    let installed = installed(config, &request.names)?;
    let client = install::client(
        install::policy_of(config)?,
        hooks,
        install::timeout(request.timeout_secs),
    )?;
    let mut sources = Sources::default();
    let mut outcomes = Vec::with_capacity(installed.len());
    for skill in &installed {
        let (check, download) = compare(&client, &mut sources, skill).await;
        let outcome = match download {
            None => Outcome {
                message: check.problem.clone(),
                check,
                action: Action::Failed,
                installed: None,
            },
            Some(_) if check.locally_modified && !request.force => Outcome {
                message: Some(format!(
                    "{} was changed locally since it was installed; it was not overwritten (use --force to replace the local changes)",
                    skill.dir.display()
                )),
                check,
                action: Action::KeptLocalChanges,
                installed: None,
            },
            Some(_) if !check.update_available && !check.locally_modified => Outcome {
                check,
                action: Action::Current,
                message: None,
                installed: None,
            },
            Some(download) => {
                let kind = sources
                    .fetched
                    .get(&check.source)
                    .and_then(|fetched| fetched.as_ref().ok())
                    .map_or("unknown", |fetched| fetched.kind);
                let written = reinstall(skill, download, kind).await;
                match written {
                    Ok(installed) => Outcome {
                        check,
                        action: Action::Updated,
                        message: None,
                        installed: Some(installed),
                    },
                    Err(error) => Outcome {
                        check,
                        action: Action::Failed,
                        message: Some(error.to_string()),
                        installed: None,
                    },
                }
            }
        };
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

/// An installed skill: a folder in a user or project root holding a provenance record.
struct Installed {
    slug: String,
    name: String,
    dir: std::path::PathBuf,
    scope: SkillScope,
    record: serde_json::Value,
}

impl Installed {
    fn text(&self, field: &str) -> Option<String> {
        self.record
            .get(field)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    }

    /// The per-file digests recorded at install.
    fn recorded(&self) -> BTreeMap<String, String> {
        self.record
            .get("sha256")
            .and_then(serde_json::Value::as_object)
            .map(|files| {
                files
                    .iter()
                    .filter_map(|(path, digest)| {
                        digest
                            .as_str()
                            .map(|digest| (path.clone(), digest.to_ascii_lowercase()))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The installed skills discovery sees in user and project roots (and the shadowed copies),
/// those `names` selects; a name that selects nothing is an error, so a typo is not a silent
/// "everything is current".
fn installed(config: &SkillsConfig, names: &[String]) -> Result<Vec<Installed>, Error> {
    let catalog = skills_ops::discover::discover(config)?;
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    for skill in catalog.skills.iter().chain(&catalog.shadowed) {
        if !matches!(skill.scope, SkillScope::User | SkillScope::Project)
            || !seen.insert(skill.dir.clone())
        {
            continue;
        }
        let Some(slug) = skill.dir.file_name().and_then(|name| name.to_str()) else {
            continue;
        };
        // A record that cannot be read is not an install this command can vouch for.
        let Ok(Some(bytes)) =
            skills_ops::fs::read_state_file(&skill.dir.join(PROVENANCE_FILE), MAX_LOCK_FILE_BYTES)
        else {
            continue;
        };
        let Ok(record) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            continue;
        };
        if record
            .get("source_url")
            .and_then(serde_json::Value::as_str)
            .is_none()
        {
            continue;
        }
        found.push(Installed {
            slug: slug.to_owned(),
            name: skill.name.clone(),
            dir: skill.dir.clone(),
            scope: skill.scope,
            record,
        });
    }
    found.sort_by(|a, b| (a.slug.as_str(), &a.dir).cmp(&(b.slug.as_str(), &b.dir)));
    if names.is_empty() {
        return Ok(found);
    }
    for name in names {
        if !found
            .iter()
            .any(|skill| skill.slug == *name || skill.name == *name)
        {
            return Err(Error::SkillNotFound {
                name: name.clone(),
                suggestion: None,
            });
        }
    }
    found.retain(|skill| {
        names
            .iter()
            .any(|name| skill.slug == *name || skill.name == *name)
    });
    Ok(found)
}

/// Downloads made so far, by source URL: a pack holding several installed skills is fetched
/// once.
#[derive(Default)]
struct Sources {
    fetched: BTreeMap<String, Result<Fetched, String>>,
}

/// What a source offered, and the kind it was classified as.
#[derive(Clone)]
struct Fetched {
    downloads: Vec<Download>,
    kind: &'static str,
}

/// Compares one skill with its source; the download it would install, when the comparison
/// could be made.
async fn compare(
    client: &Client,
    sources: &mut Sources,
    skill: &Installed,
) -> (Check, Option<Download>) {
    let recorded = skill.recorded();
    let on_disk = write::installed_files(&skill.dir).map(|files| {
        files
            .iter()
            .filter(|(path, _)| path.as_str() != PROVENANCE_FILE)
            .map(|(path, bytes)| (path.clone(), hex_digest(bytes)))
            .collect::<BTreeMap<_, _>>()
    });
    let mut check = Check {
        slug: skill.slug.clone(),
        name: skill.name.clone(),
        path: skill.dir.clone(),
        scope: skill.scope,
        source: skill.text("source_url").unwrap_or_default(),
        kind: skill.text("kind").unwrap_or_default(),
        installed_version: skill.text("version"),
        available_version: None,
        update_available: false,
        // Unreadable (a link or special file planted inside) counts as changed: it is not what
        // was installed, and overwriting it is what --force is for.
        locally_modified: on_disk.as_ref() != Some(&recorded),
        problem: None,
    };
    let downloads = match sources.fetched.get(&check.source) {
        Some(result) => result.clone(),
        None => {
            let result = download(client, &check.source).await;
            sources.fetched.insert(check.source.clone(), result.clone());
            result
        }
    };
    let downloads = match downloads {
        Ok(fetched) => fetched.downloads,
        Err(problem) => {
            check.problem = Some(problem);
            return (check, None);
        }
    };
    let registry_slug = registered(skill).map(|registered| registered.coordinates.slug);
    let matching = downloads.into_iter().find(|download| {
        registry_slug.as_ref().map_or_else(
            || write::slug(download).is_ok_and(|slug| slug == skill.slug),
            |_| true,
        )
    });
    let Some(download) = matching else {
        check.problem = Some(format!(
            "{} no longer offers a skill named '{}'",
            check.source, skill.slug
        ));
        return (check, None);
    };
    let available: BTreeMap<String, String> = download
        .files
        .iter()
        .map(|(path, bytes)| (path.clone(), hex_digest(bytes)))
        .collect();
    check.available_version = download.version.clone();
    check.update_available = available != recorded;
    (check, Some(download))
}

/// Everything the source at `url` offers, fetched like `install` fetches it.
async fn download(client: &Client, url: &str) -> Result<Fetched, String> {
    let policy = &client.settings().policy;
    let parsed =
        policy::parse(url, policy).map_err(|refusal| format!("refused {url}: {refusal}"))?;
    let source = source::classify(&parsed)?;
    let deadline = client.settings().total;
    let limits = skills_types::limits::PackageLimits::default();
    let downloaded = tokio::time::timeout(deadline, fetch::download(client, &source, &limits))
        .await
        .map_err(|_| {
            format!(
                "downloading {url} took longer than {} seconds",
                deadline.as_secs()
            )
        })?;
    downloaded
        .map(|(downloads, _)| Fetched {
            downloads,
            kind: source.kind(),
        })
        .map_err(|problem| install::error_of(&source, problem, policy).to_string())
}

/// The registry entry a skill was installed from, rebuilt from its record.
fn registered(skill: &Installed) -> Option<Registered> {
    let registry = skill.record.get("registry")?;
    let text = |field: &str| {
        registry
            .get(field)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    Some(Registered {
        coordinates: Coordinates::parse(&text("coordinates")?).ok()?,
        id: text("id")?,
        version: text("version"),
        catalog: text("catalog").unwrap_or_default(),
    })
}

/// Writes `download` over the installed copy, recording the same source as before.
async fn reinstall(
    skill: &Installed,
    download: Download,
    classified: &'static str,
) -> Result<skills_types::install::InstallOutcome, Error> {
    let root = skill
        .dir
        .parent()
        .ok_or_else(|| Error::NotADirectory {
            path: skill.dir.clone(),
        })?
        .to_path_buf();
    let target = Target {
        root,
        scope: skill.scope,
    };
    let recorded_kind = skill.text("kind").unwrap_or_default();
    let provenance = Provenance {
        source_url: skill.text("source_url").unwrap_or_default(),
        kind: static_kind(&recorded_kind).unwrap_or(classified),
        registry: registered(skill),
    };
    let items = vec![Item {
        slug: skill.slug.clone(),
        download,
    }];
    // File locks wait and writes flush: off the async threads.
    let mut outcomes =
        tokio::task::spawn_blocking(move || write::write_all(&target, &items, true, &provenance))
            .await
            .map_err(|error| {
                Error::InvalidInput(format!("the update was interrupted: {error}"))
            })??;
    outcomes
        .pop()
        .ok_or_else(|| Error::InvalidInput(format!("nothing was written for {}", skill.slug)))
}

/// The recorded kind as the writer spells it, so the provenance keeps the kind it had (a
/// registry install stays one); `None` for a kind this build does not know.
fn static_kind(kind: &str) -> Option<&'static str> {
    const KINDS: [&str; 4] = ["skill-md", "pack", "well-known", "registry"];
    KINDS.into_iter().find(|known| *known == kind)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn recorded_kinds_keep_their_spelling() {
        for kind in ["skill-md", "pack", "well-known", "registry"] {
            assert_eq!(static_kind(kind), Some(kind));
        }
        assert_eq!(static_kind("made-up"), None);
    }

    #[test]
    fn a_record_without_digests_compares_as_empty() {
        let skill = Installed {
            slug: "x".to_owned(),
            name: "x".to_owned(),
            dir: Path::new("/nowhere/x").to_path_buf(),
            scope: SkillScope::User,
            record: serde_json::json!({"source_url": "https://example.com/SKILL.md", "sha256": {"SKILL.md": "ABC"}}),
        };
        assert_eq!(
            skill.recorded(),
            BTreeMap::from([("SKILL.md".to_owned(), "abc".to_owned())])
        );
    }
}
