//! The walk a watching handle keeps between bursts (08 §The live catalog): after a burst whose
//! every path lies inside a skill folder the last walk found (a definition edited, a bundled
//! file added), only those skill folders are looked at again, and the rest of the walk is
//! taken as it was. Anything else (a folder made or removed in a root or a category, a
//! definition file gone or replaced by a link, the roots or their settings changed, a root
//! made or removed, a root named whole after a poll or a lost event queue) walks every root
//! again, as a discovery without a watch does.
//!
//! What makes this sound is the watch itself: a path no event named did not change, so a skill
//! folder the burst did not touch holds what the last walk saw in it.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use skills_types::catalog::Root;
use skills_types::config::{DiscoveryLimits, SymlinkPolicy};
use skills_types::files::SKILL_MD;

use super::cache::Stamp;
use super::scan::{self, Found, Scan};

/// The last walk of a watching handle's discoveries, for the next one to start from.
#[derive(Default)]
pub struct Walked {
    last: Option<Last>,
    /// How the last discovery walked, for tests.
    reused: bool,
}

impl std::fmt::Debug for Walked {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Walked")
            .field(
                "found",
                &self.last.as_ref().map(|last| last.scan.found.len()),
            )
            .field("reused", &self.reused)
            .finish()
    }
}

/// A walk, and what it walked.
struct Last {
    roots: Vec<Root>,
    /// Which of the roots were folders then (a root made or removed since is walked).
    present: Vec<bool>,
    policy: SymlinkPolicy,
    limits: DiscoveryLimits,
    scan: Scan,
}

impl Walked {
    /// Whether the last discovery took the walk before it and looked again only at the skill
    /// folders its burst touched.
    pub fn reused(&self) -> bool {
        self.reused
    }

    /// The walk of `roots` after a burst that named `touched`: the last one with the touched
    /// skill folders looked at again, when that is all the burst can have changed; a new walk
    /// otherwise. Kept for the next burst either way.
    pub(super) fn walk(
        &mut self,
        roots: &[Root],
        policy: SymlinkPolicy,
        limits: DiscoveryLimits,
        touched: &BTreeSet<PathBuf>,
    ) -> Scan {
        let present: Vec<bool> = roots.iter().map(|root| root.path.is_dir()).collect();
        let reused = self
            .last
            .as_ref()
            .filter(|last| {
                last.roots == roots
                    && last.present == present
                    && last.policy == policy
                    && last.limits == limits
            })
            .and_then(|last| again(&last.scan, touched));
        self.reused = reused.is_some();
        tracing::debug!(
            reused = self.reused,
            touched = touched.len(),
            "walk after a burst"
        );
        let scan = reused.unwrap_or_else(|| scan::scan(roots, policy, limits));
        self.last = Some(Last {
            roots: roots.to_vec(),
            present,
            policy,
            limits,
            scan: scan.clone(),
        });
        scan
    }
}

/// `last` with the skill folders holding the `touched` paths looked at again; `None` when a
/// path lies outside every skill folder found (or is one itself), or a touched folder is no
/// longer a skill the common way (its own `SKILL.md`, a regular file).
fn again(last: &Scan, touched: &BTreeSet<PathBuf>) -> Option<Scan> {
    if touched.is_empty() {
        return None;
    }
    let by_dir: HashMap<&Path, usize> = last
        .found
        .iter()
        .enumerate()
        .map(|(index, found)| (found.dir.as_path(), index))
        .collect();
    let mut due = BTreeSet::new();
    for path in touched {
        // Strictly below: an event naming the folder itself may be its removal or renaming.
        let index = path
            .ancestors()
            .skip(1)
            .find_map(|folder| by_dir.get(folder))?;
        due.insert(*index);
    }
    let mut found = last.found.clone();
    for index in due {
        found[index] = looked_again(&found[index])?;
    }
    Some(Scan {
        found,
        diagnostics: last.diagnostics.clone(),
        listed: last.listed.clone(),
        cut: last.cut.clone(),
    })
}

/// `found` with its stamps taken again, if it is still a skill folder whose definition file
/// is its own `SKILL.md`, a regular file (the walk's common case; any other is walked again).
fn looked_again(found: &Found) -> Option<Found> {
    if found.definition != found.dir.join(SKILL_MD) {
        return None;
    }
    let definition = std::fs::symlink_metadata(&found.definition).ok()?;
    if !definition.is_file() {
        return None;
    }
    let folder = std::fs::symlink_metadata(&found.dir).ok()?;
    // As the walk stamps it: a folder reached through a link by its target.
    let dir_stamp = if folder.is_symlink() {
        std::fs::metadata(&found.dir)
            .ok()
            .filter(std::fs::Metadata::is_dir)
            .map(|metadata| Stamp::of(&metadata))
    } else if folder.is_dir() {
        Some(Stamp::of(&folder))
    } else {
        return None;
    };
    Some(Found {
        stamp: Stamp::of(&definition),
        dir_stamp,
        ..found.clone()
    })
}

#[cfg(test)]
mod tests;
