//! The verdict store: the last audit verdict of every skill folder scanned, kept in the user's
//! home (`<home>/<app_dir>/audit-verdicts.json`, read and written through `skills_ops::state`
//! alone), so that `list`, `show` and the MCP catalog can mark a flagged skill without
//! scanning it, and `check` knows which skills to scan again.
//!
//! Each entry is keyed by the skill folder, resolved, and holds a stamp of its files (every
//! file's path, kind, size, modification and change times and inode, hashed: a walk of the
//! folder with no file opened, `stamp.rs`), the digest of the files as scanned, the rules'
//! version, the worst severity, the number of findings, and whether an unaccepted finding at
//! or above `[audit] refuse_on` blocked. A listing reads the file once and stamps only the
//! skills it holds an entry for: a user who never audits pays one failed open. An entry
//! whose stamp no longer matches is shown as stale, never as clean.
//!
//! The stamp is taken before a scan reads the files, so a file changed while it was scanned
//! makes the entry stale rather than vouching for bytes it never read. A broken or oversized
//! file is named in a warning and treated as empty (nothing is marked, `check` scans every
//! skill again), and the next write replaces it: it is a record of verdicts the program can
//! always make again, not something the user would lose.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use skills_ops::state::{self, AUDIT_VERDICTS};
use skills_types::audit::{Mark, MarkState, Report, Severity, VERDICTS_FILE};
use skills_types::{Error, Skill, SkillsConfig};

use crate::files::Caps;
use crate::home_file::HomeFile;
use crate::stamp::stamp;

/// The file of verdicts in the home: entries oldest first.
const FILE: HomeFile = HomeFile {
    kind: &AUDIT_VERDICTS,
    name: VERDICTS_FILE,
    holds: "audit verdicts",
    pretty: false,
};

/// The most verdicts kept: past it, the ones written longest ago go first (20,000 entries of
/// about 400 bytes stay well under the kind's limit).
pub(crate) const MAX_ENTRIES: usize = 20_000;

/// One skill folder's last verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// The skill folder, resolved.
    #[serde(with = "skills_types::path_text")]
    pub(crate) path: PathBuf,
    /// Its name when scanned, for a person reading the file.
    pub(crate) name: String,
    /// The stamp of its files just before the scan ([`stamp`]).
    pub(crate) stamp: String,
    /// The digest of the files as scanned.
    pub(crate) digest: String,
    /// The rules that scanned ([`crate::Options::rules_version`]).
    pub(crate) rules_version: String,
    /// The worst severity found; `None` when nothing was.
    pub(crate) max_severity: Option<Severity>,
    /// How many findings.
    pub(crate) findings_count: usize,
    /// Whether an unaccepted finding at or above `refuse_on` blocked.
    pub(crate) blocked: bool,
}

impl Entry {
    /// The entry of `report` for the folder `path`, whose files had `stamp` before the scan.
    pub(crate) fn new(path: PathBuf, stamp: String, report: &Report, refuse_on: Severity) -> Self {
        Self {
            path,
            name: report.skill_name.clone(),
            stamp,
            digest: report.digest.clone(),
            rules_version: report.rules_version.clone(),
            max_severity: report.max_severity,
            findings_count: report.findings_count,
            blocked: report.blocking(refuse_on).next().is_some(),
        }
    }

    /// Whether `other` says the same of the skill (what a listing shows: the worst
    /// severity, the findings, whether it blocks, the rules).
    pub(crate) fn same_verdict(&self, other: &Self) -> bool {
        self.max_severity == other.max_severity
            && self.findings_count == other.findings_count
            && self.blocked == other.blocked
            && self.rules_version == other.rules_version
    }

    /// The mark of this verdict for files whose stamp is now `stamp`.
    pub(crate) fn mark(&self, stamp: Option<&str>) -> Mark {
        let state = if stamp == Some(self.stamp.as_str()) {
            MarkState::Current
        } else {
            MarkState::Stale
        };
        Mark::new(
            self.max_severity,
            self.findings_count,
            self.rules_version.clone(),
            self.blocked,
            state,
        )
    }
}

/// The verdicts on file, read once per command.
#[derive(Debug, Default)]
pub(crate) struct Verdicts {
    entries: HashMap<PathBuf, Entry>,
}

impl Verdicts {
    /// The verdicts of `config`'s home: none when there is no file, and none (with a warning
    /// naming the file) when it cannot be used.
    pub(crate) fn read(config: &SkillsConfig) -> Self {
        match FILE.load::<Entry>(config) {
            Ok(entries) => Self {
                entries: entries
                    .into_iter()
                    .map(|entry| (entry.path.clone(), entry))
                    .collect(),
            },
            Err(reason) => {
                state::warn_unused(&AUDIT_VERDICTS, &FILE.path(config), &reason);
                Self::default()
            }
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The verdict of the resolved folder `real`.
    pub(crate) fn get(&self, real: &Path) -> Option<&Entry> {
        self.entries.get(real)
    }
}

/// Fills in the `audit` mark of each of `skills` that has a verdict on file: one read of the
/// store, then a stamp of each skill it knows (none of the others is touched). A skill
/// without a verdict keeps none, which is "never audited", not "clean".
pub fn mark(config: &SkillsConfig, skills: &mut [Skill]) {
    let verdicts = Verdicts::read(config);
    if verdicts.is_empty() {
        return;
    }
    let caps = Caps::default();
    let parents = resolved_parents(skills.iter().map(|skill| skill.dir.as_path()));
    skills.par_iter_mut().for_each(|skill| {
        let Some(real) = resolved(&skill.dir, &parents) else {
            return;
        };
        if let Some(entry) = verdicts.get(&real) {
            skill.audit = Some(entry.mark(stamp(&real, &caps).as_deref()));
        }
    });
}

/// Each distinct folder holding one of `dirs`, resolved once: a catalog's skills share a few
/// roots, and resolving a path costs a look-up of every component.
fn resolved_parents<'a>(dirs: impl Iterator<Item = &'a Path>) -> HashMap<PathBuf, Option<PathBuf>> {
    let mut parents = HashMap::new();
    for dir in dirs {
        if let Some(parent) = dir.parent()
            && !parents.contains_key(parent)
        {
            parents.insert(parent.to_path_buf(), std::fs::canonicalize(parent).ok());
        }
    }
    parents
}

/// The skill folder `dir`, resolved as `canonicalize` would: its resolved parent and its own
/// name when it is a folder itself (a link, or a name like `..`, is resolved whole).
fn resolved(dir: &Path, parents: &HashMap<PathBuf, Option<PathBuf>>) -> Option<PathBuf> {
    let through_parent = dir
        .file_name()
        .zip(dir.parent())
        .and_then(|(name, parent)| {
            let parent = parents.get(parent)?.as_ref()?;
            let metadata = std::fs::symlink_metadata(dir).ok()?;
            metadata.is_dir().then(|| parent.join(name))
        });
    through_parent.or_else(|| std::fs::canonicalize(dir).ok())
}

/// Records the verdicts of `reports` (each skill's folder as `skill_path` names it, its
/// acceptances applied), stamping each folder now: for a caller that scanned files it then
/// wrote as scanned (an install). `skills audit`, `check` and `watch` stamp before they scan.
/// Whether an entry blocks is read against `config`'s `[audit] refuse_on`.
pub fn record(config: &SkillsConfig, reports: &[Report]) -> Result<(), Error> {
    let settings = skills_ops::discover::run_policy(config)
        .map(|effective| effective.audit)
        .unwrap_or_default();
    let caps = Caps::default();
    let entries = reports
        .iter()
        .filter_map(|report| {
            let real = std::fs::canonicalize(&report.skill_path).ok()?;
            let stamp = stamp(&real, &caps)?;
            Some(Entry::new(real, stamp, report, settings.refuse_on))
        })
        .collect();
    store_entries(config, entries)
}

/// Replaces the entries of the same folders by `fresh` (the newest last), drops the oldest
/// past [`MAX_ENTRIES`], and writes the file atomically. A file that cannot be used is
/// replaced: it held nothing a scan cannot make again.
pub(crate) fn store_entries(config: &SkillsConfig, fresh: Vec<Entry>) -> Result<(), Error> {
    if fresh.is_empty() {
        return Ok(());
    }
    let mut entries: Vec<Entry> = FILE.load(config).unwrap_or_default();
    // A scan that found what the file already says of every folder it scanned (an audit run
    // again on unchanged skills) leaves the file as it is: rewriting it, synced, cost more
    // than the scan of one skill. Those entries keep their place in the order of eviction.
    let kept: HashMap<&Path, &Entry> = entries
        .iter()
        .map(|entry| (entry.path.as_path(), entry))
        .collect();
    if fresh
        .iter()
        .all(|entry| kept.get(entry.path.as_path()) == Some(&entry))
    {
        return Ok(());
    }
    drop(kept);
    // A set, not a scan of `fresh` per entry: a catalog of 10,000 skills rewrites them all.
    let replaced: std::collections::HashSet<&Path> =
        fresh.iter().map(|entry| entry.path.as_path()).collect();
    entries.retain(|entry| !replaced.contains(entry.path.as_path()));
    entries.extend(fresh);
    if entries.len() > MAX_ENTRIES {
        let excess = entries.len() - MAX_ENTRIES;
        entries.drain(..excess);
    }
    FILE.store(config, entries)
}

#[cfg(test)]
mod tests;
