//! `install`: from a URL to skills on disk, every rule of 03 applied in order.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use ipnet::IpNet;
use skills_types::install::{Hooks, InstallOutcome, InstallProgress, InstallRequest};
use skills_types::limits::{DEFAULT_INSTALL_TIMEOUT_SECS, INSTALL_TIMEOUT_SECS, PackageLimits};
use skills_types::{Error, SkillsConfig};

use crate::client::{Client, FetchError, Settings, SystemResolver};
use crate::fetch::{self, Problem};
use crate::policy::{self, Policy};
use crate::source::{self, Source};
use crate::write::{self, Provenance};

/// Installs every skill `request.url` names (those `request.skills` names, when given); one
/// outcome per skill. With `request.list`, downloads and checks the same way and writes
/// nothing.
pub async fn install(
    config: &SkillsConfig,
    hooks: &Hooks,
    request: &InstallRequest,
) -> Result<Vec<InstallOutcome>, Error> {
    let policy = policy_of(config)?;
    let source = resolve(config, &request.url, &policy)?;
    let target =
        write::target(config, request.scope, request.agent)?.linking(config, &request.agents)?;
    let client = install_client(config, hooks, timeout(request.timeout_secs))?;
    let naming = Naming {
        kind: source.kind(),
        slug: None,
        registry: None,
    };
    let selection = Selection {
        skills: &request.skills,
        list: request.list,
        version: request.version.as_deref(),
    };
    install_selected(
        config,
        &client,
        &source,
        &target,
        request.force,
        &naming,
        selection,
    )
    .await
}

/// What `text` names as a source: a local path, the GitHub shorthand (through the configured
/// bases), or a URL checked by the policy and classified.
pub fn resolve(config: &SkillsConfig, text: &str, policy: &Policy) -> Result<Source, Error> {
    let bases = github_bases(config)?;
    match source::given(text).map_err(Error::InvalidInput)? {
        // Recorded absolute: `update` re-reads it from anywhere.
        source::Given::Local(path) => std::path::absolute(&path)
            .map(Source::Local)
            .map_err(|error| Error::io("resolve", &path, error)),
        source::Given::Github(repository) => {
            let tarball = bases.tarball(&repository);
            Ok(Source::Github(Box::new((repository, tarball))))
        }
        source::Given::Url(text) => {
            let url = policy::parse(&text, policy).map_err(|refusal| match refusal {
                // Text that is not a URL is bad input; a URL the policy refuses is a refusal.
                policy::Refusal::Unparsable(_) | policy::Refusal::TooLong(_) => {
                    Error::InvalidInput(format!("{}: {refusal}", shown(&text)))
                }
                _ => refused(shown(&text), &refusal, refusal.is_local(), policy),
            })?;
            source::classify_with(&url, &bases).map_err(Error::InvalidInput)
        }
    }
}

/// Where GitHub lives for `config`: `[github] url` comes from the home skills.toml unless the
/// caller set it. Only that is taken from the layered settings: the rest of `config` goes on
/// to discovery, which layers the files itself (twice would list the extra roots twice).
pub(crate) fn github_bases(config: &SkillsConfig) -> Result<crate::github::Bases, Error> {
    let github = match &config.github.url {
        Some(url) => Some(url.clone()),
        None => skills_ops::discover::home_settings(config).github.url,
    };
    crate::github::Bases::new(github.as_deref()).map_err(Error::InvalidInput)
}

/// `bearer` (or a new one) also sending the GitHub token, when the caller gave one, to the
/// configured GitHub's API and archive origins ([`crate::github::Bases::token_origins`]) and
/// nowhere else. A base that does not parse grants nothing (the install that needs it fails
/// on it anyway).
fn with_github_token(
    config: &SkillsConfig,
    bearer: Option<crate::client::Bearer>,
) -> Option<crate::client::Bearer> {
    let Some(token) = config
        .github
        .token
        .as_deref()
        .map(str::trim)
        .filter(|token| !token.is_empty())
    else {
        return bearer;
    };
    let Ok(bases) = github_bases(config) else {
        return bearer;
    };
    bases
        .token_origins()
        .iter()
        .fold(bearer, |bearer, url| match bearer {
            Some(bearer) => Some(bearer.with(url, token)),
            None => Some(crate::client::Bearer::new(url, token)),
        })
}

/// The client of an install, an update or a restore: `config`'s URL policy, and the GitHub
/// token (when given) for GitHub's own origins.
pub(crate) fn install_client(
    config: &SkillsConfig,
    hooks: &Hooks,
    total: Duration,
) -> Result<Client, Error> {
    client_with(
        policy_of(config)?,
        hooks,
        total,
        with_github_token(config, None),
    )
}

/// How an install names and records what it writes.
pub(crate) struct Naming {
    /// The source's kind, recorded in the provenance.
    pub(crate) kind: &'static str,
    /// The folder name to use instead of the one the download gives (a registry entry's slug).
    pub(crate) slug: Option<String>,
    /// The registry entry, recorded in the provenance and checked against the skill there.
    pub(crate) registry: Option<write::Registered>,
}

/// Which skills of a source, and whether to write them at all.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Selection<'a> {
    /// Only these (by index entry, folder or skill name); all when empty.
    pub(crate) skills: &'a [String],
    /// Say what would be installed; write nothing.
    pub(crate) list: bool,
    /// A published version of an agent-skills index.
    pub(crate) version: Option<&'a str>,
}

/// The rest of an install once the source is known; also used by the registry.
pub(crate) async fn install_from(
    config: &SkillsConfig,
    client: &Client,
    source: &Source,
    target: &write::Target,
    force: bool,
    naming: &Naming,
) -> Result<Vec<InstallOutcome>, Error> {
    install_selected(
        config,
        client,
        source,
        target,
        force,
        naming,
        Selection::default(),
    )
    .await
}

/// [`install_from`] with a selection of the source's skills.
pub(crate) async fn install_selected(
    config: &SkillsConfig,
    client: &Client,
    source: &Source,
    target: &write::Target,
    force: bool,
    naming: &Naming,
    selection: Selection<'_>,
) -> Result<Vec<InstallOutcome>, Error> {
    write::check_record(target)?;
    let deadline = client.settings().total;
    let want = fetch::Want {
        skills: selection.skills,
        version: selection.version,
    };
    let downloaded = tokio::time::timeout(
        deadline,
        fetch::download(client, source, &PackageLimits::default(), want),
    )
    .await
    .map_err(|_| Error::Download {
        url: source.shown(),
        reason: FetchError::Timeout.to_string(),
        kind: FetchError::Timeout.kind(),
    })?;
    let fetched = downloaded.map_err(|problem| error_of(client, source, problem))?;
    install_fetched(
        config, client, source, target, force, naming, selection, fetched,
    )
    .await
}

/// The writing half of [`install_selected`], also for a caller that downloaded (and checked)
/// the skills itself (a registry whose archives are verified against what it says before they
/// get here). `source` names where they came from.
#[expect(
    clippy::too_many_arguments,
    reason = "the two halves of one install share its whole context"
)]
pub(crate) async fn install_fetched(
    config: &SkillsConfig,
    client: &Client,
    source: &Source,
    target: &write::Target,
    force: bool,
    naming: &Naming,
    selection: Selection<'_>,
    fetched: fetch::Fetched,
) -> Result<Vec<InstallOutcome>, Error> {
    write::check_record(target)?;
    let fetch::Fetched {
        offers,
        warnings,
        kind,
        resolved,
        reference,
        commit,
        listed,
    } = fetched;
    // The whole download is validated before anything is written.
    let mut slugs = Vec::with_capacity(offers.len());
    let mut seen = BTreeSet::new();
    for offer in &offers {
        let download = &offer.download;
        let slug = write::slug(download).map_err(|reason| Error::InvalidPackage {
            source_url: shown_download(source, download),
            reason,
        })?;
        let slug = naming.slug.clone().unwrap_or(slug);
        if !seen.insert(slug.clone()) {
            return Err(Error::InvalidPackage {
                source_url: source.shown(),
                reason: format!("two skills would be installed as '{slug}'"),
            });
        }
        slugs.push(slug);
    }
    let (offers, slugs) = select(source, offers, slugs, &listed, selection.skills)?;
    // Said after the write, on the skill's own outcome: the install stands, but the agent will
    // be told to run files that are not there.
    let unfetched: Vec<(String, String)> = offers
        .iter()
        .zip(&slugs)
        .filter_map(|(offer, slug)| {
            crate::mentions::unfetched_warning(&offer.download, source)
                .map(|note| (slug.clone(), note))
        })
        .collect();

    let before = names(config);
    let provenance = Provenance {
        source_url: source.shown(),
        kind: if naming.registry.is_some() {
            naming.kind
        } else {
            kind
        },
        resolved_url: resolved.as_ref().map(policy::redact),
        reference,
        commit,
        registry: naming.registry.clone(),
    };
    let items: Vec<write::Item> = offers
        .into_iter()
        .zip(slugs)
        .map(|(offer, slug)| write::Item {
            slug,
            download: offer.download,
            digest: offer.digest,
        })
        .collect();
    if selection.list {
        let mut outcomes = write::preview(target, &items, &provenance);
        if let Some(first) = outcomes.first_mut() {
            first.warnings.extend(warnings);
        }
        return Ok(outcomes);
    }
    client.report(|| InstallProgress::Writing {
        slug: items
            .iter()
            .map(|item| item.slug.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    });
    let target = target.clone();
    // File locks wait and writes flush: off the async threads.
    let mut outcomes =
        tokio::task::spawn_blocking(move || write::write_all(&target, &items, force, &provenance))
            .await
            .map_err(|error| {
                Error::InvalidInput(format!("the install was interrupted: {error}"))
            })??;
    let after = skills_ops::discover::discover(config)?;
    for outcome in &mut outcomes {
        outcome.new_skills = after
            .skills
            .iter()
            .filter(|skill| skill.dir.starts_with(&outcome.path) && !before.contains(&skill.name))
            .map(|skill| skill.name.clone())
            .collect();
    }
    if let Some(first) = outcomes.first_mut() {
        first.warnings.extend(warnings);
    }
    for (slug, note) in unfetched {
        if let Some(outcome) = outcomes.iter_mut().find(|outcome| outcome.slug == slug) {
            outcome.warnings.push(note);
        }
    }
    Ok(outcomes)
}

/// The skills `wanted` names (all when it is empty): a name matches the index entry or folder
/// name, or the folder the skill would be installed under. A name matching nothing is an
/// error listing what the source offers, before anything is written.
fn select(
    source: &Source,
    offers: Vec<fetch::Offer>,
    slugs: Vec<String>,
    listed: &[String],
    wanted: &[String],
) -> Result<(Vec<fetch::Offer>, Vec<String>), Error> {
    if wanted.is_empty() {
        return Ok((offers, slugs));
    }
    let matches = |offer: &fetch::Offer, slug: &str, name: &str| {
        slug == name || offer.download.name.as_deref() == Some(name)
    };
    let missing: Vec<&String> = wanted
        .iter()
        .filter(|name| {
            !offers
                .iter()
                .zip(&slugs)
                .any(|(offer, slug)| matches(offer, slug, name))
        })
        .collect();
    if !missing.is_empty() {
        // An index says what it lists; a folder or archive offers what was found in it.
        let offered: Vec<&str> = if listed.is_empty() {
            slugs.iter().map(String::as_str).collect()
        } else {
            listed.iter().map(String::as_str).collect()
        };
        return Err(Error::InvalidInput(format!(
            "{} does not offer {}; it offers {}",
            source.shown(),
            missing
                .iter()
                .map(|name| format!("'{}'", skills_types::sanitize::line(name)))
                .collect::<Vec<_>>()
                .join(", "),
            if offered.is_empty() {
                "nothing".to_owned()
            } else {
                offered
                    .iter()
                    .map(|name| skills_types::sanitize::line(name))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )));
    }
    Ok(offers
        .into_iter()
        .zip(slugs)
        .filter(|(offer, slug)| wanted.iter().any(|name| matches(offer, slug, name)))
        .unzip())
}

/// Where a download came from, for a message: its URL, or the local source.
fn shown_download(source: &Source, download: &fetch::Download) -> String {
    match source {
        Source::Local(_) => source.shown(),
        _ => policy::redact(&download.url),
    }
}

fn names(config: &SkillsConfig) -> BTreeSet<String> {
    skills_ops::discover::discover(config)
        .map(|catalog| catalog.skills.into_iter().map(|skill| skill.name).collect())
        .unwrap_or_default()
}

/// A refused URL as the facade's error. A refusal of the local kind also names the fixture
/// switch while it is off: without it, a person testing against a server on this machine
/// hears only "not allowed" and never learns that one exists.
pub(crate) fn refused(
    url: String,
    reason: &dyn std::fmt::Display,
    local: bool,
    policy: &Policy,
) -> Error {
    let reason = if local && !policy.allow_loopback_http {
        format!("{reason}; {}", skills_types::install::local_http_advice())
    } else {
        reason.to_string()
    };
    Error::UrlRefused { url, reason }
}

/// The URL policy this configuration asks for.
pub(crate) fn policy_of(config: &SkillsConfig) -> Result<Policy, Error> {
    let denied = config
        .network
        .denied
        .iter()
        .map(|text| {
            text.parse::<IpNet>().map_err(|error| {
                Error::InvalidInput(format!("'{text}' is not an address range: {error}"))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Policy {
        allow_loopback_http: config.network.allow_loopback_http,
        denied,
        ..Policy::default()
    })
}

/// The client of a registry operation: the registry's token (09 §Registries, Tokens) goes to
/// the origin of the registry's URL only, whatever the requests of an install go on to reach.
/// Here, below the registry, so the registry and its cache both build it without importing
/// each other.
pub(crate) fn registry_client(
    config: &SkillsConfig,
    hooks: &Hooks,
    total: Duration,
) -> Result<Client, Error> {
    let policy = policy_of(config)?;
    let bearer = match (&config.registry.token, &config.registry.catalog_url) {
        (Some(token), Some(url)) if !token.trim().is_empty() => policy::parse(url, &policy)
            .ok()
            .map(|url| crate::client::Bearer::new(&url, token.trim())),
        _ => None,
    };
    // An entry the registry leads to GitHub is fetched from there, with the GitHub token.
    client_with(policy, hooks, total, with_github_token(config, bearer))
}

/// [`client`], sending `bearer`'s token to its own origin only.
pub(crate) fn client_with(
    policy: Policy,
    hooks: &Hooks,
    total: Duration,
    bearer: Option<crate::client::Bearer>,
) -> Result<Client, Error> {
    let mut settings = Settings::new(total);
    settings.bearer = bearer;
    settings.policy = policy;
    settings.resolver = hooks
        .resolver
        .clone()
        .unwrap_or_else(|| Arc::new(SystemResolver));
    settings.connect_guard = hooks.connect_guard.clone();
    settings.progress = hooks.progress.clone();
    Client::new(settings).map_err(|error| Error::InvalidInput(error.to_string()))
}

/// The install deadline: 60 seconds by default, clamped to 1–600.
pub(crate) fn timeout(seconds: Option<u64>) -> Duration {
    let (low, high) = INSTALL_TIMEOUT_SECS;
    Duration::from_secs(
        seconds
            .unwrap_or(DEFAULT_INSTALL_TIMEOUT_SECS)
            .clamp(low, high),
    )
}

/// A URL as given, for a message: redacted when it parses, cut short when it does not.
pub(crate) fn shown(text: &str) -> String {
    match url::Url::parse(text.trim()) {
        Ok(url) => policy::redact(&url),
        Err(_) => {
            let cut: String = text.trim().chars().take(80).collect();
            format!("'{}'", cut.escape_debug())
        }
    }
}

/// A failed download of `source` as the facade's error. GitHub answers a private repository
/// exactly as a missing one (404, or 401/403), so a refusal of that kind says how to give a
/// token, or that the one sent cannot read it.
pub(crate) fn error_of(client: &Client, source: &Source, problem: Problem) -> Error {
    let policy = &client.settings().policy;
    let (url, error) = match problem {
        Problem::Fetch(failure) => *failure,
        Problem::Invalid(reason) => {
            return Error::InvalidPackage {
                source_url: source.shown(),
                reason,
            };
        }
    };
    if let (Source::Github(github), FetchError::Status(status @ (401 | 403 | 404))) =
        (source, &error)
    {
        let token_sent = client
            .settings()
            .bearer
            .as_ref()
            .is_some_and(|bearer| bearer.covers(&url));
        return Error::Download {
            url: policy::redact(&url),
            reason: skills_types::install::github_access_advice(
                &github.0.display(),
                *status,
                token_sent,
            ),
            kind: error.kind(),
        };
    }
    fetch_failure(&url, error, policy)
}

/// A failed request as the facade's error: a refusal, or a download that failed.
pub(crate) fn fetch_failure(url: &url::Url, error: FetchError, policy: &Policy) -> Error {
    match error {
        FetchError::Refused(_) | FetchError::Address(_) | FetchError::Guarded(_) => {
            refused(policy::redact(url), &error, error.is_local(), policy)
        }
        other => Error::Download {
            url: policy::redact(url),
            reason: other.to_string(),
            kind: other.kind(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_clamp() {
        assert_eq!(timeout(None), Duration::from_secs(60));
        assert_eq!(timeout(Some(0)), Duration::from_secs(1));
        assert_eq!(timeout(Some(10_000)), Duration::from_secs(600));
    }

    #[test]
    fn local_refusals_name_the_fixture_switch_while_it_is_off() {
        let off = Policy::default();
        let on = Policy {
            allow_loopback_http: true,
            ..Policy::default()
        };
        for (text, local) in [
            ("http://127.0.0.1:9/SKILL.md", true),
            ("https://example.com:8443/SKILL.md", true),
            ("http://example.com/SKILL.md", true),
            ("https://localhost/SKILL.md", true),
            ("https://intranet/SKILL.md", true),
            ("https://192.168.1.1/SKILL.md", true),
            ("https://[fd00::1]/SKILL.md", true),
            ("https://93.184.215.14/SKILL.md", true),
            ("file:///etc/passwd", false),
            ("https://u:p@example.com/SKILL.md", false),
        ] {
            let refusal = policy::parse(text, &off).expect_err(text);
            assert_eq!(refusal.is_local(), local, "{text}");
            let message = refused(shown(text), &refusal, refusal.is_local(), &off).to_string();
            assert_eq!(
                message.contains(skills_types::install::ALLOW_LOCAL_HTTP_VAR),
                local,
                "{message}"
            );
            let message = refused(shown(text), &refusal, refusal.is_local(), &on).to_string();
            assert!(
                !message.contains(skills_types::install::ALLOW_LOCAL_HTTP_VAR),
                "{message}"
            );
        }
    }

    #[test]
    fn shown_urls_lose_secrets() {
        assert_eq!(
            shown("https://user:pw@example.com/a?token=x"),
            "https://example.com/a?…"
        );
        assert_eq!(shown("not a url"), "'not a url'");
    }
}
