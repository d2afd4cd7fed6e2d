//! Publishing skills as an agent-skills discovery v0.2 site (09 §Publishing): the layout of
//! the well-known tree, what the caller asks for and what it gets back.
//!
//! The layout is the RFC's (cloudflare/agent-skills-discovery-rfc, v0.2.0): an `index.json`
//! with `$schema` under `/.well-known/agent-skills/`, one entry per skill of type `skill-md`
//! (the `SKILL.md` itself) or `archive` (a `.tar.gz` whose root holds the skill's files), each
//! with a `sha256:` digest of the artifact's bytes. `version` on an entry and the `vX/`
//! snapshots listed in `versions.json` are this project's additions (09 §Publishers); the RFC
//! tells clients to ignore fields they do not know, so any v0.2 client reads the index.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The `$schema` of a v0.2 index: an opaque identifier clients match exactly.
pub const SCHEMA_V0_2: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
/// The folder of the well-known tree, relative to the site root.
pub const WELL_KNOWN_DIR: &str = ".well-known/agent-skills";
/// The index file, in [`WELL_KNOWN_DIR`] and in every snapshot folder.
pub const INDEX_FILE: &str = "index.json";
/// The list of older snapshots, in [`WELL_KNOWN_DIR`].
pub const VERSIONS_FILE: &str = "versions.json";
/// The prefix of a snapshot folder: `v1.2.0/` holds the entries that carried version `1.2.0`.
pub const SNAPSHOT_PREFIX: &str = "v";
/// The extension of an archive artifact (`<name>.tar.gz`).
pub const ARCHIVE_EXTENSION: &str = ".tar.gz";
/// The modification time written into every archive entry and the gzip header: fixed, so the
/// same files always give the same bytes (and the same digest).
pub const ARCHIVE_MTIME: u64 = 0;
/// The mode of every file in an archive: fixed, and never executable (installs never keep an
/// executable bit either).
pub const ARCHIVE_FILE_MODE: u32 = 0o644;

/// What to publish and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Request {
    /// Skill folders (holding `SKILL.md`), or folders whose subfolders are skills.
    pub dirs: Vec<PathBuf>,
    /// The site root: the tree is written to `<out>/.well-known/agent-skills/`.
    pub out: PathBuf,
    /// Publish the skills that pass and list the others in [`Outcome::refused`], instead of
    /// writing nothing when one skill fails (the default: all or nothing).
    #[serde(default)]
    pub keep_going: bool,
}

impl Request {
    /// Publish these folders into the site `out`, all or nothing.
    pub fn new(dirs: Vec<PathBuf>, out: impl Into<PathBuf>) -> Self {
        Self {
            dirs,
            out: out.into(),
            keep_going: false,
        }
    }

    /// The same request, publishing the skills that pass and listing the others when
    /// `keep_going`.
    #[must_use]
    pub fn keep_going(mut self, keep_going: bool) -> Self {
        self.keep_going = keep_going;
        self
    }
}

/// How a skill is distributed (the index entry's `type`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum ArtifactKind {
    /// The skill is its `SKILL.md` alone.
    #[serde(rename = "skill-md")]
    SkillMd,
    /// The skill's files in one `.tar.gz`.
    #[serde(rename = "archive")]
    Archive,
}

impl ArtifactKind {
    /// The index's spelling: `skill-md` or `archive`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SkillMd => "skill-md",
            Self::Archive => "archive",
        }
    }
}

/// One entry of an index, exactly as written (field order included).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IndexEntry {
    /// The skill's name.
    pub name: String,
    /// `skill-md` or `archive`.
    #[serde(rename = "type")]
    pub kind: ArtifactKind,
    /// The skill's description, from its frontmatter.
    pub description: String,
    /// The artifact, relative to the index.
    pub url: String,
    /// `sha256:<64 lowercase hex>` of the artifact's bytes.
    pub digest: String,
    /// The skill's `metadata.version`, when it declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// A whole index (the site's, or a snapshot's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Index {
    /// [`SCHEMA_V0_2`].
    #[serde(rename = "$schema")]
    pub schema: String,
    /// The entries, sorted by name.
    pub skills: Vec<IndexEntry>,
}

/// `versions.json`: every snapshot kept, oldest version text first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Versions {
    /// One line per snapshot folder.
    pub versions: Vec<VersionEntry>,
}

/// One snapshot folder in `versions.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VersionEntry {
    /// The version the skills in it carried.
    pub version: String,
    /// The snapshot's index, relative to `versions.json` (`v1.2.0/index.json`).
    pub url: String,
    /// The names of the skills it holds, sorted.
    pub skills: Vec<String>,
}

/// One skill written to the site.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Published {
    /// Its index entry.
    #[serde(flatten)]
    pub entry: IndexEntry,
    /// The folder it was read from.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub dir: PathBuf,
    /// How many files it holds (`SKILL.md` included).
    pub files: usize,
}

/// A snapshot this run added: the entry that an older version of a skill had.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Snapshot {
    /// The skill.
    pub name: String,
    /// The version kept.
    pub version: String,
    /// The snapshot's index, relative to the well-known folder.
    pub url: String,
}

/// What a publish did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Outcome {
    /// The index written (`<out>/.well-known/agent-skills/index.json`).
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub index: PathBuf,
    /// Every skill published from the folders given, sorted by name. The index lists these,
    /// and the refused skills the site still serves from before ([`Refused::kept`]).
    pub skills: Vec<Published>,
    /// The snapshots this run added (older versions kept under `vX/`).
    pub snapshots: Vec<Snapshot>,
    /// `false` when the site already held exactly these bytes, or when every skill was
    /// refused (with [`Request`]'s `keep_going`), so nothing was written.
    pub changed: bool,
    /// What the caller should know: hidden files left out, content changed without a new
    /// version.
    pub warnings: Vec<String>,
    /// With [`Request`]'s `keep_going`: the skills that were not published, each with why,
    /// in the order their folders were found. Always empty otherwise (a refusal is then an
    /// error and nothing is written).
    #[serde(default)]
    pub refused: Vec<Refused>,
}

/// A skill `publish` left out (with [`Request`]'s `keep_going`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Refused {
    /// The skill's folder, as found below the folder given.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub dir: PathBuf,
    /// The name its frontmatter gives, when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The error kind (`Error::kind`): `not_publishable` when the strict validation failed,
    /// `refused_path` for a link or special file inside, `invalid_input` for a file over the
    /// limits or a name two folders share, ...
    pub kind: String,
    /// Why, as a sentence naming what to fix.
    pub reason: String,
    /// The strict validation's report, when that is what failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<crate::validate::Report>,
    /// `true` when the site had published this skill before: its earlier entry and artifact
    /// stay, unchanged, so a refusal never takes a skill off the site.
    pub kept: bool,
}
