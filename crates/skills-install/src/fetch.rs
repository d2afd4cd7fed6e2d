//! Downloading a source into memory (03 §Sources): every file of every skill, checked against
//! the limits and digests before anything touches the disk.

use std::collections::BTreeMap;

use serde::Deserialize;
use sha2::{Digest, Sha256};
use skills_types::files::{SKILL_MD, match_definition};
use skills_types::limits::{MAX_SKILL_MD_BYTES, PackageLimits};
use url::Url;

use crate::client::{Client, FetchError, InstallProgress};
use crate::policy;
use crate::source::Source;

/// Largest index (pack or well-known) accepted.
const MAX_INDEX_BYTES: u64 = skills_types::limits::MIB;

/// One skill's files, in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Download {
    /// The name the source gave it (a pack or index entry), if any.
    pub name: Option<String>,
    /// `(relative path, bytes)`, the definition file named `SKILL.md`.
    pub files: Vec<(String, Vec<u8>)>,
    /// The version the source declared.
    pub version: Option<String>,
    /// Where the definition file came from.
    pub url: Url,
}

/// Why a download is not acceptable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
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

/// Downloads every skill of `source`; the second value holds warnings (entries skipped).
pub async fn download(
    client: &Client,
    source: &Source,
    limits: &PackageLimits,
) -> Result<(Vec<Download>, Vec<String>), Problem> {
    match source {
        Source::SkillFile(url) => {
            let bytes = get(client, url, MAX_SKILL_MD_BYTES).await?;
            Ok((
                vec![Download {
                    name: None,
                    files: vec![(SKILL_MD.to_owned(), bytes)],
                    version: None,
                    url: url.clone(),
                }],
                Vec::new(),
            ))
        }
        Source::Pack(url) => pack(client, url, limits).await,
        Source::WellKnown(url) => well_known(client, url).await,
    }
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
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    sha256: BTreeMap<String, String>,
}

/// A pack: `index.json` lists skills; each file is fetched from `<base>/<name>/<file>` on the
/// index's own origin.
async fn pack(
    client: &Client,
    index_url: &Url,
    limits: &PackageLimits,
) -> Result<(Vec<Download>, Vec<String>), Problem> {
    let index: PackIndex = parse_json(&get(client, index_url, MAX_INDEX_BYTES).await?)?;
    if index.skills.is_empty() {
        return Err(Problem::Invalid("the pack lists no skills".to_owned()));
    }
    let base = index_url
        .join("./")
        .map_err(|error| Problem::Invalid(error.to_string()))?;
    client.report(|| InstallProgress::Planned {
        files: index.skills.iter().map(|entry| entry.files.len()).sum(),
    });
    let mut downloads = Vec::new();
    for entry in index.skills {
        skills_ops::path::check_relative(&entry.name)
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
        downloads.push(Download {
            name: Some(entry.name),
            files,
            version: entry.version,
            url,
        });
    }
    Ok((downloads, Vec::new()))
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
        skills_ops::path::check_relative(file).map_err(|refusal| {
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

#[derive(Deserialize)]
struct WellKnownEntry {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    url: String,
    #[serde(default)]
    digest: Option<String>,
}

/// A site's well-known index: every `skill-md` entry, its digest verified.
async fn well_known(
    client: &Client,
    index_url: &Url,
) -> Result<(Vec<Download>, Vec<String>), Problem> {
    let index: WellKnownIndex = parse_json(&get(client, index_url, MAX_INDEX_BYTES).await?)?;
    let entries = match index {
        WellKnownIndex::Object { skills } | WellKnownIndex::List(skills) => skills,
    };
    client.report(|| InstallProgress::Planned {
        files: entries
            .iter()
            .filter(|entry| entry.kind == "skill-md")
            .count(),
    });
    let mut downloads = Vec::new();
    let mut warnings = Vec::new();
    for entry in entries {
        if entry.kind != "skill-md" {
            warnings.push(format!(
                "skipped '{}': entries of type '{}' are not installable yet",
                entry.name, entry.kind
            ));
            continue;
        }
        let url = index_url
            .join(&entry.url)
            .map_err(|error| Problem::Invalid(format!("'{}': {error}", entry.name)))?;
        // Each entry's URL goes through the policy like any other.
        policy::check(&url, &client.settings().policy)
            .map_err(|refusal| Problem::from((url.clone(), FetchError::Refused(refusal))))?;
        let expected = entry
            .digest
            .as_deref()
            .and_then(|digest| digest.strip_prefix("sha256:"))
            .ok_or_else(|| {
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
        downloads.push(Download {
            name: Some(entry.name),
            files: vec![(SKILL_MD.to_owned(), bytes)],
            version: None,
            url,
        });
    }
    if downloads.is_empty() {
        return Err(Problem::Invalid(
            "the index lists no installable (skill-md) entries".to_owned(),
        ));
    }
    Ok((downloads, warnings))
}

fn parse_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Problem> {
    serde_json::from_slice(bytes)
        .map_err(|error| Problem::Invalid(format!("the index is not valid: {error}")))
}

/// Lowercase hex SHA-256.
pub fn hex_digest(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}
