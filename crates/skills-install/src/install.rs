//! `install`: from a URL to skills on disk, every rule of 03 applied in order.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use ipnet::IpNet;
use skills_net::client::{Client, FetchError, Settings, SystemResolver};
use skills_net::policy::{self, Policy};
use skills_types::audit::{AuditConsent, Decision, Gate, Verdict};
use skills_types::install::{Hooks, InstallOutcome, InstallProgress, InstallRequest};
use skills_types::limits::{DEFAULT_INSTALL_TIMEOUT_SECS, INSTALL_TIMEOUT_SECS, PackageLimits};
use skills_types::{Error, SkillsConfig};

use crate::fetch::{self, Problem};
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
    let (source, reading) = resolve_typed(config, &request.url, &policy)?;
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
        plugins: &request.plugins,
    };
    let installed = install_selected(
        config,
        &client,
        &source,
        &target,
        Force {
            replace: request.force,
            audit: request.audit,
        },
        &naming,
        selection,
    )
    .await;
    match (installed, reading) {
        (Ok(mut outcomes), Some(Reading::LocalOverShorthand(note))) => {
            if let Some(first) = outcomes.first_mut() {
                first.warnings.insert(0, note);
            }
            Ok(outcomes)
        }
        (Err(error), Some(Reading::Shorthand(note))) => Err(with_reading(error, &note)),
        (installed, _) => installed,
    }
}

/// How text that could mean two sources was read, for the message that says so.
enum Reading {
    /// An existing local path that also has the GitHub shorthand's shape: read as local.
    LocalOverShorthand(String),
    /// The GitHub shorthand, since no local path of that name exists: said when the install
    /// fails, when the user may have meant a path.
    Shorthand(String),
}

/// A failed install of a shorthand, with the reading said: `arch/out/x.tar.gz` that is not a
/// file here was looked for on GitHub, which a person who mistyped a path needs to hear.
fn with_reading(error: Error, note: &str) -> Error {
    match error {
        Error::Download { url, reason, kind } => Error::Download {
            url,
            reason: format!("{reason} ({note})"),
            kind,
        },
        Error::InvalidPackage { source_url, reason } => Error::InvalidPackage {
            source_url,
            reason: format!("{reason} ({note})"),
        },
        other => other,
    }
}

/// What `text` names as a source, from the text alone: a local path (`./x`, `../x`, `/x`; one
/// that does not exist is an error naming it), the GitHub shorthand (through the configured
/// bases), or a URL checked by the policy and classified. For text recorded or resolved by the
/// program (an install record, a registry entry): what a person types goes through
/// `resolve_typed`, which also reads an existing path as local.
pub(crate) fn resolve(config: &SkillsConfig, text: &str, policy: &Policy) -> Result<Source, Error> {
    resolve_with_note(config, text, policy, false).map(|(source, _)| source)
}

/// What text a person typed names as a source: [`resolve`], except that text naming an
/// existing file or folder here is that local source, whatever else it could be read as.
/// `arch/out/x.tar.gz` beside the user is their archive, never the GitHub repository
/// `arch/out`, and nothing is fetched to decide; the shorthand applies only when no such path
/// exists, and the outcome (or the error) says which reading was used.
///
/// Only typed text gets this: a recorded `owner/repo/path` re-resolved by `update` in a
/// workspace that happens to (or is made to) hold a folder of that name must still go to
/// GitHub, never to whatever the workspace put there.
fn resolve_typed(
    config: &SkillsConfig,
    text: &str,
    policy: &Policy,
) -> Result<(Source, Option<Reading>), Error> {
    resolve_with_note(config, text, policy, true)
}

/// [`resolve`] or [`resolve_typed`], and how ambiguous text was read.
fn resolve_with_note(
    config: &SkillsConfig,
    text: &str,
    policy: &Policy,
    typed: bool,
) -> Result<(Source, Option<Reading>), Error> {
    let bases = github_bases(config)?;
    let trimmed = text.trim();
    let path = std::path::Path::new(trimmed);
    // An existing path is local, looked at on this machine alone, before any other reading.
    if typed
        && !trimmed.is_empty()
        && !trimmed.contains("://")
        && std::fs::symlink_metadata(path).is_ok()
    {
        let source = local(path)?;
        let note = match source::given(trimmed) {
            Ok(source::Given::Github(repository)) => Some(Reading::LocalOverShorthand(format!(
                "'{}' is a {} here, so it was installed from there, not from the GitHub \
                 repository {}/{} (give https://github.com/{}/{} for that)",
                path.display(),
                if path.is_dir() { "folder" } else { "file" },
                repository.owner,
                repository.name,
                repository.owner,
                repository.name,
            ))),
            _ => None,
        };
        return Ok((source, note));
    }
    match source::given(text).map_err(Error::InvalidInput)? {
        source::Given::Local(path) => local(&path).map(|source| (source, None)),
        source::Given::Github(repository) => {
            let note = typed.then(|| {
                Reading::Shorthand(format!(
                    "'{trimmed}' was read as the GitHub shorthand owner/repo[/path][@ref], since \
                     no file or folder of that name exists here"
                ))
            });
            let tarball = bases.tarball(&repository);
            Ok((Source::Github(Box::new((repository, tarball))), note))
        }
        source::Given::Url(text) => {
            let url = policy::parse(&text, policy).map_err(|refusal| match refusal {
                // Text that is not a URL is bad input; a URL the policy refuses is a refusal.
                policy::Refusal::Unparsable(_) | policy::Refusal::TooLong(_) => {
                    Error::InvalidInput(format!("{}: {refusal}", shown(&text)))
                }
                _ => refused(shown(&text), &refusal, refusal.is_local(), policy),
            })?;
            source::classify_with(&url, &bases)
                .map(|source| (source, None))
                .map_err(Error::InvalidInput)
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
    bearer: Option<skills_net::client::Bearer>,
) -> Option<skills_net::client::Bearer> {
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
            None => Some(skills_net::client::Bearer::new(url, token)),
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

/// A local source, recorded absolute (`update` re-reads it from anywhere); one that does not
/// exist is said so, as a mistake in what was typed.
fn local(path: &std::path::Path) -> Result<Source, Error> {
    match std::fs::symlink_metadata(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::InvalidInput(format!(
                "'{}': no such file or folder (a local source is a folder, or a .zip or \
                 .tar.gz file, that exists)",
                path.display()
            )));
        }
        _ => {}
    }
    std::path::absolute(path)
        .map(Source::Local)
        .map_err(|error| Error::io("resolve", path, error))
}

/// What a person allowed an install beyond the defaults: replacing a different skill under
/// the same name, and writing what the audit flags.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Force {
    /// Replace a different skill already under the name (`--force`).
    pub(crate) replace: bool,
    /// What was agreed to about the audit's findings (`--yes`, `--force`).
    pub(crate) audit: AuditConsent,
}

/// How an install names and records what it writes.
pub(crate) struct Naming {
    /// The source's kind, recorded in the provenance.
    pub(crate) kind: skills_types::install::SourceKind,
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
    /// Only the skills of these plugins (`.claude-plugin` manifests); all when empty.
    pub(crate) plugins: &'a [String],
}

/// The rest of an install once the source is known; also used by the registry.
pub(crate) async fn install_from(
    config: &SkillsConfig,
    client: &Client,
    source: &Source,
    target: &write::Target,
    force: Force,
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
    force: Force,
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
    force: Force,
    naming: &Naming,
    selection: Selection<'_>,
    fetched: fetch::Fetched,
) -> Result<Vec<InstallOutcome>, Error> {
    write::check_record(target)?;
    let fetch::Fetched {
        offers,
        mut warnings,
        kind,
        resolved,
        reference,
        commit,
        listed,
        refused,
        plugins,
    } = fetched;
    // The whole download is validated before anything is written.
    let candidates = candidates(offers, refused, naming);
    let mut chosen = choose(source, candidates, &listed, &plugins, selection)?;
    warnings.append(&mut chosen.skipped);
    let mut seen = BTreeSet::new();
    for (offer, slug, _) in &chosen.installable {
        if !seen.insert(slug.clone()) {
            return Err(Error::InvalidPackage {
                source_url: source.shown(),
                reason: format!(
                    "two skills would be installed as '{slug}'{}",
                    offer
                        .folder
                        .as_deref()
                        .map(|folder| format!(" (one of them in '{folder}')"))
                        .unwrap_or_default()
                ),
            });
        }
    }
    // Said after the write, on the skill's own outcome: the install stands, but the agent will
    // be told to run files that are not there. Only a source that brought the SKILL.md alone
    // can have left files behind; a folder, archive, repository or pack brings every file.
    let unfetched: Vec<(String, String)> = chosen
        .installable
        .iter()
        .filter(|(offer, _, _)| offer.definition_only)
        .filter_map(|(offer, slug, _)| {
            crate::mentions::unfetched_warning(&offer.download).map(|note| (slug.clone(), note))
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
    let mut items: Vec<write::Item> = chosen
        .installable
        .into_iter()
        .map(|(offer, slug, plugin)| write::Item {
            slug,
            download: offer.download,
            digest: offer.digest,
            plugin,
            audit: None,
        })
        .collect();
    // The audit's gate, on the files in memory: a refusal leaves nothing written at all.
    let reviewer = skills_audit::Reviewer::new(config)?;
    let (findings, reports) = review(&reviewer, target, &mut items, force.audit, selection.list)?;
    let said = |outcomes: &mut [InstallOutcome]| {
        for (slug, lines) in &findings {
            if let Some(outcome) = outcomes.iter_mut().find(|outcome| &outcome.slug == slug) {
                outcome.warnings.extend(lines.iter().cloned());
            }
        }
    };
    if selection.list {
        let mut outcomes = write::preview(target, &items, &provenance);
        said(&mut outcomes);
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
    let mut outcomes = tokio::task::spawn_blocking(move || {
        write::write_all(&target, &items, force.replace, &provenance)
    })
    .await
    .map_err(|error| Error::Interrupted {
        action: "the install".to_owned(),
        reason: error.to_string(),
    })??;
    // The verdicts, for `list` and `show` to mark: the bytes scanned are the bytes written.
    if let Err(error) = skills_audit::record(config, &reports)
        && let Some(first) = outcomes.first_mut()
    {
        first.warnings.push(format!(
            "the audit's verdicts could not be recorded for the listing: {error}"
        ));
    }
    let after = skills_ops::discover::discover(config)?;
    for outcome in &mut outcomes {
        outcome.new_skills = after
            .skills
            .iter()
            .filter(|skill| skill.dir.starts_with(&outcome.path) && !before.contains(&skill.name))
            .map(|skill| skill.name.clone())
            .collect();
    }
    said(&mut outcomes);
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

/// What the audit said of each skill, by slug: the lines to add to its outcome.
type Said = Vec<(String, Vec<String>)>;

/// The audit's gate over every skill an install is about to write, on the files in memory,
/// before anything is staged: each item gets its verdict (recorded with the install), and
/// the findings that asked or refused come back per slug, to be said on its outcome. An
/// unaccepted finding at or above `refuse_on` in any skill refuses the whole install
/// (`audit_refused`) unless `consent` is `force`; one at or above `ask_on` needs `yes`
/// (`audit_unconfirmed`). A preview (`list`) refuses nothing: it shows the verdicts. The
/// reports come back too, for the verdict store `list` reads once the skills are written.
fn review(
    reviewer: &skills_audit::Reviewer,
    target: &write::Target,
    items: &mut [write::Item],
    consent: AuditConsent,
    list: bool,
) -> Result<(Said, Vec<skills_types::audit::Report>), Error> {
    let mut refused: Vec<(String, Vec<String>)> = Vec::new();
    let mut reports = Vec::with_capacity(items.len());
    let mut asked: Vec<(String, Vec<String>)> = Vec::new();
    let mut said = Vec::new();
    for item in items.iter_mut() {
        let report = reviewer.files(&target.root.join(&item.slug), &item.download.files);
        let (decision, lines) = match reviewer.gate(&report) {
            Gate::Pass => (Decision::Pass, Vec::new()),
            Gate::Ask(findings) => {
                let lines = skills_audit::lines(&findings);
                asked.push((item.slug.clone(), lines.clone()));
                (Decision::Asked, lines)
            }
            Gate::Refuse(findings) => {
                let lines = skills_audit::lines(&findings);
                refused.push((item.slug.clone(), lines.clone()));
                (Decision::Forced, lines)
            }
        };
        let decision = match (list, decision) {
            (true, Decision::Forced) => Decision::WouldRefuse,
            (true, Decision::Asked) => Decision::WouldAsk,
            (_, decision) => decision,
        };
        item.audit = Some(Verdict::new(&report, decision));
        reports.push(report);
        if !lines.is_empty() {
            let how = match decision {
                Decision::WouldRefuse => "refuses it (--force installs anyway)",
                Decision::WouldAsk => "asks before installing it (--yes agrees)",
                Decision::Forced => "refused it; installed with --force",
                _ => "asked; installed with your agreement",
            };
            said.push((
                item.slug.clone(),
                lines
                    .into_iter()
                    .map(|line| format!("audit: {line} (the audit {how})"))
                    .collect(),
            ));
        }
    }
    if list {
        return Ok((said, reports));
    }
    let named = |found: &[(String, Vec<String>)]| {
        let several = found.len() > 1;
        let skills = found
            .iter()
            .map(|(slug, _)| slug.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let lines = found
            .iter()
            .flat_map(|(slug, lines)| {
                lines.iter().map(move |line| {
                    if several {
                        format!("{slug}: {line}")
                    } else {
                        line.clone()
                    }
                })
            })
            .collect();
        (skills, lines)
    };
    if !refused.is_empty() && consent != AuditConsent::Force {
        let (skill, findings) = named(&refused);
        return Err(Error::AuditRefused {
            action: "installing".to_owned(),
            skill,
            findings,
            advice: "nothing was written; if you trust the source as it is, install again \
                     with --force (the findings are shown again and recorded with the install)"
                .to_owned(),
        });
    }
    if !asked.is_empty() && consent == AuditConsent::None {
        let (skill, findings) = named(&asked);
        return Err(Error::AuditUnconfirmed { skill, findings });
    }
    Ok((said, reports))
}

/// One skill a source offers or holds, with the folder name it would be installed under, or
/// why it cannot be installed.
struct Candidate {
    /// Its files and where they came from (never written when `problem` is set).
    offer: fetch::Offer,
    /// The folder name it installs under, when its `SKILL.md` gives one.
    slug: Option<String>,
    /// Why it cannot be installed: a withheld entry inside it, a `SKILL.md` that is not a
    /// skill's.
    problem: Option<String>,
}

impl Candidate {
    /// Whether `name` names this skill: its index entry or folder name, or the folder it
    /// would be installed under.
    fn is(&self, name: &str) -> bool {
        self.offer.download.name.as_deref() == Some(name) || self.slug.as_deref() == Some(name)
    }

    /// What the messages call it: its folder in the source, else its name.
    fn shown(&self) -> String {
        let name = self.offer.download.name.as_ref().or(self.slug.as_ref());
        match (&self.offer.folder, name) {
            (Some(folder), _) if !folder.is_empty() => format!("'{folder}'"),
            (_, Some(name)) => format!("'{name}'"),
            _ => "the skill".to_owned(),
        }
    }
}

/// Every skill of a download as a candidate: the offers with their slug (or why the
/// `SKILL.md` cannot be installed), the refused ones with their refusal (and their slug, so
/// `--skill` finds them and says why).
fn candidates(
    offers: Vec<fetch::Offer>,
    refused: Vec<fetch::Refused>,
    naming: &Naming,
) -> Vec<Candidate> {
    let mut candidates: Vec<Candidate> = offers
        .into_iter()
        .map(|offer| match write::slug(&offer.download) {
            Ok(slug) => Candidate {
                offer,
                slug: Some(naming.slug.clone().unwrap_or(slug)),
                problem: None,
            },
            Err(reason) => Candidate {
                offer,
                slug: None,
                problem: Some(reason.to_string()),
            },
        })
        .collect();
    for refused in refused {
        let offer = fetch::Offer {
            folder: Some(refused.folder),
            plugins: refused.plugins,
            ..fetch::Offer::whole(refused.download, None)
        };
        candidates.push(Candidate {
            slug: write::slug(&offer.download).ok(),
            offer,
            problem: Some(refused.reason),
        });
    }
    candidates
}

/// What an install takes from a source once the selection is applied.
struct Chosen {
    /// Each skill to write, its folder name and the plugin it is recorded under.
    installable: Vec<(fetch::Offer, String, Option<String>)>,
    /// The skills left out, each with why (said as warnings).
    skipped: Vec<String>,
}

/// The skills `selection` names, and what becomes of each.
///
/// `--skill NAME` matches an index entry or folder name, or the folder the skill would be
/// installed under; `--plugin NAME` the skills of that plugin. A name matching nothing is an
/// error listing what the source offers. A skill that cannot be installed (a withheld entry
/// inside it, a `SKILL.md` that is not a skill's) refuses the install when `--skill` named it;
/// otherwise it is left out and said in a warning naming its folder, so one broken or
/// oversized skill never blocks the others of a multi-skill source. When every skill chosen
/// is left out, that is the error. Nothing has been written when any of this fails.
fn choose(
    source: &Source,
    candidates: Vec<Candidate>,
    listed: &[String],
    plugins: &[String],
    selection: Selection<'_>,
) -> Result<Chosen, Error> {
    let shown_names = |names: &mut dyn Iterator<Item = &str>| {
        let names: Vec<String> = names
            .map(|name| skills_types::sanitize::line(name).into_owned())
            .collect();
        if names.is_empty() {
            "nothing".to_owned()
        } else {
            names.join(", ")
        }
    };
    let unknown_plugins: Vec<&String> = selection
        .plugins
        .iter()
        .filter(|wanted| !plugins.contains(wanted))
        .collect();
    if !unknown_plugins.is_empty() {
        return Err(Error::InvalidInput(format!(
            "{} has no plugin {}; {}",
            source.shown(),
            unknown_plugins
                .iter()
                .map(|name| format!("'{}'", skills_types::sanitize::line(name)))
                .collect::<Vec<_>>()
                .join(", "),
            if plugins.is_empty() {
                "it declares no plugins (no .claude-plugin/marketplace.json or plugin.json)"
                    .to_owned()
            } else {
                format!(
                    "its plugins are {}",
                    shown_names(&mut plugins.iter().map(String::as_str))
                )
            }
        )));
    }
    let in_plugins = |candidate: &Candidate| {
        selection.plugins.is_empty()
            || candidate
                .offer
                .plugins
                .iter()
                .any(|plugin| selection.plugins.contains(plugin))
    };
    let missing: Vec<&String> = selection
        .skills
        .iter()
        .filter(|name| {
            !candidates
                .iter()
                .any(|candidate| in_plugins(candidate) && candidate.is(name))
        })
        .collect();
    if !missing.is_empty() {
        // An index says what it lists; a folder or archive offers what was found in it.
        let offered: Vec<String> = if listed.is_empty() {
            candidates
                .iter()
                .filter(|candidate| in_plugins(candidate))
                .filter_map(|candidate| {
                    candidate
                        .slug
                        .clone()
                        .or_else(|| candidate.offer.download.name.clone())
                })
                .collect()
        } else {
            listed.to_vec()
        };
        return Err(Error::InvalidInput(format!(
            "{}{} does not offer {}; it offers {}",
            source.shown(),
            if selection.plugins.is_empty() {
                String::new()
            } else {
                format!(
                    " (plugin {})",
                    shown_names(&mut selection.plugins.iter().map(String::as_str))
                )
            },
            missing
                .iter()
                .map(|name| format!("'{}'", skills_types::sanitize::line(name)))
                .collect::<Vec<_>>()
                .join(", "),
            shown_names(&mut offered.iter().map(String::as_str))
        )));
    }
    let mut chosen = Chosen {
        installable: Vec::new(),
        skipped: Vec::new(),
    };
    let mut failures = Vec::new();
    let several = candidates.len() > 1;
    for candidate in candidates {
        if !in_plugins(&candidate) {
            continue;
        }
        let named = selection.skills.iter().any(|name| candidate.is(name));
        if !selection.skills.is_empty() && !named {
            continue;
        }
        let plugin = candidate
            .offer
            .plugins
            .iter()
            .find(|plugin| selection.plugins.is_empty() || selection.plugins.contains(plugin))
            .cloned();
        match (candidate.slug.clone(), candidate.problem.clone()) {
            (Some(slug), None) => chosen.installable.push((candidate.offer, slug, plugin)),
            (_, problem) => {
                let reason = problem.unwrap_or_default();
                let why = if several || candidate.offer.folder.is_some() {
                    format!("{}: {reason}", candidate.shown())
                } else {
                    reason
                };
                if named {
                    return Err(Error::InvalidPackage {
                        source_url: source.shown(),
                        reason: why,
                    });
                }
                chosen.skipped.push(format!(
                    "{}; it was not installed",
                    skills_types::sanitize::line(&why)
                ));
                failures.push(why);
            }
        }
    }
    if chosen.installable.is_empty() && !failures.is_empty() {
        return Err(Error::InvalidPackage {
            source_url: source.shown(),
            reason: failures.join("; "),
        });
    }
    // A marketplace's skills in the order of its plugins (the source's order within each, the
    // skills in no plugin last), so a listing groups them as the manifest does.
    if !plugins.is_empty() {
        chosen.installable.sort_by_key(|(_, _, plugin)| {
            plugin
                .as_ref()
                .and_then(|plugin| plugins.iter().position(|name| name == plugin))
                .unwrap_or(usize::MAX)
        });
    }
    if chosen.installable.is_empty() && !selection.plugins.is_empty() {
        return Err(Error::InvalidInput(format!(
            "the plugin {} of {} holds no skills",
            shown_names(&mut selection.plugins.iter().map(String::as_str)),
            source.shown()
        )));
    }
    Ok(chosen)
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
    // `Policy` is `#[non_exhaustive]` (it lives in `skills-net`): set what the configuration
    // names on the defaults.
    let mut policy = Policy::default();
    policy.allow_loopback_http = config.network.allow_loopback_http;
    policy.denied = denied;
    Ok(policy)
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
            .map(|url| skills_net::client::Bearer::new(&url, token.trim())),
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
    bearer: Option<skills_net::client::Bearer>,
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
        let mut on = Policy::default();
        on.allow_loopback_http = true;
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
