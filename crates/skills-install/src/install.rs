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

/// Installs every skill `request.url` names; one outcome per skill.
pub async fn install(
    config: &SkillsConfig,
    hooks: &Hooks,
    request: &InstallRequest,
) -> Result<Vec<InstallOutcome>, Error> {
    let policy = policy_of(config)?;
    let url = policy::parse(&request.url, &policy).map_err(|refusal| match refusal {
        // Text that is not a URL is bad input; a URL the policy refuses is a refusal.
        policy::Refusal::Unparsable(_) | policy::Refusal::TooLong(_) => {
            Error::InvalidInput(format!("{}: {refusal}", shown(&request.url)))
        }
        _ => refused(shown(&request.url), &refusal, refusal.is_local(), &policy),
    })?;
    let source = source::classify(&url).map_err(Error::InvalidInput)?;
    let target = write::target(config, request.scope, request.agent)?;
    let client = client(policy, hooks, timeout(request.timeout_secs))?;
    let naming = Naming {
        kind: source.kind(),
        slug: None,
        registry: None,
    };
    install_from(config, &client, &source, &target, request.force, &naming).await
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

/// The rest of an install once the source is known; also used by the registry.
pub(crate) async fn install_from(
    config: &SkillsConfig,
    client: &Client,
    source: &Source,
    target: &write::Target,
    force: bool,
    naming: &Naming,
) -> Result<Vec<InstallOutcome>, Error> {
    write::check_record(target)?;
    let deadline = client.settings().total;
    let downloaded = tokio::time::timeout(
        deadline,
        fetch::download(client, source, &PackageLimits::default()),
    )
    .await
    .map_err(|_| Error::Download {
        url: policy::redact(source.url()),
        reason: FetchError::Timeout.to_string(),
        kind: FetchError::Timeout.kind(),
    })?;
    let (downloads, warnings) =
        downloaded.map_err(|problem| error_of(source, problem, &client.settings().policy))?;
    install_downloaded(
        config, client, source, target, force, naming, downloads, warnings,
    )
    .await
}

/// The writing half of [`install_from`], for a caller that downloaded (and checked) the
/// skills itself: the ClawHub and skillhub registries, whose archives are verified against
/// what the registry says before they get here. `source` names where they came from.
#[expect(
    clippy::too_many_arguments,
    reason = "the two halves of one install share its whole context"
)]
pub(crate) async fn install_downloaded(
    config: &SkillsConfig,
    client: &Client,
    source: &Source,
    target: &write::Target,
    force: bool,
    naming: &Naming,
    downloads: Vec<fetch::Download>,
    warnings: Vec<String>,
) -> Result<Vec<InstallOutcome>, Error> {
    write::check_record(target)?;
    // The whole download is validated before anything is written.
    let mut slugs = Vec::with_capacity(downloads.len());
    let mut seen = BTreeSet::new();
    for download in &downloads {
        let slug = write::slug(download).map_err(|reason| Error::InvalidPackage {
            source_url: policy::redact(&download.url),
            reason,
        })?;
        let slug = naming.slug.clone().unwrap_or(slug);
        if !seen.insert(slug.clone()) {
            return Err(Error::InvalidPackage {
                source_url: policy::redact(source.url()),
                reason: format!("two skills would be installed as '{slug}'"),
            });
        }
        slugs.push(slug);
    }
    // Said after the write, on the skill's own outcome: the install stands, but the agent will
    // be told to run files that are not there.
    let unfetched: Vec<(String, String)> = downloads
        .iter()
        .zip(&slugs)
        .filter_map(|(download, slug)| {
            crate::mentions::unfetched_warning(download, source).map(|note| (slug.clone(), note))
        })
        .collect();

    let before = names(config);
    let provenance = Provenance {
        source_url: policy::redact(source.url()),
        kind: naming.kind,
        registry: naming.registry.clone(),
    };
    let items: Vec<write::Item> = downloads
        .into_iter()
        .zip(slugs)
        .map(|(download, slug)| write::Item { slug, download })
        .collect();
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

/// A client with these hooks and deadline.
pub(crate) fn client(policy: Policy, hooks: &Hooks, total: Duration) -> Result<Client, Error> {
    client_with(policy, hooks, total, None)
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

pub(crate) fn error_of(source: &Source, problem: Problem, policy: &Policy) -> Error {
    let (url, error) = match problem {
        Problem::Fetch(failure) => *failure,
        Problem::Invalid(reason) => {
            return Error::InvalidPackage {
                source_url: policy::redact(source.url()),
                reason,
            };
        }
    };
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
