//! The well-known tree on disk: what a site already holds, the tree a publish makes of it (the
//! current index, the snapshots of older versions, `versions.json`), and the one rename that
//! puts the new tree in place.
//!
//! The folder `<site>/.well-known/agent-skills/` is taken over whole: it is rebuilt beside
//! itself and exchanged in one step, so a static server never serves an index whose artifacts
//! are not there yet. For the same reason the folder must hold nothing the indexes do not name:
//! a file somebody else put there would be lost in the exchange, so the publish stops instead.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use skills_types::files::STAGING_PREFIX;
use skills_types::publish::{
    ARCHIVE_EXTENSION, ArtifactKind, INDEX_FILE, Index, IndexEntry, Outcome, Published, Refused,
    SCHEMA_V0_2, SNAPSHOT_PREFIX, Snapshot, VERSIONS_FILE, VersionEntry, Versions, WELL_KNOWN_DIR,
};
use skills_types::{Error, files::SKILL_MD};

use super::Artifact;
use skills_net::digest::hex_digest;

/// The most characters of a version that names a snapshot folder.
const MAX_VERSION_CHARS: usize = 64;

/// The largest file of an existing site read back: an artifact is at most a package's total
/// (10 MiB) and an index lists a few thousand skills, so anything far larger was not written
/// by a publish.
const MAX_SITE_FILE_BYTES: u64 = 64 * skills_types::limits::MIB;

/// Whether `version` can name a snapshot folder (`v<version>`): letters, digits and `.-+_`,
/// starting with a letter or digit, at most 64 characters. Anything else could be `..`, a
/// separator, or a name a static host treats specially.
pub(crate) fn check_version(version: &str) -> Result<(), &'static str> {
    if version.is_empty() || version.chars().count() > MAX_VERSION_CHARS {
        return Err("it must have 1 to 64 characters");
    }
    if !version.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err("it must start with a letter or digit");
    }
    if !version
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'))
    {
        return Err("only letters, digits and . - + _ are allowed");
    }
    Ok(())
}

/// Where an artifact of this kind lives, relative to its index.
fn artifact_path(kind: ArtifactKind, name: &str) -> String {
    match kind {
        ArtifactKind::SkillMd => format!("{name}/{SKILL_MD}"),
        ArtifactKind::Archive => format!("{name}{ARCHIVE_EXTENSION}"),
    }
}

fn snapshot_folder(version: &str) -> String {
    format!("{SNAPSHOT_PREFIX}{version}")
}

/// Writes the tree for `artifacts` (sorted by name) under `out`, keeping the snapshots the
/// site holds and adding one for each skill whose version changed. A `refused` skill the site
/// already publishes keeps its entry and artifact as they are (and is marked `kept`).
pub(super) fn write(
    out: &Path,
    artifacts: Vec<Artifact>,
    mut warnings: Vec<String>,
    mut refused: Vec<Refused>,
) -> Result<Outcome, Error> {
    std::fs::create_dir_all(out).map_err(|error| Error::io("create", out, error))?;
    let parent = out.join(".well-known");
    match std::fs::symlink_metadata(&parent) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir(&parent).map_err(|error| Error::io("create", &parent, error))?;
        }
        Err(error) => return Err(Error::io("examine", &parent, error)),
        // A link here would put the tree wherever it points, outside the site.
        Ok(metadata) if !metadata.is_dir() => return Err(not_a_real_folder(&parent)),
        Ok(_) => {}
    }
    let folder = out.join(WELL_KNOWN_DIR);
    let existing = match std::fs::symlink_metadata(&folder) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(Error::io("examine", &folder, error)),
        Ok(metadata) if !metadata.is_dir() => return Err(not_a_real_folder(&folder)),
        Ok(_) => Some(Existing::read(&folder)?),
    };

    let kept = match &existing {
        Some(existing) => existing.keep(&artifacts, &mut refused)?,
        None => Vec::new(),
    };
    let mut listed: Vec<&Artifact> = artifacts.iter().chain(&kept).collect();
    listed.sort_by(|a, b| a.entry.name.cmp(&b.entry.name));
    let plan = Plan::new(&listed, existing.as_ref(), &mut warnings)?;
    let index = folder.join(INDEX_FILE);
    let skills = artifacts
        .into_iter()
        .map(|artifact| Published {
            entry: artifact.entry,
            dir: artifact.dir,
            files: artifact.files,
        })
        .collect();
    let unchanged = existing
        .as_ref()
        .is_some_and(|existing| existing.files == plan.tree);
    if !unchanged {
        swap_in(&parent, &folder, &plan.tree, existing.is_some())?;
    }
    Ok(Outcome {
        index,
        skills,
        snapshots: plan.added,
        changed: !unchanged,
        warnings,
        refused,
    })
}

/// The outcome when every skill was refused: nothing is written (an index without them would
/// only take skills off the site), and each refused skill the site's index lists is `kept`,
/// since the site goes on serving it. An index that cannot be read marks none.
pub(super) fn untouched(out: &Path, warnings: Vec<String>, mut refused: Vec<Refused>) -> Outcome {
    let folder = out.join(WELL_KNOWN_DIR);
    let published: Option<Index> =
        skills_ops::reader::read_bytes_beneath(&folder, INDEX_FILE, MAX_SITE_FILE_BYTES)
            .ok()
            .and_then(|read| serde_json::from_slice(&read.data).ok());
    for refusal in &mut refused {
        refusal.kept = published.as_ref().is_some_and(|index| {
            index
                .skills
                .iter()
                .any(|entry| Some(&entry.name) == refusal.name.as_ref())
        });
    }
    Outcome {
        index: folder.join(INDEX_FILE),
        skills: Vec::new(),
        snapshots: Vec::new(),
        changed: false,
        warnings,
        refused,
    }
}

fn not_a_real_folder(path: &Path) -> Error {
    Error::InvalidInput(format!(
        "{} is not a folder (a symbolic link or a file); publish writes only into real folders \
         of the site, so nothing was written",
        path.display()
    ))
}

fn foreign(folder: &Path, reason: &str) -> Error {
    Error::InvalidInput(format!(
        "{} {reason}; publish replaces that folder whole, so nothing was written (move what is \
         there elsewhere, or publish into another site folder)",
        folder.display()
    ))
}

/// What a site's well-known folder holds, checked to be a tree a publish wrote.
struct Existing {
    /// Every file, by path relative to the folder.
    files: BTreeMap<String, Vec<u8>>,
    /// The current index, unless the folder is empty.
    index: Option<Index>,
    /// The snapshots `versions.json` lists, by version.
    snapshots: BTreeMap<String, Index>,
}

impl Existing {
    fn read(folder: &Path) -> Result<Self, Error> {
        let mut files = BTreeMap::new();
        collect(folder, folder, "", &mut files)?;
        if files.is_empty() {
            return Ok(Self {
                files,
                index: None,
                snapshots: BTreeMap::new(),
            });
        }
        let parse_index = |relative: &str| -> Result<Index, Error> {
            let bytes = files
                .get(relative)
                .ok_or_else(|| foreign(folder, &format!("holds files but no {relative}")))?;
            let index: Index = serde_json::from_slice(bytes).map_err(|error| {
                foreign(
                    folder,
                    &format!("holds a {relative} that is not an index ({error})"),
                )
            })?;
            if index.schema != SCHEMA_V0_2 {
                return Err(foreign(
                    folder,
                    &format!(
                        "holds a {relative} of another format ($schema '{}')",
                        index.schema.escape_debug()
                    ),
                ));
            }
            Ok(index)
        };
        let index = parse_index(INDEX_FILE)?;
        let mut known: BTreeSet<String> = BTreeSet::from([INDEX_FILE.to_owned()]);
        let check_entries = |prefix: &str,
                             index: &Index,
                             known: &mut BTreeSet<String>|
         -> Result<(), Error> {
            for entry in &index.skills {
                let path = format!("{prefix}{}", artifact_path(entry.kind, &entry.name));
                let matches = files
                    .get(&path)
                    .is_some_and(|bytes| format!("sha256:{}", hex_digest(bytes)) == entry.digest);
                if entry.url != artifact_path(entry.kind, &entry.name) || !matches {
                    return Err(foreign(
                        folder,
                        &format!(
                            "lists '{}' at '{}', which does not hold the artifact with its digest (changed by hand?)",
                            entry.name,
                            entry.url.escape_debug()
                        ),
                    ));
                }
                known.insert(path);
            }
            Ok(())
        };
        check_entries("", &index, &mut known)?;
        let mut snapshots = BTreeMap::new();
        if let Some(bytes) = files.get(VERSIONS_FILE) {
            let versions: Versions = serde_json::from_slice(bytes).map_err(|error| {
                foreign(
                    folder,
                    &format!("holds a {VERSIONS_FILE} that cannot be read ({error})"),
                )
            })?;
            for line in versions.versions {
                let expected = format!("{}/{INDEX_FILE}", snapshot_folder(&line.version));
                if check_version(&line.version).is_err() || line.url != expected {
                    return Err(foreign(
                        folder,
                        &format!(
                            "lists the snapshot '{}' in {VERSIONS_FILE}, which publish did not write",
                            line.url.escape_debug()
                        ),
                    ));
                }
                let snapshot = parse_index(&expected)?;
                check_entries(
                    &format!("{}/", snapshot_folder(&line.version)),
                    &snapshot,
                    &mut known,
                )?;
                known.insert(expected);
                snapshots.insert(line.version, snapshot);
            }
            known.insert(VERSIONS_FILE.to_owned());
        }
        if let Some(stranger) = files.keys().find(|path| !known.contains(*path)) {
            return Err(foreign(
                folder,
                &format!(
                    "holds '{}', which no published index names",
                    stranger.escape_debug()
                ),
            ));
        }
        Ok(Self {
            files,
            index: Some(index),
            snapshots,
        })
    }
}

impl Existing {
    /// The published entries of the `refused` skills (by the name their frontmatter gives)
    /// that no new artifact replaces, as artifacts with their published bytes; each such
    /// refusal is marked `kept`. A refusal must never take a skill off the site: its
    /// clients would lose a skill that worked because a change to it does not pass yet.
    fn keep(
        &self,
        artifacts: &[Artifact],
        refused: &mut [Refused],
    ) -> Result<Vec<Artifact>, Error> {
        let mut kept: Vec<Artifact> = Vec::new();
        let Some(index) = &self.index else {
            return Ok(kept);
        };
        for refusal in refused {
            let Some(name) = &refusal.name else { continue };
            if artifacts
                .iter()
                .any(|artifact| &artifact.entry.name == name)
            {
                continue;
            }
            let Some(entry) = index.skills.iter().find(|entry| &entry.name == name) else {
                continue;
            };
            refusal.kept = true;
            if kept.iter().all(|artifact| &artifact.entry.name != name) {
                kept.push(Artifact {
                    entry: entry.clone(),
                    bytes: self.artifact(&entry.url)?,
                    dir: refusal.dir.clone(),
                    files: 0,
                });
            }
        }
        Ok(kept)
    }

    /// An artifact [`Existing::read`] checked against its digest.
    fn artifact(&self, path: &str) -> Result<Vec<u8>, Error> {
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| Error::Internal {
                action: "publishing".to_owned(),
                reason: format!("the artifact '{path}' read and checked before is no longer held"),
            })
    }
}

/// Reads every file below `dir`; a link or special file means the folder is not ours.
fn collect(
    folder: &Path,
    dir: &Path,
    prefix: &str,
    files: &mut BTreeMap<String, Vec<u8>>,
) -> Result<(), Error> {
    let entries = std::fs::read_dir(dir).map_err(|error| Error::io("list", dir, error))?;
    for entry in entries {
        let entry = entry.map_err(|error| Error::io("list", dir, error))?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let kind = entry
            .file_type()
            .map_err(|error| Error::io("examine", &path, error))?;
        if kind.is_dir() {
            collect(folder, &path, &relative, files)?;
        } else if kind.is_file() {
            // Through the safe reader: a file swapped for a FIFO or a link after the listing
            // cannot hang the publish or be read from elsewhere.
            let bytes =
                skills_ops::reader::read_bytes_beneath(folder, &relative, MAX_SITE_FILE_BYTES)
                    .map_err(|refusal| {
                        foreign(
                            folder,
                            &format!(
                                "holds '{}', which cannot be read ({refusal})",
                                relative.escape_debug()
                            ),
                        )
                    })?
                    .data;
            files.insert(relative, bytes);
        } else {
            return Err(foreign(
                folder,
                &format!(
                    "holds '{}', which is not a regular file",
                    relative.escape_debug()
                ),
            ));
        }
    }
    Ok(())
}

/// The new tree, and the snapshots it adds.
struct Plan {
    tree: BTreeMap<String, Vec<u8>>,
    added: Vec<Snapshot>,
}

impl Plan {
    fn new(
        artifacts: &[&Artifact],
        existing: Option<&Existing>,
        warnings: &mut Vec<String>,
    ) -> Result<Self, Error> {
        // version → name → (entry, bytes), the entry's URL relative to the snapshot folder.
        let mut snapshots: BTreeMap<String, BTreeMap<String, (IndexEntry, Vec<u8>)>> =
            BTreeMap::new();
        let mut added = Vec::new();
        if let Some(existing) = existing {
            for (version, index) in &existing.snapshots {
                let folder = snapshot_folder(version);
                for entry in &index.skills {
                    let bytes = existing.artifact(&format!("{folder}/{}", entry.url))?;
                    snapshots
                        .entry(version.clone())
                        .or_default()
                        .insert(entry.name.clone(), (entry.clone(), bytes));
                }
            }
            for old in existing.index.iter().flat_map(|index| &index.skills) {
                let Some(new) = artifacts
                    .iter()
                    .find(|artifact| artifact.entry.name == old.name)
                else {
                    warnings.push(format!(
                        "'{}' is no longer published (its snapshots, if any, are kept)",
                        old.name
                    ));
                    continue;
                };
                if new.entry.digest == old.digest {
                    continue;
                }
                match (&old.version, &new.entry.version) {
                    (Some(before), now) if now.as_ref() != Some(before) => {
                        let kept = snapshots.entry(before.clone()).or_default();
                        // A published version is immutable: the first copy kept stays.
                        if !kept.contains_key(&old.name) {
                            let bytes = existing.artifact(&old.url)?;
                            kept.insert(old.name.clone(), (old.clone(), bytes));
                            added.push(Snapshot {
                                name: old.name.clone(),
                                version: before.clone(),
                                url: format!("{}/{INDEX_FILE}", snapshot_folder(before)),
                            });
                        }
                    }
                    (Some(before), _) => warnings.push(format!(
                        "'{}' changed but its version is still {before}: clients that pinned {before} now get different content (raise metadata.version)",
                        old.name
                    )),
                    (None, _) => warnings.push(format!(
                        "'{}' changed and has no metadata.version, so its old copy is not kept as a snapshot",
                        old.name
                    )),
                }
            }
        }

        let mut tree = BTreeMap::new();
        let mut put = |path: String, bytes: Vec<u8>| -> Result<(), Error> {
            if tree.contains_key(&path) {
                return Err(Error::InvalidInput(format!(
                    "two artifacts of the site would both be '{path}' (a skill named like a snapshot folder?); nothing was written"
                )));
            }
            tree.insert(path, bytes);
            Ok(())
        };
        for artifact in artifacts {
            put(artifact.entry.url.clone(), artifact.bytes.clone())?;
        }
        put(
            INDEX_FILE.to_owned(),
            json(&Index {
                schema: SCHEMA_V0_2.to_owned(),
                skills: artifacts
                    .iter()
                    .map(|artifact| artifact.entry.clone())
                    .collect(),
            })?,
        )?;
        let mut versions = Vec::new();
        for (version, entries) in &snapshots {
            let folder = snapshot_folder(version);
            let mut listed = Vec::new();
            for (entry, bytes) in entries.values() {
                let entry = IndexEntry {
                    url: artifact_path(entry.kind, &entry.name),
                    ..entry.clone()
                };
                put(format!("{folder}/{}", entry.url), bytes.clone())?;
                listed.push(entry);
            }
            versions.push(VersionEntry {
                version: version.clone(),
                url: format!("{folder}/{INDEX_FILE}"),
                skills: listed.iter().map(|entry| entry.name.clone()).collect(),
            });
            put(
                format!("{folder}/{INDEX_FILE}"),
                json(&Index {
                    schema: SCHEMA_V0_2.to_owned(),
                    skills: listed,
                })?,
            )?;
        }
        if !versions.is_empty() {
            versions.sort_by_key(|line| version_key(&line.version));
            put(VERSIONS_FILE.to_owned(), json(&Versions { versions })?)?;
        }
        Ok(Self { tree, added })
    }
}

/// Orders versions the way people read them: `1.10.0` after `1.9.0`.
fn version_key(version: &str) -> Vec<(u8, u64, String)> {
    version
        .split(['.', '-', '+', '_'])
        .map(|part| match part.parse::<u64>() {
            Ok(number) => (0, number, String::new()),
            Err(_) => (1, 0, part.to_owned()),
        })
        .collect()
}

fn json<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, Error> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|error| Error::Internal {
        action: "encoding the index".to_owned(),
        reason: error.to_string(),
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Builds `tree` in a hidden staging folder beside `folder` and puts it in place with one
/// rename (an exchange when a tree is there already; the old one is removed after). A
/// staging folder left by a crash is removed first.
fn swap_in(
    parent: &Path,
    folder: &Path,
    tree: &BTreeMap<String, Vec<u8>>,
    replace: bool,
) -> Result<(), Error> {
    let stale = format!("{STAGING_PREFIX}agent-skills-");
    if let Ok(entries) = std::fs::read_dir(parent) {
        for entry in entries.filter_map(Result::ok) {
            let ours = entry
                .file_name()
                .to_str()
                .is_some_and(|name| name.starts_with(&stale));
            if ours && entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                drop(std::fs::remove_dir_all(entry.path()));
            }
        }
    }
    let staging = parent.join(format!("{stale}{}", skills_ops::fs::unique_suffix()));
    let result = stage(&staging, tree).and_then(|()| {
        if replace {
            skills_ops::fs::exchange(&staging, folder)?;
            std::fs::remove_dir_all(&staging)
        } else {
            skills_ops::fs::rename_noreplace(&staging, folder)
        }
    });
    let result = result.and_then(|()| skills_ops::fs::sync_directory(parent));
    if let Err(error) = result {
        drop(std::fs::remove_dir_all(&staging));
        return Err(Error::io("publish into", folder, error));
    }
    Ok(())
}

fn stage(staging: &Path, tree: &BTreeMap<String, Vec<u8>>) -> std::io::Result<()> {
    std::fs::create_dir(staging)?;
    let mut folders = BTreeSet::from([staging.to_path_buf()]);
    for (relative, bytes) in tree {
        let path = staging.join(relative);
        if let Some(parent) = path.parent()
            && folders.insert(parent.to_path_buf())
        {
            std::fs::create_dir_all(parent)?;
        }
        skills_ops::fs::write_new(&path, bytes)?;
    }
    for folder in folders.iter().rev() {
        skills_ops::fs::sync_directory(folder)?;
    }
    Ok(())
}
