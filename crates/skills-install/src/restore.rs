//! `skills install` without a source: every skill the install records of a scope list
//! (`.skills-installed.json` in each of its roots; in a project, the vercel tool's
//! `skills-lock.json` too), installed from its recorded source at its recorded version and
//! checked against its recorded digest before anything is written. The peers' users ask for
//! this most: a fresh clone gets the skills the team recorded (`npm ci` for skills).
//!
//! Per recorded skill: installed and matching its digest is current (nothing fetched); missing
//! is fetched, and installed only when what the source serves has the recorded digest; an
//! installed copy changed since is kept unless forced. A GitHub source is fetched at the
//! recorded commit, an agent-skills index at the recorded snapshot, so "the same version"
//! means the same bytes. A `frozen` restore fetches every source first, compares everything,
//! and writes nothing at all unless nothing differs: for CI.
//!
//! The record a restore reads is the record it leaves: each restored skill's entry is put
//! back as it was written (the install itself records, say, the commit's tarball URL where
//! the record had the branch's), so a committed record shows no change after a restore.
//!
//! The vercel tool's lock is read, never written. Its entries map as `docs/decisions.md`
//! ("Restoring from the record") says: `sourceType` `github` is the shorthand
//! `source[/skillPath's folder][@ref]` through the configured GitHub, `well-known` is its
//! `sourceUrl`, `local` is its path (relative to the workspace); other kinds cannot be
//! installed here and are reported as such. Its `computedHash` is not compared: it is a digest
//! over the files in ICU collation order, which this program does not reproduce.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use skills_net::client::Client;
use skills_ops::lock;
use skills_types::audit::AuditConsent;
use skills_types::install::SourceKind;
use skills_types::install::{AgentTarget, Hooks};
use skills_types::limits::PackageLimits;
use skills_types::restore::{Action, Difference, Outcome, RecordKind, Report, Request};
use skills_types::{Error, SkillScope, SkillsConfig};

use crate::fetch::{self, Fetched};
use crate::github::Repository;
use crate::install::{self, Naming, Selection};
use crate::source::Source;
use crate::write::{self, Registered, Target};

/// Restores every skill the records of `request.scope` list; one outcome per recorded skill.
/// A record that cannot be read, an untrusted workspace (for the project scope) or a frozen
/// request that also forces are errors before anything is fetched.
pub async fn restore(
    config: &SkillsConfig,
    hooks: &Hooks,
    request: &Request,
) -> Result<Report, Error> {
    if request.frozen && request.force {
        return Err(Error::InvalidInput(
            "a frozen restore changes nothing that differs from the record, so it cannot also replace local changes (--force)".to_owned(),
        ));
    }
    let (records, entries) = recorded(config, request)?;
    let client = install::install_client(config, hooks, install::timeout(request.timeout_secs))?;
    let mut sources = Sources::default();
    let mut plans = Vec::with_capacity(entries.len());
    for entry in &entries {
        let plan = plan(config, &client, &mut sources, entry, request).await;
        plans.push(plan);
    }
    let differs = plans.iter().any(|plan| matches!(plan, Plan::Differs(..)));
    let mut outcomes = Vec::with_capacity(entries.len());
    let mut restored: BTreeMap<PathBuf, Vec<(String, serde_json::Value)>> = BTreeMap::new();
    for (entry, plan) in entries.iter().zip(plans) {
        let outcome = match plan {
            Plan::Current(message) => entry.outcome(Action::Current, None, message),
            Plan::Differs(difference, message) => {
                entry.outcome(Action::Differs, Some(difference), Some(message))
            }
            Plan::Install(_) if request.frozen && differs => entry.outcome(
                Action::Held,
                None,
                Some("matches its record and its source; not installed, since other skills differ (a frozen restore writes nothing then)".to_owned()),
            ),
            Plan::Install(offer) => {
                match write_one(config, &client, &sources, entry, *offer, request.force).await {
                    Ok(installed) => {
                        if entry.record == RecordKind::Installed {
                            restored
                                .entry(entry.target.root.clone())
                                .or_default()
                                .push((entry.slug.clone(), entry.written.clone()));
                        }
                        let mut outcome = entry.outcome(Action::Installed, None, entry.note.clone());
                        outcome.installed = Some(installed);
                        outcome
                    }
                    Err(error) => entry.outcome(
                        Action::Differs,
                        Some(Difference::WriteFailed),
                        Some(error.to_string()),
                    ),
                }
            }
        };
        outcomes.push(outcome);
    }
    for (root, written) in restored {
        put_back(&root, &written).await?;
    }
    Ok(Report {
        records,
        frozen: request.frozen,
        skills: outcomes,
    })
}

/// One recorded skill, as its record says.
struct Entry {
    slug: String,
    target: Target,
    record: RecordKind,
    /// The entry as the record holds it (this program's record), put back after the install.
    written: serde_json::Value,
    /// What to resolve as the source, or why the entry cannot be restored.
    source: Result<String, String>,
    /// The source as shown in the outcome.
    shown: String,
    version: Option<String>,
    sha256: Option<String>,
    /// The commit a GitHub source was recorded at.
    commit: Option<String>,
    /// The snapshot an agent-skills index install chose.
    snapshot: Option<String>,
    registry: Option<Registered>,
    /// Worth saying on an install (a record without a digest, a lock whose hash is not
    /// compared).
    note: Option<String>,
}

impl Entry {
    fn path(&self) -> PathBuf {
        self.target.root.join(&self.slug)
    }

    fn outcome(
        &self,
        action: Action,
        difference: Option<Difference>,
        message: Option<String>,
    ) -> Outcome {
        Outcome {
            slug: self.slug.clone(),
            path: self.path(),
            scope: self.target.scope,
            record: self.record,
            source: self.shown.clone(),
            version: self.version.clone(),
            sha256: self.sha256.clone(),
            action,
            difference,
            message,
            installed: None,
        }
    }

    /// Which download of a source this entry needs: sources recorded at the same commit or
    /// snapshot are fetched once.
    fn key(&self) -> Option<String> {
        let source = self.source.as_ref().ok()?;
        Some(format!(
            "{source}\0{}\0{}",
            self.commit.as_deref().unwrap_or_default(),
            self.snapshot.as_deref().unwrap_or_default()
        ))
    }
}

/// The records `request` names and every skill they list, in record order: each root's
/// record (the roots of the scope, or the one `request.agent` names), then the vercel tool's
/// lock of a project (its skills restored into the scope's install root; one this program's
/// record of that root lists already is left to that record).
fn recorded(config: &SkillsConfig, request: &Request) -> Result<(Vec<PathBuf>, Vec<Entry>), Error> {
    let agents: Vec<Option<AgentTarget>> = match request.agent {
        Some(agent) => vec![Some(agent)],
        None => [AgentTarget::App, AgentTarget::Agents, AgentTarget::Claude]
            .into_iter()
            .map(Some)
            .collect(),
    };
    let mut targets: Vec<Target> = Vec::new();
    for agent in agents {
        let target = write::target(config, request.scope, agent)?;
        if !targets.iter().any(|seen| seen.root == target.root) {
            targets.push(target);
        }
    }
    let mut records = Vec::new();
    let mut entries = Vec::new();
    for target in &targets {
        let record = lock::read(&target.root)?;
        if record.skills.is_empty() {
            continue;
        }
        records.push(target.root.join(skills_types::files::LOCK_FILE));
        for (slug, written) in record.skills {
            entries.push(ours(target, slug, written));
        }
    }
    if request.scope == SkillScope::Project
        && let Some(vercel) = lock::read_vercel(&config.workspace)?
    {
        let target = write::target(config, request.scope, request.agent)?;
        records.push(config.workspace.join(skills_types::files::VERCEL_LOCK_FILE));
        for (key, written) in vercel.skills {
            let entry = theirs(config, &target, &key, &written);
            let recorded_already = entries
                .iter()
                .any(|other| other.target.root == target.root && other.slug == entry.slug);
            if !recorded_already {
                entries.push(entry);
            }
        }
    }
    Ok((records, entries))
}

/// An entry of this program's record.
fn ours(target: &Target, slug: String, written: serde_json::Value) -> Entry {
    let text = |field: &str| {
        written
            .get(field)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    let source = text("source_url")
        .filter(|source| !source.trim().is_empty())
        .ok_or_else(|| "the record names no source for it".to_owned());
    let sha256 = text("sha256");
    Entry {
        shown: source.clone().unwrap_or_default(),
        note: sha256.is_none().then(|| {
            "the record holds no digest for it, so what the source serves now was installed unchecked".to_owned()
        }),
        version: text("version"),
        commit: (text("kind").as_deref() == Some(SourceKind::Github.as_str()))
            .then(|| text("commit"))
            .flatten(),
        snapshot: crate::update::snapshot_of(&written),
        registry: Registered::from_record(&written),
        sha256,
        source,
        slug,
        target: target.clone(),
        record: RecordKind::Installed,
        written,
    }
}

/// An entry of the vercel tool's lock.
fn theirs(config: &SkillsConfig, target: &Target, key: &str, written: &serde_json::Value) -> Entry {
    // Some versions of the tool key an entry `source::name`.
    let name = key.rsplit("::").next().unwrap_or(key);
    let slug = if skills_ops::name::is_valid(name) {
        Ok(skills_ops::name::normalize(name))
    } else {
        Err(format!(
            "'{}' is not a skill name this program installs a folder under",
            skills_types::sanitize::line(name)
        ))
    };
    let source = slug
        .clone()
        .and_then(|_| vercel_source(&config.workspace, written));
    let text = |field: &str| {
        written
            .get(field)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    Entry {
        shown: source
            .clone()
            .ok()
            .or_else(|| text("source"))
            .unwrap_or_default(),
        slug: slug.unwrap_or_else(|_| name.to_owned()),
        target: target.clone(),
        record: RecordKind::VercelLock,
        written: written.clone(),
        source,
        version: None,
        sha256: None,
        commit: None,
        snapshot: None,
        registry: None,
        note: Some(
            "from the vercel tool's skills-lock.json, whose computedHash this program does not compare; it is recorded with its own digest now".to_owned(),
        ),
    }
}

/// The source text an entry of the vercel tool's lock means (see the module's header).
fn vercel_source(workspace: &Path, entry: &serde_json::Value) -> Result<String, String> {
    let text = |field: &str| {
        entry
            .get(field)
            .and_then(serde_json::Value::as_str)
            .map(str::trim)
            .filter(|value| !value.is_empty())
    };
    let kind = text("sourceType").ok_or("the entry has no sourceType")?;
    let source = text("source");
    let url = text("sourceUrl");
    let is_web = |value: &&str| value.starts_with("https://") || value.starts_with("http://");
    match kind {
        "github" => {
            let source = source.ok_or("the entry has no source")?;
            let Some(Ok(repository)) = Repository::shorthand(source) else {
                // A URL form of the repository: resolved as any GitHub page is.
                return url
                    .filter(is_web)
                    .or(Some(source).filter(is_web))
                    .map(str::to_owned)
                    .ok_or_else(|| format!("'{source}' is not owner/repo"));
            };
            let mut text = format!("{}/{}", repository.owner, repository.name);
            let folder = text_folder(text_of(entry, "skillPath"));
            if let Some(folder) = folder.as_deref().or(repository.path.as_deref()) {
                text.push('/');
                text.push_str(folder);
            }
            if let Some(reference) = text_of(entry, "ref").or(repository.reference.as_deref()) {
                text.push('@');
                text.push_str(reference);
            }
            Ok(text)
        }
        "well-known" => url
            .filter(is_web)
            .or(source.filter(is_web))
            .map(str::to_owned)
            .ok_or_else(|| "the entry has no sourceUrl to fetch".to_owned()),
        "local" => {
            let source = source.ok_or("the entry has no source")?;
            let path = Path::new(source);
            let path = if path.is_absolute() {
                path.to_path_buf()
            } else {
                workspace.join(path)
            };
            Ok(path.display().to_string())
        }
        other => Err(format!(
            "it comes from a '{}' source, which this program does not install from",
            skills_types::sanitize::line(other)
        )),
    }
}

fn text_of<'a>(entry: &'a serde_json::Value, field: &str) -> Option<&'a str> {
    entry
        .get(field)
        .and_then(serde_json::Value::as_str)
        .map(str::trim)
        .filter(|value| !value.is_empty())
}

/// The folder of a `skillPath` (`skills/pdf/SKILL.md` → `skills/pdf`); `None` at the root.
fn text_folder(skill_path: Option<&str>) -> Option<String> {
    let path = skill_path?;
    let folder = path
        .strip_suffix("SKILL.md")
        .unwrap_or(path)
        .trim_matches('/');
    (!folder.is_empty()).then(|| folder.to_owned())
}

/// What to do with one entry.
enum Plan {
    /// Nothing: installed as recorded (and, when frozen, its source still serves that).
    Current(Option<String>),
    /// Install this offer of the entry's download.
    Install(Box<fetch::Offer>),
    /// It differs, and why.
    Differs(Difference, String),
}

/// The downloads made so far, by [`Entry::key`]: a source holding several recorded skills is
/// fetched once.
#[derive(Default)]
struct Sources {
    fetched: BTreeMap<String, Result<(Source, Fetched), String>>,
}

/// Compares one entry with the disk and, when needed, with its source.
async fn plan(
    config: &SkillsConfig,
    client: &Client,
    sources: &mut Sources,
    entry: &Entry,
    request: &Request,
) -> Plan {
    let source = match &entry.source {
        Ok(source) => source.clone(),
        Err(why) => return Plan::Differs(Difference::Unrestorable, unrestorable(entry, why)),
    };
    if entry.record == RecordKind::Installed && entry.sha256.is_none() && request.frozen {
        return Plan::Differs(
            Difference::Unrestorable,
            format!(
                "the record holds no digest for '{}', so a frozen restore cannot tell whether it is what was recorded",
                entry.slug
            ),
        );
    }
    let path = entry.path();
    let present = std::fs::symlink_metadata(&path).is_ok();
    let matches = present
        && entry.sha256.as_deref().is_some_and(|recorded| {
            write::installed_digest(&path)
                .is_some_and(|digest| digest.eq_ignore_ascii_case(recorded))
        });
    // Present is as good as it gets for the vercel tool's copies.
    let current = matches || (present && entry.record == RecordKind::VercelLock);
    if present && !current && !request.force {
        return Plan::Differs(
            Difference::LocallyModified,
            format!(
                "{} was changed since it was installed (its files do not have the recorded digest {}); it was kept (--force replaces it with the recorded version)",
                path.display(),
                entry.sha256.as_deref().unwrap_or("none")
            ),
        );
    }
    // The vercel tool's copies cannot be compared with its hash; say so rather than vouch.
    let unverified = (entry.record == RecordKind::VercelLock).then(|| {
        format!(
            "{} is there; the vercel tool's computedHash is not compared, so it was left as it is",
            path.display()
        )
    });
    if current && !request.frozen {
        return Plan::Current(unverified);
    }
    let key = entry.key().unwrap_or_default();
    if !sources.fetched.contains_key(&key) {
        let downloaded = download(config, client, entry, &source).await;
        sources.fetched.insert(key.clone(), downloaded);
    }
    let fetched = match sources.fetched.get(&key) {
        Some(Ok((_, fetched))) => fetched,
        Some(Err(why)) => {
            return Plan::Differs(
                Difference::SourceUnreachable,
                format!("its source {} cannot be reached: {why}", entry.shown),
            );
        }
        None => return Plan::Differs(Difference::SourceUnreachable, entry.slug.clone()),
    };
    let offered: Vec<&fetch::Offer> = fetched
        .offers
        .iter()
        .filter(|offer| {
            write::slug(&offer.download).is_ok_and(|slug| slug == entry.slug)
                || offer.download.name.as_deref() == Some(entry.slug.as_str())
        })
        .collect();
    // A registry entry is one download under the entry's own slug.
    let offer = match (offered.as_slice(), fetched.offers.as_slice()) {
        ([one], _) => *one,
        ([], [only]) if entry.registry.is_some() => only,
        _ => {
            // The source still has it, but it cannot be installed (a file over a limit, a
            // link): that reason, not "gone".
            if let Some(refused) = fetched.refused.iter().find(|refused| {
                write::slug(&refused.download).is_ok_and(|slug| slug == entry.slug)
                    || refused.download.name.as_deref() == Some(entry.slug.as_str())
            }) {
                return Plan::Differs(
                    Difference::Unrestorable,
                    format!(
                        "{} still offers '{}', but it cannot be installed: {}",
                        entry.shown, entry.slug, refused.reason
                    ),
                );
            }
            return Plan::Differs(
                Difference::Missing,
                format!(
                    "{} no longer offers a skill named '{}'",
                    entry.shown, entry.slug
                ),
            );
        }
    };
    let served = write::download_digest(&offer.download);
    if let Some(recorded) = &entry.sha256
        && !served.eq_ignore_ascii_case(recorded)
    {
        return Plan::Differs(
            Difference::DigestMismatch,
            format!(
                "{} serves '{}' with digest {served}, and the record says {recorded}: the skill changed at its source since it was recorded, so it was not installed (install it again from its source to record what it serves now)",
                entry.shown, entry.slug
            ),
        );
    }
    if current {
        Plan::Current(unverified)
    } else {
        Plan::Install(Box::new(offer.clone()))
    }
}

/// Why an entry cannot be restored, naming it.
fn unrestorable(entry: &Entry, why: &str) -> String {
    let file = match entry.record {
        RecordKind::Installed => skills_types::files::LOCK_FILE,
        RecordKind::VercelLock => skills_types::files::VERCEL_LOCK_FILE,
    };
    format!("'{}' cannot be restored from {file}: {why}", entry.slug)
}

/// The recorded source resolved as `install` resolves what it is given, pinned to the
/// recorded commit (GitHub) or snapshot, and downloaded whole.
async fn download(
    config: &SkillsConfig,
    client: &Client,
    entry: &Entry,
    text: &str,
) -> Result<(Source, Fetched), String> {
    let source = pinned(config, client, entry, text).map_err(|error| error.to_string())?;
    let deadline = client.settings().total;
    let want = fetch::Want {
        skills: &[],
        version: entry.snapshot.as_deref(),
    };
    let downloaded = tokio::time::timeout(
        deadline,
        fetch::download(client, &source, &PackageLimits::default(), want),
    )
    .await
    .map_err(|_| {
        format!(
            "downloading {} took longer than {} seconds",
            source.shown(),
            deadline.as_secs()
        )
    })?;
    let fetched =
        downloaded.map_err(|problem| install::error_of(client, &source, problem).to_string())?;
    Ok((source, fetched))
}

/// `text` as a source; a GitHub repository at the recorded commit instead of its ref (the
/// source as shown, and so as recorded, keeps the ref).
fn pinned(
    config: &SkillsConfig,
    client: &Client,
    entry: &Entry,
    text: &str,
) -> Result<Source, Error> {
    let source = install::resolve(config, text, &client.settings().policy)?;
    let (Source::Github(github), Some(commit)) = (&source, &entry.commit) else {
        return Ok(source);
    };
    let at_commit = Repository {
        reference: Some(commit.clone()),
        ..github.0.clone()
    };
    let tarball = install::github_bases(config)?.tarball(&at_commit);
    Ok(Source::Github(Box::new((github.0.clone(), tarball))))
}

/// Installs `offer` for `entry` through `install`'s own writing half (checks, staged write,
/// provenance, record), under the recorded folder name.
async fn write_one(
    config: &SkillsConfig,
    client: &Client,
    sources: &Sources,
    entry: &Entry,
    offer: fetch::Offer,
    force: bool,
) -> Result<skills_types::install::InstallOutcome, Error> {
    // The records were chosen by a person when they were written: findings that ask pass,
    // and a refusing one is restored only with --force (which also replaces local changes).
    let force = install::Force {
        replace: force,
        audit: if force {
            AuditConsent::Force
        } else {
            AuditConsent::Yes
        },
    };
    let Some(Ok((source, fetched))) = entry.key().and_then(|key| sources.fetched.get(&key)) else {
        return Err(Error::Internal {
            action: format!("restoring {}", entry.slug),
            reason: "its source was planned but not downloaded".to_owned(),
        });
    };
    let naming = Naming {
        kind: if entry.registry.is_some() {
            SourceKind::Registry
        } else {
            source.kind()
        },
        slug: Some(entry.slug.clone()),
        registry: entry.registry.clone(),
    };
    let one = Fetched {
        offers: vec![offer],
        kind: fetched.kind,
        resolved: fetched.resolved.clone(),
        reference: fetched.reference.clone(),
        commit: fetched.commit.clone(),
        plugins: fetched.plugins.clone(),
        ..Fetched::default()
    };
    let outcomes = install::install_fetched(
        config,
        client,
        source,
        &entry.target,
        force,
        &naming,
        Selection::default(),
        one,
    )
    .await?;
    outcomes.into_iter().next().ok_or_else(|| Error::Internal {
        action: format!("restoring {}", entry.slug),
        reason: "the install reported nothing written".to_owned(),
    })
}

/// Puts the restored skills' entries back in `root`'s record as they were written, under the
/// root's install lock: the install recorded where it fetched them (the commit's tarball),
/// and a committed record must read the same after a restore.
async fn put_back(root: &Path, written: &[(String, serde_json::Value)]) -> Result<(), Error> {
    let root = root.to_path_buf();
    let written = written.to_vec();
    tokio::task::spawn_blocking(move || {
        let _lock = lock::hold(&root)?;
        let mut record = lock::read(&root)?;
        let mut changed = false;
        for (slug, entry) in written {
            if record.skills.get(&slug) != Some(&entry) {
                record.skills.insert(slug, entry);
                changed = true;
            }
        }
        if changed {
            lock::write(&root, &record)?;
        }
        Ok(())
    })
    .await
    .map_err(|error| Error::Interrupted {
        action: "the restore".to_owned(),
        reason: error.to_string(),
    })?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vercel_entries_map_to_sources_this_program_installs_from() {
        let workspace = Path::new("/work/project");
        let source = |entry: serde_json::Value| vercel_source(workspace, &entry);
        assert_eq!(
            source(
                serde_json::json!({"source": "acme/skills", "sourceType": "github", "computedHash": "ab"})
            ),
            Ok("acme/skills".to_owned())
        );
        assert_eq!(
            source(serde_json::json!({
                "source": "acme/skills", "ref": "v1.2", "sourceType": "github",
                "skillPath": "skills/pdf/SKILL.md", "computedHash": "ab"
            })),
            Ok("acme/skills/skills/pdf@v1.2".to_owned())
        );
        assert_eq!(
            source(serde_json::json!({
                "source": "https://github.com/acme/skills", "sourceType": "github",
                "sourceUrl": "https://github.com/acme/skills.git"
            })),
            Ok("https://github.com/acme/skills.git".to_owned())
        );
        assert_eq!(
            source(serde_json::json!({
                "source": "docs.example.com", "sourceType": "well-known",
                "sourceUrl": "https://docs.example.com/.well-known/skills/index.json"
            })),
            Ok("https://docs.example.com/.well-known/skills/index.json".to_owned())
        );
        assert_eq!(
            source(serde_json::json!({"source": "vendor/skills", "sourceType": "local"})),
            Ok("/work/project/vendor/skills".to_owned())
        );
        for (entry, says) in [
            (
                serde_json::json!({"source": "pkg", "sourceType": "node_modules"}),
                "'node_modules'",
            ),
            (
                serde_json::json!({"source": "https://gitlab.com/a/b", "sourceType": "gitlab"}),
                "'gitlab'",
            ),
            (serde_json::json!({"source": "a/b"}), "no sourceType"),
            (
                serde_json::json!({"source": "docs.example.com", "sourceType": "well-known"}),
                "no sourceUrl",
            ),
        ] {
            let why = source(entry).unwrap_err();
            assert!(why.contains(says), "{why}");
        }
    }

    #[test]
    fn a_skill_paths_folder() {
        assert_eq!(
            text_folder(Some("skills/pdf/SKILL.md")).as_deref(),
            Some("skills/pdf")
        );
        assert_eq!(text_folder(Some("SKILL.md")), None);
        assert_eq!(
            text_folder(Some("skills/pdf/")).as_deref(),
            Some("skills/pdf")
        );
        assert_eq!(text_folder(None), None);
    }
}
