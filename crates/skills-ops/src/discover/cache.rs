//! The catalog cache: parsed frontmatters kept between runs, so a repeated listing reads no
//! file that has not changed.
//!
//! An entry is keyed by the definition file's path and trusted only while the file's size,
//! modification time, change time and inode (and those of its sidecar files) are unchanged;
//! the change time cannot be set back by `touch`, so an edit is never masked. The file lives
//! at `~/<app_dir>/cache/catalog-<roots digest>.bin`, one per set of roots, written atomically
//! (a temporary file renamed into place). Anything unexpected (a missing, truncated, foreign or
//! older file) is a cache miss, never an error: the cache can only make discovery faster,
//! never different.

use std::collections::HashMap;
use std::fs::Metadata;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use skills_types::catalog::Root;
use skills_types::skill::SkillInput;
use skills_types::{Diagnostic, DiagnosticCode, Frontmatter, Severity, SkillsConfig};

use super::Loaded;

/// Bumped whenever the layout below or what the loader produces changes.
const FORMAT: u32 = 1;
/// A cache file larger than this is ignored.
const MAX_CACHE_BYTES: u64 = 256 * 1024 * 1024;
/// The folder inside the app directory.
pub(crate) const CACHE_DIR: &str = "cache";

/// What identifies one version of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stamp {
    len: u64,
    modified: (i64, u32),
    changed: (i64, u32),
    inode: u64,
}

impl Stamp {
    pub(crate) fn of(metadata: &Metadata) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let nanos = |n: i64| u32::try_from(n).unwrap_or(0);
            Self {
                len: metadata.len(),
                modified: (metadata.mtime(), nanos(metadata.mtime_nsec())),
                changed: (metadata.ctime(), nanos(metadata.ctime_nsec())),
                inode: metadata.ino(),
            }
        }
        #[cfg(not(unix))]
        {
            let modified = metadata
                .modified()
                .ok()
                .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or((0, 0), |d| {
                    (i64::try_from(d.as_secs()).unwrap_or(0), d.subsec_nanos())
                });
            Self {
                len: metadata.len(),
                modified,
                changed: modified,
                inode: 0,
            }
        }
    }
}

/// The stamps of a skill's definition file and of the files beside it that shape it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stamps {
    pub(crate) definition: Stamp,
    /// `skill.toml` (0) or `workflow.toml` (1), with its stamp.
    pub(crate) sidecar: Option<(u8, Stamp)>,
    pub(crate) manifest: Option<Stamp>,
}

#[derive(Serialize, Deserialize)]
struct CacheFile {
    format: u32,
    version: String,
    entries: Vec<Entry>,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    path: String,
    stamps: Stamps,
    outcome: Result<CachedLoad, CachedDiagnostic>,
}

/// `Loaded` without the serde attributes that a non-self-describing format cannot honour
/// (skipped fields, flattened maps).
#[derive(Clone, Serialize, Deserialize)]
struct CachedLoad {
    name: String,
    description: String,
    license: Option<String>,
    compatibility: Option<String>,
    metadata: Vec<(String, String)>,
    allowed_tools: Vec<String>,
    platforms: Vec<String>,
    triggers: Vec<String>,
    /// The flattened unknown keys, as JSON text.
    extra: String,
    diagnostics: Vec<CachedDiagnostic>,
    when_to_use: Option<String>,
    inputs: Vec<(String, String, bool, Option<String>)>,
}

#[derive(Clone, Serialize, Deserialize)]
struct CachedDiagnostic {
    code: String,
    severity: u8,
    message: String,
    path: Option<String>,
    line: Option<u32>,
}

impl From<&Diagnostic> for CachedDiagnostic {
    fn from(diagnostic: &Diagnostic) -> Self {
        Self {
            code: diagnostic.code.as_str().to_owned(),
            severity: match diagnostic.severity {
                Severity::Info => 0,
                Severity::Warning => 1,
                Severity::Error => 2,
            },
            message: diagnostic.message.clone(),
            path: diagnostic
                .path
                .as_ref()
                .map(|path| path.to_string_lossy().into_owned()),
            line: diagnostic.line,
        }
    }
}

impl CachedDiagnostic {
    fn restore(self) -> Option<Diagnostic> {
        let severity = match self.severity {
            0 => Severity::Info,
            1 => Severity::Warning,
            2 => Severity::Error,
            _ => return None,
        };
        let code: DiagnosticCode = self.code.parse().ok()?;
        let mut diagnostic = Diagnostic::new(code, severity, self.message);
        diagnostic.path = self.path.map(PathBuf::from);
        diagnostic.line = self.line;
        Some(diagnostic)
    }
}

impl From<&Loaded> for CachedLoad {
    fn from(loaded: &Loaded) -> Self {
        let frontmatter = &loaded.frontmatter;
        Self {
            name: frontmatter.name.clone(),
            description: frontmatter.description.clone(),
            license: frontmatter.license.clone(),
            compatibility: frontmatter.compatibility.clone(),
            metadata: frontmatter
                .metadata
                .iter()
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
            allowed_tools: frontmatter.allowed_tools.clone(),
            platforms: frontmatter.platforms.clone(),
            triggers: frontmatter.triggers.clone(),
            extra: serde_json::to_string(&frontmatter.extra).unwrap_or_default(),
            diagnostics: loaded
                .diagnostics
                .iter()
                .map(CachedDiagnostic::from)
                .collect(),
            when_to_use: loaded.when_to_use.clone(),
            inputs: loaded
                .inputs
                .iter()
                .map(|input| {
                    (
                        input.name.clone(),
                        input.description.clone(),
                        input.required,
                        input.kind.clone(),
                    )
                })
                .collect(),
        }
    }
}

impl CachedLoad {
    fn restore(self) -> Option<Loaded> {
        let frontmatter = Frontmatter {
            name: self.name,
            description: self.description,
            license: self.license,
            compatibility: self.compatibility,
            metadata: self.metadata.into_iter().collect(),
            allowed_tools: self.allowed_tools,
            platforms: self.platforms,
            triggers: self.triggers,
            extra: serde_json::from_str(&self.extra).ok()?,
        };
        let diagnostics = self
            .diagnostics
            .into_iter()
            .map(CachedDiagnostic::restore)
            .collect::<Option<Vec<_>>>()?;
        Some(Loaded {
            frontmatter,
            diagnostics,
            when_to_use: self.when_to_use,
            inputs: self
                .inputs
                .into_iter()
                .map(|(name, description, required, kind)| SkillInput {
                    name,
                    description,
                    required,
                    kind,
                })
                .collect(),
        })
    }
}

/// The cache of one set of roots.
pub(crate) struct Cache {
    path: PathBuf,
    entries: HashMap<String, Entry>,
    /// Whether the file must be written back (an entry was added, changed or is gone).
    dirty: bool,
}

impl Cache {
    /// The cache for these roots; empty when there is none or it cannot be used.
    pub(crate) fn open(config: &SkillsConfig, roots: &[Root]) -> Self {
        let mut digest = Sha256::new();
        for root in roots {
            digest.update(root.path.to_string_lossy().as_bytes());
            digest.update([0]);
        }
        let hex = format!("{:x}", digest.finalize());
        let path = config
            .home
            .join(&config.app_dir)
            .join(CACHE_DIR)
            .join(format!("catalog-{}.bin", &hex[..16]));
        let entries = read(&path).unwrap_or_default();
        Self {
            path,
            entries,
            dirty: false,
        }
    }

    /// The cached outcome for a definition file, when its stamps still match.
    pub(crate) fn take(
        &mut self,
        path: &Path,
        stamps: &Stamps,
    ) -> Option<Result<Loaded, Diagnostic>> {
        let key = path.to_string_lossy();
        let entry = self.entries.remove(key.as_ref())?;
        if entry.stamps != *stamps {
            self.dirty = true;
            return None;
        }
        let restored = match entry.outcome {
            Ok(load) => load.restore().map(Ok),
            Err(diagnostic) => diagnostic.restore().map(Err),
        };
        if restored.is_none() {
            self.dirty = true;
        }
        restored
    }

    /// Writes the outcomes of this discovery as the new cache, when anything changed.
    /// `fresh` tells which outcomes were parsed now rather than taken from the cache.
    pub(crate) fn store(
        mut self,
        outcomes: &[(PathBuf, Stamps, &Result<Loaded, Diagnostic>, bool)],
    ) {
        let parsed_now = outcomes.iter().any(|(_, _, _, fresh)| *fresh);
        // Entries still in the map belong to files this discovery no longer saw.
        if !parsed_now && !self.dirty && self.entries.is_empty() {
            return;
        }
        self.entries.clear();
        let file = CacheFile {
            format: FORMAT,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            entries: outcomes
                .iter()
                .map(|(path, stamps, outcome, _)| Entry {
                    path: path.to_string_lossy().into_owned(),
                    stamps: *stamps,
                    outcome: match outcome {
                        Ok(loaded) => Ok(CachedLoad::from(loaded)),
                        Err(diagnostic) => Err(CachedDiagnostic::from(diagnostic)),
                    },
                })
                .collect(),
        };
        // A cache that cannot be written only costs speed next time.
        let _ = write(&self.path, &file);
    }
}

fn read(path: &Path) -> Option<HashMap<String, Entry>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_CACHE_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    let file: CacheFile = postcard::from_bytes(&bytes).ok()?;
    if file.format != FORMAT || file.version != env!("CARGO_PKG_VERSION") {
        return None;
    }
    Some(
        file.entries
            .into_iter()
            .map(|entry| (entry.path.clone(), entry))
            .collect(),
    )
}

fn write(path: &Path, file: &CacheFile) -> std::io::Result<()> {
    let bytes = postcard::to_stdvec(file).map_err(std::io::Error::other)?;
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("no parent"))?;
    std::fs::create_dir_all(dir)?;
    let temporary = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .map(|name| name.to_string_lossy())
            .unwrap_or_default(),
        std::process::id()
    ));
    let result = (|| {
        let mut out = std::fs::File::create(&temporary)?;
        out.write_all(&bytes)?;
        out.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}
