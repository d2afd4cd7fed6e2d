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

use std::borrow::Cow;
use std::fs::Metadata;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use skills_types::catalog::Root;
use skills_types::run::InputType;
use skills_types::skill::{Invocation, SkillInput};
use skills_types::{Diagnostic, DiagnosticCode, Frontmatter, Severity, Skill, SkillsConfig};

use super::Loaded;
use crate::state::{self, CACHE_DIR, CATALOG_CACHE, CATALOG_CACHE_PREFIX, Folder};

/// Bumped whenever the layout below or what the loader produces changes.
const FORMAT: u32 = 4;

/// What identifies one version of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stamp {
    len: u64,
    modified: (i64, u32),
    changed: (i64, u32),
    pub(crate) inode: u64,
}

impl Stamp {
    /// The stamp of a `stat` result (Unix).
    #[cfg(unix)]
    #[expect(
        clippy::useless_conversion,
        reason = "the field types of `stat` differ between platforms; the conversions are needed on some"
    )]
    pub(crate) fn of_stat(stat: &rustix::fs::Stat) -> Self {
        Self {
            len: u64::try_from(stat.st_size).unwrap_or(0),
            modified: (
                i64::try_from(stat.st_mtime).unwrap_or(0),
                u32::try_from(stat.st_mtime_nsec).unwrap_or(0),
            ),
            changed: (
                i64::try_from(stat.st_ctime).unwrap_or(0),
                u32::try_from(stat.st_ctime_nsec).unwrap_or(0),
            ),
            inode: u64::try_from(stat.st_ino).unwrap_or(0),
        }
    }

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

/// The stamps of a skill's definition file, its directory, and the files beside it that shape
/// it. The directory's stamp changes whenever an entry is added, removed or renamed in it, so
/// while it holds, only the side files that existed need to be looked at again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stamps {
    pub(crate) definition: Stamp,
    pub(crate) dir: Stamp,
    /// `skill.toml` (0) or `workflow.toml` (1), with its stamp.
    pub(crate) sidecar: Option<(u8, Stamp)>,
    pub(crate) manifest: Option<Stamp>,
    /// The `agents` folder, when it is a real one, and its `openai.yaml` when that is a
    /// regular file.
    pub(crate) agents: Option<(Stamp, Option<Stamp>)>,
}

/// The file opens with this header; then come the chunks, each its byte length (8 bytes,
/// little-endian) then a postcard list of [`Entry`]. Chunks let a large cache be decoded on
/// every core, and written a few at a time rather than all held in memory.
#[derive(Serialize, Deserialize)]
struct Header<'a> {
    format: u32,
    version: Cow<'a, str>,
}

/// Entries per chunk.
const CHUNK_ENTRIES: usize = 1024;
/// Chunks encoded (in parallel) before they are written.
const CHUNKS_PER_WRITE: usize = 2;

#[derive(Serialize, Deserialize)]
struct Entry<'a> {
    path: Cow<'a, str>,
    stamps: Stamps,
    outcome: Result<CachedLoad<'a>, CachedDiagnostic<'a>>,
}

/// `Loaded` without the serde attributes that a non-self-describing format cannot honour
/// (skipped fields, flattened maps).
#[derive(Serialize, Deserialize)]
struct CachedLoad<'a> {
    name: Cow<'a, str>,
    description: Cow<'a, str>,
    license: Option<Cow<'a, str>>,
    compatibility: Option<Cow<'a, str>>,
    metadata: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    allowed_tools: Vec<Cow<'a, str>>,
    platforms: Vec<Cow<'a, str>>,
    triggers: Vec<Cow<'a, str>>,
    /// The flattened unknown keys, as JSON text.
    extra: Cow<'a, str>,
    diagnostics: Vec<CachedDiagnostic<'a>>,
    when_to_use: Option<Cow<'a, str>>,
    inputs: Vec<CachedInput<'a>>,
    /// Started by name only (`Invocation::Manual`).
    manual: bool,
}

#[derive(Serialize, Deserialize)]
struct CachedInput<'a> {
    name: Cow<'a, str>,
    description: Cow<'a, str>,
    required: bool,
    /// The type's name (`InputType::as_str`).
    kind: Cow<'a, str>,
    /// The default, as JSON text (postcard cannot carry a `serde_json::Value`).
    default: Option<Cow<'a, str>>,
}

#[derive(Serialize, Deserialize)]
struct CachedDiagnostic<'a> {
    code: Cow<'a, str>,
    severity: u8,
    message: Cow<'a, str>,
    path: Option<Cow<'a, str>>,
    line: Option<u32>,
}

fn borrowed(text: &str) -> Cow<'_, str> {
    Cow::Borrowed(text)
}

fn borrowed_all(texts: &[String]) -> Vec<Cow<'_, str>> {
    texts.iter().map(|text| borrowed(text)).collect()
}

fn owned_all(texts: Vec<Cow<'_, str>>) -> Vec<String> {
    texts.into_iter().map(Cow::into_owned).collect()
}

impl<'a> CachedDiagnostic<'a> {
    fn of(diagnostic: &'a Diagnostic) -> Self {
        Self {
            code: borrowed(diagnostic.code.as_str()),
            severity: match diagnostic.severity {
                Severity::Info => 0,
                Severity::Warning => 1,
                Severity::Error => 2,
            },
            message: borrowed(&diagnostic.message),
            path: diagnostic.path.as_ref().map(|path| path.to_string_lossy()),
            line: diagnostic.line,
        }
    }

    fn restore(self) -> Option<Diagnostic> {
        let severity = match self.severity {
            0 => Severity::Info,
            1 => Severity::Warning,
            2 => Severity::Error,
            _ => return None,
        };
        let code: DiagnosticCode = self.code.parse().ok()?;
        let mut diagnostic = Diagnostic::new(code, severity, self.message);
        diagnostic.path = self.path.map(|path| PathBuf::from(path.into_owned()));
        diagnostic.line = self.line;
        Some(diagnostic)
    }
}

/// What the cache keeps of one loaded definition file, borrowed from wherever it lives now:
/// a [`Loaded`], or the [`Skill`] built from one.
pub(crate) struct LoadedView<'a> {
    frontmatter: &'a Frontmatter,
    diagnostics: &'a [Diagnostic],
    when_to_use: Option<&'a str>,
    inputs: &'a [SkillInput],
    invocation: Invocation,
}

impl<'a> From<&'a Loaded> for LoadedView<'a> {
    fn from(loaded: &'a Loaded) -> Self {
        Self {
            frontmatter: &loaded.frontmatter,
            diagnostics: &loaded.diagnostics,
            when_to_use: loaded.when_to_use.as_deref(),
            inputs: &loaded.inputs,
            invocation: loaded.invocation,
        }
    }
}

impl<'a> From<&'a Skill> for LoadedView<'a> {
    fn from(skill: &'a Skill) -> Self {
        Self {
            frontmatter: &skill.frontmatter,
            diagnostics: &skill.diagnostics,
            when_to_use: skill.when_to_use.as_deref(),
            inputs: &skill.inputs,
            invocation: skill.invocation,
        }
    }
}

/// One outcome to store: what was loaded, or why the file could not be.
pub(crate) type Outcome<'a> = Result<LoadedView<'a>, &'a Diagnostic>;

impl<'a> CachedLoad<'a> {
    fn of(loaded: &LoadedView<'a>) -> Self {
        let frontmatter = loaded.frontmatter;
        Self {
            name: borrowed(&frontmatter.name),
            description: borrowed(&frontmatter.description),
            license: frontmatter.license.as_deref().map(borrowed),
            compatibility: frontmatter.compatibility.as_deref().map(borrowed),
            metadata: frontmatter
                .metadata
                .iter()
                .map(|(key, value)| (borrowed(key), borrowed(value)))
                .collect(),
            allowed_tools: borrowed_all(&frontmatter.allowed_tools),
            platforms: borrowed_all(&frontmatter.platforms),
            triggers: borrowed_all(&frontmatter.triggers),
            extra: Cow::Owned(serde_json::to_string(&frontmatter.extra).unwrap_or_default()),
            diagnostics: loaded
                .diagnostics
                .iter()
                .map(CachedDiagnostic::of)
                .collect(),
            when_to_use: loaded.when_to_use.map(borrowed),
            inputs: loaded
                .inputs
                .iter()
                .map(|input| CachedInput {
                    name: borrowed(&input.name),
                    description: borrowed(&input.description),
                    required: input.required,
                    kind: borrowed(input.kind.as_str()),
                    default: input
                        .default
                        .as_ref()
                        .map(|value| Cow::Owned(value.to_string())),
                })
                .collect(),
            manual: !loaded.invocation.offered_to_model(),
        }
    }

    fn restore(self) -> Option<Loaded> {
        let frontmatter = Frontmatter {
            name: self.name.into_owned(),
            description: self.description.into_owned().into(),
            license: self.license.map(Cow::into_owned),
            compatibility: self.compatibility.map(Cow::into_owned),
            metadata: self
                .metadata
                .into_iter()
                .map(|(key, value)| (key.into_owned(), value.into_owned()))
                .collect(),
            allowed_tools: owned_all(self.allowed_tools),
            platforms: owned_all(self.platforms),
            triggers: owned_all(self.triggers),
            // Almost every skill has no unknown keys: skip the JSON parser for them.
            extra: if self.extra == "{}" {
                std::collections::BTreeMap::new()
            } else {
                serde_json::from_str(&self.extra).ok()?
            },
        };
        let diagnostics = self
            .diagnostics
            .into_iter()
            .map(CachedDiagnostic::restore)
            .collect::<Option<Vec<_>>>()?;
        Some(Loaded {
            frontmatter,
            diagnostics,
            when_to_use: self.when_to_use.map(Cow::into_owned),
            inputs: self
                .inputs
                .into_iter()
                .map(|input| {
                    Some(SkillInput {
                        name: input.name.into_owned(),
                        description: input.description.into_owned(),
                        required: input.required,
                        kind: InputType::from_name(&input.kind)?,
                        default: match input.default {
                            Some(text) => Some(serde_json::from_str(&text).ok()?),
                            None => None,
                        },
                    })
                })
                .collect::<Option<_>>()?,
            invocation: if self.manual {
                Invocation::Manual
            } else {
                Invocation::Model
            },
        })
    }
}

/// One cached file, decoded and restored when the cache is opened.
struct Restored {
    path: String,
    stamps: Stamps,
    /// `None` when the entry cannot be restored (an unknown code, say) or was taken. Behind a
    /// lock so that the hits can be taken from every core at once, each by the one task that
    /// found it. Boxed: a taken outcome's few hundred bytes are freed as it moves into its
    /// record, while the entries stay until every hit is taken.
    outcome: Mutex<Option<Box<Result<Loaded, Diagnostic>>>>,
}

impl Restored {
    fn of(entry: Entry<'_>) -> Self {
        Self {
            path: entry.path.into_owned(),
            stamps: entry.stamps,
            outcome: Mutex::new(
                match entry.outcome {
                    Ok(load) => load.restore().map(Ok),
                    Err(diagnostic) => diagnostic.restore().map(Err),
                }
                .map(Box::new),
            ),
        }
    }
}

/// The cache of one set of roots.
pub(crate) struct Cache {
    place: Place,
    /// In the order the last discovery found the files, in the file's chunks: every chunk but
    /// the last holds [`CHUNK_ENTRIES`]. Kept as decoded, never joined into one vector: a
    /// restored entry is hundreds of bytes, and joining would copy them all into fresh memory.
    chunks: Vec<Vec<Restored>>,
    /// How many entries the chunks hold.
    len: usize,
    /// Entry positions sorted by path, built on the first lookup that misses its position.
    by_path: OnceLock<Vec<usize>>,
}

/// The hex digest of a set of roots, which names the caches kept for it.
pub(crate) fn roots_digest(roots: &[Root]) -> String {
    let mut digest = Sha256::new();
    for root in roots {
        digest.update(root.path.to_string_lossy().as_bytes());
        digest.update([0]);
    }
    format!("{:x}", digest.finalize())
}

impl Cache {
    /// The cache for these roots; empty when there is none or it cannot be used. Opening
    /// decodes the whole file (on every core), so that taking the hits later only moves them.
    pub(crate) fn open(config: &SkillsConfig, roots: &[Root]) -> Self {
        let hex = roots_digest(roots);
        let place = Place {
            app: state::app_dir(config),
            name: format!("{CATALOG_CACHE_PREFIX}{}.bin", &hex[..16]),
        };
        let chunks = read(&place).unwrap_or_default();
        Self {
            place,
            len: chunks.iter().map(Vec::len).sum(),
            chunks,
            by_path: OnceLock::new(),
        }
    }

    fn entry(&self, index: usize) -> Option<&Restored> {
        self.chunks
            .get(index / CHUNK_ENTRIES)?
            .get(index % CHUNK_ENTRIES)
    }

    /// How many entries the cache holds.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn path_at(&self, index: usize) -> &str {
        self.entry(index).map_or("", |entry| entry.path.as_str())
    }

    /// The usable entry for `path` and its stamps. On an unchanged tree the files are found in
    /// the order they were cached, so `position` usually hits without a search.
    pub(crate) fn lookup(&self, position: usize, path: &Path) -> Option<(usize, &Stamps)> {
        let path = path.to_str()?;
        let index = if self.path_at(position) == path {
            position
        } else {
            let by_path = self.by_path.get_or_init(|| {
                let mut order: Vec<usize> = (0..self.len).collect();
                order.sort_by(|a, b| self.path_at(*a).cmp(self.path_at(*b)));
                order
            });
            let found = by_path
                .binary_search_by(|index| self.path_at(*index).cmp(path))
                .ok()?;
            by_path[found]
        };
        let entry = self.entry(index)?;
        let usable = entry.outcome.lock().is_ok_and(|outcome| outcome.is_some());
        usable.then_some((index, &entry.stamps))
    }

    /// The stamps entry `index` was cached under.
    pub(crate) fn stamps(&self, index: usize) -> Option<&Stamps> {
        Some(&self.entry(index)?.stamps)
    }

    /// Moves the outcome of entry `index` out of the cache (`None` when there is none left).
    pub(crate) fn take(&self, index: usize) -> Option<Result<Loaded, Diagnostic>> {
        self.entry(index)?
            .outcome
            .lock()
            .ok()?
            .take()
            .map(|boxed| *boxed)
    }

    /// Frees the entries, keeping where to write the next cache.
    pub(crate) fn into_writer(self) -> Writer {
        Writer { place: self.place }
    }
}

/// Where the cache file of one set of roots is: `<app>/cache/catalog-<digest>.bin`.
struct Place {
    app: PathBuf,
    name: String,
}

/// What is left of a cache once its entries are taken: where to write the new one.
pub(crate) struct Writer {
    place: Place,
}

impl Writer {
    /// Replaces the cache file with these outcomes.
    pub(crate) fn store(self, outcomes: &[(&Path, &Stamps, Outcome<'_>)]) {
        // A cache that cannot be written only costs speed next time.
        let _ = write(&self.place, outcomes);
    }
}

/// Serializes one chunk of outcomes as a list of [`Entry`] built on the fly, so writing the
/// cache does not hold a second copy of the catalog.
struct Chunk<'o, 'a>(&'o [(&'a Path, &'a Stamps, Outcome<'a>)]);

impl Serialize for Chunk<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|(path, stamps, outcome)| Entry {
            path: path.to_string_lossy(),
            stamps: **stamps,
            outcome: match outcome {
                Ok(loaded) => Ok(CachedLoad::of(loaded)),
                Err(diagnostic) => Err(CachedDiagnostic::of(diagnostic)),
            },
        }))
    }
}

/// A chunk decoded straight into restored entries, with no intermediate list of [`Entry`].
struct RestoredChunk(Vec<Restored>);

impl<'de> Deserialize<'de> for RestoredChunk {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = RestoredChunk;

            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("a list of cache entries")
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                // The length comes from the file: it bounds nothing, so it only hints.
                let mut restored =
                    Vec::with_capacity(seq.size_hint().unwrap_or(0).min(CHUNK_ENTRIES));
                while let Some(entry) = seq.next_element::<Entry<'de>>()? {
                    restored.push(Restored::of(entry));
                }
                Ok(RestoredChunk(restored))
            }
        }
        deserializer.deserialize_seq(Visitor)
    }
}

fn read(place: &Place) -> Option<Vec<Vec<Restored>>> {
    // Through the one state reader: never through a link (the file's or the cache folder's),
    // never blocking on a FIFO planted under the name, bounded; anything wrong with the file
    // is a cache miss.
    let folder = match Folder::open(&place.app, &[CACHE_DIR]) {
        Ok(folder) => folder?,
        Err(refusal) => {
            state::warn(&CATALOG_CACHE, &place.app.join(CACHE_DIR), &refusal);
            return None;
        }
    };
    let bytes = folder.read_or_miss(&CATALOG_CACHE, &place.name)?;
    let (header, mut rest): (Header<'static>, &[u8]) = postcard::take_from_bytes(&bytes).ok()?;
    if header.format != FORMAT || header.version != env!("CARGO_PKG_VERSION") {
        return None;
    }
    let mut slices = Vec::new();
    while !rest.is_empty() {
        let (length, tail) = rest.split_first_chunk::<8>()?;
        let length = usize::try_from(u64::from_le_bytes(*length)).ok()?;
        if length > tail.len() {
            return None;
        }
        let (chunk, tail) = tail.split_at(length);
        slices.push(chunk);
        rest = tail;
    }
    // `Cow` deserializes owned, so restoring moves the strings without copying them.
    let chunks: Vec<Vec<Restored>> = slices
        .into_par_iter()
        .map(|chunk| Some(postcard::from_bytes::<RestoredChunk>(chunk).ok()?.0))
        .collect::<Option<_>>()?;
    // Entries are found by position, which needs every chunk but the last to be full.
    let (_, full) = chunks.split_last()?;
    full.iter()
        .all(|chunk| chunk.len() == CHUNK_ENTRIES)
        .then_some(chunks)
}

/// Writes the cache file for these outcomes: to a temporary file beside it, then renamed over
/// it, so a reader sees the old file or the new one, whole.
fn write(place: &Place, outcomes: &[(&Path, &Stamps, Outcome<'_>)]) -> std::io::Result<()> {
    let folder = Folder::create(&place.app, &[CACHE_DIR])?;
    folder.replace_with(&CATALOG_CACHE, &place.name, |out| {
        let header = Header {
            format: FORMAT,
            version: Cow::Borrowed(env!("CARGO_PKG_VERSION")),
        };
        out.write_all(&postcard::to_stdvec(&header).map_err(std::io::Error::other)?)?;
        for batch in outcomes.chunks(CHUNK_ENTRIES * CHUNKS_PER_WRITE) {
            let encoded: Vec<Vec<u8>> = batch
                .par_chunks(CHUNK_ENTRIES)
                .map(|chunk| postcard::to_stdvec(&Chunk(chunk)))
                .collect::<Result<_, _>>()
                .map_err(std::io::Error::other)?;
            for chunk in encoded {
                out.write_all(&(chunk.len() as u64).to_le_bytes())?;
                out.write_all(&chunk)?;
            }
        }
        Ok(())
    })
}
