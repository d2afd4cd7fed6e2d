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
use skills_types::install::SourceKind;
use skills_types::update::{Action, Check, Outcome, Request};
use skills_types::{Error, SkillScope, SkillsConfig};

use skills_net::client::Client;
use skills_net::digest::hex_digest;

use crate::download::Download;
use crate::fetch;
use crate::install;
use crate::source::Source;
use crate::write::{self, Registered, Target};

/// The installed skills `request` selects and the client their sources are asked through.
fn prepare(
    config: &SkillsConfig,
    hooks: &Hooks,
    request: &Request,
) -> Result<(Vec<Installed>, Client), Error> {
    let installed = installed(config, &request.names)?;
    let client = install::install_client(config, hooks, install::timeout(request.timeout_secs))?;
    Ok((installed, client))
}

/// Compares every installed skill `request.names` selects (all when empty) with its source.
pub async fn check(
    config: &SkillsConfig,
    hooks: &Hooks,
    request: &Request,
) -> Result<Vec<Check>, Error> {
    let (installed, client) = prepare(config, hooks, request)?;
    let mut sources = Sources::default();
    let mut checks = Vec::with_capacity(installed.len());
    for skill in &installed {
        let (check, _) = compare(config, &client, &mut sources, skill).await;
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
    let (installed, client) = prepare(config, hooks, request)?;
    let mut sources = Sources::default();
    let mut outcomes = Vec::with_capacity(installed.len());
    for skill in &installed {
        let (check, download) = compare(config, &client, &mut sources, skill).await;
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
                drop(download);
                let written = reinstall(config, &client, skill, request.audit).await;
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
            skills_ops::state::read_in(&skill.dir, &skills_ops::state::PROVENANCE, PROVENANCE_FILE)
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

/// Downloads made so far, by recorded source: a pack holding several installed skills is
/// fetched once.
#[derive(Default)]
struct Sources {
    fetched: BTreeMap<String, Result<Offered, String>>,
}

/// Compares one skill with its source; the download it would install, when the comparison
/// could be made.
async fn compare(
    config: &SkillsConfig,
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
    let key = format!("{}\0{}", check.source, pinned(skill).unwrap_or_default());
    let downloads = match sources.fetched.get(&key) {
        Some(result) => result.clone(),
        None => {
            let result = download(config, client, skill).await;
            sources.fetched.insert(key, result.clone());
            result
        }
    };
    let offered = match downloads {
        Ok(offered) => offered,
        Err(problem) => {
            check.problem = Some(problem);
            return (check, None);
        }
    };
    let registry_slug = registered(skill).map(|registered| registered.coordinates.slug);
    let matching = offered.downloads.into_iter().find(|download| {
        registry_slug.is_some() || write::slug(download).is_ok_and(|slug| slug == skill.slug)
    });
    let Some(download) = matching else {
        // The source still holds it, but it cannot be installed now: that reason, not "gone".
        let refused = offered.refused.iter().find(|(download, _)| {
            write::slug(download).is_ok_and(|slug| slug == skill.slug)
                || download.name.as_deref() == Some(skill.slug.as_str())
        });
        check.problem = Some(match refused {
            Some((_, reason)) => format!(
                "{} still offers '{}', but it cannot be installed: {reason}",
                check.source, skill.slug
            ),
            None => format!(
                "{} no longer offers a skill named '{}'",
                check.source, skill.slug
            ),
        });
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

/// The snapshot an install from an agent-skills index chose (`install --version`): an update
/// stays on it, since a published version never changes.
fn pinned(skill: &Installed) -> Option<String> {
    snapshot_of(&skill.record)
}

/// The snapshot version a provenance record or lock entry of an agent-skills index install
/// names (its `ref`, written only when `--version` chose one).
pub(crate) fn snapshot_of(record: &serde_json::Value) -> Option<String> {
    let text = |field: &str| record.get(field).and_then(serde_json::Value::as_str);
    (text("kind") == Some(SourceKind::WellKnown.as_str()))
        .then(|| text("ref").map(str::to_owned))
        .flatten()
}

/// Everything the recorded source offers, resolved and fetched exactly as `install` does.
async fn download(
    config: &SkillsConfig,
    client: &Client,
    skill: &Installed,
) -> Result<Offered, String> {
    let source = source_of(config, client, skill).map_err(|error| error.to_string())?;
    let deadline = client.settings().total;
    let limits = skills_types::limits::PackageLimits::default();
    let version = pinned(skill);
    let want = fetch::Want {
        skills: &[],
        version: version.as_deref(),
    };
    let downloaded =
        tokio::time::timeout(deadline, fetch::download(client, &source, &limits, want))
            .await
            .map_err(|_| {
                format!(
                    "downloading {} took longer than {} seconds",
                    source.shown(),
                    deadline.as_secs()
                )
            })?;
    downloaded
        .map(|fetched| Offered {
            downloads: fetched
                .offers
                .into_iter()
                .map(|offer| offer.download)
                .collect(),
            refused: fetched
                .refused
                .into_iter()
                .map(|refused| (refused.download, refused.reason))
                .collect(),
        })
        .map_err(|problem| install::error_of(client, &source, problem).to_string())
}

/// What a source offers now: the skills it can give, and those it holds but cannot give
/// (a file over a limit, a link), each with why.
#[derive(Clone, Debug)]
struct Offered {
    downloads: Vec<Download>,
    refused: Vec<(Download, String)>,
}

/// The recorded source, resolved as `install` resolves what it is given. A registry entry
/// never resolves to a site (`registry/resolve.rs`): a folder URL it recorded is a download
/// base's folder, looked at alone, never at its origin's root.
fn source_of(config: &SkillsConfig, client: &Client, skill: &Installed) -> Result<Source, Error> {
    let source = install::resolve(
        config,
        &skill.text("source_url").unwrap_or_default(),
        &client.settings().policy,
    )?;
    Ok(match source {
        Source::Site(url) if registered(skill).is_some() => Source::Folder(url),
        other => other,
    })
}

/// The registry entry a skill was installed from, rebuilt from its record.
fn registered(skill: &Installed) -> Option<Registered> {
    Registered::from_record(&skill.record)
}

/// Installs the skill again from its source, through `install`'s own path (download, checks,
/// staged write, provenance and lock), replacing the copy there.
async fn reinstall(
    config: &SkillsConfig,
    client: &Client,
    skill: &Installed,
    audit: skills_types::audit::AuditConsent,
) -> Result<skills_types::install::InstallOutcome, Error> {
    let root = skill
        .dir
        .parent()
        .ok_or_else(|| Error::NotADirectory {
            path: skill.dir.clone(),
        })?
        .to_path_buf();
    // The links an earlier `--agent` made point at the folder, which stays where it is.
    let target = Target {
        root,
        scope: skill.scope,
        agent_folders: Vec::new(),
    };
    let source = source_of(config, client, skill)?;
    let registry = registered(skill);
    let naming = install::Naming {
        kind: if registry.is_some() {
            SourceKind::Registry
        } else {
            source.kind()
        },
        slug: registry
            .as_ref()
            .map(|registered| registered.coordinates.slug.clone()),
        registry,
    };
    let wanted = [skill.slug.clone()];
    let version = pinned(skill);
    let selection = install::Selection {
        skills: if naming.registry.is_some() {
            &[]
        } else {
            &wanted
        },
        list: false,
        version: version.as_deref(),
        plugins: &[],
    };
    let outcomes = install::install_selected(
        config,
        client,
        &source,
        &target,
        install::Force {
            replace: true,
            audit,
        },
        &naming,
        selection,
    )
    .await?;
    outcomes
        .into_iter()
        .find(|outcome| outcome.slug == skill.slug)
        .ok_or_else(|| Error::Internal {
            action: format!("updating {}", skill.slug),
            reason: "the install reported nothing written".to_owned(),
        })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn a_chosen_snapshot_is_read_from_the_ref_the_record_holds() {
        let record = serde_json::json!({"kind": "well-known", "ref": "1.0.0"});
        assert_eq!(snapshot_of(&record).as_deref(), Some("1.0.0"));
        let github = serde_json::json!({"kind": "github", "ref": "main"});
        assert_eq!(snapshot_of(&github), None);
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
