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
mod catalog;
mod clawhub;
mod hub;
mod resolve;
mod skillhub;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::PathBuf;

use skills_net::policy::Policy;
use skills_types::install::{AgentTarget, Hooks, InstallOutcome, RegistryKind};
use skills_types::limits::MAX_CATALOG_ENTRIES;
use skills_types::manage::Uninstalled;
use skills_types::registry::{
    Coordinates, Count, Counts, Details, Entry, InstallRequest, Listing, Pin, Query, Status,
};
use skills_types::{Error, SkillScope, SkillsConfig};

use crate::install::{self, Naming};
use crate::namespace::{check_namespace, installed_from};
use crate::source::Source;
use crate::write::{self, Registered};

use cache::{Catalog, Want};
pub use resolve::{OFFICIAL_REPOSITORY, Resolved};

/// The tag that always means the version the catalog offers.
const LATEST: &str = "latest";

/// Every entry (only those of `category`, ignoring case, when given), sorted by name. A cache
/// older than an hour is answered at once and refreshed once in the background.
pub async fn browse(
    config: &SkillsConfig,
    hooks: &Hooks,
    category: Option<&str>,
) -> Result<Listing, Error> {
    let config = &effective(config);
    match config.registry.kind {
        RegistryKind::Clawhub => return clawhub::browse(config, hooks, category).await,
        RegistryKind::Skillhub => return skillhub::browse(config, hooks, category).await,
        RegistryKind::Catalog => {}
    }
    let loaded = cache::load(config, hooks, Want::Cached).await?;
    let mut query = Query::default();
    query.category = category.map(str::to_owned);
    Ok(Listing {
        entries: search_cached(&loaded.catalog, &query)?,
        catalog: loaded.status,
    })
}

/// The entries matching `query`, best first (see [`search_entries`]). A stale cache is
/// refreshed first; when that fails the cached copy answers, with a warning.
pub async fn search(config: &SkillsConfig, hooks: &Hooks, query: &Query) -> Result<Listing, Error> {
    let config = &effective(config);
    match config.registry.kind {
        RegistryKind::Clawhub => return clawhub::search(config, hooks, query).await,
        RegistryKind::Skillhub => return skillhub::search(config, hooks, query).await,
        RegistryKind::Catalog => {}
    }
    let loaded = cache::load(config, hooks, Want::Fresh).await?;
    Ok(Listing {
        entries: search_cached(&loaded.catalog, query)?,
        catalog: loaded.status,
    })
}

/// The categories and how many entries each holds, sorted by name.
pub async fn categories(config: &SkillsConfig, hooks: &Hooks) -> Result<Counts, Error> {
    let config = &effective(config);
    if let kind @ (RegistryKind::Clawhub | RegistryKind::Skillhub) = config.registry.kind {
        return Err(Error::Unsupported {
            reason: format!("a {} registry has no categories", kind.as_str()),
        });
    }
    let loaded = cache::load(config, hooks, Want::Cached).await?;
    Ok(Counts {
        counts: tally_cached(&loaded.catalog, |entry| &entry.category)?,
        catalog: loaded.status,
    })
}

/// The sources and how many entries each holds, sorted by name.
pub async fn sources(config: &SkillsConfig, hooks: &Hooks) -> Result<Counts, Error> {
    let config = &effective(config);
    match config.registry.kind {
        RegistryKind::Clawhub => {
            return Err(Error::Unsupported {
                reason: "a clawhub registry has no sources".to_owned(),
            });
        }
        RegistryKind::Skillhub => return skillhub::sources(config, hooks).await,
        RegistryKind::Catalog => {}
    }
    let loaded = cache::load(config, hooks, Want::Cached).await?;
    Ok(Counts {
        counts: tally_cached(&loaded.catalog, |entry| &entry.source)?,
        catalog: loaded.status,
    })
}

/// Fetches the catalog now, whatever the cache holds (concurrent refreshes share one request).
pub async fn refresh(config: &SkillsConfig, hooks: &Hooks) -> Result<Status, Error> {
    let config = &effective(config);
    match config.registry.kind {
        RegistryKind::Clawhub => return clawhub::refresh(config, hooks).await,
        RegistryKind::Skillhub => return skillhub::refresh(config, hooks),
        RegistryKind::Catalog => {}
    }
    Ok(cache::load(config, hooks, Want::Refetched).await?.status)
}

/// The entry `id` names (any coordinates; a version must be the one offered), as the
/// registry describes it: for ClawHub with its moderation state, for a catalog as cached.
pub async fn show(config: &SkillsConfig, hooks: &Hooks, id: &str) -> Result<Details, Error> {
    let config = &effective(config);
    match config.registry.kind {
        RegistryKind::Clawhub => return clawhub::show(config, hooks, id).await,
        RegistryKind::Skillhub => return skillhub::show(config, hooks, id).await,
        RegistryKind::Catalog => {}
    }
    let wanted = wanted_of(id)?;
    let loaded = cache::load(config, hooks, Want::Cached).await?;
    let candidates = candidates_cached(&loaded.catalog, &wanted)?;
    let entry = find(&candidates, &wanted)?.clone();
    Ok(Details {
        entry,
        notes: Vec::new(),
        catalog: loaded.status,
    })
}

/// Installs the entry `request.id` names, under its bare slug.
pub async fn install(
    config: &SkillsConfig,
    hooks: &Hooks,
    request: &InstallRequest,
) -> Result<InstallOutcome, Error> {
    let config = &effective(config);
    match config.registry.kind {
        RegistryKind::Clawhub => return clawhub::install(config, hooks, request).await,
        RegistryKind::Skillhub => return skillhub::install(config, hooks, request).await,
        RegistryKind::Catalog => {}
    }
    let wanted = wanted_of(&request.id)?;
    let target =
        write::target(config, request.scope, request.agent)?.linking(config, &request.agents)?;
    let total = install::timeout(request.timeout_secs);
    let loaded = cache::load_within(config, hooks, Want::Fresh, total).await?;
    let candidates = candidates_cached(&loaded.catalog, &wanted)?;
    let entry = find(&candidates, &wanted)?;
    let coordinates = entry.coordinates().map_err(|error| invalid(&error))?;
    // Before anything is downloaded; the writer checks again under the root's lock.
    if !request.force {
        check_namespace(&target.root, &coordinates)?;
    }
    let policy = install::policy_of(config)?;
    let resolved = resolve_entry(config, entry, &coordinates, &policy)?;
    let source = source_of(config, &resolved, &policy)?;
    let client = client_for(config, hooks, total)?;
    let naming = Naming {
        kind: skills_types::install::SourceKind::Registry,
        slug: Some(coordinates.slug.clone()),
        registry: Some(Registered {
            coordinates,
            id: entry.name.clone(),
            version: Some(entry.version.clone()).filter(|version| !version.is_empty()),
            catalog: loaded.status.url.clone(),
        }),
    };
    let outcomes = install::install_from(
        config,
        &client,
        &source,
        &target,
        install::Force {
            replace: request.force,
            audit: request.audit,
        },
        &naming,
    )
    .await?;
    let mut outcome = outcomes.into_iter().next().ok_or_else(|| {
        Error::InvalidInput(format!("the registry entry '{}' held no skill", entry.name))
    })?;
    outcome.warnings.extend(loaded.status.warnings);
    Ok(outcome)
}

/// The coordinates `text` asks for: coordinates, or a display name of the catalog
/// (`PDF.Tools`), which names the slug it maps to.
fn wanted_of(text: &str) -> Result<Coordinates, Error> {
    Coordinates::parse(text)
        .or_else(|error| Entry::new(text.trim()).coordinates().map_err(|_| error))
        .map_err(|error| invalid(&error))
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

/// The configuration with the home `skills.toml` layered on: `[registry]` lives there (09
/// §Registries), and the caller's values win.
fn effective(config: &SkillsConfig) -> SkillsConfig {
    skills_ops::discover::home_config(config)
}

/// Reads a catalog: a JSON array of entries, streamed one entry at a time
/// (`registry/catalog.rs`). Entries that are not objects, have no valid name, give a known
/// field the wrong type or repeat an id are skipped with a warning; unknown fields are
/// ignored; more than [`MAX_CATALOG_ENTRIES`] refuses the catalog. Sorted by name.
pub fn parse_catalog(bytes: &[u8]) -> Result<(Vec<Entry>, Vec<String>), String> {
    catalog::read_all(bytes, MAX_CATALOG_ENTRIES).map_err(|refusal| refusal.to_string())
}

/// The entries matching `query`, best first: an entry matches when every word of the text
/// appears, ignoring case, in its name, description or tags, and its category and source equal
/// the query's (ignoring case) when those are given. Ranked by where the words were found
/// (the whole name, part of the name, a whole tag, part of a tag, the description), then by
/// name. An empty text keeps the catalog's order (by name).
pub fn search_entries(entries: &[Entry], query: &Query) -> Vec<Entry> {
    let terms = terms_of(query);
    let hits = entries
        .iter()
        .filter_map(|entry| matching(entry, query, &terms).map(|rank| (rank, entry.clone())))
        .collect();
    ranked(hits)
}

/// [`search_entries`] over the cached catalog, read one record at a time: only the matches
/// are kept in memory.
fn search_cached(catalog: &Catalog, query: &Query) -> Result<Vec<Entry>, Error> {
    let terms = terms_of(query);
    let mut hits = Vec::new();
    catalog.scan(|entry| {
        if let Some(rank) = matching(&entry, query, &terms) {
            hits.push((rank, entry));
        }
    })?;
    Ok(ranked(hits))
}

fn terms_of(query: &Query) -> Vec<String> {
    query
        .text
        .split_whitespace()
        .map(str::to_lowercase)
        .collect()
}

/// The rank of `entry` for `query`, or `None` when it does not match.
fn matching(entry: &Entry, query: &Query, terms: &[String]) -> Option<u32> {
    let wanted = |filter: &Option<String>, value: &str| {
        filter
            .as_deref()
            .is_none_or(|filter| filter.trim().to_lowercase() == value.trim().to_lowercase())
    };
    if !wanted(&query.category, &entry.category) || !wanted(&query.source, &entry.source) {
        return None;
    }
    rank(entry, terms)
}

/// Best first, then by name.
fn ranked(mut hits: Vec<(u32, Entry)>) -> Vec<Entry> {
    hits.sort_by(|(a_rank, a), (b_rank, b)| a_rank.cmp(b_rank).then(a.name.cmp(&b.name)));
    hits.into_iter().map(|(_, entry)| entry).collect()
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
#[cfg(test)]
fn tally(entries: &[Entry], field: impl Fn(&Entry) -> &String) -> Vec<Count> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for entry in entries {
        count(&mut counts, field(entry));
    }
    sorted_counts(counts)
}

/// [`tally`] over the cached catalog, one record at a time.
fn tally_cached(catalog: &Catalog, field: impl Fn(&Entry) -> &String) -> Result<Vec<Count>, Error> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    catalog.scan(|entry| count(&mut counts, field(&entry)))?;
    Ok(sorted_counts(counts))
}

fn count(counts: &mut BTreeMap<String, usize>, value: &str) {
    let value = value.trim();
    if value.is_empty() {
        return;
    }
    match counts.get_mut(value) {
        Some(count) => *count += 1,
        None => {
            counts.insert(value.to_owned(), 1);
        }
    }
}

fn sorted_counts(counts: BTreeMap<String, usize>) -> Vec<Count> {
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

/// The cached entries [`find`] may answer with for `wanted`: those of its slug, and those
/// whose slug holds it or is held by it (the suggestions), sorted by name.
fn candidates_cached(catalog: &Catalog, wanted: &Coordinates) -> Result<Vec<Entry>, Error> {
    let mut candidates = Vec::new();
    catalog.scan(|entry| {
        if let Ok(found) = entry.coordinates()
            && (found.slug.contains(&wanted.slug) || wanted.slug.contains(&found.slug))
        {
            candidates.push(entry);
        }
    })?;
    candidates.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(candidates)
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

/// Where an entry is installed from (`registry/resolve.rs`): its `sourceUrl`, else its
/// `installIdentifier`, else the download base's `<category>/<name>/SKILL.md`.
pub fn resolve_entry(
    config: &SkillsConfig,
    entry: &Entry,
    coordinates: &Coordinates,
    policy: &Policy,
) -> Result<Resolved, Error> {
    let bases =
        crate::github::Bases::new(config.github.url.as_deref()).map_err(Error::InvalidInput)?;
    resolve::resolve(
        entry,
        coordinates,
        config.registry.download_base_url.as_deref(),
        &bases,
        policy,
    )
}

/// The source a resolved entry is installed through: what `skills install` makes of the same
/// text (the URL classified, the GitHub shorthand through the configured GitHub bases).
fn source_of(config: &SkillsConfig, resolved: &Resolved, policy: &Policy) -> Result<Source, Error> {
    match resolved {
        // A download base's folder is that folder, never a site whose root is looked at too.
        Resolved::Folder(url) => Ok(Source::Folder(url.clone())),
        other => install::resolve(config, &other.text(), policy),
    }
}

/// A client for the registry: its token (09 §Registries, Tokens) goes to the origin of the
/// registry's URL only, whatever the requests of an install go on to reach.
pub(crate) fn client_for(
    config: &SkillsConfig,
    hooks: &Hooks,
    total: std::time::Duration,
) -> Result<skills_net::client::Client, Error> {
    install::registry_client(config, hooks, total)
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
