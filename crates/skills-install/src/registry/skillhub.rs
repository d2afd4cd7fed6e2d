//! A skillhub registry (09 §Registries; iflytek/skillhub `docs/06-api-design.md` and its
//! controllers): every JSON answer wrapped as `{code, msg, data, timestamp, requestId}`
//! (`code` 0 on success, else the HTTP status), pages as `{items, total, page, size}`
//! (`page` counted from 0), skills at `/api/v1/skills/{namespace}/{slug}`, and
//! `…/resolve` naming the version, its `fingerprint` and its `downloadUrl` (a zip, often
//! a redirect to object storage on another origin, which never sees the token).
//!
//! **The fingerprint.** skillhub computes it over the version's files, not over the zip:
//! `sha256` of the lines `path:sha256(file)\n`, sorted by path
//! (`SkillQueryService.computeFingerprint`). The zip is therefore extracted (in memory,
//! through the one extractor) and its files fingerprinted the same way before anything is
//! written; a fingerprint equal to the zip's own digest is accepted too, before extraction.
//! A mismatch, or a fingerprint missing or spelled otherwise, refuses the install.
//!
//! **The global namespace.** `@global/x` and `x` are one skill (`Coordinates` drops the
//! `global` namespace), so both install into `x` without a namespace conflict; requests for
//! a skill without a namespace go to `global`.
//!
//! Listing and search use the portal's search (`/api/web/skills?q=&namespace=&page=&size=`),
//! the endpoint skillhub's own web client uses: on a skillhub server `GET /api/v1/skills`
//! is the ClawHub-compatible listing, in ClawHub's shape and without the envelope.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};
use skills_net::client::Answer;
use skills_types::install::{Hooks, InstallOutcome};
use skills_types::registry::{
    Coordinates, Count, Counts, Details, Entry, GLOBAL_NAMESPACE, InstallRequest, Listing, Pin,
    Query, Status,
};
use skills_types::{Error, SkillsConfig};

use super::hub::{self, Hub, Planned};
use crate::install::timeout;

/// The provenance's source kind.
const KIND: skills_types::install::SourceKind = skills_types::install::SourceKind::Skillhub;
/// A listing page's size.
const PAGE_SIZE: usize = 100;
/// The pages a browse follows before it stops and says so.
const MAX_PAGES: usize = 100;

/// The envelope of every JSON answer.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Envelope<T> {
    code: i64,
    #[serde(default)]
    msg: Option<String>,
    data: Option<T>,
}

/// `data` of a page.
#[derive(Deserialize)]
struct Page<T> {
    items: Vec<T>,
    total: u64,
}

/// A skill of the search answer (`SkillSummaryResponse`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Summary {
    slug: String,
    #[serde(default)]
    display_name: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    published_version: Option<LifecycleVersion>,
    #[serde(default)]
    headline_version: Option<LifecycleVersion>,
}

#[derive(Deserialize)]
struct LifecycleVersion {
    #[serde(default)]
    version: Option<String>,
}

/// `data` of `GET /api/v1/skills/{namespace}/{slug}` (`SkillDetailResponse`), the fields read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Detail {
    #[serde(flatten)]
    summary: Summary,
    #[serde(default)]
    owner_display_name: Option<String>,
}

/// `data` of `…/resolve` (`ResolveVersionResponse`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Resolved {
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    fingerprint: Option<String>,
    download_url: String,
}

/// `data` of an answer, or the error its envelope (or status) says.
fn data<T: DeserializeOwned>(hub: &Hub, answer: &Answer) -> Result<T, Error> {
    let success = (200..300).contains(&answer.status);
    match serde_json::from_slice::<Envelope<T>>(&answer.body) {
        Ok(Envelope {
            code: 0,
            data: Some(data),
            ..
        }) if success => Ok(data),
        Ok(envelope) => {
            let said = envelope
                .msg
                .as_deref()
                .map_or_else(|| "(no message)".to_owned(), |msg| hub.shown(msg));
            Err(hub.failure(answer, &format!("code {}: {said}", envelope.code)))
        }
        Err(error) if success => Err(Error::Download {
            url: skills_net::policy::redact(&answer.url),
            reason: format!(
                "the registry's answer is not the skillhub envelope its API documents: {error}"
            ),
            kind: "invalid_response",
        }),
        Err(_) => Err(hub.failure(answer, &hub.said(answer))),
    }
}

/// The namespace requests name: the coordinates', else `global`.
fn namespace_of(coordinates: &Coordinates) -> &str {
    coordinates.namespace.as_deref().unwrap_or(GLOBAL_NAMESPACE)
}

/// Every page of a search (`text` may be empty), in the server's order.
async fn pages(
    hub: &Hub,
    text: &str,
    namespace: Option<&str>,
) -> Result<(Vec<Entry>, Vec<String>, Vec<String>), Error> {
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    let mut warnings = Vec::new();
    let mut seen = 0u64;
    for page in 0.. {
        if page == MAX_PAGES {
            warnings.push(format!(
                "the listing stopped after {MAX_PAGES} pages; search to find the rest"
            ));
            break;
        }
        let page_text = page.to_string();
        let size = PAGE_SIZE.to_string();
        let mut query = vec![("page", page_text.as_str()), ("size", size.as_str())];
        if !text.trim().is_empty() {
            query.push(("q", text.trim()));
        }
        if let Some(namespace) = namespace {
            query.push(("namespace", namespace));
        }
        let url = hub.url(&hub.base, &["api", "web", "skills"], &query)?;
        let answer = hub.get(&url, hub::MAX_JSON_BYTES).await?;
        // Read one by one: a malformed item is skipped, not the page.
        let data: Page<serde_json::Value> = data(hub, &answer)?;
        let count = data.items.len() as u64;
        for summary in data.items {
            let summary = serde_json::from_value::<Summary>(summary)
                .map_err(|error| format!("a skill is skipped: {error}"));
            match summary.and_then(entry_of) {
                Ok(entry) => entries.push(entry),
                Err(reason) => skipped.push(reason),
            }
        }
        seen += count;
        if count == 0 || seen >= data.total {
            break;
        }
    }
    Ok((entries, skipped, warnings))
}

/// A search result as an entry, named `@namespace/slug` (or the bare slug in `global`).
fn entry_of(summary: Summary) -> Result<Entry, String> {
    let namespace = summary
        .namespace
        .filter(|namespace| !namespace.is_empty() && namespace != GLOBAL_NAMESPACE);
    let name = match &namespace {
        Some(namespace) => format!("@{namespace}/{}", summary.slug),
        None => summary.slug.clone(),
    };
    let mut entry = hub::entry_named(name)?;
    entry.description = summary
        .summary
        .filter(|text| !text.trim().is_empty())
        .or(summary.display_name)
        .unwrap_or_default();
    entry.version = summary
        .published_version
        .or(summary.headline_version)
        .and_then(|version| version.version)
        .unwrap_or_default();
    entry.source = namespace.unwrap_or_else(|| GLOBAL_NAMESPACE.to_owned());
    Ok(entry)
}

fn no_categories() -> Error {
    Error::Unsupported {
        reason: "a skillhub registry has no categories: its namespaces are its sources (--source)"
            .to_owned(),
    }
}

/// Every skill, page by page, sorted by name.
pub(super) async fn browse(
    config: &SkillsConfig,
    hooks: &Hooks,
    category: Option<&str>,
) -> Result<Listing, Error> {
    if category.is_some() {
        return Err(no_categories());
    }
    let hub = Hub::new(config, hooks, timeout(None))?;
    let (entries, skipped, warnings) = pages(&hub, "", None).await?;
    Ok(hub.sorted_listing(entries, skipped, warnings))
}

/// skillhub's search, in its order; `query.source` is a namespace.
pub(super) async fn search(
    config: &SkillsConfig,
    hooks: &Hooks,
    query: &Query,
) -> Result<Listing, Error> {
    if query.category.is_some() {
        return Err(no_categories());
    }
    let hub = Hub::new(config, hooks, timeout(None))?;
    let namespace = query.source.as_deref().map(str::trim);
    let (entries, skipped, warnings) = pages(&hub, &query.text, namespace).await?;
    Ok(hub.listing(entries, skipped, warnings))
}

/// The namespaces and how many skills each holds.
pub(super) async fn sources(config: &SkillsConfig, hooks: &Hooks) -> Result<Counts, Error> {
    let listing = browse(config, hooks, None).await?;
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for entry in &listing.entries {
        *counts.entry(entry.source.as_str()).or_default() += 1;
    }
    Ok(Counts {
        counts: counts
            .into_iter()
            .map(|(namespace, count)| Count::new(namespace, count))
            .collect(),
        catalog: listing.catalog,
    })
}

/// skillhub keeps no catalog to refresh on this side.
pub(super) fn refresh(config: &SkillsConfig, hooks: &Hooks) -> Result<Status, Error> {
    let hub = Hub::new(config, hooks, timeout(None))?;
    Ok(hub.status(0, Vec::new()))
}

/// The skill `id` names (`@namespace/slug` or a bare slug), as skillhub describes it.
pub(super) async fn show(config: &SkillsConfig, hooks: &Hooks, id: &str) -> Result<Details, Error> {
    let wanted = Coordinates::parse(id).map_err(|error| super::invalid(&error))?;
    let hub = Hub::new(config, hooks, timeout(None))?;
    let url = hub.url(
        &hub.base,
        &["api", "v1", "skills", namespace_of(&wanted), &wanted.slug],
        &[],
    )?;
    let answer = hub.get(&url, hub::MAX_JSON_BYTES).await?;
    if answer.status == 404 {
        return Err(Error::SkillNotFound {
            name: wanted.to_string(),
            suggestion: None,
        });
    }
    let detail: Detail = data(&hub, &answer)?;
    let mut entry = entry_of(detail.summary).map_err(Error::InvalidInput)?;
    entry.author = detail.owner_display_name.unwrap_or_default();
    Ok(Details {
        entry,
        notes: Vec::new(),
        catalog: hub.status(1, Vec::new()),
    })
}

/// `sha256:` and the lowercase hex digest of the lines `path:sha256(file)\n`, sorted by path:
/// skillhub's fingerprint of a version's files.
pub(super) fn fingerprint(files: &[(String, Vec<u8>)]) -> String {
    let mut sorted: Vec<&(String, Vec<u8>)> = files.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut digest = Sha256::new();
    for (path, bytes) in sorted {
        digest.update(format!("{path}:{:x}\n", Sha256::digest(bytes)).as_bytes());
    }
    format!("sha256:{:x}", digest.finalize())
}

/// Whether `expected` is spelled `sha256:<64 lowercase hex>`.
fn is_fingerprint(expected: &str) -> bool {
    expected.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Installs the skill `request.id` names: `@namespace/slug[@version|@tag]` or a bare slug
/// (the global namespace).
pub(super) async fn install(
    config: &SkillsConfig,
    hooks: &Hooks,
    request: &InstallRequest,
) -> Result<InstallOutcome, Error> {
    let wanted = Coordinates::parse(&request.id).map_err(|error| super::invalid(&error))?;
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
    let namespace = namespace_of(&wanted);
    let pin = match &wanted.pin {
        Some(Pin::Version(version)) => vec![("version", version.as_str())],
        Some(Pin::Tag(tag)) => vec![("tag", tag.as_str())],
        None => Vec::new(),
    };
    let url = hub.url(
        &hub.base,
        &["api", "v1", "skills", namespace, &wanted.slug, "resolve"],
        &pin,
    )?;
    let answer = hub.get(&url, hub::MAX_JSON_BYTES).await?;
    if answer.status == 404 {
        return Err(Error::SkillNotFound {
            name: wanted.to_string(),
            suggestion: Some(coordinates.to_string()).filter(|_| wanted.pin.is_some()),
        });
    }
    let resolved: Resolved = data(hub, &answer)?;
    let expected = resolved
        .fingerprint
        .filter(|fingerprint| is_fingerprint(fingerprint))
        .ok_or_else(|| Error::InvalidPackage {
            source_url: skills_net::policy::redact(&url),
            reason: "skillhub gave no fingerprint of the form sha256:<64 lowercase hex \
                     digits>, so the download could not be verified"
                .to_owned(),
        })?;
    let download = hub.join(&hub.base, &resolved.download_url)?;
    let answer = hub.get(&download, hub::MAX_ZIP_BYTES).await?;
    if !(200..300).contains(&answer.status) {
        let said = serde_json::from_slice::<Envelope<serde_json::Value>>(&answer.body)
            .ok()
            .and_then(|envelope| envelope.msg)
            .map_or_else(|| hub.said(&answer), |msg| hub.shown(&msg));
        return Err(hub.failure(&answer, &said));
    }
    // The zip's own digest, when that is what the server gave, is checked before extraction.
    let whole = skills_net::digest::check_digest(&answer.body, &expected).is_ok();
    let planned = Planned {
        coordinates,
        id: wanted.unpinned().to_string(),
        version: resolved.version,
        kind: KIND,
        url: &answer.url,
        warnings: Vec::new(),
    };
    let check = |files: &[(String, Vec<u8>)]| {
        let actual = fingerprint(files);
        if whole || actual == expected {
            Ok(())
        } else {
            Err(format!(
                "its files' fingerprint is {actual}, not {expected} as skillhub's resolve says"
            ))
        }
    };
    hub::install_zip(
        config,
        hub,
        &target,
        crate::install::Force {
            replace: request.force,
            audit: request.audit,
        },
        &answer.body,
        planned,
        check,
    )
    .await
}

/// The URL a coordinates' skill page has, for messages and tests.
#[cfg(test)]
fn page(hub: &Hub, coordinates: &Coordinates) -> Result<url::Url, Error> {
    hub.url(
        &hub.base,
        &[
            "api",
            "v1",
            "skills",
            namespace_of(coordinates),
            &coordinates.slug,
        ],
        &[],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_is_over_sorted_path_and_digest_lines() {
        let files = vec![
            ("scripts/run.sh".to_owned(), b"echo hi\n".to_vec()),
            ("SKILL.md".to_owned(), b"---\nname: x\n---\n".to_vec()),
        ];
        let lines = format!(
            "SKILL.md:{:x}\nscripts/run.sh:{:x}\n",
            Sha256::digest(b"---\nname: x\n---\n"),
            Sha256::digest(b"echo hi\n")
        );
        assert_eq!(
            fingerprint(&files),
            format!("sha256:{:x}", Sha256::digest(lines.as_bytes()))
        );
        let mut reversed = files.clone();
        reversed.reverse();
        assert_eq!(fingerprint(&files), fingerprint(&reversed));
        let mut changed = files.clone();
        changed[0].1.push(b'!');
        assert_ne!(fingerprint(&files), fingerprint(&changed));
    }

    #[test]
    fn fingerprints_are_spelled_one_way() {
        assert!(is_fingerprint(&format!("sha256:{}", "a".repeat(64))));
        assert!(!is_fingerprint(&format!("sha256:{}", "A".repeat(64))));
        assert!(!is_fingerprint(&format!("sha512:{}", "a".repeat(64))));
        assert!(!is_fingerprint("sha256:abc"));
    }

    #[test]
    fn search_results_are_named_by_namespace_with_global_bare() {
        let summary = |namespace: &str| Summary {
            slug: "pdf".to_owned(),
            display_name: Some("PDF".to_owned()),
            summary: None,
            namespace: Some(namespace.to_owned()),
            published_version: Some(LifecycleVersion {
                version: Some("1.2.0".to_owned()),
            }),
            headline_version: None,
        };
        let team = entry_of(summary("team")).unwrap();
        assert_eq!(team.name, "@team/pdf");
        assert_eq!(team.source, "team");
        assert_eq!(team.version, "1.2.0");
        assert_eq!(team.description, "PDF");
        let global = entry_of(summary("global")).unwrap();
        assert_eq!(global.name, "pdf");
        assert_eq!(global.source, "global");
        assert!(entry_of(summary("../x")).is_err());
    }

    #[test]
    fn global_coordinates_ask_for_the_global_namespace() {
        let mut config = SkillsConfig::new("/w", "/h");
        config.registry.catalog_url = Some("https://hub.example.com".to_owned());
        let hub = Hub::new(
            &config,
            &Hooks::default(),
            std::time::Duration::from_secs(5),
        )
        .unwrap();
        for text in ["pdf", "@global/pdf", "global--pdf"] {
            let coordinates = Coordinates::parse(text).unwrap();
            assert_eq!(
                page(&hub, &coordinates).unwrap().as_str(),
                "https://hub.example.com/api/v1/skills/global/pdf",
                "{text}"
            );
        }
    }
}
