//! Writing a download to disk (03 §Writing to disk): validate everything in memory, take the
//! root's lock, compare with what is there, stage, publish with one rename, record provenance.
//!
//! A crash at any instant leaves either the old state or the new one: files are written into a
//! staging folder whose name starts with `.` (discovery never looks at it), flushed, and the
//! folder is published with a rename that refuses to replace (or, with `force`, an atomic
//! exchange). Staging folders left by a crash are removed by the next install, under the lock.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use skills_ops::{fs, lock, name};
use skills_types::files::{PROVENANCE_FILE, SKILL_MD, STAGING_PREFIX};
use skills_types::install::{
    AgentTarget, InstallOutcome, InstallRecord, RecordDigest, RegistryRecord, SourceKind,
};
use skills_types::limits::MAX_NAME_CHARS;
use skills_types::registry::Coordinates;
use skills_types::{DiagnosticCode, Error, SkillScope, SkillsConfig};

use skills_net::digest::hex_digest;

use crate::download::Download;

/// Where a skill is installed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target {
    /// The skill root.
    pub(crate) root: PathBuf,
    /// Its scope.
    pub(crate) scope: SkillScope,
    /// Other agents' skill folders that get a symlink to each skill written (`--agent
    /// NAME`; [`skills_ops::agents`]).
    pub(crate) agent_folders: Vec<PathBuf>,
}

impl Target {
    /// The same target, also reaching the agents `names` mean (names, aliases or
    /// `detected`): their folders other than the root get a link to each skill.
    pub(crate) fn linking(
        mut self,
        config: &SkillsConfig,
        names: &[String],
    ) -> Result<Self, Error> {
        let chosen = skills_ops::agents::resolve(config, names)?;
        self.agent_folders = skills_ops::agents::folders(config, self.scope, &chosen, &self.root)?;
        Ok(self)
    }
}

/// The root for `scope` and `agent` ([`skills_ops::manage::write_root`]): the root asked for,
/// else the home configuration's `[install] root`, else the scope's `.agents/skills`.
pub(crate) fn target(
    config: &SkillsConfig,
    scope: SkillScope,
    agent: Option<AgentTarget>,
) -> Result<Target, Error> {
    if !matches!(scope, SkillScope::User | SkillScope::Project) {
        return Err(Error::InvalidInput(format!(
            "skills are installed into the user or project scope, not {scope}"
        )));
    }
    // One rule for where new skills go, shared with `new`.
    let root = skills_ops::manage::write_root(config, scope, agent)?;
    Ok(Target {
        root,
        scope,
        agent_folders: Vec::new(),
    })
}

/// Why a download is not a skill that can be installed: its `SKILL.md` is missing, cannot be
/// loaded, or does not give a name that makes a folder name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotASkill {
    /// No `SKILL.md` among the files.
    #[error("the download holds no SKILL.md")]
    NoDefinition,
    /// The file cannot be loaded at all (not UTF-8, too large).
    #[error("SKILL.md cannot be loaded: {0}")]
    Unloadable(String),
    /// No frontmatter, or YAML that does not parse.
    #[error("SKILL.md has no valid YAML frontmatter")]
    NoFrontmatter,
    /// The frontmatter has no `name`.
    #[error("SKILL.md's frontmatter has no name")]
    NoName,
    /// The frontmatter has no `description`.
    #[error("SKILL.md's frontmatter has no description")]
    NoDescription,
    /// The name (or `metadata.id`) cannot be made into a folder name.
    #[error("'{0}' cannot be turned into a skill folder name")]
    NoFolderName(String),
}

/// The folder name for a download (03 §Writing to disk): `metadata.id` if present, else the
/// name; kept when it passes the name rule, otherwise turned into a name that does. Also
/// checks that the definition file is UTF-8 with a `name` and a `description` of its own.
pub(crate) fn slug(download: &Download) -> Result<String, NotASkill> {
    let (_, definition) = download
        .files
        .iter()
        .find(|(path, _)| path == SKILL_MD)
        .ok_or(NotASkill::NoDefinition)?;
    let document = skills_ops::load::parse_document(Path::new(SKILL_MD), definition)
        .map_err(|error| NotASkill::Unloadable(error.to_string()))?;
    let defaulted = |code| {
        document
            .diagnostics
            .iter()
            .any(|diagnostic| diagnostic.code == code)
    };
    if defaulted(DiagnosticCode::NoFrontmatter) || defaulted(DiagnosticCode::YamlError) {
        return Err(NotASkill::NoFrontmatter);
    }
    if defaulted(DiagnosticCode::NameDefaulted) {
        return Err(NotASkill::NoName);
    }
    if defaulted(DiagnosticCode::DescriptionDefaulted)
        || defaulted(DiagnosticCode::DescriptionMissing)
    {
        return Err(NotASkill::NoDescription);
    }
    let wanted = document
        .frontmatter
        .metadata
        .get("id")
        .cloned()
        .unwrap_or(document.frontmatter.name);
    if name::is_valid(&wanted) {
        return Ok(name::normalize(&wanted));
    }
    let converted = slugify(&wanted);
    if converted.is_empty() || !name::is_valid(&converted) {
        return Err(NotASkill::NoFolderName(wanted));
    }
    Ok(converted)
}

/// Lowercase; every run of characters other than letters and digits becomes one `-`; trimmed
/// of `-`; at most 64 characters.
fn slugify(text: &str) -> String {
    let mut slug = String::new();
    for c in name::normalize(text).to_lowercase().chars() {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug: String = slug
        .trim_matches('-')
        .chars()
        .take(MAX_NAME_CHARS)
        .collect();
    slug.trim_end_matches('-').to_owned()
}

/// What the source was, for the provenance record (`.skill-source.json` and the lock entry):
/// the source as given, its kind, the URL that answered, the ref or version, and (per skill)
/// the digest. Fields are only ever added, so every older record still reads.
#[derive(Clone, Debug)]
pub(crate) struct Provenance {
    /// The source as given: the URL redacted, the GitHub shorthand, or the local path.
    pub(crate) source_url: String,
    /// What the source was.
    pub(crate) kind: SourceKind,
    /// The URL that answered (the index a site led to, a repository's tarball), redacted.
    pub(crate) resolved_url: Option<String>,
    /// The ref asked for (GitHub) or the snapshot version chosen (an agent-skills index).
    pub(crate) reference: Option<String>,
    /// The commit a GitHub tarball held.
    pub(crate) commit: Option<String>,
    /// For a registry install: the entry, recorded as `registry` and checked against the
    /// skill already under the slug.
    pub(crate) registry: Option<Registered>,
}

/// The registry entry a skill is installed from.
#[derive(Clone, Debug)]
pub(crate) struct Registered {
    /// The entry's coordinates, without a pin.
    pub(crate) coordinates: Coordinates,
    /// The entry's id as the catalog spells it.
    pub(crate) id: String,
    /// The version the catalog offered, if it named one.
    pub(crate) version: Option<String>,
    /// The catalog's URL, redacted.
    pub(crate) catalog: String,
}

impl Registered {
    /// The `registry` object of the provenance record and the lock entry.
    pub(crate) fn record(&self) -> RegistryRecord {
        RegistryRecord {
            id: self.id.clone(),
            coordinates: self.coordinates.to_string(),
            namespace: self.coordinates.namespace.clone(),
            slug: self.coordinates.slug.clone(),
            version: self.version.clone(),
            catalog: self.catalog.clone(),
        }
    }
}

impl Registered {
    /// The entry a `registry` object of a provenance record or lock entry names ([`Registered::record`]
    /// read back); `None` when the record has none, or one without coordinates or an id.
    pub(crate) fn from_record(record: &serde_json::Value) -> Option<Self> {
        let registry: RegistryRecord =
            serde_json::from_value(record.get("registry")?.clone()).ok()?;
        Some(Self {
            coordinates: Coordinates::parse(&registry.coordinates).ok()?,
            id: registry.id,
            version: registry.version,
            catalog: registry.catalog,
        })
    }
}

/// The digest of a skill's content, as the lock entry's `sha256` records it:
/// `sha256:<hex>` over each file's path and digest, in path order (two installs of the same
/// content have the same digest, wherever they came from).
pub(crate) fn summary_digest(digests: &BTreeMap<String, String>) -> String {
    let summary: String = digests
        .iter()
        .map(|(path, digest)| format!("{path}\0{digest}\n"))
        .collect();
    format!("sha256:{}", hex_digest(summary.as_bytes()))
}

/// [`summary_digest`] of a download's files.
pub(crate) fn download_digest(download: &Download) -> String {
    summary_digest(
        &download
            .files
            .iter()
            .map(|(path, bytes)| (path.clone(), hex_digest(bytes)))
            .collect(),
    )
}

/// [`summary_digest`] of the skill installed in `dir`, or `None` when the folder is missing or
/// holds anything but plain folders and files. The provenance record is not the skill's and is
/// not looked at at all: whatever is under its name (the state module refuses a trap there
/// when it is read) does not make the skill another one.
pub(crate) fn installed_digest(dir: &Path) -> Option<String> {
    let mut found = BTreeMap::new();
    if !collect_skipping(dir, "", &mut found, &[PROVENANCE_FILE]) {
        return None;
    }
    Some(summary_digest(
        &found
            .iter()
            .map(|(path, bytes)| (path.clone(), hex_digest(bytes)))
            .collect(),
    ))
}

/// One skill to write: its folder name and its files.
#[derive(Clone, Debug)]
pub(crate) struct Item {
    /// The folder name.
    pub(crate) slug: String,
    /// The download.
    pub(crate) download: Download,
    /// The digest the source gave (an index entry's `sha256:…`) or of the archive it came in.
    pub(crate) digest: Option<String>,
    /// The plugin of the source's manifests it is installed as part of, recorded.
    pub(crate) plugin: Option<String>,
    /// What the audit's gate decided about these files, recorded as `audit` in the
    /// provenance record and the lock entry.
    pub(crate) audit: Option<skills_types::audit::Verdict>,
}

/// What writing `items` would do, without taking the lock or writing anything (`install
/// --list`): each outcome says where the skill would go and whether it is there already.
pub(crate) fn preview(
    target: &Target,
    items: &[Item],
    provenance: &Provenance,
) -> Vec<InstallOutcome> {
    items
        .iter()
        .map(|item| Plan::new(target, item, provenance).outcome)
        .collect()
}

/// The `description` of a download's `SKILL.md` frontmatter (empty when it has none).
fn description_of(download: &Download) -> String {
    download
        .files
        .iter()
        .find(|(path, _)| path == SKILL_MD)
        .and_then(|(_, bytes)| skills_ops::load::parse_document(Path::new(SKILL_MD), bytes).ok())
        .map(|document| document.frontmatter.description.to_string())
        .unwrap_or_default()
}

/// Checks, before anything is downloaded, that the root's install record (`.skills-installed.json`) can be used: a
/// broken one would stop the install later anyway (under the lock, before any write), and
/// saying so first spares the download.
pub(crate) fn check_record(target: &Target) -> Result<(), Error> {
    lock::read(&target.root).map(drop)
}

/// Writes every item into the target root as `<root>/<slug>`, all or nothing as far as
/// conflicts go: under the root's lock every destination is compared first, and when one
/// holds a different skill (and `force` is off) nothing at all is written. The outcomes have
/// no `new_skills` yet.
pub(crate) fn write_all(
    target: &Target,
    items: &[Item],
    force: bool,
    provenance: &Provenance,
) -> Result<Vec<InstallOutcome>, Error> {
    let root = &target.root;
    std::fs::create_dir_all(root).map_err(|source| Error::io("create", root, source))?;
    let _lock = lock::hold(root)?;
    // The root's record is read (and must be usable) before anything is written: a broken
    // one stops the install with nothing changed, instead of after the skill is published.
    let mut record = lock::read(root)?;
    remove_stale_staging(root);

    let plans: Vec<Plan<'_>> = items
        .iter()
        .map(|item| Plan::new(target, item, provenance))
        .collect();
    // Another namespace's skill under the same slug is a different skill, even with the same
    // bytes; checked here, under the lock, as well as before the download.
    if !force && let Some(registered) = &provenance.registry {
        crate::namespace::check_namespace(root, &registered.coordinates)?;
    }
    if !force
        && let Some(conflict) = plans
            .iter()
            .find(|plan| plan.existing && !plan.outcome.already_installed)
    {
        return Err(Error::Conflict {
            path: conflict.outcome.path.clone(),
        });
    }
    // The agents' places too, before anything is written.
    for plan in &plans {
        skills_ops::agents::check(
            &target.agent_folders,
            &plan.item.slug,
            &plan.outcome.path,
            force,
        )?;
    }
    let mut outcomes = Vec::with_capacity(plans.len());
    for plan in plans {
        let mut outcome = plan.publish(root, provenance, &mut record)?;
        outcome.links =
            skills_ops::agents::link(&target.agent_folders, &outcome.slug, &outcome.path, force)?;
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

/// What writing one item will do, worked out under the lock before anything is written.
struct Plan<'a> {
    item: &'a Item,
    files: BTreeMap<&'a str, &'a [u8]>,
    digests: BTreeMap<String, String>,
    /// Something is at the destination already.
    existing: bool,
    outcome: InstallOutcome,
}

impl<'a> Plan<'a> {
    fn new(target: &Target, item: &'a Item, provenance: &Provenance) -> Self {
        let files: BTreeMap<&str, &[u8]> = item
            .download
            .files
            .iter()
            .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
            .collect();
        let digests: BTreeMap<String, String> = files
            .iter()
            .map(|(path, bytes)| ((*path).to_owned(), hex_digest(bytes)))
            .collect();
        let destination = target.root.join(&item.slug);
        let existing = std::fs::symlink_metadata(&destination).is_ok();
        // The same bytes from another registry namespace are still another skill.
        let other_namespace = provenance.registry.as_ref().is_some_and(|registered| {
            crate::namespace::installed_from(&target.root, &item.slug)
                .is_some_and(|installed| !installed.same_skill(&registered.coordinates))
        });
        let already_installed = existing && !other_namespace && holds_exactly(&destination, &files);
        let outcome = InstallOutcome {
            slug: item.slug.clone(),
            path: destination,
            scope: target.scope,
            files: files.len(),
            bytes: files.values().map(|bytes| bytes.len() as u64).sum(),
            sha256: summary_digest(&digests),
            new_skills: Vec::new(),
            already_installed,
            replaced: false,
            warnings: Vec::new(),
            source: provenance.source_url.clone(),
            kind: provenance.kind.as_str().to_owned(),
            description: description_of(&item.download),
            version: item.download.version.clone(),
            links: Vec::new(),
            plugin: item.plugin.clone(),
            audit: item.audit.clone(),
        };
        Self {
            item,
            files,
            digests,
            existing,
            outcome,
        }
    }

    /// Stages the files and publishes them with one rename (or, replacing, one exchange).
    fn publish(
        mut self,
        root: &Path,
        provenance: &Provenance,
        lock: &mut lock::LockFile,
    ) -> Result<InstallOutcome, Error> {
        if self.outcome.already_installed {
            // A crash after publishing but before recording leaves no lock entry, or (after
            // an exchange) the entry of the copy that was replaced; an install of the same
            // content repairs either, and otherwise writes nothing.
            let recorded = lock
                .skills
                .get(&self.item.slug)
                .and_then(|entry| entry.get("sha256"))
                .and_then(serde_json::Value::as_str);
            if recorded != Some(self.outcome.sha256.as_str()) {
                self.record(root, provenance, lock)?;
            }
            return Ok(self.outcome);
        }
        let slug = &self.item.slug;
        let destination = self.outcome.path.clone();
        let staging = root.join(format!("{STAGING_PREFIX}{slug}-{}", fs::unique_suffix()));
        let record = serde_json::to_value(record_of(
            provenance,
            self.item,
            RecordDigest::Files(self.digests.clone()),
            Some(humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()),
        ))
        .map_err(|error| Error::Internal {
            action: "encoding the install record".to_owned(),
            reason: error.to_string(),
        })?;
        let result = stage(&staging, &self.files, &record).and_then(|()| {
            if self.existing {
                // Old and new swap in one step; the old copy, now at the staging name, goes
                // after (a crash before that leaves it for the next install to clean).
                fs::exchange(&staging, &destination)?;
                remove_if_present(&staging)?;
            } else {
                fs::rename_noreplace(&staging, &destination)?;
            }
            fs::sync_directory(root)
        });
        if let Err(source) = result {
            drop(remove_if_present(&staging));
            return Err(match source.kind() {
                std::io::ErrorKind::AlreadyExists => Error::Conflict { path: destination },
                _ => Error::io("install", &destination, source),
            });
        }
        self.outcome.replaced = self.existing;
        self.record(root, provenance, lock)?;
        Ok(self.outcome)
    }

    fn record(
        &self,
        root: &Path,
        provenance: &Provenance,
        lock: &mut lock::LockFile,
    ) -> Result<(), Error> {
        let entry = record_of(
            provenance,
            self.item,
            RecordDigest::Summary(self.outcome.sha256.clone()),
            None,
        );
        let entry = serde_json::to_value(entry).map_err(|error| Error::Internal {
            action: "encoding the lock entry".to_owned(),
            reason: error.to_string(),
        })?;
        lock.record(&self.item.slug, entry);
        lock::write(root, lock)
    }
}

/// The record of one skill of an install: the provenance record (`digest` per file, with
/// `installed_at`) and the lock entry (`digest` the summary) are one shape, each field only
/// when known (older records lack them).
fn record_of(
    provenance: &Provenance,
    item: &Item,
    sha256: RecordDigest,
    installed_at: Option<String>,
) -> InstallRecord {
    InstallRecord {
        source_url: provenance.source_url.clone(),
        kind: provenance.kind,
        installed_at,
        sha256,
        version: item.download.version.clone(),
        resolved_url: provenance.resolved_url.clone(),
        reference: provenance.reference.clone(),
        commit: provenance.commit.clone(),
        digest: item.digest.clone(),
        plugin: item.plugin.clone(),
        audit: item.audit.clone(),
        registry: provenance.registry.as_ref().map(Registered::record),
        other: serde_json::Map::new(),
    }
}

fn remove_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_dir_all(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

/// Writes every file into a fresh staging folder: create-new opens (a planted symlink fails
/// the open), mode 0644, each file and folder flushed.
fn stage(
    staging: &Path,
    files: &BTreeMap<&str, &[u8]>,
    record: &serde_json::Value,
) -> std::io::Result<()> {
    std::fs::create_dir(staging)?;
    let mut folders = vec![staging.to_path_buf()];
    for (relative, bytes) in files {
        let path = staging.join(relative);
        if let Some(parent) = path.parent()
            && !parent.exists()
        {
            std::fs::create_dir_all(parent)?;
            folders.push(parent.to_path_buf());
        }
        write_file(&path, bytes)?;
    }
    let mut provenance = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
    provenance.push(b'\n');
    // The skill's own record goes through the one state writer, like every file the program
    // keeps for itself.
    let folder = skills_ops::state::Folder::open(staging, &[])?
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?;
    let mut file = folder.create_new(&skills_ops::state::PROVENANCE, PROVENANCE_FILE)?;
    file.write_all(&provenance)?;
    file.sync_all()?;
    for folder in folders.iter().rev() {
        fs::sync_directory(folder)?;
    }
    Ok(())
}

fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        // Never an executable bit from a download.
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o644);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Whether `dir` is a real folder holding exactly these files (and the provenance record),
/// byte for byte, with nothing else: no other file, no symlink, no special file.
fn holds_exactly(dir: &Path, files: &BTreeMap<&str, &[u8]>) -> bool {
    let mut found = BTreeMap::new();
    if !collect(dir, "", &mut found) {
        return false;
    }
    found.remove(PROVENANCE_FILE);
    found.len() == files.len()
        && files
            .iter()
            .all(|(path, bytes)| found.get(*path).is_some_and(|have| have == bytes))
}

/// Every regular file below `dir` (the provenance record included), or `None` when the folder
/// holds anything else (a link, a special file) or cannot be read: what `update` compares with
/// the digests recorded at install.
pub(crate) fn installed_files(dir: &Path) -> Option<BTreeMap<String, Vec<u8>>> {
    let mut found = BTreeMap::new();
    collect(dir, "", &mut found).then_some(found)
}

fn collect(dir: &Path, prefix: &str, found: &mut BTreeMap<String, Vec<u8>>) -> bool {
    collect_skipping(dir, prefix, found, &[])
}

/// [`collect`], passing over the entries of `dir` itself named in `skip`.
fn collect_skipping(
    dir: &Path,
    prefix: &str,
    found: &mut BTreeMap<String, Vec<u8>>,
    skip: &[&str],
) -> bool {
    let Ok(metadata) = std::fs::symlink_metadata(dir) else {
        return false;
    };
    if !metadata.is_dir() {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    for entry in entries {
        let Ok(entry) = entry else { return false };
        let Ok(name) = entry.file_name().into_string() else {
            return false;
        };
        if prefix.is_empty() && skip.contains(&name.as_str()) {
            continue;
        }
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let Ok(kind) = entry.file_type() else {
            return false;
        };
        if kind.is_dir() {
            if !collect(&entry.path(), &relative, found) {
                return false;
            }
        } else if kind.is_file() {
            let Ok(bytes) = std::fs::read(entry.path()) else {
                return false;
            };
            found.insert(relative, bytes);
        } else {
            return false;
        }
    }
    true
}

/// Removes staging folders a crashed install left behind. Called under the root's lock, so
/// no staging folder in use can be among them.
fn remove_stale_staging(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let stale = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.starts_with(STAGING_PREFIX));
        if stale && entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slugify("PDF Tools!"), "pdf-tools");
        assert_eq!(slugify("  --Hello__World--  "), "hello-world");
        assert_eq!(slugify("数据 清洗"), "数据-清洗");
        assert_eq!(slugify("!!!"), "");
        assert_eq!(slugify(&"a".repeat(80)).chars().count(), 64);
    }

    #[test]
    fn a_download_that_is_no_skill_says_which_way() {
        let of = |files: Vec<(&str, &str)>| {
            slug(&Download {
                name: None,
                files: files
                    .into_iter()
                    .map(|(path, text)| (path.to_owned(), text.as_bytes().to_vec()))
                    .collect(),
                version: None,
                url: url::Url::parse("https://skills.example.com/x").unwrap(),
            })
        };
        assert_eq!(of(vec![("README.md", "hi")]), Err(NotASkill::NoDefinition));
        assert_eq!(
            of(vec![(SKILL_MD, "# no frontmatter")]),
            Err(NotASkill::NoFrontmatter)
        );
        assert_eq!(
            of(vec![(SKILL_MD, "---\ndescription: d\n---\n")]),
            Err(NotASkill::NoName)
        );
        assert_eq!(
            of(vec![(SKILL_MD, "---\nname: x\n---\n")]),
            Err(NotASkill::NoDescription)
        );
        assert_eq!(
            of(vec![(SKILL_MD, "---\nname: '!!!'\ndescription: d\n---\n")]),
            Err(NotASkill::NoFolderName("!!!".to_owned()))
        );
        assert_eq!(
            of(vec![(
                SKILL_MD,
                "---\nname: PDF Tools\ndescription: d\n---\n"
            )]),
            Ok("pdf-tools".to_owned())
        );
    }

    fn item(slug: &str, body: &str) -> Item {
        let definition = format!("---\nname: {slug}\ndescription: A test skill.\n---\n{body}\n");
        Item {
            slug: slug.to_owned(),
            download: Download {
                name: Some(slug.to_owned()),
                files: vec![(SKILL_MD.to_owned(), definition.into_bytes())],
                version: None,
                url: url::Url::parse("https://skills.example.com/pack/index.json")
                    .unwrap_or_else(|error| panic!("{error}")),
            },
            digest: None,
            plugin: None,
            audit: None,
        }
    }

    fn provenance() -> Provenance {
        Provenance {
            source_url: "https://skills.example.com/pack/index.json".to_owned(),
            kind: SourceKind::Pack,
            resolved_url: None,
            reference: None,
            commit: None,
            registry: None,
        }
    }

    fn entries(root: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(root)
            .unwrap_or_else(|error| panic!("{error}"))
            .map(|entry| {
                entry
                    .unwrap_or_else(|error| panic!("{error}"))
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_conflict_anywhere_in_a_pack_writes_nothing() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let target = Target {
            root: dir.path().join("skills"),
            scope: SkillScope::User,
            agent_folders: Vec::new(),
        };
        let first = write_all(&target, &[item("beta", "old")], false, &provenance())
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(!first[0].already_installed && !first[0].replaced);
        let before = entries(&target.root);

        let pack = [item("alpha", "new"), item("beta", "changed")];
        let refused = write_all(&target, &pack, false, &provenance());
        assert!(
            matches!(&refused, Err(Error::Conflict { path }) if path.ends_with("beta")),
            "{refused:?}"
        );
        assert_eq!(entries(&target.root), before, "alpha must not be written");

        let forced = write_all(&target, &pack, true, &provenance())
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(!forced[0].replaced && forced[1].replaced);
        let beta = std::fs::read_to_string(target.root.join("beta").join(SKILL_MD))
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(beta.ends_with("changed\n"), "{beta}");
        assert!(
            !entries(&target.root)
                .iter()
                .any(|name| name.starts_with(STAGING_PREFIX)),
            "no staging folder is left behind"
        );
    }

    #[cfg(unix)]
    #[test]
    fn an_installed_skills_digest_is_its_files_whatever_its_provenance_record_is() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let target = Target {
            root: dir.path().join("skills"),
            scope: SkillScope::User,
            agent_folders: Vec::new(),
        };
        let pack = [item("alpha", "body")];
        let written = write_all(&target, &pack, false, &provenance())
            .unwrap_or_else(|error| panic!("{error}"));
        let folder = target.root.join("alpha");
        assert_eq!(
            installed_digest(&folder).as_deref(),
            Some(written[0].sha256.as_str())
        );
        assert_eq!(download_digest(&pack[0].download), written[0].sha256);
        // A trap under the record's name is not read, and not the skill's.
        std::fs::remove_file(folder.join(PROVENANCE_FILE)).unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink("/dev/zero", folder.join(PROVENANCE_FILE))
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            installed_digest(&folder).as_deref(),
            Some(written[0].sha256.as_str())
        );
        // A link among the skill's own files is a change.
        std::os::unix::fs::symlink("/dev/zero", folder.join("extra"))
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(installed_digest(&folder), None);
        assert_eq!(installed_digest(&target.root.join("missing")), None);
    }

    #[test]
    fn the_same_content_writes_nothing_but_restores_a_missing_lock_entry() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let target = Target {
            root: dir.path().join("skills"),
            scope: SkillScope::User,
            agent_folders: Vec::new(),
        };
        let pack = [item("alpha", "body")];
        write_all(&target, &pack, false, &provenance()).unwrap_or_else(|error| panic!("{error}"));
        let definition = target.root.join("alpha").join(SKILL_MD);
        let written = std::fs::metadata(&definition).unwrap_or_else(|error| panic!("{error}"));

        // As if a crash came between publishing and recording.
        lock::forget(&target.root, "alpha").unwrap_or_else(|error| panic!("{error}"));
        let again = write_all(&target, &pack, false, &provenance())
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(again[0].already_installed);
        let kept = std::fs::metadata(&definition).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            written.modified().ok(),
            kept.modified().ok(),
            "the file was not rewritten"
        );
        let lock = lock::read(&target.root).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            lock.skills["alpha"]["sha256"].as_str(),
            Some(again[0].sha256.as_str())
        );
    }
}
