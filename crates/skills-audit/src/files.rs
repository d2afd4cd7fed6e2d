//! A skill's files as the analyzers see them: read once, in memory, within caps.
//!
//! The walk follows no link (a link is reported, never read through: a skill that links to
//! `~/.ssh` must not make the scanner read the user's keys into a report), reads no special
//! file (a FIFO would hang the scan), and reads at most [`Caps::bytes_per_file`] of a file and
//! [`Caps::files`] files, saying so for each cut. Memory is bounded by the caps, whatever the
//! skill holds.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use skills_types::Error;
use skills_types::audit::Skipped;
use skills_types::run::ScriptLanguage;

/// How much of a skill a scan reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Bytes read of one file; the rest is not scanned (reported).
    pub bytes_per_file: u64,
    /// Files read of one skill; the rest are not scanned (reported).
    pub files: usize,
    /// Folder depth below the skill folder.
    pub depth: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Self {
            bytes_per_file: 1024 * 1024,
            files: 2_000,
            depth: 16,
        }
    }
}

/// What a file is, for the analyzers that read only some kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// `SKILL.md`, other Markdown, plain text the agent may be pointed at.
    Text,
    /// Code, in the language it would run as.
    Script(ScriptLanguage),
    /// A native executable or library (ELF, Mach-O, PE) or other bytes that are not UTF-8.
    Binary,
}

/// One file of a skill, as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScannedFile {
    /// Relative to the skill folder, `/`-separated.
    pub path: String,
    /// The bytes read (at most the cap).
    pub bytes: Vec<u8>,
    /// The file's whole size: more than `bytes.len()` when it was cut.
    pub size: u64,
    /// What it is.
    pub kind: FileKind,
}

impl ScannedFile {
    /// A file from its path and bytes, its kind decided from both.
    pub fn new(path: impl Into<String>, bytes: Vec<u8>, size: u64) -> Self {
        let path = path.into();
        let kind = kind_of(&path, &bytes);
        Self {
            path,
            bytes,
            size,
            kind,
        }
    }

    /// The text, when the bytes are UTF-8 (a cut in the middle of a character is forgiven).
    pub fn text(&self) -> Option<&str> {
        match std::str::from_utf8(&self.bytes) {
            Ok(text) => Some(text),
            Err(error) if error.error_len().is_none() => {
                std::str::from_utf8(&self.bytes[..error.valid_up_to()]).ok()
            }
            Err(_) => None,
        }
    }
}

/// A skill as the analyzers see it.
#[derive(Clone, Debug, PartialEq)]
pub struct Skill {
    /// Its name: the frontmatter's `name`, else the folder's.
    pub name: String,
    /// The frontmatter's `description`, empty when there is none.
    pub description: String,
    /// The frontmatter as loading reads it (every key: the known ones typed, the others in
    /// `extra`), when `SKILL.md` has one that loads.
    pub frontmatter: Option<skills_types::Frontmatter>,
    /// Every file read, `SKILL.md` first, then by path.
    pub files: Vec<ScannedFile>,
    /// The names of the other skills the user has (for names that imitate one).
    pub neighbours: Neighbours,
}

/// The names of the other skills a user has, shared by every scan of one request rather than
/// copied into each (a catalog of 10,000 names scanned skill by skill would otherwise copy
/// 10,000 × 10,000 names), with what the analyzers derive from them computed once.
#[derive(Clone, Debug, Default)]
pub struct Neighbours {
    names: Arc<[String]>,
    forms: Arc<OnceLock<Vec<NameForm>>>,
}

/// What a name looks like, derived once per name by the `hidden` analyzer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NameForm {
    /// The name reduced to what it looks like.
    pub(crate) skeleton: String,
    /// Its length in characters, and its skeleton's.
    pub(crate) characters: usize,
    pub(crate) skeleton_characters: usize,
}

impl Neighbours {
    /// These names.
    pub fn new(names: Vec<String>) -> Self {
        Self {
            names: names.into(),
            forms: Arc::default(),
        }
    }

    /// The names, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Each name's form, in the names' order, derived on first use.
    pub(crate) fn forms(&self, derive: fn(&str) -> NameForm) -> &[NameForm] {
        self.forms
            .get_or_init(|| self.names.iter().map(|name| derive(name)).collect())
    }
}

/// Two lists of neighbours are the same when they name the same skills.
impl PartialEq for Neighbours {
    fn eq(&self, other: &Self) -> bool {
        self.names == other.names
    }
}

impl Skill {
    /// `SKILL.md`, when the skill has one.
    pub fn definition(&self) -> Option<&ScannedFile> {
        self.files
            .iter()
            .find(|file| file.path == skills_types::files::SKILL_MD)
    }
}

/// What [`read_dir`] read, and what it left.
pub(crate) struct Read {
    pub(crate) files: Vec<ScannedFile>,
    pub(crate) skipped: Vec<Skipped>,
}

/// Reads the skill folder `dir` within `caps`.
pub(crate) fn read_dir(dir: &Path, caps: &Caps) -> Result<Read, Error> {
    let metadata =
        std::fs::symlink_metadata(dir).map_err(|source| Error::io("inspect", dir, source))?;
    if !metadata.is_dir() {
        return Err(Error::InvalidInput(format!(
            "{} is not a skill folder: it is {}",
            dir.display(),
            skills_ops::fs::file_kind(&metadata)
        )));
    }
    let mut read = Read {
        files: Vec::new(),
        skipped: Vec::new(),
    };
    walk(dir, "", 0, caps, &mut read)?;
    read.files.sort_by(|a, b| {
        let definition = |file: &ScannedFile| file.path != skills_types::files::SKILL_MD;
        definition(a)
            .cmp(&definition(b))
            .then_with(|| a.path.cmp(&b.path))
    });
    Ok(read)
}

fn walk(dir: &Path, prefix: &str, depth: usize, caps: &Caps, read: &mut Read) -> Result<(), Error> {
    let mut entries = std::fs::read_dir(dir)
        .map_err(|source| Error::io("list", dir, source))?
        .filter_map(Result::ok)
        .collect::<Vec<_>>();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let path = entry.path();
        let Ok(metadata) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if metadata.is_dir() {
            if depth + 1 >= caps.depth {
                read.skipped.push(Skipped {
                    file: relative,
                    reason: format!("deeper than {} folders", caps.depth),
                });
            } else {
                walk(&path, &relative, depth + 1, caps, read)?;
            }
        } else if read.files.len() >= caps.files {
            read.skipped.push(Skipped {
                file: relative,
                reason: format!("more than {} files in the skill", caps.files),
            });
        } else if metadata.is_file() {
            match skills_ops::fs::read_prefix_no_follow(&path, caps.bytes_per_file) {
                Ok(Some((bytes, size))) => {
                    if size > bytes.len() as u64 {
                        read.skipped.push(Skipped {
                            file: relative.clone(),
                            reason: format!("read the first {} bytes of {size}", bytes.len()),
                        });
                    }
                    read.files.push(ScannedFile::new(relative, bytes, size));
                }
                Ok(None) => {}
                Err(why) => read.skipped.push(Skipped {
                    file: relative,
                    reason: why,
                }),
            }
        } else {
            read.skipped.push(Skipped {
                file: relative,
                reason: format!("{}: not read", skills_ops::fs::file_kind(&metadata)),
            });
        }
    }
    Ok(())
}

/// A file's kind: native executables by their magic bytes; code by the runtime's own
/// decision ([`ScriptLanguage::of`]), then by a `#!` line; text when UTF-8; bytes otherwise.
fn kind_of(path: &str, bytes: &[u8]) -> FileKind {
    const MAGIC: [&[u8]; 6] = [
        b"\x7fELF",
        b"\xfe\xed\xfa\xce",
        b"\xfe\xed\xfa\xcf",
        b"\xcf\xfa\xed\xfe",
        b"\xca\xfe\xba\xbe",
        b"MZ",
    ];
    if MAGIC.iter().any(|magic| bytes.starts_with(magic)) && std::str::from_utf8(bytes).is_err() {
        return FileKind::Binary;
    }
    if let Some(language) =
        ScriptLanguage::of(path, bytes).or_else(|| ScriptLanguage::of_shebang(bytes))
    {
        return FileKind::Script(language);
    }
    let valid = match std::str::from_utf8(bytes) {
        Ok(_) => true,
        Err(error) => error.error_len().is_none(),
    };
    if valid {
        FileKind::Text
    } else {
        FileKind::Binary
    }
}
