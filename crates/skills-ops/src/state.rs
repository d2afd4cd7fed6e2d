//! The one reader and writer of the files this program keeps for itself: the catalog cache,
//! the search index, the trust record, the run logs and cancel markers, the registry's cached
//! catalog, the remote packs' copies, managed runtimes, the skills' own environments
//! (`skills setup`), a root's install record and lock, a skill's provenance record, the
//! audit's acceptances and verdicts, and the one file of another tool it reads (the vercel tool's project
//! lock) ([`KINDS`] lists every one, with where it lives and how much of it is ever read). Nothing else in the workspace opens them (`cargo xtask tidy` holds that).
//!
//! These files sit where other processes and people write too, so each one may turn out to be
//! a trap: a FIFO that hangs a reader forever, a link to `/dev/zero` that grows memory without
//! bound, a link to `~/.bashrc` that a write would go through, a folder of the program's
//! replaced by a link to somewhere else. The rules, in one place:
//!
//! - **Folders.** A state file's folder is reached from its base (the user's
//!   `<home>/<app_dir>`, or a skill root, resolved as given: a link the user made there is
//!   theirs) one folder at a time, each opened with `O_NOFOLLOW | O_DIRECTORY` relative to the
//!   one before; every file operation then names its file relative to that open folder, so a
//!   folder swapped for a link after the walk cannot redirect it. A folder of the program's
//!   that is a link (or not a folder) is never followed and never removed: reads find nothing
//!   there, writes are refused naming it. Folders the program makes are private (`0700`).
//! - **Reads.** One `openat` with `O_NOFOLLOW | O_NONBLOCK` (a final symlink is refused, a
//!   FIFO never blocks), then `fstat` of the open descriptor: a regular file with one link
//!   (the program never makes a second), no larger than its kind's limit; then at most
//!   limit + 1 bytes are read, since the file may grow after the `fstat`.
//! - **What is wrong is absent.** A refused or unparsable file is treated as missing: a cache
//!   is rebuilt (and a trap in it named in a warning), a record the user would lose stops the
//!   command that needs it with an error naming the file and what to do ([`WhenBroken`]).
//! - **Writes.** A file is replaced atomically (a fresh temporary file in the same folder,
//!   written, flushed, renamed over the name, the folder flushed: [`crate::fs`]); the rename
//!   replaces whatever the name held (a link is replaced, never written through). A file
//!   created new refuses an existing name and a link (`O_CREAT | O_EXCL | O_NOFOLLOW`). Files
//!   in the app folder are private (`0600`); a root's records keep the mode of the skills
//!   beside them.
//! - **Locks.** Opened with `O_CREAT | O_NOFOLLOW | O_NONBLOCK`, checked to be a regular file
//!   on the descriptor, then locked (`flock`); removed before they are released.

mod folder;
mod index;
#[cfg(test)]
mod tests;

use std::fmt;
use std::path::PathBuf;

use skills_types::SkillsConfig;
use skills_types::audit::{ACCEPTED_FILE, VERDICTS_FILE};
use skills_types::files::{
    INSTALL_LOCK, LEGACY_LOCK_FILE, LOCK_FILE, PROVENANCE_FILE, VERCEL_LOCK_FILE,
};
use skills_types::limits::{KIB, MAX_LOCK_FILE_BYTES, MAX_TRUST_FILE_BYTES, MIB};
use skills_types::registry::{CACHE_FILE, REFRESH_LOCK};
use skills_types::remote::{REMOTE_DIR, REMOTE_SKILLS_DIR, REMOTE_STATE_FILE};
use skills_types::trust::TRUST_FILE;

pub use folder::{Entry, EntryKind, Folder, Lock, Temporary, Wait};
pub use index::IndexFolder;

/// The folder of the caches (the catalog cache, the search indexes) in the app folder.
pub const CACHE_DIR: &str = "cache";
/// The file in [`CACHE_DIR`] that remembers the interpreters' versions.
pub const INTERPRETER_VERSIONS_FILE: &str = "interpreters.json";
/// The folder of the run logs and cancel markers in the app folder.
pub const RUNS_DIR: &str = "runs";
/// The folder of the registry's cached catalog in the app folder.
pub const REGISTRY_DIR: &str = skills_types::registry::CACHE_DIR;
/// The folder of managed runtimes (and npm's cache) in the app folder.
pub const RUNTIMES_DIR: &str = "runtimes";
/// npm's cache, inside [`RUNTIMES_DIR`].
pub const NPM_CACHE_DIR: &str = "npm-cache";
/// The skills' own environments (`skills setup NAME`), inside [`RUNTIMES_DIR`]: one folder
/// per skill folder.
pub const SKILL_ENVS_DIR: &str = "envs";
/// A skill environment's record: what was set up, from which declarations, with which
/// interpreter, in which of its `env-*` folders.
pub const SETUP_RECORD_FILE: &str = "setup.json";
/// The prefix of the folder a setup fills (`env-<unique>`): a new one per setup, so a setup
/// that fails leaves the environment in use as it was.
pub const SKILL_ENV_PREFIX: &str = "env-";
/// The lock a skill's setup is made under.
pub const SETUP_LOCK_FILE: &str = ".setup.lock";
/// The stamps of a search index: which version of each skill it holds.
pub const SEARCH_STAMPS_FILE: &str = "stamps.json";
/// The prefix of a search index's folder in [`CACHE_DIR`] (`search-<roots digest>`).
pub const SEARCH_DIR_PREFIX: &str = "search-";
/// The prefix of a catalog cache file in [`CACHE_DIR`] (`catalog-<roots digest>.bin`).
pub const CATALOG_CACHE_PREFIX: &str = "catalog-";

/// Where a state file's base is: the part of its path the program does not own, resolved as
/// given (and so followed, when the user made it a link).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// `<home>/<app_dir>`: the user's folder, which also holds their `skills.toml` and skills.
    App,
    /// A skill root (the user's or a project's).
    Root,
    /// A skill folder inside a root.
    Skill,
    /// The workspace: another tool's file at a project's root, only ever read.
    Workspace,
}

impl Base {
    /// The mode a new file gets (before the umask): the app folder's files are private; a
    /// root's records sit beside skills people share, and are as readable as the skills.
    pub const fn file_mode(self) -> u32 {
        match self {
            Self::App => 0o600,
            Self::Root | Self::Skill | Self::Workspace => 0o644,
        }
    }
}

/// What a state file is, which decides how it is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Read whole (at most its limit) and replaced whole.
    File,
    /// Read in ranges (a run log's head, tail or a slice of it) and appended to.
    Log,
    /// Only locked: never read, removed once released.
    Lock,
    /// Only its presence counts; never read.
    Marker,
    /// A folder of files the program writes whole in a staging folder and renames into place.
    Tree,
}

/// What happens when a state file is not what the program wrote (a FIFO, a device, a link, a
/// folder, too large, or content that does not parse).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenBroken {
    /// A cache: treated as missing and replaced by the next write; a trap (anything but a
    /// regular file, or too large) is named in a warning.
    Rebuilt,
    /// A record the user would lose by a rewrite: the command that needs it stops with an
    /// error naming the file and what to do, and changes nothing.
    Refused,
    /// One of many (a run log, a skill's provenance): passed over, named in a warning, or
    /// reported as an error by the command that asked for that one.
    Skipped,
}

/// One kind of state file: a row of [`KINDS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// A stable name, for tests and messages.
    pub id: &'static str,
    /// What it is, for a person ("the search index's stamps").
    pub what: &'static str,
    /// Where its path starts.
    pub base: Base,
    /// The program's folders between the base and the file; `*` stands for a name the program
    /// makes up (a digest, a key).
    pub folders: &'static [&'static str],
    /// Its name; `*` stands for any run of characters.
    pub name: &'static str,
    /// How it is opened.
    pub form: Form,
    /// The most bytes ever read of it; a larger file is refused before a byte is read.
    pub limit: u64,
    /// What a broken one costs.
    pub when_broken: WhenBroken,
}

/// The trust record: which workspaces the user trusts.
pub const TRUST_RECORD: Kind = Kind {
    id: "trust-record",
    what: "the trust record",
    base: Base::App,
    folders: &[],
    name: TRUST_FILE,
    form: Form::File,
    limit: MAX_TRUST_FILE_BYTES,
    when_broken: WhenBroken::Refused,
};

/// The catalog cache: parsed frontmatters of one set of roots.
pub const CATALOG_CACHE: Kind = Kind {
    id: "catalog-cache",
    what: "the catalog cache",
    base: Base::App,
    folders: &[CACHE_DIR],
    name: "catalog-*.bin",
    form: Form::File,
    limit: 256 * MIB,
    when_broken: WhenBroken::Rebuilt,
};

/// The search index's stamps: which version of each skill it holds.
pub const SEARCH_STAMPS: Kind = Kind {
    id: "search-stamps",
    what: "the search index's stamps",
    base: Base::App,
    folders: &[CACHE_DIR, "search-*"],
    name: SEARCH_STAMPS_FILE,
    form: Form::File,
    limit: 64 * MIB,
    when_broken: WhenBroken::Rebuilt,
};

/// The search index's own records (tantivy's `meta.json` and `.managed.json`).
pub const SEARCH_META: Kind = Kind {
    id: "search-meta",
    what: "the search index's records",
    base: Base::App,
    folders: &[CACHE_DIR, "search-*"],
    name: "*.json",
    form: Form::File,
    limit: 64 * MIB,
    when_broken: WhenBroken::Rebuilt,
};

/// The search index's segment files (read whole into memory: an index of 10,000 skills is
/// about a megabyte).
pub const SEARCH_SEGMENT: Kind = Kind {
    id: "search-segment",
    what: "a file of the search index",
    base: Base::App,
    folders: &[CACHE_DIR, "search-*"],
    name: "*.*",
    form: Form::File,
    limit: 256 * MIB,
    when_broken: WhenBroken::Rebuilt,
};

/// The search index's locks (tantivy's writer and meta locks).
pub const SEARCH_LOCK: Kind = Kind {
    id: "search-lock",
    what: "a lock of the search index",
    base: Base::App,
    folders: &[CACHE_DIR, "search-*"],
    name: ".tantivy-*.lock",
    form: Form::Lock,
    limit: 0,
    when_broken: WhenBroken::Rebuilt,
};

/// A run's log.
pub const RUN_LOG: Kind = Kind {
    id: "run-log",
    what: "a run log",
    base: Base::App,
    folders: &[RUNS_DIR],
    name: "*.jsonl",
    form: Form::Log,
    // What the runtime writes is capped at 1 MiB per stream (JSON escaping can multiply it
    // by six); a bigger file is not one the runtime wrote.
    limit: 64 * MIB,
    when_broken: WhenBroken::Skipped,
};

/// A cancel marker: another process asked the recorder of a run to stop it.
pub const CANCEL_MARKER: Kind = Kind {
    id: "cancel-marker",
    what: "a cancel marker",
    base: Base::App,
    folders: &[RUNS_DIR],
    name: "*.cancel",
    form: Form::Marker,
    limit: 0,
    when_broken: WhenBroken::Skipped,
};

/// The registry catalog's header (what is cached, from when, which data file).
pub const REGISTRY_HEADER: Kind = Kind {
    id: "registry-header",
    what: "the cached registry catalog's header",
    base: Base::App,
    folders: &[REGISTRY_DIR],
    name: CACHE_FILE,
    form: Form::File,
    limit: MIB,
    when_broken: WhenBroken::Rebuilt,
};

/// The registry catalog's data file: streamed record by record, never held whole, so its
/// limit costs no memory.
pub const REGISTRY_DATA: Kind = Kind {
    id: "registry-data",
    what: "the cached registry catalog",
    base: Base::App,
    folders: &[REGISTRY_DIR],
    name: "catalog-*.bin",
    form: Form::Log,
    limit: 1024 * MIB,
    when_broken: WhenBroken::Rebuilt,
};

/// The lock refreshes of the registry catalog take across processes.
pub const REGISTRY_LOCK: Kind = Kind {
    id: "registry-lock",
    what: "the registry catalog's refresh lock",
    base: Base::App,
    folders: &[REGISTRY_DIR],
    name: REFRESH_LOCK,
    form: Form::Lock,
    limit: 0,
    when_broken: WhenBroken::Rebuilt,
};

/// A remote pack's record of its last fetch.
pub const REMOTE_STATE: Kind = Kind {
    id: "remote-state",
    what: "a remote pack's fetch record",
    base: Base::App,
    folders: &[REMOTE_DIR, "*"],
    name: REMOTE_STATE_FILE,
    form: Form::File,
    limit: 64 * KIB,
    when_broken: WhenBroken::Rebuilt,
};

/// A remote pack's copy: the skills discovery lists in the `remote` scope.
pub const REMOTE_COPY: Kind = Kind {
    id: "remote-copy",
    what: "a remote pack's copy",
    base: Base::App,
    folders: &[REMOTE_DIR, "*"],
    name: REMOTE_SKILLS_DIR,
    form: Form::Tree,
    limit: 0,
    when_broken: WhenBroken::Rebuilt,
};

/// The lock refreshes of the remote packs take.
pub const REMOTE_LOCK: Kind = Kind {
    id: "remote-lock",
    what: "the remote packs' lock",
    base: Base::App,
    folders: &[REMOTE_DIR],
    name: INSTALL_LOCK,
    form: Form::Lock,
    limit: 0,
    when_broken: WhenBroken::Refused,
};

/// A managed runtime (`node-v22.x.y`), unpacked whole.
pub const MANAGED_RUNTIME: Kind = Kind {
    id: "managed-runtime",
    what: "a managed runtime",
    base: Base::App,
    folders: &[RUNTIMES_DIR],
    name: "node-v*",
    form: Form::Tree,
    limit: 0,
    when_broken: WhenBroken::Skipped,
};

/// npm's cache, shared by the installs of every skill (a folder npm writes).
pub const NPM_CACHE: Kind = Kind {
    id: "npm-cache",
    what: "npm's cache",
    base: Base::App,
    folders: &[RUNTIMES_DIR],
    name: NPM_CACHE_DIR,
    form: Form::Tree,
    limit: 0,
    when_broken: WhenBroken::Refused,
};

/// A skill environment's record (`setup.json`): which `env-*` folder is in use, and what it
/// was made from. A broken one is a skill that is not set up: runs use the machine's
/// interpreters, and the next setup writes it again.
pub const SKILL_ENV_RECORD: Kind = Kind {
    id: "skill-env-record",
    what: "a skill environment's record",
    base: Base::App,
    folders: &[RUNTIMES_DIR, SKILL_ENVS_DIR, "*"],
    name: SETUP_RECORD_FILE,
    form: Form::File,
    limit: 64 * KIB,
    when_broken: WhenBroken::Rebuilt,
};

/// A skill's environment: a Python virtual environment and npm's `node_modules`, written by
/// `python3 -m venv`, pip and npm (folders only the setup writes, never through a link).
pub const SKILL_ENV: Kind = Kind {
    id: "skill-env",
    what: "a skill's environment",
    base: Base::App,
    folders: &[RUNTIMES_DIR, SKILL_ENVS_DIR, "*"],
    name: "env-*",
    form: Form::Tree,
    limit: 0,
    when_broken: WhenBroken::Skipped,
};

/// The lock one skill's setup takes, so two setups never fill one environment.
pub const SKILL_ENV_LOCK: Kind = Kind {
    id: "skill-env-lock",
    what: "a skill environment's setup lock",
    base: Base::App,
    folders: &[RUNTIMES_DIR, SKILL_ENVS_DIR, "*"],
    name: SETUP_LOCK_FILE,
    form: Form::Lock,
    limit: 0,
    when_broken: WhenBroken::Refused,
};

/// A root's install record.
pub const INSTALL_RECORD: Kind = Kind {
    id: "install-record",
    what: "the install record",
    base: Base::Root,
    folders: &[],
    name: LOCK_FILE,
    form: Form::File,
    limit: MAX_LOCK_FILE_BYTES,
    when_broken: WhenBroken::Refused,
};

/// A root's install record under the name it had before.
pub const LEGACY_INSTALL_RECORD: Kind = Kind {
    id: "legacy-install-record",
    what: "the install record (under its old name)",
    base: Base::Root,
    folders: &[],
    name: LEGACY_LOCK_FILE,
    form: Form::File,
    limit: MAX_LOCK_FILE_BYTES,
    when_broken: WhenBroken::Refused,
};

/// The lock a root is installed into under.
pub const INSTALL_LOCK_FILE: Kind = Kind {
    id: "install-lock",
    what: "the install lock",
    base: Base::Root,
    folders: &[],
    name: INSTALL_LOCK,
    form: Form::Lock,
    limit: 0,
    when_broken: WhenBroken::Refused,
};

/// A skill's provenance record: where it was installed from.
pub const PROVENANCE: Kind = Kind {
    id: "provenance",
    what: "the skill's provenance record",
    base: Base::Skill,
    folders: &[],
    name: PROVENANCE_FILE,
    form: Form::File,
    limit: 64 * KIB,
    when_broken: WhenBroken::Skipped,
};

/// The vercel tool's project lock: read by a project restore, never written. A broken one
/// stops the restore that asked for it (it lists what the team installed).
pub const VERCEL_LOCK: Kind = Kind {
    id: "vercel-lock",
    what: "the vercel tool's project lock",
    base: Base::Workspace,
    folders: &[],
    name: VERCEL_LOCK_FILE,
    form: Form::File,
    limit: MAX_LOCK_FILE_BYTES,
    when_broken: WhenBroken::Refused,
};

/// The interpreters' versions, remembered by the identity of each binary: `python3 --version`
/// costs a process start on every command otherwise.
pub const INTERPRETER_VERSIONS: Kind = Kind {
    id: "interpreter-versions",
    what: "the interpreters' versions",
    base: Base::App,
    folders: &[CACHE_DIR],
    name: INTERPRETER_VERSIONS_FILE,
    form: Form::File,
    limit: 64 * KIB,
    when_broken: WhenBroken::Rebuilt,
};

/// The user's acceptances of audit findings (`skills audit --accept`), each bound to a skill
/// folder and the digest of its files. A broken one accepts nothing (every finding blocks
/// again, said in a warning), and `--accept` refuses to write over it: the user would lose
/// the acceptances it holds.
pub const AUDIT_ACCEPTED: Kind = Kind {
    id: "audit-accepted",
    what: "the audit's acceptances",
    base: Base::App,
    folders: &[],
    name: ACCEPTED_FILE,
    form: Form::File,
    limit: 4 * MIB,
    when_broken: WhenBroken::Refused,
};

/// The last audit verdict of every skill folder scanned (`skills audit`, `check`, `watch`),
/// each with a stamp of the folder's files: what `list`, `show` and the MCP catalog mark
/// flagged skills by. A broken one marks nothing (said in a warning), `check` scans every
/// skill again, and the next scan replaces it: every verdict in it can be made again.
pub const AUDIT_VERDICTS: Kind = Kind {
    id: "audit-verdicts",
    what: "the audit's verdicts",
    base: Base::App,
    folders: &[],
    name: VERDICTS_FILE,
    form: Form::File,
    limit: 16 * MIB,
    when_broken: WhenBroken::Rebuilt,
};

/// Every kind of state file the program keeps: the one table the code, `cargo xtask tidy`
/// and the end-to-end tests (`tests/it/state.rs`) all go by.
pub const KINDS: [Kind; 27] = [
    TRUST_RECORD,
    CATALOG_CACHE,
    SEARCH_STAMPS,
    SEARCH_META,
    SEARCH_SEGMENT,
    SEARCH_LOCK,
    RUN_LOG,
    CANCEL_MARKER,
    REGISTRY_HEADER,
    REGISTRY_DATA,
    REGISTRY_LOCK,
    REMOTE_STATE,
    REMOTE_COPY,
    REMOTE_LOCK,
    MANAGED_RUNTIME,
    NPM_CACHE,
    SKILL_ENV_RECORD,
    SKILL_ENV,
    SKILL_ENV_LOCK,
    INSTALL_RECORD,
    LEGACY_INSTALL_RECORD,
    INSTALL_LOCK_FILE,
    PROVENANCE,
    INTERPRETER_VERSIONS,
    VERCEL_LOCK,
    AUDIT_ACCEPTED,
    AUDIT_VERDICTS,
];

/// The app folder of a configuration, `<home>/<app_dir>`: the base of most state files.
pub fn app_dir(config: &SkillsConfig) -> PathBuf {
    config.home.join(&config.app_dir)
}

/// Why a state file (or a folder on the way to it) was not used.
#[derive(Debug)]
#[non_exhaustive]
pub enum Refusal {
    /// The name holds something other than a regular file: what it is ("a FIFO (named
    /// pipe)").
    NotAFile(&'static str),
    /// The file has more than one hard link: it may be a file from elsewhere.
    HardLink(u64),
    /// The file is larger than its kind's limit.
    TooLarge {
        /// The size seen.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A folder of the program's on the way is not a plain folder (a link, a file).
    Folder {
        /// The folder.
        path: PathBuf,
        /// What is there instead ("a symbolic link").
        found: &'static str,
    },
    /// A name that is not one plain file name (a separator, `..`): a bug of the caller.
    Name(String),
    /// The operating system refused for another reason.
    Io(std::io::Error),
    /// This platform has no safe way to open a file beneath a folder in this build.
    Unsupported,
}

impl Refusal {
    /// A stable snake_case name, for programs and tests.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::NotAFile(_) => "not_a_file",
            Self::HardLink(_) => "hard_link",
            Self::TooLarge { .. } => "too_large",
            Self::Folder { .. } => "linked_folder",
            Self::Name(_) => "invalid_name",
            Self::Io(_) => "io",
            Self::Unsupported => "unsupported",
        }
    }

    /// Whether the refusal is a trap someone planted (anything but a regular file, a file too
    /// large to be ours, a folder that is a link) rather than a file merely missing or
    /// unreadable: worth a warning even for a cache.
    pub fn is_trap(&self) -> bool {
        matches!(
            self,
            Self::NotAFile(_) | Self::HardLink(_) | Self::TooLarge { .. } | Self::Folder { .. }
        )
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAFile(what) => write!(f, "it is {what}, not a regular file"),
            Self::HardLink(links) => write!(
                f,
                "it has {links} hard links, so it may be a file from elsewhere, and this program never links its files"
            ),
            Self::TooLarge { size, limit } => {
                write!(f, "it is {size} bytes long, more than the {limit} allowed")
            }
            Self::Folder { path, found } => write!(
                f,
                "{} is {found}, not a folder of this program's, so it is neither followed nor removed (remove it, and the program makes a plain folder there again)",
                path.display()
            ),
            Self::Name(name) => write!(f, "'{}' is not a plain file name", name.escape_debug()),
            Self::Io(error) => write!(f, "it cannot be used ({error})"),
            Self::Unsupported => f.write_str(
                "this platform has no safe way to open the program's own files in this build",
            ),
        }
    }
}

impl std::error::Error for Refusal {}

impl From<std::io::Error> for Refusal {
    fn from(error: std::io::Error) -> Self {
        Self::Io(error)
    }
}

impl From<Refusal> for std::io::Error {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Io(error) => error,
            other => std::io::Error::new(std::io::ErrorKind::InvalidInput, other.to_string()),
        }
    }
}

/// Says in the trace that a state file of `kind` at `path` was not used and is rebuilt or
/// passed over, when what was found there is a trap (a corrupt cache is routine and goes
/// unsaid).
pub fn warn(kind: &Kind, path: &std::path::Path, refusal: &Refusal) {
    match refusal {
        Refusal::Folder { .. } => {
            tracing::warn!("{refusal}; {} is not read or kept meanwhile", kind.what);
        }
        refusal if refusal.is_trap() => warn_unused(kind, path, refusal),
        _ => {}
    }
}

/// Says in the trace that a state file of `kind` at `path` was not used, and why.
pub fn warn_unused(kind: &Kind, path: &std::path::Path, why: &dyn fmt::Display) {
    let fate = match kind.when_broken {
        WhenBroken::Rebuilt => {
            "the program does without it, and replaces it when it next writes it"
        }
        WhenBroken::Refused | WhenBroken::Skipped => "it is passed over",
    };
    tracing::warn!("ignored {} ({}): {why}; {fate}", path.display(), kind.what);
}

/// Reads the file `name` of `kind` in the folder `dir`, resolved as given (a root's or a
/// skill's records, whose folder is the user's); `None` when the folder or the file is missing.
pub fn read_in(dir: &std::path::Path, kind: &Kind, name: &str) -> Result<Option<Vec<u8>>, Refusal> {
    match Folder::open(dir, &[])? {
        Some(folder) => folder.read(kind, name),
        None => Ok(None),
    }
}
