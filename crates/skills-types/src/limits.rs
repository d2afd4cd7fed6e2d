//! The one table of limits. Every size, count and depth the subsystem enforces is named here
//! and referred to everywhere else, so a limit is changed in one place and documented once.

/// One kibibyte.
pub const KIB: u64 = 1024;
/// One mebibyte.
pub const MIB: u64 = 1024 * KIB;

/// A definition file larger than this is not loaded (`too-large`).
pub const MAX_SKILL_MD_BYTES: u64 = MIB;
/// A bundled resource larger than this is not read.
pub const MAX_RESOURCE_BYTES: u64 = 128 * KIB;
/// A skill's `agents/openai.yaml` larger than this is not read (its policy is then ignored, as
/// Codex ignores a file it cannot read): real ones are a few hundred bytes.
pub const MAX_AGENT_METADATA_BYTES: u64 = 64 * KIB;

/// Longest `name`, in Unicode scalar values after trimming.
pub const MAX_NAME_CHARS: usize = 64;
/// Longest `description`, in Unicode scalar values after trimming.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Longest `compatibility`, in Unicode scalar values after trimming.
pub const MAX_COMPATIBILITY_CHARS: usize = 500;
/// Longest description any renderer shows (the sanitiser's cap, ellipsis included): the
/// validation limit, so a valid description is never cut, and a 100 KB one costs an agent's
/// context one kilobyte.
pub const MAX_RENDERED_DESCRIPTION_CHARS: usize = MAX_DESCRIPTION_CHARS;

/// Deepest nesting of YAML collections accepted in a frontmatter. Real frontmatters nest two
/// or three levels; deep nesting is an attack on the parser's stack.
pub const MAX_YAML_DEPTH: usize = 32;
/// Most YAML nodes (after alias expansion) built from one frontmatter: bounds a "billion
/// laughs" bomb long before it exhausts memory.
pub const MAX_YAML_NODES: usize = 100_000;
/// Most bytes of scalar text (after alias expansion) built from one frontmatter.
pub const MAX_YAML_EXPANDED_BYTES: usize = 4 * MIB as usize;

/// Longest relative path accepted from outside, in bytes.
pub const MAX_RELATIVE_PATH_BYTES: usize = 1024;
/// Most components in a relative path accepted from outside.
pub const MAX_RELATIVE_PATH_COMPONENTS: usize = 16;

/// Default limits of a multi-file package (01 §Package rules).
pub const MAX_PACKAGE_FILE_BYTES: u64 = MIB;
/// Default total size of a package.
pub const MAX_PACKAGE_TOTAL_BYTES: u64 = 10 * MIB;
/// Default number of files in a package.
pub const MAX_PACKAGE_FILES: usize = 100;

/// File extensions a package may hold (lowercase, without the dot).
pub const PACKAGE_EXTENSIONS: &[&str] = &[
    "md", "txt", "json", "yaml", "yml", "js", "cjs", "mjs", "ts", "py", "sh", "png", "jpg", "svg",
];

/// The configurable limits of a package.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[non_exhaustive]
pub struct PackageLimits {
    /// Largest single file, in bytes.
    pub max_file_bytes: u64,
    /// Largest total, in bytes.
    pub max_total_bytes: u64,
    /// Most files.
    pub max_files: usize,
}

impl Default for PackageLimits {
    fn default() -> Self {
        Self {
            max_file_bytes: MAX_PACKAGE_FILE_BYTES,
            max_total_bytes: MAX_PACKAGE_TOTAL_BYTES,
            max_files: MAX_PACKAGE_FILES,
        }
    }
}

/// Levels of category folders discovery descends below a root.
pub const MAX_DISCOVERY_DEPTH: usize = 6;
/// Folders discovery lists per root (see `DiscoveryLimits::max_dirs_per_root`).
pub const MAX_DIRS_PER_ROOT: usize = 2_000;
/// Entries of folders discovery reads per root, in all: a root may hold tens of thousands of
/// skills, but a folder of millions of entries (a link to a mail spool) is never read whole
/// into memory, nor probed entry by entry.
pub const MAX_ENTRIES_PER_ROOT: usize = 200_000;
/// Entries of one skill's folder (files and folders, at every level) that a watch looks at and
/// a folder stamp covers: a skill folder holding a vendored tree is followed by its first
/// entries, so one skill can neither make a watch hold a watch per folder of that tree nor
/// make every burst stamp all of it.
pub const MAX_SKILL_FOLDER_ENTRIES: usize = 10_000;

/// Kernel watches (one per folder: inotify watches folders, not trees) one root of a running
/// watch may hold. A realistic root of 5,000 skills needs about 9,000; past this the root is
/// polled instead, and the watch says so: one root cannot take the user's whole inotify
/// allowance (`fs.inotify.max_user_watches`, 8,192 on older kernels), which every other
/// program watching files shares.
pub const MAX_WATCHES_PER_ROOT: usize = 16_384;
/// Paths (folders and definition files) one poll of a polled root looks at, one `stat` each:
/// about 60 ms at worst every poll interval. A root larger than this is looked at by its first
/// paths in discovery's order (its folders and skills first, their bundled folders last).
pub const MAX_POLLED_PATHS_PER_ROOT: usize = 4 * MAX_WATCHES_PER_ROOT;

/// Most `[` and `{` characters in one frontmatter. The YAML parser's cost grows with the square
/// of flow nesting (a megabyte of `[` takes minutes), and counting the characters bounds the
/// nesting whatever the quoting; real frontmatters hold a handful.
pub const MAX_YAML_FLOW_COLLECTIONS: usize = 1_000;

/// Longest URL accepted, in bytes after trimming (03 §Limits).
pub const MAX_URL_BYTES: usize = 2_048;
/// Most redirects followed per request.
pub const MAX_REDIRECTS: usize = 5;
/// Default timeout of an install, in seconds.
pub const DEFAULT_INSTALL_TIMEOUT_SECS: u64 = 60;
/// The range the timeout is clamped to, in seconds.
pub const INSTALL_TIMEOUT_SECS: (u64, u64) = (1, 600);
/// Largest registry catalog accepted by default (`[registry] max_catalog_bytes`): the seed's
/// Hermes catalog is about 26 MB for 50,000+ skills, so this leaves room to grow.
pub const MAX_CATALOG_BYTES: u64 = 64 * MIB;
/// Most entries accepted from a registry catalog by default (`[registry]
/// max_catalog_entries`); a catalog with more is refused and the cached copy kept.
pub const MAX_CATALOG_ENTRIES: usize = 200_000;
/// Largest per-user trust record (`trusted-workspaces.json`) read; a bigger one trusts
/// nothing.
pub const MAX_TRUST_FILE_BYTES: u64 = MIB;
/// Largest install record (`.skills-installed.json`) read (tens of thousands of entries); a bigger one is refused
/// before anything is written.
pub const MAX_LOCK_FILE_BYTES: u64 = 16 * MIB;
/// How long a cached registry catalog is fresh, in seconds.
pub const CATALOG_TTL_SECS: u64 = 60 * 60;
