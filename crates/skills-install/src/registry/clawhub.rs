//! A ClawHub registry (09 §Registries; openclaw/clawhub `docs/http-api.md`): discovery at
//! `/.well-known/clawhub.json`, the v1 API for listing (cursor pages), search and one skill,
//! and `GET /api/v1/download`, which answers a zip or, for a skill ClawHub serves from a
//! GitHub repository, a JSON hand-off naming the repository, commit and path.
//!
//! **Moderation.** ClawHub's answer for one skill carries `moderation` when the skill is
//! flagged. A skill whose moderation says `isMalwareBlocked` (or whose verdict is
//! `malicious`) is never installed, whatever the options: `--force` is for replacing a folder,
//! not for running what the registry's scanner called malware. One flagged `isSuspicious`
//! installs only with `--force`, and the outcome then carries its reason codes, so the
//! person who forced it reads why it was flagged.
//!
//! Errors are plain text (`Skill not found`, the moderation block's sentence); they are
//! shown cut short and sanitised (`hub.rs`).

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use skills_types::install::{Hooks, InstallOutcome};
use skills_types::registry::{
    Coordinates, Details, Entry, InstallRequest, Listing, Pin, Query, Status,
};
use skills_types::{Error, SkillsConfig};
use url::Url;

use super::hub::{self, Hub, Planned};
use crate::github::{Bases, Repository};
use crate::install::Naming;
use crate::install::timeout;
use crate::source::Source;
use crate::write::Registered;

/// The discovery document, at the registry's origin.
const WELL_KNOWN: &str = "/.well-known/clawhub.json";
/// Its legacy name, asked for when the first is missing.
const WELL_KNOWN_LEGACY: &str = "/.well-known/clawdhub.json";
/// The API's path below `apiBase`.
const API: [&str; 2] = ["api", "v1"];
/// A listing page's size (the API's maximum).
const PAGE_SIZE: &str = "200";
/// The pages a browse follows before it stops and says so.
const MAX_PAGES: usize = 50;
/// Results a search asks for.
const SEARCH_LIMIT: &str = "50";
/// The provenance's source kind.
const KIND: skills_types::install::SourceKind = skills_types::install::SourceKind::Clawhub;
/// The tag every skill has: its newest version.
const LATEST: &str = "latest";

/// `/.well-known/clawhub.json`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Discovery {
    api_base: Option<String>,
}

/// A page of `GET /api/v1/skills`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Page {
    /// Read one by one: a malformed item is skipped, not the page.
    items: Vec<serde_json::Value>,
    #[serde(default)]
    next_cursor: Option<String>,
}

/// A skill as the listing and the skill answer spell it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Item {
    slug: String,
    #[serde(default)]
    display_name: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    /// Tag name to version: `{latest: "1.2.3"}`.
    #[serde(default)]
    tags: BTreeMap<String, String>,
    #[serde(default)]
    latest_version: Option<Version>,
    #[serde(default)]
    metadata: Option<Metadata>,
}

#[derive(Deserialize)]
struct Version {
    version: String,
    #[serde(default)]
    license: Option<String>,
}

#[derive(Deserialize)]
struct Metadata {
    #[serde(default)]
    os: Option<Vec<String>>,
}

/// `GET /api/v1/search`.
#[derive(Deserialize)]
struct Results {
    results: Vec<Hit>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Hit {
    slug: String,
    #[serde(default)]
    display_name: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    version: Option<String>,
}

/// `GET /api/v1/skills/{slug}`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Detail {
    skill: Item,
    #[serde(default)]
    latest_version: Option<Version>,
    #[serde(default)]
    owner: Option<Owner>,
    #[serde(default)]
    moderation: Option<Moderation>,
}

#[derive(Deserialize)]
struct Owner {
    #[serde(default)]
    handle: Option<String>,
}

/// The moderation state ClawHub attaches to a flagged skill.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Moderation {
    #[serde(default)]
    pub(super) is_suspicious: bool,
    #[serde(default)]
    pub(super) is_malware_blocked: bool,
    #[serde(default)]
    pub(super) verdict: Option<String>,
    #[serde(default)]
    pub(super) reason_codes: Vec<String>,
    #[serde(default)]
    pub(super) summary: Option<String>,
}

/// The JSON `GET /api/v1/download` answers for a skill served from GitHub.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Handoff {
    pub(super) repo: String,
    pub(super) commit: String,
    pub(super) path: String,
}

/// The API base: `apiBase` of the discovery document (on the registry's origin), else the
/// configured URL itself.
async fn api(hub: &Hub) -> Result<Url, Error> {
    for path in [WELL_KNOWN, WELL_KNOWN_LEGACY] {
        let url = hub.join(&hub.base, path)?;
        let answer = hub.get(&url, hub::MAX_JSON_BYTES).await?;
        if answer.status == 404 {
            continue;
        }
        if !(200..300).contains(&answer.status) {
            return Err(hub.failure(&answer, &hub.said(&answer)));
        }
        let discovery: Discovery = hub.parse(&answer)?;
        let Some(base) = discovery.api_base.filter(|base| !base.trim().is_empty()) else {
            break;
        };
        let mut url = hub.join(&hub.base, &base)?;
        // skillhub's ClawHub layer announces `/api/v1` itself; ClawHub its origin.
        let trimmed = url.path().trim_end_matches('/').to_owned();
        if let Some(above) = trimmed.strip_suffix("/api/v1") {
            url.set_path(if above.is_empty() { "/" } else { above });
        }
        return Ok(url);
    }
    Ok(hub.base.clone())
}

fn api_url(hub: &Hub, api: &Url, rest: &[&str], query: &[(&str, &str)]) -> Result<Url, Error> {
    let segments: Vec<&str> = API.iter().copied().chain(rest.iter().copied()).collect();
    hub.url(api, &segments, query)
}

fn no_groups(what: &str) -> Error {
    Error::Unsupported {
        reason: format!("a ClawHub registry has no {what}: search by words instead"),
    }
}

/// Every skill, following `nextCursor` to the end (at most [`MAX_PAGES`] pages), sorted by
/// slug.
pub(super) async fn browse(
    config: &SkillsConfig,
    hooks: &Hooks,
    category: Option<&str>,
) -> Result<Listing, Error> {
    if category.is_some() {
        return Err(no_groups("categories"));
    }
    let hub = Hub::new(config, hooks, timeout(None))?;
    let api = api(&hub).await?;
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    let mut warnings = Vec::new();
    let mut seen_cursors = BTreeSet::new();
    let mut cursor: Option<String> = None;
    for page in 0.. {
        if page == MAX_PAGES {
            warnings.push(format!(
                "the listing stopped after {MAX_PAGES} pages; search to find the rest"
            ));
            break;
        }
        let mut query = vec![("limit", PAGE_SIZE), ("sort", "createdAt")];
        if let Some(cursor) = &cursor {
            query.push(("cursor", cursor.as_str()));
        }
        let url = api_url(&hub, &api, &["skills"], &query)?;
        let page: Page = hub.json(&url).await?;
        for item in page.items {
            let item = serde_json::from_value::<Item>(item)
                .map_err(|error| format!("a skill is skipped: {error}"));
            match item.and_then(entry_of_item) {
                Ok(entry) => entries.push(entry),
                Err(reason) => skipped.push(reason),
            }
        }
        match page.next_cursor.filter(|next| !next.is_empty()) {
            // A server handing back a cursor it gave before would loop forever.
            Some(next) if !seen_cursors.insert(next.clone()) => {
                warnings.push("the listing repeated a page cursor; it stopped there".to_owned());
                break;
            }
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    Ok(hub.sorted_listing(entries, skipped, warnings))
}

/// ClawHub's own search (relevance order, as it ranks).
pub(super) async fn search(
    config: &SkillsConfig,
    hooks: &Hooks,
    query: &Query,
) -> Result<Listing, Error> {
    if query.category.is_some() {
        return Err(no_groups("categories"));
    }
    if query.source.is_some() {
        return Err(no_groups("sources"));
    }
    if query.text.trim().is_empty() {
        return browse(config, hooks, None).await;
    }
    let hub = Hub::new(config, hooks, timeout(None))?;
    let api = api(&hub).await?;
    let url = api_url(
        &hub,
        &api,
        &["search"],
        &[("q", query.text.trim()), ("limit", SEARCH_LIMIT)],
    )?;
    let results: Results = hub.json(&url).await?;
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    for hit in results.results {
        let mut entry = match hub::entry_named(hit.slug) {
            Ok(entry) => entry,
            Err(reason) => {
                skipped.push(reason);
                continue;
            }
        };
        entry.description = describe(hit.display_name, hit.summary);
        entry.version = hit.version.unwrap_or_default();
        entry.source = KIND.as_str().to_owned();
        entries.push(entry);
    }
    Ok(Listing {
        catalog: hub.status(entries.len(), skipped),
        entries,
    })
}

/// A listing item as an entry; its slug must be a valid folder name.
fn entry_of_item(item: Item) -> Result<Entry, String> {
    let mut entry = hub::entry_named(item.slug)?;
    entry.version = item
        .latest_version
        .map(|latest| latest.version)
        .or_else(|| item.tags.get("latest").cloned())
        .unwrap_or_default();
    entry.description = describe(item.display_name, item.summary);
    entry.platforms = item
        .metadata
        .and_then(|metadata| metadata.os)
        .unwrap_or_default();
    entry.source = KIND.as_str().to_owned();
    Ok(entry)
}

/// The summary, else the display name.
fn describe(display_name: Option<String>, summary: Option<String>) -> String {
    summary
        .filter(|summary| !summary.trim().is_empty())
        .or(display_name)
        .unwrap_or_default()
}

/// Whether `moderation` lets the skill be installed: never when malware-blocked; with
/// `force` only when suspicious, and then with a warning naming its reason codes.
pub(super) fn judge(
    moderation: Option<&Moderation>,
    slug: &str,
    force: bool,
) -> Result<Option<String>, String> {
    let Some(moderation) = moderation else {
        return Ok(None);
    };
    let verdict = moderation.verdict.as_deref().unwrap_or_default();
    let reasons = if moderation.reason_codes.is_empty() {
        "no reason codes given".to_owned()
    } else {
        format!("reason codes: {}", moderation.reason_codes.join(", "))
    };
    let summary = moderation
        .summary
        .as_deref()
        .filter(|summary| !summary.trim().is_empty())
        .map(|summary| format!(" ({})", summary.trim()))
        .unwrap_or_default();
    let said = skills_types::sanitize::line(&format!("{reasons}{summary}")).into_owned();
    if moderation.is_malware_blocked || verdict == "malicious" {
        return Err(format!(
            "ClawHub blocks '{slug}' as malware ({said}); it is never installed, not even with --force"
        ));
    }
    if moderation.is_suspicious || verdict == "suspicious" {
        if !force {
            return Err(format!(
                "ClawHub flags '{slug}' as suspicious ({said}); read its files first, then \
                 install with --force to take it anyway"
            ));
        }
        return Ok(Some(format!(
            "installed although ClawHub flags '{slug}' as suspicious: {said}"
        )));
    }
    Ok(None)
}

/// The skill `id` names, with its owner, license, its page on the registry and, when ClawHub
/// flags it, a note with the reason codes saying whether it can be installed.
pub(super) async fn show(config: &SkillsConfig, hooks: &Hooks, id: &str) -> Result<Details, Error> {
    let wanted = Coordinates::parse(id).map_err(|error| super::invalid(&error))?;
    if wanted.namespace.is_some() {
        return Err(Error::Unsupported {
            reason: format!(
                "a ClawHub registry has no namespaces; ask for '{}'",
                wanted.slug
            ),
        });
    }
    let hub = Hub::new(config, hooks, timeout(None))?;
    let api = api(&hub).await?;
    let detail = detail(&hub, &api, &wanted).await?;
    let mut notes = Vec::new();
    match judge(detail.moderation.as_ref(), &wanted.slug, false) {
        Ok(_) => {}
        Err(reason) => notes.push(reason),
    }
    let owner = detail.owner.and_then(|owner| owner.handle);
    let license = detail
        .latest_version
        .as_ref()
        .and_then(|latest| latest.license.clone());
    let latest = detail.latest_version.map(|latest| latest.version);
    let mut entry = entry_of_item(detail.skill).map_err(Error::InvalidInput)?;
    if let Some(latest) = latest {
        entry.version = latest;
    }
    entry.license = license.unwrap_or_default();
    if let Some(owner) = &owner {
        entry.author = owner.clone();
        // The canonical listing, which ClawHub asks third parties to link back to.
        entry.docs_path = hub
            .url(&hub.base, &[owner, &wanted.slug], &[])
            .ok()
            .map(|page| skills_net::policy::redact(&page));
    }
    Ok(Details {
        entry,
        notes,
        catalog: hub.status(1, Vec::new()),
    })
}

/// `GET /api/v1/skills/{slug}`; `Skill not found` is [`Error::SkillNotFound`].
async fn detail(hub: &Hub, api: &Url, wanted: &Coordinates) -> Result<Detail, Error> {
    let page = api_url(hub, api, &["skills", &wanted.slug], &[])?;
    let answer = hub.get(&page, hub::MAX_JSON_BYTES).await?;
    if answer.status == 404 {
        return Err(Error::SkillNotFound {
            name: wanted.to_string(),
            suggestion: None,
        });
    }
    if !(200..300).contains(&answer.status) {
        return Err(hub.failure(&answer, &hub.said(&answer)));
    }
    hub.parse(&answer)
}

/// Installs the skill `request.id` names (a slug, optionally `@version` or `@tag`).
pub(super) async fn install(
    config: &SkillsConfig,
    hooks: &Hooks,
    request: &InstallRequest,
) -> Result<InstallOutcome, Error> {
    let wanted = Coordinates::parse(&request.id).map_err(|error| super::invalid(&error))?;
    if let Some(namespace) = &wanted.namespace {
        return Err(Error::Unsupported {
            reason: format!(
                "a ClawHub registry has no namespaces; install '{}' rather than '@{namespace}/{}'",
                wanted.slug, wanted.slug
            ),
        });
    }
    let total = timeout(request.timeout_secs);
    let hub = Hub::new(config, hooks, total)?;
    let base = hub.base.clone();
    hub::within(total, &base, install_within(config, &hub, request, wanted)).await
}

async fn install_within(
    config: &SkillsConfig,
    hub: &Hub,
    request: &InstallRequest,
    wanted: Coordinates,
) -> Result<InstallOutcome, Error> {
    let coordinates = wanted.unpinned();
    let target = hub::check_target(config, request, &coordinates)?;
    let force = crate::install::Force {
        replace: request.force,
        audit: request.audit,
    };
    let api = api(hub).await?;
    let detail = detail(hub, &api, &wanted).await?;
    let mut warnings = Vec::new();
    match judge(detail.moderation.as_ref(), &wanted.slug, request.force) {
        Ok(warning) => warnings.extend(warning),
        Err(reason) => return Err(Error::InvalidInput(reason)),
    }
    let latest = || {
        detail
            .latest_version
            .as_ref()
            .map(|latest| latest.version.clone())
            .or_else(|| detail.skill.tags.get(LATEST).cloned())
    };
    // Without a version or tag ClawHub serves the latest version, or a GitHub-served skill's
    // hand-off (which a `tag` would miss), so `@latest` asks for nothing either.
    let (pin, version) = match &wanted.pin {
        Some(Pin::Version(version)) => (Some(("version", version.as_str())), Some(version.clone())),
        Some(Pin::Tag(tag)) if tag != LATEST => (
            Some(("tag", tag.as_str())),
            detail.skill.tags.get(tag).cloned(),
        ),
        Some(Pin::Tag(_)) | None => (None, latest()),
    };
    let mut query = vec![("slug", wanted.slug.as_str())];
    query.extend(pin);
    let url = api_url(hub, &api, &["download"], &query)?;
    let answer = hub.get(&url, hub::MAX_ZIP_BYTES).await?;
    if answer.status == 404 {
        return Err(Error::SkillNotFound {
            name: wanted.to_string(),
            suggestion: Some(coordinates.to_string()).filter(|_| wanted.pin.is_some()),
        });
    }
    if !(200..300).contains(&answer.status) {
        return Err(hub.failure(&answer, &hub.said(&answer)));
    }
    let owner = detail.owner.and_then(|owner| owner.handle);
    let planned = Planned {
        coordinates,
        id: owner.map_or_else(
            || wanted.slug.clone(),
            |owner| format!("{owner}/{}", wanted.slug),
        ),
        version,
        kind: KIND,
        url: &answer.url,
        warnings,
    };
    if is_json(&answer) {
        let handoff: Handoff = hub.parse(&answer)?;
        return follow_github(config, hub, &target, force, planned, &handoff).await;
    }
    hub::install_zip(config, hub, &target, force, &answer.body, planned, |_| {
        Ok(())
    })
    .await
}

/// Whether a download answer is the JSON hand-off rather than a zip.
fn is_json(answer: &skills_net::client::Answer) -> bool {
    answer
        .content_type
        .as_deref()
        .is_some_and(|kind| kind.to_ascii_lowercase().contains("json"))
        || answer.body.trim_ascii_start().starts_with(b"{")
}

/// A skill ClawHub serves from GitHub: the repository's tarball at the commit, the skill at
/// the path, through the GitHub source (09 §Publishers, `[github] url`), which checks the
/// repository, commit and path as it would a `owner/repo/path@ref` typed by the user. The
/// registry's token never goes there: GitHub is another origin.
async fn follow_github(
    config: &SkillsConfig,
    hub: &Hub,
    target: &crate::write::Target,
    force: crate::install::Force,
    planned: Planned<'_>,
    handoff: &Handoff,
) -> Result<InstallOutcome, Error> {
    let invalid = |reason: String| Error::InvalidPackage {
        source_url: skills_net::policy::redact(planned.url),
        reason: format!("ClawHub's GitHub hand-off is refused: {reason}"),
    };
    let repo = handoff.repo.trim();
    if repo.split('/').count() != 2 {
        return Err(invalid(format!(
            "'{}' is not an owner/repository",
            hub.shown(repo)
        )));
    }
    let path = handoff.path.trim().trim_matches('/');
    let text = if path.is_empty() {
        format!("{repo}@{}", handoff.commit.trim())
    } else {
        format!("{repo}/{path}@{}", handoff.commit.trim())
    };
    let repository = Repository::shorthand(&text)
        .unwrap_or_else(|| Err(format!("'{}' is not a GitHub location", hub.shown(&text))))
        .map_err(invalid)?;
    let bases = Bases::new(config.github.url.as_deref()).map_err(Error::InvalidInput)?;
    let tarball = bases.tarball(&repository);
    let source = Source::Github(Box::new((repository, tarball)));
    let naming = Naming {
        kind: KIND,
        slug: Some(planned.coordinates.slug.clone()),
        registry: Some(Registered {
            coordinates: planned.coordinates,
            id: planned.id.clone(),
            version: planned.version,
            catalog: skills_net::policy::redact(&hub.base),
        }),
    };
    let outcomes =
        crate::install::install_from(config, &hub.client, &source, target, force, &naming).await?;
    let [mut outcome] = <[_; 1]>::try_from(outcomes).map_err(|outcomes| {
        invalid(format!(
            "{} holds {} skills under its path; a registry entry is one",
            hub.shown(&text),
            outcomes.len()
        ))
    })?;
    outcome.warnings.extend(planned.warnings);
    Ok(outcome)
}

/// A ClawHub registry keeps no catalog to refresh: the discovery document is read, so a
/// misconfigured URL is found.
pub(super) async fn refresh(config: &SkillsConfig, hooks: &Hooks) -> Result<Status, Error> {
    let hub = Hub::new(config, hooks, timeout(None))?;
    api(&hub).await?;
    Ok(hub.status(0, Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moderation(suspicious: bool, malware: bool, verdict: &str) -> Moderation {
        Moderation {
            is_suspicious: suspicious,
            is_malware_blocked: malware,
            verdict: Some(verdict.to_owned()),
            reason_codes: vec!["suspicious.dynamic_code_execution".to_owned()],
            summary: Some("Detected: suspicious.dynamic_code_execution".to_owned()),
        }
    }

    #[test]
    fn moderation_blocks_malware_always_and_suspicious_without_force() {
        assert_eq!(judge(None, "x", false), Ok(None));
        assert_eq!(
            judge(Some(&moderation(false, false, "clean")), "x", false),
            Ok(None)
        );
        for force in [false, true] {
            let blocked = judge(Some(&moderation(false, true, "malicious")), "x", force);
            assert!(blocked.unwrap_err().contains("never installed"));
            // The verdict alone is enough, whatever the flag says.
            assert!(judge(Some(&moderation(false, false, "malicious")), "x", force).is_err());
        }
        let refused = judge(Some(&moderation(true, false, "suspicious")), "x", false).unwrap_err();
        assert!(refused.contains("--force"), "{refused}");
        assert!(
            refused.contains("suspicious.dynamic_code_execution"),
            "{refused}"
        );
        let warned = judge(Some(&moderation(true, false, "suspicious")), "x", true)
            .unwrap()
            .unwrap();
        assert!(
            warned.contains("suspicious.dynamic_code_execution"),
            "{warned}"
        );
    }
}
