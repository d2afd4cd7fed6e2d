//! `publish`: the producing side of the agent-skills discovery v0.2 format (09 §Publishing).
//! Skill folders in, a static well-known tree out, which any file server, object store or CDN
//! can serve; there is no server of ours to run.
//!
//! Three properties matter more than anything else here. Nothing invalid is published: every
//! skill passes the strict agentskills profile first, or nothing is written (with
//! `keep_going`, the skills that fail are left out and listed instead, and a site that
//! published one of them before keeps its earlier copy). The output is
//! reproducible: the same folders give the same bytes (sorted archive entries, fixed times,
//! owners and modes, a gzip header without a time or a name), so a digest names content, not
//! the moment it was packed, and a CDN cache is not invalidated by a rebuild. And the site is
//! never half-written: the whole well-known folder is built beside the old one and swapped in
//! with one rename, and a folder holding anything the published indexes do not name is left
//! alone (it is somebody else's).

mod site;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use skills_types::files::{PROVENANCE_FILE, SKILL_MD, is_excluded_dir_name};
use skills_types::limits::{MAX_RELATIVE_PATH_COMPONENTS, PackageLimits};
use skills_types::publish::{
    ARCHIVE_EXTENSION, ArtifactKind, IndexEntry, Outcome, Refused, Request,
};
use skills_types::validate::{Options, Profile, Report};
use skills_types::{Error, Frontmatter};

use skills_net::archive::pack_tar_gz;
use skills_net::digest::hex_digest;

/// Validates every skill the request names, then writes (or leaves, when nothing changed) the
/// well-known tree under `request.out`. All or nothing, unless `request.keep_going`: then a
/// skill that fails is listed in [`Outcome::refused`] and the others are published.
pub fn publish(request: &Request) -> Result<Outcome, Error> {
    if request.dirs.is_empty() {
        return Err(Error::InvalidInput(
            "publish needs at least one skill folder".to_owned(),
        ));
    }
    // A folder the user named that is missing, or holds no skill, is bad input rather than a
    // skill that fails: it stops the publish with or without `keep_going`.
    let folders = skill_folders(&request.dirs)?;
    let options = Options::new(Profile::Agentskills).strict(true);
    let mut refused = Vec::new();
    let mut invalid = Vec::new();
    let mut passed = Vec::with_capacity(folders.len());
    for folder in &folders {
        match skills_ops::validate::validate_path(folder, &options) {
            Ok(report) if report.valid => passed.push((folder, report.name)),
            Ok(report) if request.keep_going => refused.push(not_valid(report)),
            Ok(report) => invalid.push(report),
            Err(error) if request.keep_going => refused.push(refusal(folder, None, &error)),
            Err(error) => return Err(error),
        }
    }
    if !invalid.is_empty() {
        return Err(Error::NotPublishable { reports: invalid });
    }

    let mut warnings = Vec::new();
    let mut skills = Vec::with_capacity(passed.len());
    for (folder, name) in passed {
        // A refused skill's notes (a hidden file left out) are not worth saying.
        let mut own = Vec::new();
        match Skill::read(folder, &mut own) {
            Ok(skill) => {
                warnings.append(&mut own);
                skills.push(skill);
            }
            Err(error) if request.keep_going => refused.push(refusal(folder, name, &error)),
            Err(error) => return Err(error),
        }
    }
    let skills = one_per_name(skills, request.keep_going, &mut refused)?;

    let mut artifacts = Vec::with_capacity(skills.len());
    for skill in &skills {
        match skill.artifact() {
            Ok(artifact) => artifacts.push(artifact),
            Err(error) if request.keep_going => refused.push(refusal(
                &skill.dir,
                Some(skill.frontmatter.name.clone()),
                &error,
            )),
            Err(error) => return Err(error),
        }
    }
    if artifacts.is_empty() {
        return Ok(site::untouched(&request.out, warnings, refused));
    }
    site::write(&request.out, artifacts, warnings, refused)
}

/// The skills sorted by name, each name once. Two folders whose skills share a name are an
/// error; with `keep_going`, every folder of such a name is refused instead (which one is
/// meant is not ours to guess) and the rest go on.
fn one_per_name(
    skills: Vec<Skill>,
    keep_going: bool,
    refused: &mut Vec<Refused>,
) -> Result<Vec<Skill>, Error> {
    let mut by_name: BTreeMap<String, Vec<Skill>> = BTreeMap::new();
    for skill in skills {
        let same = by_name.entry(skill.frontmatter.name.clone()).or_default();
        if !same.is_empty() && !keep_going {
            return Err(Error::InvalidInput(format!(
                "two of the folders to publish are skills named '{}'; an index lists each name once",
                skill.frontmatter.name
            )));
        }
        same.push(skill);
    }
    let mut unique = Vec::with_capacity(by_name.len());
    for (name, mut same) in by_name {
        if same.len() == 1 {
            unique.append(&mut same);
            continue;
        }
        let folders: Vec<String> = same
            .iter()
            .map(|skill| skill.dir.display().to_string())
            .collect();
        let error = Error::InvalidInput(format!(
            "{} folders to publish are skills named '{name}' ({}); an index lists each name \
             once, so none of them is published (rename all but one)",
            folders.len(),
            folders.join(", ")
        ));
        for skill in same {
            refused.push(refusal(&skill.dir, Some(name.clone()), &error));
        }
    }
    Ok(unique)
}

/// The refusal of a skill the strict validation failed: its errors, in one sentence.
fn not_valid(report: Report) -> Refused {
    let errors: Vec<String> = report
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.is_error())
        .map(|diagnostic| format!("{} ({})", diagnostic.message, diagnostic.code))
        .collect();
    let kind = Error::NotPublishable {
        reports: Vec::new(),
    }
    .kind();
    Refused {
        dir: report.dir.clone(),
        name: report.name.clone(),
        kind: kind.to_owned(),
        reason: format!(
            "not valid under the strict agentskills profile: {}",
            errors.join("; ")
        ),
        report: Some(report),
        kept: false,
    }
}

/// The refusal of the skill in `dir` for `error`.
fn refusal(dir: &Path, name: Option<String>, error: &Error) -> Refused {
    Refused {
        dir: dir.to_path_buf(),
        name,
        kind: error.kind().to_owned(),
        reason: error.to_string(),
        report: None,
        kept: false,
    }
}

/// How deep below a named folder skills are looked for: category folders (`ops/incident-notes`)
/// and a folder of categories, as discovery reads them.
const MAX_SEARCH_DEPTH: usize = 4;

/// The skill folders `dirs` name: a folder holding `SKILL.md` is one; any other folder stands
/// for the skill folders below it, through category folders up to [`MAX_SEARCH_DEPTH`] deep
/// (sorted; hidden, excluded and symlinked folders skipped; nothing below a skill).
fn skill_folders(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut folders = Vec::new();
    for dir in dirs {
        let metadata = std::fs::metadata(dir).map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => Error::NotFound { path: dir.clone() },
            _ => Error::io("examine", dir, error),
        })?;
        if !metadata.is_dir() {
            return Err(Error::NotADirectory { path: dir.clone() });
        }
        if is_file(&dir.join(SKILL_MD)) {
            folders.push(dir.clone());
            continue;
        }
        let mut found = Vec::new();
        find_skills(dir, 1, &mut found)?;
        if found.is_empty() {
            return Err(Error::NoDefinitionFile { dir: dir.clone() });
        }
        found.sort();
        folders.extend(found);
    }
    Ok(folders)
}

/// Pushes the skill folders below `dir` (which is not one) onto `found`.
fn find_skills(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) -> Result<(), Error> {
    let entries = std::fs::read_dir(dir).map_err(|error| Error::io("list", dir, error))?;
    for entry in entries {
        let entry = entry.map_err(|error| Error::io("list", dir, error))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let is_dir = entry
            .file_type()
            .is_ok_and(|kind| kind.is_dir() && !kind.is_symlink());
        if !is_dir || name.starts_with('.') || is_excluded_dir_name(name) {
            continue;
        }
        let path = entry.path();
        if is_file(&path.join(SKILL_MD)) {
            found.push(path);
        } else if depth < MAX_SEARCH_DEPTH {
            find_skills(&path, depth + 1, found)?;
        }
    }
    Ok(())
}

fn is_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.is_file())
}

/// One skill read from disk: every file it ships and its frontmatter.
struct Skill {
    dir: PathBuf,
    frontmatter: Frontmatter,
    version: Option<String>,
    /// Relative path (with `/`) → bytes, sorted: the order of the archive.
    files: BTreeMap<String, Vec<u8>>,
}

impl Skill {
    fn read(dir: &Path, warnings: &mut Vec<String>) -> Result<Self, Error> {
        let limits = PackageLimits::default();
        let mut files = BTreeMap::new();
        let mut total = 0u64;
        // The folder the user named is theirs and is resolved as given, once: every file below
        // it is then read beneath the real folder, following no link.
        let root = std::fs::canonicalize(dir).map_err(|error| Error::io("resolve", dir, error))?;
        walk(
            &root, &root, "", 0, &limits, &mut files, &mut total, warnings,
        )?;
        let definition = files.get(SKILL_MD).ok_or_else(|| Error::NoDefinitionFile {
            dir: dir.to_path_buf(),
        })?;
        let document = skills_ops::load::parse_document(&dir.join(SKILL_MD), definition)?;
        let version = document.frontmatter.version();
        if let Some(version) = &version {
            site::check_version(version).map_err(|reason| {
                Error::InvalidInput(format!(
                    "{}: the version '{}' cannot name a snapshot folder: {reason}",
                    dir.join(SKILL_MD).display(),
                    version.escape_debug()
                ))
            })?;
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            frontmatter: document.frontmatter,
            version,
            files,
        })
    }

    /// The skill's artifact: its `SKILL.md` when that is all it holds, else an archive.
    fn artifact(&self) -> Result<Artifact, Error> {
        let name = &self.frontmatter.name;
        let (kind, path, bytes) = if self.files.len() == 1 {
            (
                ArtifactKind::SkillMd,
                format!("{name}/{SKILL_MD}"),
                self.files.get(SKILL_MD).cloned().unwrap_or_default(),
            )
        } else {
            let bytes =
                pack_tar_gz(&self.files).map_err(|error| Error::io("pack", &self.dir, error))?;
            (
                ArtifactKind::Archive,
                format!("{name}{ARCHIVE_EXTENSION}"),
                bytes,
            )
        };
        Ok(Artifact {
            entry: IndexEntry {
                name: name.clone(),
                kind,
                description: self.frontmatter.description.to_string(),
                url: path,
                digest: format!("sha256:{}", hex_digest(&bytes)),
                version: self.version.clone(),
            },
            bytes,
            dir: self.dir.clone(),
            files: self.files.len(),
        })
    }
}

/// A skill as the site holds it.
pub(crate) struct Artifact {
    /// Its index entry; `url` is the artifact's path relative to the index.
    pub(crate) entry: IndexEntry,
    /// The artifact's bytes.
    pub(crate) bytes: Vec<u8>,
    /// The folder it was read from.
    pub(crate) dir: PathBuf,
    /// How many files it holds (0 for a refused skill's earlier artifact kept as published,
    /// which is not reported as published).
    pub(crate) files: usize,
}

/// Collects every file below `dir` that a publish ships. Hidden entries (and the installer's
/// provenance record) and the folders discovery skips are left out, with a warning: a `.env`
/// beside a skill must not end up on a public site. A symlink, a hard link (a file with more
/// than one link may be `~/.ssh/id_rsa` under another name), a device, a FIFO or a socket
/// stops the publish, naming the file: following it would publish whatever it points at (a
/// key, `/etc/passwd`), and skipping it would publish a skill that does not work. Each file is
/// read through the safe reader ([`skills_ops::reader`]): beneath the skill folder, no link
/// at any step, one link only, a regular file opened without blocking (a FIFO swapped in
/// after the listing cannot hang the publish), at most the file limit.
#[expect(
    clippy::too_many_arguments,
    reason = "one recursive walk; its state is passed down rather than kept in a struct"
)]
fn walk(
    root: &Path,
    dir: &Path,
    prefix: &str,
    depth: usize,
    limits: &PackageLimits,
    files: &mut BTreeMap<String, Vec<u8>>,
    total: &mut u64,
    warnings: &mut Vec<String>,
) -> Result<(), Error> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|error| Error::io("list", dir, error))?
        .collect::<Result<_, _>>()
        .map_err(|error| Error::io("list", dir, error))?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().into_string().map_err(|_| {
            Error::InvalidInput(format!(
                "{}: the name is not UTF-8; a published file needs a name every client can write",
                path.display()
            ))
        })?;
        let relative = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let kind = entry
            .file_type()
            .map_err(|error| Error::io("examine", &path, error))?;
        if name.starts_with('.') || (kind.is_dir() && is_excluded_dir_name(&name)) {
            if !(prefix.is_empty() && name == PROVENANCE_FILE) {
                warnings.push(format!(
                    "left out {} (hidden files and {} folders are never published)",
                    path.display(),
                    if kind.is_dir() { "tool" } else { "such" }
                ));
            }
            continue;
        }
        let refuse = |reason: String, refusal: &'static str| Error::PathRefused {
            path: path.display().to_string(),
            reason,
            refusal,
        };
        if kind.is_symlink() {
            return Err(refuse(
                "a symbolic link; publish copies no links (replace it with the file itself)"
                    .to_owned(),
                "symlink",
            ));
        }
        skills_types::path::check_relative(&relative)
            .map_err(|refusal| refuse(refusal.to_string(), "invalid_path"))?;
        if kind.is_dir() {
            if depth + 2 > MAX_RELATIVE_PATH_COMPONENTS {
                return Err(refuse(
                    format!(
                        "folders nest deeper than {MAX_RELATIVE_PATH_COMPONENTS} levels below {}",
                        root.display()
                    ),
                    "invalid_path",
                ));
            }
            walk(
                root,
                &path,
                &relative,
                depth + 1,
                limits,
                files,
                total,
                warnings,
            )?;
            continue;
        }
        if !kind.is_file() {
            let what = entry.metadata().map_or("a special file", |metadata| {
                skills_ops::fs::file_kind(&metadata)
            });
            return Err(refuse(
                format!("{what}, not a regular file (a device, FIFO or socket is never published)"),
                "not_a_file",
            ));
        }
        let bytes = read_source(root, &relative, &path, limits.max_file_bytes)?;
        *total += bytes.len() as u64;
        if *total > limits.max_total_bytes || files.len() >= limits.max_files {
            return Err(Error::InvalidInput(format!(
                "{} holds more than an installed skill may ({} files, {} bytes in total)",
                root.display(),
                limits.max_files,
                limits.max_total_bytes
            )));
        }
        files.insert(relative, bytes);
    }
    Ok(())
}

/// The bytes of the file `relative` below the skill folder `root` (shown as `path`), read by
/// the safe reader; every refusal is an error naming the file and what to do.
fn read_source(root: &Path, relative: &str, path: &Path, cap: u64) -> Result<Vec<u8>, Error> {
    use skills_ops::reader::Refusal;
    let refused = |reason: String, refusal: &'static str| Error::PathRefused {
        path: path.display().to_string(),
        reason,
        refusal,
    };
    match skills_ops::reader::read_bytes_beneath(root, relative, cap) {
        Ok(read) => Ok(read.data),
        Err(Refusal::TooLarge { size, cap }) => Err(Error::InvalidInput(format!(
            "{} is {size} bytes; an installed skill's file may be at most {cap} bytes",
            path.display()
        ))),
        Err(Refusal::HardLink(links)) => Err(refused(
            format!(
                "a file with {links} hard links, so it may be a file from elsewhere (a key, a \
                 password store) under another name; publish copies no links (replace it with a \
                 copy of the file)"
            ),
            "hard_link",
        )),
        Err(Refusal::Symlink | Refusal::SymlinkedRoot) => Err(refused(
            "a symbolic link, or a path through one; publish copies no links (replace it with \
             the file itself)"
                .to_owned(),
            "symlink",
        )),
        Err(Refusal::NotAFile(kind)) => Err(refused(
            format!("a {kind}, not a regular file (a device, FIFO or socket is never published)"),
            "not_a_file",
        )),
        Err(other) => Err(refused(other.to_string(), other.kind())),
    }
}
