//! Downloading a source into memory (03 §Sources, 09 §Publishers): every file of every skill,
//! checked against the limits and digests before anything touches the disk.
//!
//! Every form ends here: a single file, a pack, the agent-skills index (v0.2, classified by its
//! `$schema`, or the older form without one), vercel's `/.well-known/skills/` index, a site
//! whose indexes are looked for, a GitHub tarball, an archive URL, a local folder or archive.
//! Archives of every kind go through the one extractor ([`skills_net::archive`]) and the skill finder ([`crate::finder`]).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use skills_net::archive::{self, Format, Limits};
use skills_net::client::{Client, FetchError, InstallProgress};
use skills_net::digest::{check_digest, hex_digest};
use skills_net::policy;
use skills_types::files::{SKILL_MD, match_definition};
use skills_types::install::SourceKind;
use skills_types::limits::{MAX_SKILL_MD_BYTES, PackageLimits};
use url::Url;

use crate::finder::{self, Search};
use crate::github::Repository;
use crate::source::{PACK_INDEX, Source, VERCEL_INDEX, WELL_KNOWN_INDEX};

// One table for the format, shared with `publish` (the writing side).
pub(crate) use skills_types::publish::{SCHEMA_V0_2, VERSIONS_FILE};

/// Largest index (pack or well-known) accepted.
const MAX_INDEX_BYTES: u64 = skills_types::limits::MIB;

// Below both this module and the skill finder; named here too, where every caller looks.
pub(crate) use crate::download::Download;

/// Why a download is not acceptable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Problem {
    /// A request failed (boxed: a URL and a fetch error are large next to a message).
    Fetch(Box<(Url, FetchError)>),
    /// The content is not acceptable.
    Invalid(String),
}

impl From<(Url, FetchError)> for Problem {
    fn from((url, error): (Url, FetchError)) -> Self {
        Self::Fetch(Box::new((url, error)))
    }
}

/// One skill a source offers, downloaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Offer {
    /// Its files.
    pub(crate) download: Download,
    /// The digest the source gave for it (an index entry's), or of the archive it came in.
    pub(crate) digest: Option<String>,
    /// Its folder in a repository, archive or local folder (`skills/.curated/pdf`), for
    /// messages.
    pub(crate) folder: Option<String>,
    /// The plugins of the source's manifests that hold it, in their order.
    pub(crate) plugins: Vec<String>,
    /// The source brought its `SKILL.md` alone (a single-file URL, a GitHub file page, a
    /// well-known `skill-md` entry, a folder's `SKILL.md`), not every file of the skill: the
    /// one case in which mentioned bundled files may be missing ([`crate::mentions`]).
    pub(crate) definition_only: bool,
}

impl Offer {
    /// A whole skill as the source gives it, outside any plugin.
    pub(crate) fn whole(download: Download, digest: Option<String>) -> Self {
        Self {
            download,
            digest,
            folder: None,
            plugins: Vec::new(),
            definition_only: false,
        }
    }
}

/// A skill a repository, archive or local folder holds that cannot be installed: one of its
/// entries is withheld (a link, a device, a file over the per-file limit). Only it is refused;
/// the installer says why when it would have installed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refused {
    /// Its files, the withheld ones left out (never written; read for its name).
    pub(crate) download: Download,
    /// Its folder in the source (`skills/big`).
    pub(crate) folder: String,
    /// The plugins that hold it.
    pub(crate) plugins: Vec<String>,
    /// Why, naming the entry.
    pub(crate) reason: String,
}

/// What downloading a source gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Fetched {
    /// The skills, in the source's order.
    pub(crate) offers: Vec<Offer>,
    /// Entries skipped, and other things worth saying.
    pub(crate) warnings: Vec<String>,
    /// The kind the source turned out to be (a site is the index found on it).
    pub(crate) kind: SourceKind,
    /// The URL that answered: the index found on a site, the tarball of a repository.
    pub(crate) resolved: Option<Url>,
    /// The ref asked for (GitHub) or the snapshot version (an agent-skills index).
    pub(crate) reference: Option<String>,
    /// The commit a GitHub tarball holds (from its `owner-repo-<sha>/` top folder).
    pub(crate) commit: Option<String>,
    /// Every entry name an index lists, the ones not fetched included (for the message that
    /// says what a source offers when `--skill` names something else).
    pub(crate) listed: Vec<String>,
    /// The skills of a tree that cannot be installed, each with why.
    pub(crate) refused: Vec<Refused>,
    /// Every plugin the source's manifests declare, in their order.
    pub(crate) plugins: Vec<String>,
}

impl Fetched {
    fn new(kind: SourceKind, resolved: &Url) -> Self {
        Self {
            kind,
            resolved: Some(resolved.clone()),
            ..Self::default()
        }
    }

    fn offer(&mut self, download: Download, digest: Option<String>) {
        self.offers.push(Offer::whole(download, digest));
    }

    /// A skill of which the source brought only the `SKILL.md`.
    fn offer_definition(&mut self, download: Download, digest: Option<String>) {
        self.offers.push(Offer {
            definition_only: true,
            ..Offer::whole(download, digest)
        });
    }

    /// The skills a tree search found: the installable ones offered, the others refused.
    fn offer_tree(&mut self, search: Search, digest: Option<&str>) {
        for found in search.found {
            match found.refusal {
                None => self.offers.push(Offer {
                    folder: Some(found.folder),
                    plugins: found.plugins,
                    ..Offer::whole(found.download, digest.map(str::to_owned))
                }),
                Some(reason) => self.refused.push(Refused {
                    download: found.download,
                    folder: found.folder,
                    plugins: found.plugins,
                    reason,
                }),
            }
        }
        self.plugins = search.plugins;
        self.warnings.extend(search.warnings);
    }
}

/// What the caller wants of a multi-skill source.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Want<'a> {
    /// Only these entries of an index (all when empty); the installer checks the rest.
    pub(crate) skills: &'a [String],
    /// A snapshot of an agent-skills index (`versions.json`).
    pub(crate) version: Option<&'a str>,
}

impl Want<'_> {
    fn wants(&self, name: &str) -> bool {
        self.skills.is_empty() || self.skills.iter().any(|wanted| wanted == name)
    }
}

/// Downloads every skill of `source` (the ones `want` names, for an index).
pub(crate) async fn download(
    client: &Client,
    source: &Source,
    limits: &PackageLimits,
    want: Want<'_>,
) -> Result<Fetched, Problem> {
    if want.version.is_some()
        && !matches!(
            source,
            Source::WellKnown(_) | Source::Site(_) | Source::Folder(_) | Source::Github(_)
        )
    {
        return Err(Problem::Invalid(
            "a version can only be chosen from an agent-skills index (its versions.json); \
             for GitHub give the ref as owner/repo@REF"
                .to_owned(),
        ));
    }
    match source {
        Source::SkillFile(url) => {
            let bytes = get(client, url, MAX_SKILL_MD_BYTES).await?;
            let mut fetched = Fetched::new(SourceKind::SkillMd, url);
            let digest = format!("sha256:{}", hex_digest(&bytes));
            fetched.offer_definition(
                Download {
                    name: None,
                    files: vec![(SKILL_MD.to_owned(), bytes)],
                    version: None,
                    url: url.clone(),
                },
                Some(digest),
            );
            Ok(fetched)
        }
        Source::Pack(url) => {
            let bytes = get(client, url, MAX_INDEX_BYTES).await?;
            pack(client, url, &bytes, limits, want, SourceKind::Pack).await
        }
        Source::Vercel(url) => {
            let bytes = get(client, url, MAX_INDEX_BYTES).await?;
            pack(
                client,
                url,
                &bytes,
                limits,
                want,
                SourceKind::VercelWellKnown,
            )
            .await
        }
        Source::WellKnown(url) => {
            let bytes = get(client, url, MAX_INDEX_BYTES).await?;
            well_known(client, url, &bytes, limits, want).await
        }
        Source::Site(url) => site(client, url, limits, want).await,
        Source::Folder(url) => folder(client, url, limits, want).await,
        Source::Github(github) => {
            if want.version.is_some() {
                return Err(Problem::Invalid(
                    "a GitHub source takes its ref as owner/repo[/path]@REF, not a version"
                        .to_owned(),
                ));
            }
            repository(client, &github.0, &github.1).await
        }
        Source::Archive(url) => archive_url(client, url).await,
        Source::Local(path) => local(path).await,
    }
}

/// The archive limits for a package limit.
fn archive_limits() -> Limits {
    Limits::default()
}

/// A bare origin, a docs page or a pack's folder (09 §Publishers), looked at as the peers
/// look: every index form at the path first (the agent-skills index, v0.2 or the older form
/// its `$schema` tells apart; vercel's `/.well-known/skills/` index, v0.1; an `index.json`
/// pack in the folder), and only then the origin's root (its agent-skills index, then its
/// vercel index). A site at `/docs` is the publisher of what is at `/docs`: an index at the
/// root belongs to whoever owns the origin, which may be someone else entirely (a hosting
/// service's own skills), so it never wins over the path. Only "not there" (404, 410, and the
/// 403 an object store gives for a missing key) moves on to the next place; any other failure
/// is the answer.
async fn site(
    client: &Client,
    url: &Url,
    limits: &PackageLimits,
    want: Want<'_>,
) -> Result<Fetched, Problem> {
    look(client, site_candidates(url)?, limits, want).await
}

/// A registry download base's folder for one skill: the index forms at the folder, then the
/// folder's own `SKILL.md`; never the origin's root, whose index lists other skills.
async fn folder(
    client: &Client,
    url: &Url,
    limits: &PackageLimits,
    want: Want<'_>,
) -> Result<Fetched, Problem> {
    look(client, folder_candidates(url)?, limits, want).await
}

/// Fetches the first of `candidates` that is there, and reads it as the kind it is.
async fn look(
    client: &Client,
    candidates: Vec<(Url, SourceKind)>,
    limits: &PackageLimits,
    want: Want<'_>,
) -> Result<Fetched, Problem> {
    let mut tried = Vec::new();
    for (candidate, kind) in candidates {
        let cap = if kind == SourceKind::SkillMd {
            MAX_SKILL_MD_BYTES
        } else {
            MAX_INDEX_BYTES
        };
        match client.fetch(&candidate, cap).await {
            Ok(bytes) => {
                return match kind {
                    SourceKind::WellKnown => {
                        well_known(client, &candidate, &bytes, limits, want).await
                    }
                    _ if want.version.is_some() => Err(Problem::Invalid(format!(
                        "{} is not an agent-skills index: it has no versions to choose from",
                        policy::redact(&candidate)
                    ))),
                    SourceKind::SkillMd => {
                        let mut fetched = Fetched::new(SourceKind::SkillMd, &candidate);
                        let digest = format!("sha256:{}", hex_digest(&bytes));
                        fetched.offer_definition(
                            Download {
                                name: None,
                                files: vec![(SKILL_MD.to_owned(), bytes)],
                                version: None,
                                url: candidate,
                            },
                            Some(digest),
                        );
                        Ok(fetched)
                    }
                    other => pack(client, &candidate, &bytes, limits, want, other).await,
                };
            }
            // An object store answers 403 for a key that does not exist.
            Err(FetchError::Status(403 | 404 | 410)) => tried.push(policy::redact(&candidate)),
            Err(error) => return Err(Problem::from((candidate, error))),
        }
    }
    Err(Problem::Invalid(format!(
        "no skills index was found; looked at {}",
        tried.join(", ")
    )))
}

/// `url` without its query and fragment, and its path without a trailing `/`.
fn base_of(url: &Url) -> (Url, String) {
    let mut base = url.clone();
    base.set_query(None);
    base.set_fragment(None);
    let path = base.path().trim_end_matches('/').to_owned();
    (base, path)
}

/// `base` with the path `path` + `file`.
fn at(base: &Url, path: &str, file: &str) -> Url {
    let mut candidate = base.clone();
    candidate.set_path(&format!("{path}{file}"));
    candidate
}

/// The index forms at `path`, in the order they are tried: v0.2 (and the older agent-skills
/// form), v0.1, a pack.
fn indexes_at(base: &Url, path: &str) -> Vec<(Url, SourceKind)> {
    vec![
        (at(base, path, WELL_KNOWN_INDEX), SourceKind::WellKnown),
        (at(base, path, VERCEL_INDEX), SourceKind::VercelWellKnown),
        (at(base, path, &format!("/{PACK_INDEX}")), SourceKind::Pack),
    ]
}

/// The places `site` looks, in order, with the kind each one is.
pub(crate) fn site_candidates(url: &Url) -> Result<Vec<(Url, SourceKind)>, Problem> {
    let (base, path) = base_of(url);
    let mut candidates = indexes_at(&base, &path);
    if !path.is_empty() {
        candidates.push((at(&base, "", WELL_KNOWN_INDEX), SourceKind::WellKnown));
        candidates.push((at(&base, "", VERCEL_INDEX), SourceKind::VercelWellKnown));
    }
    Ok(candidates)
}

/// The places a download base's folder is looked at, in order, with the kind each one is.
pub(crate) fn folder_candidates(url: &Url) -> Result<Vec<(Url, SourceKind)>, Problem> {
    let (base, path) = base_of(url);
    let mut candidates = indexes_at(&base, &path);
    candidates.push((
        at(&base, &path, &format!("/{SKILL_MD}")),
        SourceKind::SkillMd,
    ));
    Ok(candidates)
}

/// A GitHub repository or folder: the tarball at the ref in one request (redirects to the
/// archive host included), then the skills under the path.
async fn repository(
    client: &Client,
    repository: &Repository,
    tarball: &Url,
) -> Result<Fetched, Problem> {
    let limits = archive_limits();
    let bytes = get(client, tarball, limits.total).await?;
    let format = Format::sniff(&bytes).unwrap_or(Format::TarGz);
    let files = archive::extract_tree(&bytes, format, &limits).map_err(Problem::Invalid)?;
    let commit = files
        .files
        .first()
        .and_then(|(path, _)| path.split_once('/'))
        .and_then(|(top, _)| top.rsplit_once('-'))
        .map(|(_, sha)| sha)
        .filter(|sha| (7..=40).contains(&sha.len()) && sha.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_owned);
    let search = finder::skills_found(files, repository.path.as_deref(), tarball)
        .map_err(|reason| Problem::Invalid(format!("{}: {reason}", repository.display())))?;
    let mut fetched = Fetched::new(SourceKind::Github, tarball);
    fetched.reference = repository.reference.clone();
    fetched.commit = commit;
    let digest = format!("sha256:{}", hex_digest(&bytes));
    fetched.offer_tree(search, Some(&digest));
    Ok(fetched)
}

/// Any archive URL: extracted, every skill inside offered.
async fn archive_url(client: &Client, url: &Url) -> Result<Fetched, Problem> {
    let limits = archive_limits();
    let bytes = get(client, url, limits.total).await?;
    let format = Format::sniff(&bytes)
        .or_else(|| Format::of_name(url.path()))
        .ok_or_else(|| Problem::Invalid("the download is neither a .tar.gz nor a .zip".into()))?;
    let files = archive::extract_tree(&bytes, format, &limits).map_err(Problem::Invalid)?;
    let search = finder::skills_found(files, None, url).map_err(Problem::Invalid)?;
    let mut fetched = Fetched::new(SourceKind::Archive, url);
    let digest = format!("sha256:{}", hex_digest(&bytes));
    fetched.offer_tree(search, Some(&digest));
    Ok(fetched)
}

/// A folder or archive on this machine: read without following any link (a link is refused,
/// never copied through), then the skills found in it. No network.
async fn local(path: &Path) -> Result<Fetched, Problem> {
    let absolute = std::path::absolute(path)
        .map_err(|error| Problem::Invalid(format!("'{}': {error}", path.display())))?;
    let reading = absolute.clone();
    let files = tokio::task::spawn_blocking(move || local_files(&reading))
        .await
        .map_err(|error| Problem::Invalid(format!("the read was interrupted: {error}")))??;
    let url = Url::from_file_path(&absolute).map_err(|()| {
        Problem::Invalid(format!("'{}' cannot be named as a URL", absolute.display()))
    })?;
    let found = if absolute.is_dir() {
        finder::skills_found_in_folder(files, None, &url)
    } else {
        finder::skills_found(files, None, &url)
    };
    let search =
        found.map_err(|reason| Problem::Invalid(format!("'{}': {reason}", path.display())))?;
    let mut fetched = Fetched {
        kind: SourceKind::Local,
        ..Fetched::default()
    };
    fetched.offer_tree(search, None);
    Ok(fetched)
}

/// Links, special files and files over the limit are kept aside by the reader, never opened
/// or read past the limit; one inside a skill found refuses that skill (see
/// [`finder::skills_found`]).
fn local_files(path: &Path) -> Result<archive::Tree, Problem> {
    crate::local::read_tree(path, &archive_limits()).map_err(Problem::Invalid)
}

async fn get(client: &Client, url: &Url, cap: u64) -> Result<Vec<u8>, Problem> {
    client
        .fetch(url, cap)
        .await
        .map_err(|error| Problem::from((url.clone(), error)))
}

#[derive(Deserialize)]
struct PackIndex {
    skills: Vec<PackEntry>,
}

#[derive(Deserialize)]
struct PackEntry {
    name: String,
    files: Vec<String>,
    /// Vercel's index describes each skill; a pack need not.
    #[serde(default)]
    #[expect(
        dead_code,
        reason = "read for the shape; the description used is the SKILL.md's"
    )]
    description: Option<String>,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    sha256: BTreeMap<String, String>,
}

/// A pack: `index.json` lists skills; each file is fetched from `<base>/<name>/<file>` on the
/// index's own origin.
///
/// Vercel's `/.well-known/skills/index.json` (v0.1) has the same layout (files at
/// `/.well-known/skills/<name>/<file>`, beside the index) with a description and no digests;
/// it is read here and recorded as its own kind.
async fn pack(
    client: &Client,
    index_url: &Url,
    bytes: &[u8],
    limits: &PackageLimits,
    want: Want<'_>,
    kind: SourceKind,
) -> Result<Fetched, Problem> {
    let mut index: PackIndex = parse_json(bytes)?;
    if index.skills.is_empty() {
        return Err(Problem::Invalid("the index lists no skills".to_owned()));
    }
    let mut fetched = Fetched::new(kind, index_url);
    fetched.listed = index
        .skills
        .iter()
        .map(|entry| entry.name.clone())
        .collect();
    index.skills.retain(|entry| want.wants(&entry.name));
    let base = index_url
        .join("./")
        .map_err(|error| Problem::Invalid(error.to_string()))?;
    client.report(|| InstallProgress::Planned {
        files: index.skills.iter().map(|entry| entry.files.len()).sum(),
    });
    for entry in index.skills {
        skills_types::path::check_relative(&entry.name)
            .ok()
            .filter(|components| components.len() == 1)
            .ok_or_else(|| {
                Problem::Invalid(format!(
                    "the pack entry name '{}' is not a plain folder name",
                    entry.name.escape_debug()
                ))
            })?;
        check_paths(&entry.name, &entry.files, limits)?;
        let mut files = Vec::new();
        let mut total = 0u64;
        for file in &entry.files {
            // Files come from beside the index, on its own origin: a pack cannot make the
            // installer fetch from anywhere else.
            let url = beside(&base, &entry.name, file)?;
            if url.origin() != index_url.origin() {
                return Err(Problem::Invalid(format!(
                    "the file '{file}' of '{}' is not on the pack's origin",
                    entry.name
                )));
            }
            let bytes = client
                .fetch_same_origin(&url, limits.max_file_bytes)
                .await
                .map_err(|error| Problem::from((url.clone(), error)))?;
            total += bytes.len() as u64;
            if total > limits.max_total_bytes {
                return Err(Problem::Invalid(format!(
                    "the files of '{}' exceed {} bytes in total",
                    entry.name, limits.max_total_bytes
                )));
            }
            if let Some(expected) = entry.sha256.get(file) {
                let actual = hex_digest(&bytes);
                if !actual.eq_ignore_ascii_case(expected.trim()) {
                    return Err(Problem::Invalid(format!(
                        "the digest of '{}/{file}' does not match the pack index",
                        entry.name
                    )));
                }
            }
            let path = if match_definition(file).is_some() && !file.contains('/') {
                SKILL_MD.to_owned()
            } else {
                file.clone()
            };
            files.push((path, bytes));
        }
        for declared in entry.sha256.keys() {
            if !entry.files.contains(declared) {
                return Err(Problem::Invalid(format!(
                    "the pack index gives a digest for '{declared}', which '{}' does not list",
                    entry.name
                )));
            }
        }
        let url = beside(&base, &entry.name, "")?;
        fetched.offer(
            Download {
                name: Some(entry.name),
                files,
                version: entry.version,
                url,
            },
            None,
        );
    }
    Ok(fetched)
}

/// `<base>/<name>/<file>`, built segment by segment rather than joined as URL text: a URL
/// parser reads `%2e%2e` as `..` and `?` or `#` as the end of the path, so a joined
/// `%2e%2e/%2e%2e/x` would fetch from outside the skill's folder (and store what it got under
/// a different name). As segments, every character of the name and the file is escaped.
fn beside(base: &Url, name: &str, file: &str) -> Result<Url, Problem> {
    let mut url = base.clone();
    url.path_segments_mut()
        .map_err(|()| {
            Problem::Invalid(format!(
                "{} cannot have files beside it",
                policy::redact(base)
            ))
        })?
        .pop_if_empty()
        .push(name)
        .extend(file.split('/'));
    Ok(url)
}

/// The lexical rules of a file list (01 §Package rules): plain relative paths, no duplicates,
/// no two equal ignoring case, the definition file present, within the file count.
fn check_paths(name: &str, files: &[String], limits: &PackageLimits) -> Result<(), Problem> {
    if files.len() > limits.max_files {
        return Err(Problem::Invalid(format!(
            "'{name}' lists {} files; at most {} are allowed",
            files.len(),
            limits.max_files
        )));
    }
    let mut folded = std::collections::BTreeSet::new();
    for file in files {
        skills_types::path::check_relative(file).map_err(|refusal| {
            Problem::Invalid(format!(
                "'{name}' lists '{}': {refusal}",
                file.escape_debug()
            ))
        })?;
        if !folded.insert(file.to_lowercase()) {
            return Err(Problem::Invalid(format!(
                "'{name}' lists '{file}' twice (or twice with different letter case)"
            )));
        }
    }
    if !files
        .iter()
        .any(|file| !file.contains('/') && match_definition(file).is_some())
    {
        return Err(Problem::Invalid(format!(
            "'{name}' has no SKILL.md at its top level"
        )));
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(untagged)]
enum WellKnownIndex {
    Object { skills: Vec<WellKnownEntry> },
    List(Vec<WellKnownEntry>),
}

/// An entry of the agent-skills index: v0.2's `{name, type, description, url, digest}`
/// (`version` is this project's addition), or the older form's subset.
#[derive(Deserialize)]
struct WellKnownEntry {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    url: String,
    #[serde(default)]
    digest: Option<String>,
    #[serde(default)]
    version: Option<String>,
}

/// `versions.json` beside an index: `{versions: [{version, url}]}`, `url` relative to it.
#[derive(Deserialize)]
struct Versions {
    versions: Vec<VersionEntry>,
}

#[derive(Deserialize)]
struct VersionEntry {
    version: String,
    url: String,
}

/// A site's agent-skills index, classified by `$schema` (the RFC's rule): v0.2 is read;
/// another schema is refused with its name (the index may mean something else now); none is
/// the older form (`skill-md` entries with digests). With a version, the snapshot
/// `versions.json` lists is read instead.
async fn well_known(
    client: &Client,
    index_url: &Url,
    bytes: &[u8],
    limits: &PackageLimits,
    want: Want<'_>,
) -> Result<Fetched, Problem> {
    let document: serde_json::Value = parse_json(bytes)?;
    let schema = document.get("$schema").map(|schema| schema.as_str());
    match schema {
        Some(Some(SCHEMA_V0_2)) => {}
        Some(Some(other)) => {
            return Err(Problem::Invalid(format!(
                "the index declares the schema '{}', which this client does not know (it \
                 reads {SCHEMA_V0_2}); nothing was installed",
                skills_types::sanitize::line(other)
            )));
        }
        Some(None) => {
            return Err(Problem::Invalid(
                "the index's $schema is not a string".to_owned(),
            ));
        }
        None => {}
    }
    let v0_2 = schema.is_some();
    if let Some(version) = want.version {
        return snapshot(client, index_url, &document, version, want).await;
    }
    let index = match serde_json::from_value::<WellKnownIndex>(document) {
        Ok(index) => index,
        // The RFC's v0.1 (no `$schema`, `files` lists beside the index) has a pack's layout.
        Err(_) if !v0_2 && serde_json::from_slice::<PackIndex>(bytes).is_ok() => {
            return pack(
                client,
                index_url,
                bytes,
                limits,
                want,
                SourceKind::WellKnown,
            )
            .await;
        }
        Err(error) => return Err(Problem::Invalid(format!("the index is not valid: {error}"))),
    };
    let entries = match index {
        WellKnownIndex::Object { skills } | WellKnownIndex::List(skills) => skills,
    };
    entries_of(client, index_url, entries, v0_2, want).await
}

/// The snapshot of `version`: the one `versions.json` lists, else the current index when its
/// entries carry that version. Every other answer names the versions there are.
async fn snapshot(
    client: &Client,
    index_url: &Url,
    current: &serde_json::Value,
    version: &str,
    want: Want<'_>,
) -> Result<Fetched, Problem> {
    let wanted = version.trim().trim_start_matches('v');
    let versions_url = index_url
        .join(VERSIONS_FILE)
        .map_err(|error| Problem::Invalid(error.to_string()))?;
    let listed: Vec<VersionEntry> = match client.fetch(&versions_url, MAX_INDEX_BYTES).await {
        Ok(bytes) => parse_json::<Versions>(&bytes)?.versions,
        Err(FetchError::Status(404 | 410)) => Vec::new(),
        Err(error) => return Err(Problem::from((versions_url, error))),
    };
    if let Some(entry) = listed
        .iter()
        .find(|entry| entry.version.trim_start_matches('v') == wanted)
    {
        let url = versions_url
            .join(&entry.url)
            .map_err(|error| Problem::Invalid(format!("versions.json: {error}")))?;
        if url.origin() != index_url.origin() {
            return Err(Problem::Invalid(format!(
                "versions.json points version {version} at another origin"
            )));
        }
        let bytes = get(client, &url, MAX_INDEX_BYTES).await?;
        let document: serde_json::Value = parse_json(&bytes)?;
        if document.get("$schema").and_then(serde_json::Value::as_str) != Some(SCHEMA_V0_2) {
            return Err(Problem::Invalid(format!(
                "the snapshot of version {version} is not an agent-skills v0.2 index"
            )));
        }
        let index: WellKnownIndex = serde_json::from_value(document)
            .map_err(|error| Problem::Invalid(format!("the index is not valid: {error}")))?;
        let (WellKnownIndex::Object { skills } | WellKnownIndex::List(skills)) = index;
        let mut fetched = entries_of(client, &url, skills, true, want).await?;
        fetched.reference = Some(entry.version.clone());
        return Ok(fetched);
    }
    // The version asked for may be the current one.
    if let Ok(WellKnownIndex::Object { skills } | WellKnownIndex::List(skills)) =
        serde_json::from_value::<WellKnownIndex>(current.clone())
    {
        let current: Vec<WellKnownEntry> = skills
            .into_iter()
            .filter(|entry| {
                entry
                    .version
                    .as_deref()
                    .is_some_and(|have| have.trim_start_matches('v') == wanted)
            })
            .collect();
        if !current.is_empty() {
            let mut fetched = entries_of(client, index_url, current, true, want).await?;
            fetched.reference = Some(version.to_owned());
            return Ok(fetched);
        }
    }
    let known: Vec<&str> = listed.iter().map(|entry| entry.version.as_str()).collect();
    Err(Problem::Invalid(if known.is_empty() {
        format!("the site publishes no version {version} (no versions.json lists it)")
    } else {
        format!(
            "the site publishes no version {version}; versions.json lists {}",
            known.join(", ")
        )
    }))
}

/// The entries of an agent-skills index: `skill-md` fetched and `archive` downloaded, each
/// checked against its digest before it is used (an archive before it is extracted); an
/// unknown `type` is skipped with a warning (the RFC's rule).
async fn entries_of(
    client: &Client,
    index_url: &Url,
    entries: Vec<WellKnownEntry>,
    v0_2: bool,
    want: Want<'_>,
) -> Result<Fetched, Problem> {
    let mut fetched = Fetched::new(SourceKind::WellKnown, index_url);
    fetched.listed = entries.iter().map(|entry| entry.name.clone()).collect();
    let entries: Vec<WellKnownEntry> = entries
        .into_iter()
        .filter(|entry| want.wants(&entry.name))
        .collect();
    client.report(|| InstallProgress::Planned {
        files: entries.len(),
    });
    for entry in entries {
        let installable = entry.kind == "skill-md" || (v0_2 && entry.kind == "archive");
        if !installable {
            fetched.warnings.push(format!(
                "skipped '{}': entries of type '{}' are not installable{}",
                skills_types::sanitize::line(&entry.name),
                skills_types::sanitize::line(&entry.kind),
                if v0_2 {
                    ""
                } else {
                    " from an index without $schema"
                }
            ));
            continue;
        }
        let url = index_url
            .join(&entry.url)
            .map_err(|error| Problem::Invalid(format!("'{}': {error}", entry.name)))?;
        // Each entry's URL goes through the policy like any other.
        policy::check(&url, &client.settings().policy)
            .map_err(|refusal| Problem::from((url.clone(), FetchError::Refused(refusal))))?;
        let digest = entry.digest.clone().ok_or_else(|| {
            Problem::Invalid(format!(
                "'{}' has no sha256 digest; well-known entries must carry one",
                entry.name
            ))
        })?;
        if entry.kind == "archive" {
            let limits = archive_limits();
            let bytes = get(client, &url, limits.total).await?;
            check_digest(&bytes, &digest)
                .map_err(|reason| Problem::Invalid(format!("'{}': {reason}", entry.name)))?;
            let format = Format::sniff(&bytes)
                .or_else(|| Format::of_name(url.path()))
                .ok_or_else(|| {
                    Problem::Invalid(format!(
                        "'{}': the archive is neither a .tar.gz nor a .zip",
                        entry.name
                    ))
                })?;
            let files = archive::extract_tree(&bytes, format, &limits)
                .map_err(|reason| Problem::Invalid(format!("'{}': {reason}", entry.name)))?;
            let mut downloads = finder::skills_in(files, None, &url)
                .map_err(|reason| Problem::Invalid(format!("'{}': {reason}", entry.name)))?;
            if downloads.len() != 1 {
                return Err(Problem::Invalid(format!(
                    "the archive of '{}' holds {} skills; an index entry is one skill",
                    entry.name,
                    downloads.len()
                )));
            }
            let mut download = downloads.remove(0);
            download.name = Some(entry.name);
            download.version = entry.version;
            fetched.offer(download, Some(digest));
            continue;
        }
        if v0_2 && !is_sha256_digest(&digest) {
            return Err(Problem::Invalid(format!(
                "'{}': the digest '{}' is not of the form sha256:<64 lowercase hex digits>",
                entry.name,
                skills_types::sanitize::line(&digest)
            )));
        }
        let expected = digest.strip_prefix("sha256:").ok_or_else(|| {
            Problem::Invalid(format!(
                "'{}' has no sha256 digest; well-known entries must carry one",
                entry.name
            ))
        })?;
        let bytes = get(client, &url, MAX_SKILL_MD_BYTES).await?;
        if !hex_digest(&bytes).eq_ignore_ascii_case(expected.trim()) {
            return Err(Problem::Invalid(format!(
                "the digest of '{}' does not match the index",
                entry.name
            )));
        }
        fetched.offer_definition(
            Download {
                name: Some(entry.name),
                files: vec![(SKILL_MD.to_owned(), bytes)],
                version: entry.version,
                url,
            },
            Some(digest),
        );
    }
    if fetched.offers.is_empty() && want.skills.is_empty() {
        return Err(Problem::Invalid(format!(
            "the index lists no installable ({}) entries",
            if v0_2 {
                "skill-md or archive"
            } else {
                "skill-md"
            }
        )));
    }
    Ok(fetched)
}

/// `sha256:` and 64 lowercase hex digits, as v0.2 spells every digest.
fn is_sha256_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
    })
}

fn parse_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Problem> {
    serde_json::from_slice(bytes)
        .map_err(|error| Problem::Invalid(format!("the index is not valid: {error}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidates(text: &str) -> Vec<(String, &'static str)> {
        site_candidates(&Url::parse(text).unwrap())
            .unwrap()
            .into_iter()
            .map(|(url, kind)| (url.to_string(), kind.as_str()))
            .collect()
    }

    #[test]
    fn v0_2_digests_are_spelled_one_way() {
        let hex = "a".repeat(64);
        assert!(is_sha256_digest(&format!("sha256:{hex}")));
        for bad in [
            hex.clone(),
            format!("sha256:{}", "A".repeat(64)),
            format!("sha256:{}", "a".repeat(63)),
            format!("sha512:{hex}"),
            format!("sha256: {hex}"),
        ] {
            assert!(!is_sha256_digest(&bad), "{bad}");
        }
    }

    #[test]
    fn a_site_is_looked_at_beside_its_path_before_its_root() {
        // Every index form at the path (v0.2, v0.1, a pack), then the origin's root: a root
        // index never wins over one at the path.
        assert_eq!(
            candidates("https://example.com/docs/?q=1#top"),
            [
                (
                    "https://example.com/docs/.well-known/agent-skills/index.json".to_owned(),
                    "well-known"
                ),
                (
                    "https://example.com/docs/.well-known/skills/index.json".to_owned(),
                    "vercel-well-known"
                ),
                ("https://example.com/docs/index.json".to_owned(), "pack"),
                (
                    "https://example.com/.well-known/agent-skills/index.json".to_owned(),
                    "well-known"
                ),
                (
                    "https://example.com/.well-known/skills/index.json".to_owned(),
                    "vercel-well-known"
                ),
            ]
        );
        // A bare origin has one place of each kind.
        let origin: Vec<&str> = candidates("https://example.com")
            .iter()
            .map(|(_, kind)| *kind)
            .collect();
        assert_eq!(origin, ["well-known", "vercel-well-known", "pack"]);
    }

    #[test]
    fn a_download_base_folder_is_looked_at_alone_then_its_skill_md() {
        let found: Vec<(String, &str)> =
            folder_candidates(&Url::parse("https://cdn.example.org/skills/security/x/").unwrap())
                .unwrap()
                .into_iter()
                .map(|(url, kind)| (url.to_string(), kind.as_str()))
                .collect();
        assert_eq!(
            found,
            [
                (
                    "https://cdn.example.org/skills/security/x/.well-known/agent-skills/index.json"
                        .to_owned(),
                    "well-known"
                ),
                (
                    "https://cdn.example.org/skills/security/x/.well-known/skills/index.json"
                        .to_owned(),
                    "vercel-well-known"
                ),
                (
                    "https://cdn.example.org/skills/security/x/index.json".to_owned(),
                    "pack"
                ),
                (
                    "https://cdn.example.org/skills/security/x/SKILL.md".to_owned(),
                    "skill-md"
                ),
            ]
        );
        assert!(
            found
                .iter()
                .all(|(url, _)| url.starts_with("https://cdn.example.org/skills/security/x/")),
            "never the origin's root"
        );
    }
}
