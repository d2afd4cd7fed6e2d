//! What the two registry servers (ClawHub and skillhub, 09 §Registries) share: the one
//! function every request of theirs goes through, and the install of a downloaded zip.
//!
//! **The token.** `[registry]`'s token is sent as `Authorization: Bearer …` only to the
//! origin (scheme, host, port) of the configured registry URL. A ClawHub discovery document
//! may name an `apiBase` on another origin, a skillhub `downloadUrl` or redirect may point at
//! object storage: none of them gets it, so a hostile or compromised discovery document
//! cannot collect the user's token. The client drops the header on a redirect to another
//! origin. The token never enters a message: error bodies are cut, sanitised and have it
//! replaced before they are shown.
//!
//! **Rate limits.** A `429` is waited out as its `Retry-After` says, a few times, but never
//! past the install's deadline: a server asking for more time than is left is an error that
//! says so.
//!
//! **Archives.** A zip goes through the one extractor (`skills_net::archive`, every rule of 09
//! §Archives), is checked by the caller (skillhub's fingerprint) while it is still in
//! memory, and is written through the same staged, atomic install as every other source
//! (`install::install_fetched`).

use std::time::Duration;

use serde::de::DeserializeOwned;
use skills_net::archive::{self, Format, Limits};
use skills_net::client::{Answer, Bearer, Client};
use skills_net::policy::{self, Policy};
use skills_types::install::{Hooks, InstallOutcome};
use skills_types::limits::MIB;
use skills_types::registry::{Coordinates, Entry, Listing, Status};
use skills_types::{Error, SkillsConfig};
use tokio::time::Instant;
use url::Url;

use crate::fetch;
use crate::finder;
use crate::install::{self, Naming};
use crate::source::Source;
use crate::write::{self, Registered};

/// Largest JSON answer of a registry server (a page of a listing, one skill).
pub(super) const MAX_JSON_BYTES: u64 = 4 * MIB;
/// Largest zip downloaded from a registry server (the extractor's total limit applies too).
pub(super) const MAX_ZIP_BYTES: u64 = 64 * MIB;
/// Most `429` answers waited out for one request.
const MAX_RATE_LIMITED: usize = 3;
/// The wait after a `429` without a usable `Retry-After`.
const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(1);
/// Longest part of an error body shown in a message, in characters.
const MAX_SHOWN_CHARS: usize = 200;
/// What ClawHub adds to every zip beside the skill's files: registry metadata, not a file of
/// the skill.
const CLAWHUB_META_FILE: &str = "_meta.json";

/// An entry named `name`, which must be coordinates as typed (no display-name reading, no
/// pin): `install` reads the same text back, and the slug becomes a folder.
pub(super) fn entry_named(name: String) -> Result<Entry, String> {
    match Coordinates::parse(&name) {
        Ok(coordinates) if coordinates.pin.is_none() => Ok(Entry::new(name)),
        Ok(_) => Err(format!(
            "a skill is skipped: '{}' holds a version",
            name.escape_debug()
        )),
        Err(error) => Err(format!("a skill is skipped: {error}")),
    }
}

/// A registry server and the client that talks to it.
pub(super) struct Hub {
    /// The guarded client, with the install's policy and hooks.
    pub(super) client: Client,
    /// The registry URL as configured: its origin is the only one the token goes to.
    pub(super) base: Url,
    token: Option<String>,
    policy: Policy,
    deadline: Instant,
}

impl Hub {
    /// The registry of `config` (already layered with the home `skills.toml`); every request
    /// and wait must end within `total`.
    pub(super) fn new(
        config: &SkillsConfig,
        hooks: &Hooks,
        total: Duration,
    ) -> Result<Self, Error> {
        let text = config
            .registry
            .catalog_url
            .as_deref()
            .filter(|text| !text.trim().is_empty())
            .ok_or_else(|| Error::NotConfigured {
                what: "the registry catalog".to_owned(),
                how: format!(
                    "set [registry] url in the home skills.toml to the {} server's URL",
                    config.registry.kind.as_str()
                ),
            })?;
        let policy = install::policy_of(config)?;
        let base = policy::parse(text, &policy).map_err(|refusal| {
            install::refused(install::shown(text), &refusal, refusal.is_local(), &policy)
        })?;
        let token = config
            .registry
            .token
            .clone()
            .filter(|token| !token.trim().is_empty());
        // The token's one origin is the configured URL's, not an `apiBase` or `downloadUrl`
        // the server names.
        let bearer = token
            .as_ref()
            .map(|token| Bearer::new(&base, token.clone()));
        let client = install::client_with(policy.clone(), hooks, total, bearer)?;
        Ok(Self {
            client,
            base,
            token,
            policy,
            deadline: Instant::now() + total,
        })
    }

    /// The time left before the deadline.
    pub(super) fn left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// `base` with `segments` appended (each escaped, so a slug cannot climb out of its path)
    /// and `query` set.
    pub(super) fn url(
        &self,
        base: &Url,
        segments: &[&str],
        query: &[(&str, &str)],
    ) -> Result<Url, Error> {
        let mut url = base.clone();
        url.set_query(None);
        url.set_fragment(None);
        url.path_segments_mut()
            .map_err(|()| Error::UrlRefused {
                url: policy::redact(base),
                reason: "it cannot be a base URL".to_owned(),
            })?
            .pop_if_empty()
            .extend(segments);
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        Ok(url)
    }

    /// A URL the server gave (a relative `downloadUrl`, an `apiBase`), resolved against
    /// `base` and held to the URL policy like any other.
    pub(super) fn join(&self, base: &Url, text: &str) -> Result<Url, Error> {
        let url = base.join(text.trim()).map_err(|error| {
            Error::InvalidInput(format!(
                "the registry gave the URL '{}', which does not read: {error}",
                text.chars().take(80).collect::<String>().escape_debug()
            ))
        })?;
        policy::check(&url, &self.policy).map_err(|refusal| {
            install::refused(
                policy::redact(&url),
                &refusal,
                refusal.is_local(),
                &self.policy,
            )
        })?;
        Ok(url)
    }

    /// Every request of the two registry kinds: the token to the registry's own origin only
    /// (the client's [`Bearer`]), `429` waited out within the deadline. Any other status is handed back for the caller
    /// to judge (see [`Hub::failure`]).
    pub(super) async fn get(&self, url: &Url, cap: u64) -> Result<Answer, Error> {
        let mut limited = 0;
        loop {
            let answer = self
                .client
                .fetch_answer(url, cap)
                .await
                .map_err(|error| install::fetch_failure(url, error, &self.policy))?;
            if answer.status != 429 {
                return Ok(answer);
            }
            limited += 1;
            let wait = answer.retry_after.unwrap_or(DEFAULT_RETRY_AFTER);
            if limited > MAX_RATE_LIMITED {
                return Err(self.failure(&answer, "it kept answering 429 (rate limited)"));
            }
            if wait >= self.left() {
                return Err(self.failure(
                    &answer,
                    &format!(
                        "it is rate limiting and asked to wait {} s (Retry-After), longer than \
                         the {} s left before the deadline",
                        wait.as_secs(),
                        self.left().as_secs()
                    ),
                ));
            }
            tokio::time::sleep(wait).await;
        }
    }

    /// `url` as JSON of type `T`; any status but 2xx is an error.
    pub(super) async fn json<T: DeserializeOwned>(&self, url: &Url) -> Result<T, Error> {
        let answer = self.get(url, MAX_JSON_BYTES).await?;
        if !(200..300).contains(&answer.status) {
            return Err(self.failure(&answer, &self.said(&answer)));
        }
        self.parse(&answer)
    }

    /// The body of a 2xx answer as JSON of type `T`.
    pub(super) fn parse<T: DeserializeOwned>(&self, answer: &Answer) -> Result<T, Error> {
        serde_json::from_slice(&answer.body).map_err(|error| Error::Download {
            url: policy::redact(&answer.url),
            reason: format!("the registry's answer is not what its API documents: {error}"),
            kind: "invalid_response",
        })
    }

    /// A failed answer as the facade's error.
    pub(super) fn failure(&self, answer: &Answer, reason: &str) -> Error {
        Error::Download {
            url: policy::redact(&answer.url),
            reason: format!("the registry answered HTTP {}: {reason}", answer.status),
            kind: "http_status",
        }
    }

    /// What an error body says (ClawHub answers errors in plain text): its first line, cut
    /// short, with control characters and the token removed.
    pub(super) fn said(&self, answer: &Answer) -> String {
        self.shown(&String::from_utf8_lossy(&answer.body))
    }

    /// Text from the server, made fit for a message.
    pub(super) fn shown(&self, text: &str) -> String {
        let mut line: String = text
            .lines()
            .find(|line| !line.trim().is_empty())
            .unwrap_or("(no message)")
            .trim()
            .chars()
            .take(MAX_SHOWN_CHARS)
            .collect();
        if let Some(token) = &self.token {
            line = line.replace(token.as_str(), "…");
        }
        skills_types::sanitize::line(&line).into_owned()
    }

    /// A listing of `entries` as this registry answered them, with what was skipped and said.
    pub(super) fn listing(
        &self,
        entries: Vec<Entry>,
        skipped: Vec<String>,
        warnings: Vec<String>,
    ) -> Listing {
        let mut catalog = self.status(entries.len(), skipped);
        catalog.warnings = warnings;
        Listing { entries, catalog }
    }

    /// A browse's listing: `entries` sorted by name, one per name.
    pub(super) fn sorted_listing(
        &self,
        mut entries: Vec<Entry>,
        skipped: Vec<String>,
        warnings: Vec<String>,
    ) -> Listing {
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        entries.dedup_by(|a, b| a.name == b.name);
        self.listing(entries, skipped, warnings)
    }

    /// The catalog status an answer of this registry reports.
    pub(super) fn status(&self, total: usize, skipped: Vec<String>) -> Status {
        // Every answer is live: fetched now, never stale.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        Status {
            url: policy::redact(&self.base),
            total,
            fetched_at: now,
            skipped,
            ..Status::default()
        }
    }
}

/// What is being installed from a registry server.
pub(super) struct Planned<'a> {
    /// The coordinates the skill is installed under.
    pub(super) coordinates: Coordinates,
    /// The id as the registry spells it.
    pub(super) id: String,
    /// The version downloaded, when the registry named it.
    pub(super) version: Option<String>,
    /// The provenance's source kind: `clawhub` or `skillhub`.
    pub(super) kind: skills_types::install::SourceKind,
    /// Where the zip came from.
    pub(super) url: &'a Url,
    /// Said on the outcome (a suspicious skill's reasons).
    pub(super) warnings: Vec<String>,
}

/// Refuses to download over a skill another namespace installed under the slug (checked
/// again under the root's lock).
pub(super) fn check_target(
    config: &SkillsConfig,
    request: &skills_types::registry::InstallRequest,
    coordinates: &Coordinates,
) -> Result<write::Target, Error> {
    let target =
        write::target(config, request.scope, request.agent)?.linking(config, &request.agents)?;
    if !request.force {
        crate::namespace::check_namespace(&target.root, coordinates)?;
    }
    Ok(target)
}

/// Extracts a downloaded zip (the one extractor), lets `check` see its files while they are
/// in memory, and installs the one skill in it under `planned.coordinates.slug`.
pub(super) async fn install_zip(
    config: &SkillsConfig,
    hub: &Hub,
    target: &write::Target,
    force: install::Force,
    bytes: &[u8],
    planned: Planned<'_>,
    check: impl FnOnce(&[(String, Vec<u8>)]) -> Result<(), String>,
) -> Result<InstallOutcome, Error> {
    let invalid = |reason: String| Error::InvalidPackage {
        source_url: policy::redact(planned.url),
        reason,
    };
    if Format::sniff(bytes) != Some(Format::Zip) {
        return Err(invalid(
            "the registry's download is not a zip archive".to_owned(),
        ));
    }
    let mut files = archive::extract(bytes, Format::Zip, &Limits::default()).map_err(invalid)?;
    check(&files).map_err(invalid)?;
    files.retain(|(path, _)| path != CLAWHUB_META_FILE);
    let downloads = finder::skills(files, None, planned.url).map_err(invalid)?;
    let [download] = <[_; 1]>::try_from(downloads).map_err(|downloads| {
        invalid(format!(
            "the archive holds {} skills; a registry entry is one",
            downloads.len()
        ))
    })?;
    let version = planned.version.clone();
    let naming = Naming {
        kind: planned.kind,
        slug: Some(planned.coordinates.slug.clone()),
        registry: Some(Registered {
            coordinates: planned.coordinates,
            id: planned.id.clone(),
            version: planned.version,
            catalog: policy::redact(&hub.base),
        }),
    };
    // The whole zip was checked above; the source only names where it came from.
    let source = Source::Archive(planned.url.clone());
    let fetched = fetch::Fetched {
        offers: vec![fetch::Offer::whole(
            download,
            Some(format!("sha256:{}", skills_net::digest::hex_digest(bytes))),
        )],
        kind: planned.kind,
        resolved: Some(planned.url.clone()),
        reference: version,
        ..fetch::Fetched::default()
    };
    let outcomes = install::install_fetched(
        config,
        &hub.client,
        &source,
        target,
        force,
        &naming,
        install::Selection::default(),
        fetched,
    )
    .await?;
    let mut outcome = outcomes.into_iter().next().ok_or_else(|| {
        Error::InvalidInput(format!("the registry entry '{}' held no skill", planned.id))
    })?;
    outcome.warnings.extend(planned.warnings);
    Ok(outcome)
}

/// Runs a whole registry install within its deadline.
pub(super) async fn within<T>(
    total: Duration,
    url: &Url,
    work: impl Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    tokio::time::timeout(total, work).await.unwrap_or_else(|_| {
        Err(Error::Download {
            url: policy::redact(url),
            reason: skills_net::client::FetchError::Timeout.to_string(),
            kind: skills_net::client::FetchError::Timeout.kind(),
        })
    })
}

#[cfg(test)]
mod tests;
