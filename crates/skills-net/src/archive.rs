//! The one safe extractor (09 §Archives): `.tar.gz` and `.zip` into bounded memory, and the
//! one packer ([`pack_tar_gz`]) that writes the reproducible archives `skills publish` makes.
//! The skill finder that turns an extracted tree into downloads is the installer's
//! (`skills-install`'s `finder.rs`); this module knows archives, not skills.
//!
//! Every archive any source hands us (a well-known `archive` entry, a GitHub tarball, a
//! registry zip, a URL or a local file) comes through [`extract`]; there is no second path.
//! Nothing is written to disk here: the files land in memory, bounded by [`Limits`], and the
//! caller passes them to the installer's one staged, atomic write (`write.rs`), which validates them
//! again. Each rule closes a hole some extractor left open:
//!
//! - every name passes the relative-path check of 03 ([`skills_types::path::check_relative`]),
//!   so `../x`, `/etc/x`, `C:x`, `a\b` and device names never become paths ("zip slip");
//! - names that differ only by letter case or Unicode normalisation are refused, because on
//!   a case-insensitive or normalising filesystem (macOS, Windows) one would overwrite the
//!   other; a name that is both a file and a folder, or a file listed twice, likewise;
//! - symlinks, hard links, devices and FIFOs are refused, never created: a link entry
//!   followed by a file entry through it is the classic way out of the target folder;
//! - sizes are counted on the bytes the decompressor actually produces, read through a
//!   counter, never taken from a header, so a bomb or a header that lies stops at the limit;
//! - a truncated stream is an error, never a partial result.
//!
//! A runtime's archive (managed Node, 07 §Runtimes) goes through the same extractor with
//! [`extract_runtime`]: the same path, collision, size and truncation rules, bigger
//! [`RUNTIME_LIMITS`], executable bits kept, and one thing a skill never gets: symbolic links
//! whose target is relative and lands, lexically and without passing through another link, on
//! an entry of the same archive (`bin/npm -> ../lib/node_modules/npm/bin/npm-cli.js`). Those
//! are returned for the caller to create after every file; nothing else about what skill
//! installs get is loosened.
//!
//! Hidden files (`.gitignore`, `.env`) and everything below a folder no source is searched in
//! (`.git/`, `.github/`, `.venv/`: [`skills_types::files::is_excluded_source_dir`]) are
//! skipped, not refused: every repository tarball has some, and none is ever installed. Other
//! hidden folders are kept, because skills live below some (`skills/.curated/<skill>` in
//! OpenAI's catalog) and plugin manifests in others (`.claude-plugin/`); the skill finder
//! still leaves out of each skill anything hidden inside it, and the writer's own path check
//! refuses a hidden component, so nothing hidden is ever installed. Skipped entries still pass
//! the other path rules and count towards the entry limit and the decompressed-stream cap.
//!
//! A file over the per-file limit does not refuse the archive: it is kept aside as
//! [`Withheld`], like a link, and refuses only the skill it lies in (the installer's skill finder), so one
//! large file in one skill of a repository never blocks installing (or listing) the others.

#[cfg(test)]
mod tests;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io::{self, Read, Write as _};

use skills_types::files::is_excluded_source_path;
use skills_types::limits::{MIB, PackageLimits};
use skills_types::path::{self, Refusal};
use skills_types::publish::{ARCHIVE_FILE_MODE, ARCHIVE_MTIME};
use unicode_normalization::UnicodeNormalization as _;

/// Most entries read from one archive (09 §Archives).
pub const MAX_ENTRIES: usize = 2_000;
/// Most bytes written from one archive, all files together (09 §Archives).
pub const MAX_TOTAL_BYTES: u64 = 64 * MIB;
/// Written-to-compressed ratio at which an archive is refused as a bomb (09 §Archives).
pub const MAX_RATIO: u64 = 100;
/// Bytes an archive may decompress to before the ratio is applied at all. Below it a small,
/// very regular archive (a few text files whose tar headers are mostly zeros) is never taken
/// for a bomb; above it, a bomb stops at `MAX_RATIO` times its size.
pub const RATIO_FLOOR_BYTES: u64 = MIB;

/// What a runtime's archive (an official Node distribution: ~100 MB unpacked, one binary
/// near that size, a few thousand files) may produce; skills keep [`Limits::default`].
pub const RUNTIME_LIMITS: Limits = Limits {
    entries: 20_000,
    file: 256 * MIB,
    total: 768 * MIB,
    ratio: MAX_RATIO,
};

/// The archive formats the extractor reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A gzip-compressed tar stream (`.tar.gz`, `.tgz`).
    TarGz,
    /// A zip archive with stored or deflated entries.
    Zip,
}

impl Format {
    /// The format a file name (or URL path) ends with: `.tar.gz`, `.tgz` or `.zip`, in any
    /// letter case.
    pub fn of_name(name: &str) -> Option<Self> {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".tar.gz") || lower.ends_with(".tgz") {
            Some(Self::TarGz)
        } else if lower.ends_with(".zip") {
            Some(Self::Zip)
        } else {
            None
        }
    }

    /// The format the first bytes announce: the gzip magic, or a zip local header (`PK\3\4`)
    /// or an empty zip's end record (`PK\5\6`).
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(&[0x1f, 0x8b]) {
            Some(Self::TarGz)
        } else if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
            Some(Self::Zip)
        } else {
            None
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Self::TarGz => "tar.gz",
            Self::Zip => "zip",
        }
    }
}

/// What one extraction may produce; every count is of bytes actually decompressed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most entries (files, folders and skipped entries alike).
    pub entries: usize,
    /// Largest file, in bytes: the package limit of 01.
    pub file: u64,
    /// Largest total of the files kept, in bytes.
    pub total: u64,
    /// Decompressed bytes per compressed byte at which the archive is refused (above
    /// [`RATIO_FLOOR_BYTES`]).
    pub ratio: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            entries: MAX_ENTRIES,
            file: PackageLimits::default().max_file_bytes,
            total: MAX_TOTAL_BYTES,
            ratio: MAX_RATIO,
        }
    }
}

/// What an archive or a local folder holds: its regular files, sorted by path, and the
/// entries kept aside (links, devices, FIFOs, files over the per-file limit), which are never
/// created, followed or installed. Hidden files and excluded folders are in neither; files
/// below other hidden folders are (see the module comment).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tree {
    /// `('/'-separated relative path, bytes)`, sorted by path.
    pub files: Vec<(String, Vec<u8>)>,
    /// The entries kept aside.
    pub withheld: Vec<Withheld>,
}

/// An entry that is never installed (not a regular file, or over the per-file limit), and the
/// message refusing the skill that holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Withheld {
    /// Its checked relative path.
    pub path: String,
    /// Why it cannot be installed, naming it (and a link's target).
    pub refusal: String,
}

impl Tree {
    /// The files alone, without anything below a hidden folder, refusing the tree if it holds
    /// anything withheld (outside hidden folders, which were never part of this form).
    pub fn into_files(self) -> Result<Vec<(String, Vec<u8>)>, String> {
        match self
            .withheld
            .into_iter()
            .find(|entry| !is_hidden_path(&entry.path))
        {
            Some(withheld) => Err(withheld.refusal),
            None => Ok(self
                .files
                .into_iter()
                .filter(|(path, _)| !is_hidden_path(path))
                .collect()),
        }
    }
}

/// Whether a relative path has a hidden component.
pub fn is_hidden_path(path: &str) -> bool {
    path.split('/').any(|component| component.starts_with('.'))
}

/// A runtime's archive as [`extract_runtime`] returns it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unpacked {
    /// Its regular files, in archive order.
    pub files: Vec<UnpackedFile>,
    /// Its folders (checked relative paths), so empty ones are created too.
    pub folders: Vec<String>,
    /// Its symbolic links, each checked to land on an entry of the archive.
    pub links: Vec<UnpackedLink>,
}

/// A regular file of a runtime's archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnpackedFile {
    /// Its checked, `/`-separated relative path.
    pub path: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Whether any execute bit is set in its mode (a runtime's `bin/node` must stay runnable).
    pub executable: bool,
}

/// A symbolic link of a runtime's archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnpackedLink {
    /// Its checked, `/`-separated relative path.
    pub path: String,
    /// Its target exactly as the archive gives it (relative; checked to stay in the tree).
    pub target: String,
}

/// Extracts a runtime's `.tar.gz` (managed Node) into memory under `limits` (normally
/// [`RUNTIME_LIMITS`]): every rule of [`extract`], plus executable bits and in-tree relative
/// symbolic links (see the module comment). A link that is absolute, climbs out of the tree,
/// passes through another link, or names nothing the archive holds refuses the whole archive:
/// created later, it would be the way out of the target folder that links always are.
pub fn extract_runtime(bytes: &[u8], limits: &Limits) -> Result<Unpacked, String> {
    let refuse = |why: String| format!("the tar.gz archive is refused: {why}");
    let (tree, runtime) =
        tar_gz_with(bytes, limits, Some(RuntimeParts::default())).map_err(refuse)?;
    let mut runtime = runtime.unwrap_or_default();
    // Hard links, devices and FIFOs stay refused, runtime or not.
    if let Some(withheld) = tree.withheld.first() {
        return Err(refuse(withheld.refusal.clone()));
    }
    // A regular entry that is not kept is hidden (skipped); only kept ones count as targets.
    let mut entries: std::collections::HashSet<String> =
        tree.files.iter().map(|(path, _)| path.clone()).collect();
    entries.extend(runtime.folders.iter().cloned());
    for (path, _) in &tree.files {
        let mut folder = path.as_str();
        while let Some((parent, _)) = folder.rsplit_once('/') {
            entries.insert(parent.to_owned());
            folder = parent;
        }
    }
    let links: std::collections::HashSet<String> =
        runtime.links.iter().map(|link| link.path.clone()).collect();
    for link in &runtime.links {
        check_link(link, &entries, &links).map_err(refuse)?;
    }
    let executable = std::mem::take(&mut runtime.executable);
    let files = tree
        .files
        .into_iter()
        .zip(executable)
        .map(|((path, bytes), executable)| UnpackedFile {
            path,
            bytes,
            executable,
        })
        .collect();
    Ok(Unpacked {
        files,
        folders: runtime.folders,
        links: runtime.links,
    })
}

/// Whether a runtime's link lands on an entry of the tree: its target is relative, each `..`
/// stays inside the tree, no step before the last goes through another link (lexical
/// resolution is only true when every folder on the way is a real one), and the entry reached
/// is one the archive holds.
fn check_link(
    link: &UnpackedLink,
    entries: &std::collections::HashSet<String>,
    links: &std::collections::HashSet<String>,
) -> Result<(), String> {
    let refuse = |why: &str| {
        format!(
            "the entry '{}' is a symbolic link to '{}', which {why}; only links that land on \
             another entry of the archive are created",
            link.path.escape_debug(),
            link.target.escape_debug()
        )
    };
    if link.target.is_empty() || link.target.starts_with('/') || link.target.contains(['\\', '\0'])
    {
        return Err(refuse("is not a relative path"));
    }
    let mut at: Vec<&str> = link.path.split('/').collect();
    at.pop();
    let steps: Vec<&str> = link
        .target
        .split('/')
        .filter(|step| !step.is_empty() && *step != ".")
        .collect();
    for (index, step) in steps.iter().enumerate() {
        if *step == ".." {
            if at.pop().is_none() {
                return Err(refuse("leaves the archive's tree"));
            }
            continue;
        }
        at.push(step);
        let reached = at.join("/");
        if index + 1 < steps.len() && links.contains(&reached) {
            return Err(refuse("passes through another link"));
        }
    }
    let reached = at.join("/");
    if reached.is_empty() {
        return Err(refuse("names the archive's top folder"));
    }
    path::check_relative(&reached)
        .map_err(|refusal| refuse(&format!("lands on a refused path ({refusal})")))?;
    if !entries.contains(&reached) && !links.contains(&reached) {
        return Err(refuse("names nothing the archive holds"));
    }
    Ok(())
}

/// Extracts the regular files of an archive into memory: `('/'-separated relative path,
/// bytes)`, sorted by path. Folder entries are accepted and produce nothing; hidden entries
/// are left out; anything else that is not a regular file, or a file over the per-file limit,
/// refuses the whole archive. [`extract_tree`] keeps such an entry aside, so the installer's
/// skill finder refuses it only for the skill it lies in.
pub fn extract(
    bytes: &[u8],
    format: Format,
    limits: &Limits,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    extract_tree(bytes, format, limits)?
        .into_files()
        .map_err(|why| format!("the {} archive is refused: {why}", format.describe()))
}

/// Extracts an archive into memory, keeping its links, devices, FIFOs and files over the
/// per-file limit as [`Withheld`]s for the caller to judge (never created), and the files
/// below hidden folders other than the excluded ones. Every other rule of [`extract`] applies.
pub fn extract_tree(bytes: &[u8], format: Format, limits: &Limits) -> Result<Tree, String> {
    let mut tree = match format {
        Format::TarGz => tar_gz_with(bytes, limits, None).map(|(tree, _)| tree),
        Format::Zip => zip(bytes, limits),
    }
    .map_err(|why| format!("the {} archive is refused: {why}", format.describe()))?;
    tree.files.sort_by(|a, b| a.0.cmp(&b.0));
    tree.withheld.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(tree)
}

/// What an entry's name means for the extraction.
enum Disposition<'a> {
    /// Kept, with its checked components.
    Keep(Vec<&'a str>),
    /// A hidden file, or below a folder never searched: never installed.
    Skip,
}

/// The relative-path check of 03 on an entry name (a leading `./`, which `tar -C dir .`
/// writes, is dropped first). A hidden file, and anything below an excluded folder (`.git/`,
/// `node_modules/`) or, for a runtime (whose `lib/node_modules` is its own), below any hidden
/// folder, is a skip; a name
/// below another hidden folder is kept (see the module comment). Everything else a hidden name
/// might hold (`..`, a drive, a backslash, a device name) is still refused: a hostile entry is
/// refused even where it would have been skipped.
fn classify(name: &str, hidden_folders: bool) -> Result<Disposition<'_>, Refusal> {
    let name = path::strip_current_dir_prefix(name);
    let components = path::check_named(name)?;
    let (last, folders) = components.split_last().unwrap_or((&"", &[]));
    let skipped = last.starts_with('.')
        || if hidden_folders {
            is_excluded_source_path(folders)
        } else {
            // A runtime keeps its `lib/node_modules`, and nothing hidden.
            folders.iter().any(|folder| folder.starts_with('.'))
        };
    Ok(if skipped {
        Disposition::Skip
    } else {
        Disposition::Keep(components)
    })
}

/// The kind of a name in [`Names`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    File,
    Folder,
}

/// The names an extraction (or a local folder read) has produced so far, keyed by their
/// folded form (NFC, lower case, NFC again), so that two names one filesystem would merge
/// are caught whichever arrives first. Folders are recorded for every file's ancestors, so
/// `A/x` and `a/y` collide as well as `A/SKILL.md` and `a/skill.md`.
#[derive(Default)]
pub struct Names {
    seen: HashMap<String, (String, Kind)>,
}

impl Names {
    /// Records a file (`kind` = file) or a folder at `components`, refusing a collision.
    fn add(&mut self, components: &[&str], kind: Kind) -> Result<(), String> {
        let full = components.join("/");
        let at = |why: String, name: &str| {
            if *name == full {
                why
            } else {
                format!("the entry '{full}' is refused: {why}")
            }
        };
        for end in 1..=components.len() {
            let name = components[..end].join("/");
            let this = if end == components.len() {
                kind
            } else {
                Kind::Folder
            };
            match self.seen.entry(fold(&name)) {
                Entry::Vacant(slot) => {
                    slot.insert((name, this));
                }
                Entry::Occupied(slot) => {
                    let (other, other_kind) = slot.get();
                    if *other != name {
                        let why = if other.nfc().eq(name.nfc()) {
                            format!(
                                "'{name}' is spelled twice, in two Unicode normalisations \
                                 ('{}' and '{}'), so one would overwrite the other on some \
                                 systems",
                                spelled(&name),
                                spelled(other)
                            )
                        } else {
                            format!(
                                "'{name}' and '{other}' differ only by letter case, so one \
                                 would overwrite the other on some systems"
                            )
                        };
                        return Err(at(why, &name));
                    }
                    match (this, *other_kind) {
                        (Kind::Folder, Kind::Folder) => {}
                        (Kind::File, Kind::File) => {
                            return Err(format!("'{name}' appears twice"));
                        }
                        _ => {
                            return Err(at(format!("'{name}' is both a file and a folder"), &name));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Records a file at `components`, refusing a collision with any name seen before.
    pub fn add_file(&mut self, components: &[&str]) -> Result<(), String> {
        self.add(components, Kind::File)
    }

    /// Records a folder at `components`, refusing a collision with any name seen before.
    pub fn add_folder(&mut self, components: &[&str]) -> Result<(), String> {
        self.add(components, Kind::Folder)
    }
}

/// A name with every character outside ASCII written as its code point, so that two
/// normalisations of one name can be told apart in a message.
fn spelled(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii() {
                c.to_string()
            } else {
                c.escape_unicode().to_string()
            }
        })
        .collect()
}

/// The form two names are compared in: NFC, then lower case, then NFC again (lowering can
/// denormalise).
fn fold(name: &str) -> String {
    name.nfc()
        .collect::<String>()
        .to_lowercase()
        .nfc()
        .collect()
}

/// Counts what the decompressor produces and stops it at the stream cap or the bomb ratio,
/// whatever any header claims. It also notes whether the stream ran dry, which is how a tar
/// that ends without its end-of-archive blocks is told from a complete one.
struct Meter {
    produced: Cell<u64>,
    cap: u64,
    compressed: u64,
    ratio: u64,
    ran_dry: Cell<bool>,
    refusal: Cell<Option<String>>,
}

impl Meter {
    fn new(compressed: usize, cap: u64, limits: &Limits) -> Self {
        Self {
            produced: Cell::new(0),
            cap,
            compressed: compressed as u64,
            ratio: limits.ratio,
            ran_dry: Cell::new(false),
            refusal: Cell::new(None),
        }
    }

    /// Adds `count` produced bytes, refusing past the cap or the ratio.
    fn count(&self, count: usize) -> io::Result<()> {
        let produced = self.produced.get().saturating_add(count as u64);
        self.produced.set(produced);
        let refusal = if produced > self.cap {
            Some(format!("it decompresses to more than {} bytes", self.cap))
        } else if produced > RATIO_FLOOR_BYTES
            && produced >= self.compressed.saturating_mul(self.ratio)
        {
            Some(format!(
                "it decompresses to {} times its size of {} bytes or more (a decompression \
                 bomb); at most {}:1 is accepted",
                self.ratio, self.compressed, self.ratio
            ))
        } else {
            None
        };
        match refusal {
            Some(refusal) => {
                self.refusal.set(Some(refusal.clone()));
                Err(io::Error::other(refusal))
            }
            None => Ok(()),
        }
    }

    /// The meter's own refusal, naming the entry being read, if it stopped the stream;
    /// else `why`.
    fn explain_at(&self, collector: &Collector<'_>, why: String) -> String {
        match self.refusal.take() {
            Some(refusal) if collector.current.is_empty() => refusal,
            Some(refusal) => format!(
                "{refusal} (at the entry '{}')",
                collector.current.escape_debug()
            ),
            None => why,
        }
    }

    /// The meter's own refusal if it stopped the stream, else `error` with `context`.
    fn explain(&self, context: &str, error: &dyn std::fmt::Display) -> String {
        match self.refusal.take() {
            Some(refusal) => refusal,
            None => format!("{context}: {error}"),
        }
    }
}

struct Metered<'a, R> {
    inner: R,
    meter: &'a Meter,
}

impl<R: Read> Read for Metered<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let count = self.inner.read(buf)?;
        if count == 0 && !buf.is_empty() {
            self.meter.ran_dry.set(true);
        }
        self.meter.count(count)?;
        Ok(count)
    }
}

/// The running totals of one extraction and the checks they take part in.
struct Collector<'a> {
    limits: &'a Limits,
    entries: usize,
    total: u64,
    names: Names,
    files: Vec<(String, Vec<u8>)>,
    withheld: Vec<Withheld>,
    /// The name of the entry being read (or last read), for the messages.
    current: String,
    /// Set for a runtime's archive only: what it keeps that a skill's never does.
    runtime: Option<RuntimeParts>,
}

/// What [`extract_runtime`] keeps besides the files: one execute flag per kept file (in
/// order), the folders, and the links (checked once every entry is known).
#[derive(Debug, Default)]
struct RuntimeParts {
    executable: Vec<bool>,
    /// The mode of the file entry about to be read.
    next_executable: bool,
    folders: Vec<String>,
    links: Vec<UnpackedLink>,
}

impl<'a> Collector<'a> {
    fn new(limits: &'a Limits) -> Self {
        Self {
            limits,
            entries: 0,
            total: 0,
            current: String::new(),
            names: Names::default(),
            files: Vec::new(),
            withheld: Vec::new(),
            runtime: None,
        }
    }

    fn finish(self) -> Tree {
        Tree {
            files: self.files,
            withheld: self.withheld,
        }
    }

    fn count_entry(&mut self) -> Result<(), String> {
        self.entries += 1;
        if self.entries > self.limits.entries {
            return Err(format!(
                "it holds more than {} entries",
                self.limits.entries
            ));
        }
        Ok(())
    }

    /// [`classify`] for this extraction: a runtime keeps nothing below a hidden folder.
    fn classify<'n>(&self, name: &'n str) -> Result<Disposition<'n>, String> {
        classify(name, self.runtime.is_none()).map_err(|refusal| refused(name, &refusal))
    }

    /// Whether the file entry `name` is kept (it is refused if its name is).
    fn wants(&self, name: &str) -> Result<bool, String> {
        Ok(matches!(self.classify(name)?, Disposition::Keep(_)))
    }

    /// A folder entry: nothing to keep, but its name takes part in the collision check.
    fn folder(&mut self, name: &str) -> Result<(), String> {
        let folder = name.strip_suffix('/').unwrap_or(name);
        if matches!(folder, "" | ".") {
            return Ok(());
        }
        match classify(folder, self.runtime.is_none()).map_err(|refusal| refused(name, &refusal))? {
            Disposition::Keep(components) => {
                self.names.add_folder(&components)?;
                if let Some(runtime) = &mut self.runtime {
                    runtime.folders.push(components.join("/"));
                }
                Ok(())
            }
            Disposition::Skip => Ok(()),
        }
    }

    /// A symbolic link of a runtime's archive: kept for [`check_link`] (its name takes part in
    /// the collision check, so no entry can be placed through it).
    fn runtime_link(&mut self, name: &str, target: String) -> Result<(), String> {
        match self.classify(name)? {
            Disposition::Keep(components) => {
                self.names.add_file(&components)?;
                if let Some(runtime) = &mut self.runtime {
                    runtime.links.push(UnpackedLink {
                        path: components.join("/"),
                        target,
                    });
                }
                Ok(())
            }
            Disposition::Skip => Ok(()),
        }
    }

    /// A link, device or FIFO: never created. Recorded (with its name in the collision check,
    /// so a file cannot be placed "through" it) for the caller to refuse.
    fn not_a_file(&mut self, name: &str, kind: &str, target: Option<String>) -> Result<(), String> {
        match self.classify(name)? {
            Disposition::Keep(components) => {
                self.names.add_file(&components)?;
                let target = target
                    .map(|target| format!(" (to '{}')", target.escape_debug()))
                    .unwrap_or_default();
                self.withheld.push(Withheld {
                    path: components.join("/"),
                    refusal: format!(
                        "the entry '{}' is {kind}{target}; only regular files and folders \
                         are extracted, and links are never created",
                        name.escape_debug()
                    ),
                });
                Ok(())
            }
            Disposition::Skip => Ok(()),
        }
    }

    /// A regular file entry, kept unless [`classify`] skips it: read through a counter at
    /// most the file limit plus one byte, so a file past the limit is seen without reading all
    /// of it (and kept aside as [`Withheld`], refusing only its skill; a runtime's archive is
    /// refused whole); `declared` (the header's size) is only compared afterwards, to catch a
    /// truncated or inconsistent entry.
    fn file(&mut self, name: &str, reader: &mut dyn Read, declared: u64) -> Result<(), String> {
        let components = match self.classify(name)? {
            Disposition::Keep(components) => components,
            Disposition::Skip => return Ok(()),
        };
        self.names.add_file(&components)?;
        let mut bytes = Vec::new();
        reader
            .take(self.limits.file.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|error| format!("'{name}' cannot be read: {error}"))?;
        let size = bytes.len() as u64;
        if size > self.limits.file {
            let refusal = too_large(name, self.limits.file);
            if self.runtime.is_some() {
                return Err(refusal);
            }
            self.withheld.push(Withheld {
                path: components.join("/"),
                refusal,
            });
            return Ok(());
        }
        self.total += size;
        if self.total > self.limits.total {
            return Err(format!(
                "its files exceed {} bytes in total (at '{name}')",
                self.limits.total
            ));
        }
        if size != declared {
            return Err(format!(
                "'{name}' holds {size} bytes but its header says {declared}: the archive is \
                 truncated or corrupt"
            ));
        }
        self.files.push((components.join("/"), bytes));
        if let Some(runtime) = &mut self.runtime {
            let executable = runtime.next_executable;
            runtime.executable.push(executable);
        }
        Ok(())
    }
}

/// The refusal of a file over the per-file limit (shared with the local reader).
pub fn too_large(name: &str, limit: u64) -> String {
    format!(
        "'{}' is larger than {limit} bytes, the limit for one file",
        name.escape_debug()
    )
}

fn refused(name: &str, refusal: &Refusal) -> String {
    format!("the entry '{}' is refused: {refusal}", name.escape_debug())
}

fn tar_gz_with(
    bytes: &[u8],
    limits: &Limits,
    runtime: Option<RuntimeParts>,
) -> Result<(Tree, Option<RuntimeParts>), String> {
    // The tar stream holds headers, padding and skipped entries besides the files kept, so
    // its own cap is twice the total plus a header's worth per entry and a record; the files
    // kept are counted against the total itself.
    let overhead = (limits.entries as u64)
        .saturating_add(1)
        .saturating_mul(1024)
        .saturating_add(TAR_RECORD_BYTES);
    let cap = limits.total.saturating_mul(2).saturating_add(overhead);
    let meter = Meter::new(bytes.len(), cap, limits);
    let mut stream = Metered {
        inner: flate2::read::GzDecoder::new(bytes),
        meter: &meter,
    };
    let mut collector = Collector::new(limits);
    collector.runtime = runtime;
    {
        let mut archive = tar::Archive::new(&mut stream);
        let entries = archive
            .entries()
            .map_err(|error| meter.explain("it cannot be read", &error))?;
        for entry in entries {
            let mut entry = entry.map_err(|error| {
                let after = if collector.current.is_empty() {
                    String::new()
                } else {
                    format!(" after the entry '{}'", collector.current.escape_debug())
                };
                meter.explain_at(&collector, format!("it cannot be read{after}: {error}"))
            })?;
            collector.count_entry()?;
            tar_entry(&mut entry, &mut collector)
                .map_err(|why| meter.explain_at(&collector, why))?;
        }
    }
    if meter.ran_dry.get() {
        return Err("it ends before the tar end-of-archive marker: it is truncated".to_owned());
    }
    // Reading to the end makes the gzip decoder check its trailer (length and CRC), so a
    // stream cut or altered after the end marker is refused too.
    io::copy(&mut stream, &mut io::sink())
        .map_err(|error| meter.explain("its gzip stream is truncated or corrupt", &error))?;
    let runtime = collector.runtime.take();
    Ok((collector.finish(), runtime))
}

fn tar_entry<R: Read>(
    entry: &mut tar::Entry<'_, R>,
    collector: &mut Collector<'_>,
) -> Result<(), String> {
    use tar::EntryType;
    let kind = entry.header().entry_type();
    // The pax global header (GitHub writes one holding the commit id) describes the
    // archive, not a file.
    if kind == EntryType::XGlobalHeader {
        return Ok(());
    }
    let raw = entry.path_bytes().into_owned();
    let name = String::from_utf8(raw).map_err(|error| {
        format!(
            "the entry '{}' is refused: its name is not UTF-8",
            String::from_utf8_lossy(error.as_bytes()).escape_debug()
        )
    })?;
    collector.current.clone_from(&name);
    let not_a_file = match kind {
        EntryType::Regular | EntryType::Continuous | EntryType::Directory => None,
        EntryType::Symlink => Some("a symbolic link"),
        EntryType::Link => Some("a hard link"),
        EntryType::Char | EntryType::Block => Some("a device"),
        EntryType::Fifo => Some("a FIFO (named pipe)"),
        // Not links, but data this extractor does not read: refused outright.
        EntryType::GNUSparse => return Err(unsupported(&name, "a sparse file")),
        _ => return Err(unsupported(&name, "an entry of an unsupported type")),
    };
    let target = || {
        entry
            .link_name_bytes()
            .filter(|target| !target.is_empty())
            .map(|target| String::from_utf8_lossy(&target).into_owned())
    };
    if let Some(runtime) = &mut collector.runtime {
        runtime.next_executable = entry.header().mode().is_ok_and(|mode| mode & 0o111 != 0);
        if kind == EntryType::Symlink {
            let target = target().unwrap_or_default();
            return collector.runtime_link(&name, target);
        }
    }
    match not_a_file {
        Some(kind) => collector.not_a_file(&name, kind, target()),
        None if kind == EntryType::Directory => collector.folder(&name),
        None => {
            let declared = entry.size();
            collector.file(&name, entry, declared)
        }
    }
}

fn unsupported(name: &str, kind: &str) -> String {
    format!(
        "the entry '{}' is {kind}; only regular files and folders are extracted",
        name.escape_debug()
    )
}

/// The block a tar writer pads its stream to (20 headers' worth).
const TAR_RECORD_BYTES: u64 = 10_240;

/// Unix file types in a zip entry's external attributes.
const S_IFMT: u32 = 0o170_000;
const S_IFREG: u32 = 0o100_000;
const S_IFDIR: u32 = 0o040_000;
const S_IFLNK: u32 = 0o120_000;

fn zip(bytes: &[u8], limits: &Limits) -> Result<Tree, String> {
    let mut archive = zip::ZipArchive::new(io::Cursor::new(bytes))
        .map_err(|error| format!("it cannot be read (truncated or not a zip): {error}"))?;
    if archive.has_duplicate_names() {
        return Err(match duplicate_zip_name(bytes) {
            Some(name) => format!("the entry '{}' appears twice", name.escape_debug()),
            None => "an entry name appears twice".to_owned(),
        });
    }
    if archive.len() > limits.entries {
        return Err(format!("it holds more than {} entries", limits.entries));
    }
    // Only the files kept are decompressed, each at most one byte past the file limit, so
    // the total check of the collector comes first; the meter adds the ratio.
    let cap = limits.total.saturating_add(limits.file).saturating_add(1);
    let meter = Meter::new(bytes.len(), cap, limits);
    let mut collector = Collector::new(limits);
    for index in 0..archive.len() {
        collector.count_entry()?;
        // The central directory says what an entry is; only a kept regular file is opened
        // and decompressed.
        let (name, mode, is_dir, is_symlink, encrypted) = {
            let listed = archive
                .by_index_data(index)
                .map_err(|error| format!("entry {index} cannot be read: {error}"))?;
            let name = listed
                .name()
                .map_err(|error| {
                    format!(
                        "the entry '{}' has an unreadable name: {error}",
                        String::from_utf8_lossy(listed.name_raw()).escape_debug()
                    )
                })?
                .into_owned();
            let mode = listed.unix_mode().map_or(0, |mode| mode & S_IFMT);
            (
                name,
                mode,
                listed.is_dir(),
                listed.is_symlink(),
                listed.encrypted(),
            )
        };
        collector.current.clone_from(&name);
        let not_a_file = match mode {
            0 | S_IFREG | S_IFDIR => is_symlink.then_some("a symbolic link"),
            S_IFLNK => Some("a symbolic link"),
            0o020_000 | 0o060_000 => Some("a device"),
            0o010_000 => Some("a FIFO (named pipe)"),
            0o140_000 => Some("a socket"),
            _ => return Err(unsupported(&name, "an entry of an unknown type")),
        };
        if let Some(kind) = not_a_file {
            collector.not_a_file(&name, kind, None)?;
        } else if is_dir || mode == S_IFDIR {
            collector.folder(&name)?;
        } else {
            if !collector.wants(&name)? {
                continue;
            }
            if encrypted {
                return Err(format!(
                    "the entry '{}' is encrypted; encrypted archives are not extracted",
                    name.escape_debug()
                ));
            }
            let mut file = archive.by_index(index).map_err(|error| {
                format!(
                    "the entry '{}' cannot be read: {error}",
                    name.escape_debug()
                )
            })?;
            let declared = file.size();
            let mut metered = Metered {
                inner: &mut file,
                meter: &meter,
            };
            collector
                .file(&name, &mut metered, declared)
                .map_err(|why| meter.explain_at(&collector, why))?;
        }
    }
    Ok(collector.finish())
}

/// The first name the central directory lists twice, found by walking its records (the zip
/// crate keeps one entry per name, so it can say that a name repeats but not which). Only
/// for the message: `None` when the records cannot be walked.
fn duplicate_zip_name(bytes: &[u8]) -> Option<String> {
    let start = find_central_directory(bytes)?;
    let mut seen = std::collections::HashSet::new();
    let mut at = start;
    while bytes.get(at..at + 4)? == b"PK\x01\x02" {
        let field = |offset: usize| -> Option<usize> {
            let pair = bytes.get(at + offset..at + offset + 2)?;
            Some(usize::from(u16::from_le_bytes([pair[0], pair[1]])))
        };
        let (name_len, extra_len, comment_len) = (field(28)?, field(30)?, field(32)?);
        let name = bytes.get(at + 46..at + 46 + name_len)?;
        if !seen.insert(name) {
            return Some(String::from_utf8_lossy(name).into_owned());
        }
        at += 46 + name_len + extra_len + comment_len;
    }
    None
}

/// The offset of the first central directory record, from the end-of-central-directory
/// record (the last `PK\5\6` in the file).
fn find_central_directory(bytes: &[u8]) -> Option<usize> {
    let end = bytes
        .windows(4)
        .rposition(|window| window == b"PK\x05\x06")?;
    let offset = bytes.get(end + 16..end + 20)?;
    usize::try_from(u32::from_le_bytes([
        offset[0], offset[1], offset[2], offset[3],
    ]))
    .ok()
}

/// A reproducible `.tar.gz` of `files`, at the archive root (no wrapper folder): entries in
/// byte order of their paths, no folder entries, GNU headers with mtime [`ARCHIVE_MTIME`], uid
/// and gid 0, no user or group names, mode [`ARCHIVE_FILE_MODE`]; a gzip header with no time,
/// no file name and the "unknown" system byte. The one place an archive is written, beside the
/// one place archives are read, so both archive crates are named in this file alone.
pub fn pack_tar_gz(files: &BTreeMap<String, Vec<u8>>) -> io::Result<Vec<u8>> {
    let gzip = flate2::GzBuilder::new()
        .mtime(0)
        .operating_system(255)
        .write(Vec::new(), flate2::Compression::new(6));
    let mut builder = tar::Builder::new(gzip);
    for (path, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(bytes.len() as u64);
        header.set_mode(ARCHIVE_FILE_MODE);
        header.set_mtime(ARCHIVE_MTIME);
        header.set_uid(0);
        header.set_gid(0);
        builder.append_data(&mut header, path, bytes.as_slice())?;
    }
    let mut gzip = builder.into_inner()?;
    gzip.flush()?;
    gzip.finish()
}
