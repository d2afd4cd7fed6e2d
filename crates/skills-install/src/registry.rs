//! The registry catalog (03 §Registry catalog, §Coordinates): reading a catalog, answering
//! browse, search, categories and sources from it, and installing and uninstalling its entries.
//!
//! A catalog is untrusted input like any download: its URL passes the URL policy, it is
//! fetched through the guarded client with an 8 MiB cap, and an entry's name becomes a folder
//! only after it parses as coordinates (so no name can climb out of a skill root). Entries that
//! do not read are skipped with a warning rather than failing the whole catalog: one
//! publisher's typo should not hide every other entry. The catalog is cached
//! (`registry/cache.rs`).
//!
//! Installing an entry goes through the same path as any install (`install::install_from`):
//! the download is checked in memory, written atomically under the root's lock and recorded
//! with its provenance, here with the entry's coordinates added. The folder is always the bare
//! slug, and a skill another namespace installed under that slug is a conflict, found before
//! the download and again under the lock.

mod cache;
mod clawhub;
mod hub;
mod skillhub;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use skills_types::files::{PROVENANCE_FILE, SKILL_MD};
use skills_types::install::{AgentTarget, Hooks, InstallOutcome, RegistryKind};
use skills_types::limits::{KIB, MAX_CATALOG_ENTRIES};
use skills_types::manage::Uninstalled;
use skills_types::registry::{
    Coordinates, Count, Counts, Entry, InstallRequest, Listing, Pin, Query, Status,
};
use skills_types::{Error, SkillScope, SkillsConfig};
use url::Url;

use crate::install::{self, Naming};
use crate::policy::{self, Policy};
use crate::source::{self, Source};
use crate::write::{self, Registered};

use cache::Want;

/// Warnings kept about skipped entries; the rest are counted in one more line.
const MAX_WARNINGS: usize = 20;
/// Largest provenance record read when looking for an installed skill's coordinates.
const MAX_RECORD_BYTES: u64 = 64 * KIB;
/// Longest category that may become a folder of a download URL.
const MAX_CATEGORY_CHARS: usize = 128;
/// The tag that always means the version the catalog offers.
const LATEST: &str = "latest";

/// Every entry (only those of `category`, ignoring case, when given), sorted by name. A cache
/// older than an hour is answered at once and refreshed once in the background.
pub async fn browse(
    config: &SkillsConfig,
    hooks: &Hooks,
    category: Option<&str>,
) -> Result<Listing, Error> {
    let hubbed = hub::effective(config);
    match hubbed.registry.kind {
        RegistryKind::Clawhub => return clawhub::browse(&hubbed, hooks, category).await,
        RegistryKind::Skillhub => return skillhub::browse(&hubbed, hooks, category).await,
        RegistryKind::Catalog => {}
    }
    let loaded = cache::load(config, hooks, Want::Cached).await?;
    let mut query = Query::default();
    query.category = category.map(str::to_owned);
    Ok(Listing {
        entries: search_entries(&loaded.catalog.entries, &query),
        catalog: loaded.status,
    })
}

/// The entries matching `query`, best first (see [`search_entries`]). A stale cache is
/// refreshed first; when that fails the cached copy answers, with a warning.
pub async fn search(config: &SkillsConfig, hooks: &Hooks, query: &Query) -> Result<Listing, Error> {
    let hubbed = hub::effective(config);
    match hubbed.registry.kind {
        RegistryKind::Clawhub => return clawhub::search(&hubbed, hooks, query).await,
        RegistryKind::Skillhub => return skillhub::search(&hubbed, hooks, query).await,
        RegistryKind::Catalog => {}
    }
    let loaded = cache::load(config, hooks, Want::Fresh).await?;
    Ok(Listing {
        entries: search_entries(&loaded.catalog.entries, query),
        catalog: loaded.status,
    })
}

/// The categories and how many entries each holds, sorted by name.
pub async fn categories(config: &SkillsConfig, hooks: &Hooks) -> Result<Counts, Error> {
    if let kind @ (RegistryKind::Clawhub | RegistryKind::Skillhub) =
        hub::effective(config).registry.kind
    {
        return Err(Error::InvalidInput(format!(
            "a {} registry has no categories",
            kind.as_str()
        )));
    }
    let loaded = cache::load(config, hooks, Want::Cached).await?;
    Ok(Counts {
        counts: tally(&loaded.catalog.entries, |entry| &entry.category),
        catalog: loaded.status,
    })
}

/// The sources and how many entries each holds, sorted by name.
pub async fn sources(config: &SkillsConfig, hooks: &Hooks) -> Result<Counts, Error> {
    let hubbed = hub::effective(config);
    match hubbed.registry.kind {
        RegistryKind::Clawhub => {
            return Err(Error::InvalidInput(
                "a clawhub registry has no sources".to_owned(),
            ));
        }
        RegistryKind::Skillhub => return skillhub::sources(&hubbed, hooks).await,
        RegistryKind::Catalog => {}
    }
    let loaded = cache::load(config, hooks, Want::Cached).await?;
    Ok(Counts {
        counts: tally(&loaded.catalog.entries, |entry| &entry.source),
        catalog: loaded.status,
    })
}

/// Fetches the catalog now, whatever the cache holds (concurrent refreshes share one request).
pub async fn refresh(config: &SkillsConfig, hooks: &Hooks) -> Result<Status, Error> {
    let hubbed = hub::effective(config);
    match hubbed.registry.kind {
        RegistryKind::Clawhub => return clawhub::refresh(&hubbed, hooks).await,
        RegistryKind::Skillhub => return skillhub::refresh(&hubbed, hooks),
        RegistryKind::Catalog => {}
    }
    Ok(cache::load(config, hooks, Want::Refetched).await?.status)
}

/// Installs the entry `request.id` names, under its bare slug.
pub async fn install(
    config: &SkillsConfig,
    hooks: &Hooks,
    request: &InstallRequest,
) -> Result<InstallOutcome, Error> {
    let hubbed = hub::effective(config);
    match hubbed.registry.kind {
        RegistryKind::Clawhub => return clawhub::install(&hubbed, hooks, request).await,
        RegistryKind::Skillhub => return skillhub::install(&hubbed, hooks, request).await,
        RegistryKind::Catalog => {}
    }
    let wanted = Coordinates::parse(&request.id).map_err(|error| invalid(&error))?;
    let target = write::target(config, request.scope, request.agent)?;
    let total = install::timeout(request.timeout_secs);
    let loaded = cache::load_within(config, hooks, Want::Fresh, total).await?;
    let entry = find(&loaded.catalog.entries, &wanted)?;
    let coordinates = entry.coordinates().map_err(|error| invalid(&error))?;
    // Before anything is downloaded; the writer checks again under the root's lock.
    if !request.force {
        check_namespace(&target.root, &coordinates)?;
    }
    let policy = install::policy_of(config)?;
    let url = download_url(config, entry, &coordinates, &policy)?;
    let client = install::client(policy, hooks, total)?;
    let naming = Naming {
        kind: "registry",
        slug: Some(coordinates.slug.clone()),
        registry: Some(Registered {
            coordinates,
            id: entry.name.clone(),
            version: Some(entry.version.clone()).filter(|version| !version.is_empty()),
            catalog: loaded.status.url.clone(),
        }),
    };
    let source = Source::SkillFile(url);
    let outcomes =
        install::install_from(config, &client, &source, &target, request.force, &naming).await?;
    let mut outcome = outcomes.into_iter().next().ok_or_else(|| {
        Error::InvalidInput(format!("the registry entry '{}' held no skill", entry.name))
    })?;
    outcome.warnings.extend(loaded.status.warnings);
    Ok(outcome)
}

/// Removes the skill installed under the slug of `name` (any coordinates; a version is
/// ignored). When `name` has a namespace, a skill installed there from another namespace is
/// left alone.
pub fn uninstall(
    config: &SkillsConfig,
    name: &str,
    scope: Option<SkillScope>,
) -> Result<Uninstalled, Error> {
    let wanted = Coordinates::parse(name).map_err(|error| invalid(&error))?;
    if wanted.namespace.is_some() {
        for root in roots(config, scope) {
            if let Some(installed) = installed_from(&root, &wanted.slug)
                && !installed.same_skill(&wanted)
            {
                return Err(Error::InvalidInput(format!(
                    "{} holds {installed} from the registry, not {}; nothing was removed \
                     (uninstall '{}' to remove it anyway)",
                    root.join(&wanted.slug).display(),
                    wanted.unpinned(),
                    wanted.slug
                )));
            }
        }
    }
    skills_ops::manage::uninstall(config, &wanted.slug, scope)
}

/// Reads a catalog: a JSON array of entries. Entries that are not objects, have no valid
/// name, give a known field the wrong type or repeat an id are skipped with a warning; unknown
/// fields are ignored. Sorted by name.
pub fn parse_catalog(bytes: &[u8]) -> Result<(Vec<Entry>, Vec<String>), String> {
    let values = match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Array(values)) => values,
        Ok(other) => {
            return Err(format!(
                "the catalog is a JSON {}, not an array of entries",
                json_kind(&other)
            ));
        }
        Err(error) => return Err(format!("the catalog is not valid JSON: {error}")),
    };
    let mut entries = Vec::with_capacity(values.len().min(MAX_CATALOG_ENTRIES));
    let mut warnings = Vec::new();
    let mut skipped = 0usize;
    let mut skip = |warning: String| {
        skipped += 1;
        if warnings.len() < MAX_WARNINGS {
            warnings.push(warning);
        }
    };
    let mut ids: HashMap<String, usize> = HashMap::new();
    for (index, value) in values.into_iter().enumerate() {
        if entries.len() == MAX_CATALOG_ENTRIES {
            skip(format!(
                "entry {index} and the rest are skipped: a catalog is read up to {MAX_CATALOG_ENTRIES} entries"
            ));
            break;
        }
        match entry_of(value) {
            Ok((entry, coordinates)) => match ids.get(&coordinates.canonical()) {
                Some(first) => skip(format!(
                    "entry {index} ('{}') is skipped: entry {first} has the same id",
                    entry.name
                )),
                None => {
                    ids.insert(coordinates.canonical(), index);
                    entries.push(entry);
                }
            },
            Err(reason) => skip(format!("entry {index} is skipped: {reason}")),
        }
    }
    if skipped > warnings.len() {
        warnings.push(format!(
            "... {} more entries were skipped",
            skipped - warnings.len()
        ));
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((entries, warnings))
}

/// One entry, its known fields type-checked.
fn entry_of(value: Value) -> Result<(Entry, Coordinates), String> {
    let Value::Object(mut fields) = value else {
        return Err(format!("it is a JSON {}, not an object", json_kind(&value)));
    };
    let name = match fields.remove("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.trim().to_owned(),
        Some(Value::String(_)) | Some(Value::Null) | None => return Err("it has no name".into()),
        Some(other) => return Err(format!("its name is a {}", json_kind(&other))),
    };
    let mut entry = Entry::new(name);
    let coordinates = entry.coordinates().map_err(|error| error.to_string())?;
    let field = |fields: &mut Map<String, Value>, key: &str| -> Result<Option<String>, String> {
        match fields.remove(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(other) => Err(format!(
                "'{}': '{key}' is a {}, not a string",
                coordinates,
                json_kind(&other)
            )),
        }
    };
    let list = |fields: &mut Map<String, Value>, key: &str| -> Result<Vec<String>, String> {
        let wrong = |what: &Value| {
            format!(
                "'{}': '{key}' holds a {}, not only strings",
                coordinates,
                json_kind(what)
            )
        };
        match fields.remove(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|item| match item {
                    Value::String(text) => Ok(text),
                    other => Err(wrong(&other)),
                })
                .collect(),
            Some(other) => Err(wrong(&other)),
        }
    };
    entry.description = field(&mut fields, "description")?.unwrap_or_default();
    entry.source = field(&mut fields, "source")?.unwrap_or_default();
    entry.category = field(&mut fields, "category")?.unwrap_or_default();
    entry.author = field(&mut fields, "author")?.unwrap_or_default();
    entry.version = field(&mut fields, "version")?.unwrap_or_default();
    entry.license = field(&mut fields, "license")?.unwrap_or_default();
    entry.tags = list(&mut fields, "tags")?;
    entry.platforms = list(&mut fields, "platforms")?;
    entry.docs_path = field(&mut fields, "docsPath")?;
    entry.source_url = field(&mut fields, "sourceUrl")?;
    Ok((entry, coordinates))
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The entries matching `query`, best first: an entry matches when every word of the text
/// appears, ignoring case, in its name, description or tags, and its category and source equal
/// the query's (ignoring case) when those are given. Ranked by where the words were found
/// (the whole name, part of the name, a whole tag, part of a tag, the description), then by
/// name. An empty text keeps the catalog's order (by name).
pub fn search_entries(entries: &[Entry], query: &Query) -> Vec<Entry> {
    let terms: Vec<String> = query
        .text
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    let wanted = |filter: &Option<String>, value: &str| {
        filter
            .as_deref()
            .is_none_or(|filter| filter.trim().to_lowercase() == value.trim().to_lowercase())
    };
    let mut hits: Vec<(u32, &Entry)> = entries
        .iter()
        .filter(|entry| wanted(&query.category, &entry.category))
        .filter(|entry| wanted(&query.source, &entry.source))
        .filter_map(|entry| rank(entry, &terms).map(|rank| (rank, entry)))
        .collect();
    hits.sort_by(|(a_rank, a), (b_rank, b)| a_rank.cmp(b_rank).then(a.name.cmp(&b.name)));
    hits.into_iter().map(|(_, entry)| entry.clone()).collect()
}

/// Lower is better; `None` when a word is found nowhere.
fn rank(entry: &Entry, terms: &[String]) -> Option<u32> {
    if terms.is_empty() {
        return Some(0);
    }
    let name = entry.name.to_lowercase();
    let slug = entry
        .coordinates()
        .map(|coordinates| coordinates.slug)
        .unwrap_or_default();
    let tags: Vec<String> = entry.tags.iter().map(|tag| tag.to_lowercase()).collect();
    let description = entry.description.to_lowercase();
    terms.iter().try_fold(0u32, |total, term| {
        let place = if name == *term || slug == *term {
            0
        } else if name.contains(term.as_str()) {
            1
        } else if tags.iter().any(|tag| tag == term) {
            2
        } else if tags.iter().any(|tag| tag.contains(term.as_str())) {
            3
        } else if description.contains(term.as_str()) {
            4
        } else {
            return None;
        };
        Some(total + place)
    })
}

/// How many entries each value of a field holds, sorted by name ignoring case; empty values
/// are not counted.
fn tally(entries: &[Entry], field: impl Fn(&Entry) -> &String) -> Vec<Count> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for entry in entries {
        let value = field(entry).trim();
        if !value.is_empty() {
            *counts.entry(value).or_default() += 1;
        }
    }
    let mut counts: Vec<Count> = counts
        .into_iter()
        .map(|(name, count)| Count::new(name, count))
        .collect();
    counts.sort_by(|a, b| {
        a.name
            .to_lowercase()
            .cmp(&b.name.to_lowercase())
            .then(a.name.cmp(&b.name))
    });
    counts
}

/// The entry `wanted` names, with the version or tag it asks for.
fn find<'a>(entries: &'a [Entry], wanted: &Coordinates) -> Result<&'a Entry, Error> {
    let coordinates_of = |entry: &Entry| entry.coordinates().ok();
    let Some(entry) = entries
        .iter()
        .find(|entry| coordinates_of(entry).is_some_and(|found| found.same_skill(wanted)))
    else {
        // The same slug in another namespace, else a name holding the slug (or held by it).
        let suggestion = entries
            .iter()
            .filter_map(coordinates_of)
            .find(|found| found.slug == wanted.slug)
            .or_else(|| {
                entries.iter().filter_map(coordinates_of).find(|found| {
                    found.slug.contains(&wanted.slug) || wanted.slug.contains(&found.slug)
                })
            })
            .map(|found| found.to_string());
        return Err(Error::SkillNotFound {
            name: wanted.to_string(),
            suggestion,
        });
    };
    let offered = entry.version.trim();
    let matches = match &wanted.pin {
        None => true,
        Some(Pin::Tag(tag)) => tag == LATEST,
        Some(Pin::Version(version)) => {
            !offered.is_empty()
                && version.trim_start_matches('v') == offered.trim_start_matches('v')
        }
    };
    if matches {
        return Ok(entry);
    }
    let mut current = wanted.unpinned();
    if !offered.is_empty() {
        current = Coordinates::parse(&format!("{current}@{offered}")).unwrap_or(current);
    }
    Err(Error::SkillNotFound {
        name: wanted.to_string(),
        suggestion: Some(current.to_string()),
    })
}

/// Where an entry's `SKILL.md` is fetched from (03 §Registry catalog): the download base +
/// `<category>/<name>/SKILL.md` when a base is configured (the name in its canonical form,
/// `namespace--slug`), else a GitHub `sourceUrl` (a file page becomes the raw file, a folder
/// page its `SKILL.md`).
pub fn download_url(
    config: &SkillsConfig,
    entry: &Entry,
    coordinates: &Coordinates,
    policy: &Policy,
) -> Result<Url, Error> {
    if let Some(base) = config.registry.download_base_url.as_deref() {
        let refused = |reason: String| Error::UrlRefused {
            url: install::shown(base),
            reason,
        };
        let mut url = policy::parse(base, policy).map_err(|refusal| {
            install::refused(install::shown(base), &refusal, refusal.is_local(), policy)
        })?;
        let category = entry.category.trim();
        if !is_plain_segment(category) {
            return Err(Error::InvalidInput(format!(
                "the registry entry '{}' has the category '{}', which cannot be a folder of a download URL",
                entry.name,
                category.chars().take(80).collect::<String>().escape_debug()
            )));
        }
        {
            let mut segments = url
                .path_segments_mut()
                .map_err(|()| refused("it cannot be a base URL".to_owned()))?;
            segments.pop_if_empty();
            if !category.is_empty() {
                segments.push(category);
            }
            segments.push(&coordinates.canonical()).push(SKILL_MD);
        }
        return Ok(url);
    }
    let page = entry
        .source_url
        .as_deref()
        .or(entry.docs_path.as_deref())
        .filter(|page| !page.trim().is_empty())
        .unwrap_or(if entry.source.is_empty() {
            "none is listed"
        } else {
            &entry.source
        });
    if let Some(text) = entry.source_url.as_deref()
        && let Some(url) = github_skill_file(text, policy)?
    {
        return Ok(url);
    }
    Err(Error::InvalidInput(format!(
        "the registry entry '{}' cannot be installed: no download base URL is configured and \
         its sourceUrl is not a GitHub file or folder page; see its source page: {page}",
        entry.name
    )))
}

/// A category that is one harmless URL path segment (or empty).
fn is_plain_segment(text: &str) -> bool {
    text.chars().count() <= MAX_CATEGORY_CHARS
        && text != "."
        && text != ".."
        && !text
            .chars()
            .any(|c| matches!(c, '/' | '\\' | '%') || c.is_control())
}

/// The raw `SKILL.md` a GitHub `sourceUrl` points at: a file page (`blob/`) becomes the raw
/// file, a folder page (`tree/`) the `SKILL.md` in it; a raw file stays. `None` for anything
/// else.
pub fn github_skill_file(text: &str, policy: &Policy) -> Result<Option<Url>, Error> {
    let url = policy::parse(text, policy).map_err(|refusal| {
        install::refused(install::shown(text), &refusal, refusal.is_local(), policy)
    })?;
    let is_markdown = |url: &Url| url.path().to_ascii_lowercase().ends_with(".md");
    match url.host_str() {
        Some("raw.githubusercontent.com") if is_markdown(&url) => Ok(Some(url)),
        Some("github.com") => {
            if let Ok(Source::SkillFile(raw)) = source::classify(&url) {
                return Ok(Some(raw));
            }
            let segments: Vec<&str> = url
                .path_segments()
                .map(|segments| segments.filter(|segment| !segment.is_empty()).collect())
                .unwrap_or_default();
            let [owner, repository, "tree", reference, folder @ ..] = segments.as_slice() else {
                return Ok(None);
            };
            // The segments are still percent-encoded and hold no '/', so joining them is safe.
            let mut path = vec![*owner, *repository, *reference];
            path.extend(folder);
            path.push(SKILL_MD);
            let raw = format!("https://raw.githubusercontent.com/{}", path.join("/"));
            Url::parse(&raw)
                .map(Some)
                .map_err(|error| Error::InvalidInput(format!("{raw}: {error}")))
        }
        _ => Ok(None),
    }
}

/// Refuses to install `wanted` over a skill another namespace installed under its slug.
pub(crate) fn check_namespace(root: &Path, wanted: &Coordinates) -> Result<(), Error> {
    match installed_from(root, &wanted.slug) {
        Some(installed) if !installed.same_skill(wanted) => Err(Error::NamespaceConflict {
            path: root.join(&wanted.slug),
            installed: installed.to_string(),
            requested: wanted.unpinned().to_string(),
        }),
        _ => Ok(()),
    }
}

/// The registry coordinates the skill `<root>/<slug>` was installed from: read from its
/// provenance record, or, when that cannot be read, from the root's lock. `None` when nothing
/// is there or it did not come from the registry.
pub(crate) fn installed_from(root: &Path, slug: &str) -> Option<Coordinates> {
    let dir = root.join(slug);
    std::fs::symlink_metadata(&dir).ok()?;
    let record = read_record(&dir.join(PROVENANCE_FILE))
        .or_else(|| skills_ops::lock::read(root).ok()?.skills.get(slug).cloned())?;
    let text = record.get("registry")?.get("coordinates")?.as_str()?;
    Coordinates::parse(text)
        .ok()
        .map(|coordinates| coordinates.unpinned())
}

/// A small JSON file that is a regular file (a symlink or a FIFO is not read, and the check
/// and the read are one open, so nothing can be swapped in between).
fn read_record(path: &Path) -> Option<Value> {
    let bytes = skills_ops::fs::read_state_file(path, MAX_RECORD_BYTES).ok()??;
    serde_json::from_slice(&bytes).ok()
}

/// Every root a skill of `scope` (or of the user and project scopes) may be installed into.
fn roots(config: &SkillsConfig, scope: Option<SkillScope>) -> Vec<PathBuf> {
    let scopes = scope.map_or(vec![SkillScope::User, SkillScope::Project], |scope| {
        vec![scope]
    });
    let agents = [
        Some(AgentTarget::App),
        Some(AgentTarget::Agents),
        Some(AgentTarget::Claude),
    ];
    scopes
        .into_iter()
        .flat_map(|scope| agents.map(|agent| write::target(config, scope, agent)))
        .filter_map(Result::ok)
        .map(|target| target.root)
        .collect()
}

fn invalid(error: &impl std::fmt::Display) -> Error {
    Error::InvalidInput(error.to_string())
}
