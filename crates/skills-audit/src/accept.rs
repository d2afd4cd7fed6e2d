//! Acceptances (`skills audit --accept NAME`): the user read a skill's findings and let them
//! stop blocking, for the skill's files as they are now.
//!
//! Each acceptance is bound to the skill's folder (resolved) and to the digest of its files,
//! and lists the rule ids it accepts; a report of that folder with that digest lists them in
//! [`Report::accepted`], and a changed byte, name or file is another digest, which nothing
//! accepts. They live in the user's home (`<home>/<app_dir>/audit-accepted.json`, read and
//! written through `skills_ops::state` alone), never in a workspace, so a repository cannot
//! ship its own. A file that cannot be used accepts nothing (every finding blocks, said in a
//! warning), and `--accept` refuses to write over it rather than lose what it holds.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use skills_ops::state::{self, AUDIT_ACCEPTED};
use skills_types::audit::{ACCEPTED_FILE, Accepted, AuditConfig, Report, Severity};
use skills_types::{Error, SkillsConfig};

use crate::home_file::HomeFile;
use crate::report::scan_dir;
use crate::targets::{folder_of, options};

/// The file of acceptances in the home.
const FILE: HomeFile = HomeFile {
    kind: &AUDIT_ACCEPTED,
    name: ACCEPTED_FILE,
    holds: "acceptances",
    pretty: true,
};

/// The most acceptances kept: past it, the oldest go first (the file stays well under its
/// kind's limit).
const MAX_ENTRIES: usize = 10_000;

/// One skill's acceptance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    /// The skill folder, resolved.
    #[serde(with = "skills_types::path_text")]
    path: PathBuf,
    /// Its name when accepted, for a person reading the file.
    name: String,
    /// The digest of its files when accepted.
    digest: String,
    /// The rules that scanned it then.
    rules_version: String,
    /// The rule ids accepted.
    rules: Vec<String>,
    /// When (RFC 3339).
    at: String,
}

/// The user's acceptances, read once for every report of a scan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Acceptances {
    entries: Vec<Entry>,
}

impl Acceptances {
    /// The acceptances of `config`'s home: none when there is no file, and none (with a
    /// warning naming the file) when it cannot be used, so a broken file never accepts.
    pub fn read(config: &SkillsConfig) -> Self {
        match FILE.load::<Entry>(config) {
            Ok(entries) => Self { entries },
            Err(reason) => {
                state::warn_unused(
                    &AUDIT_ACCEPTED,
                    &FILE.path(config),
                    &format!(
                        "{reason}; no finding counts as accepted until it is fixed or removed"
                    ),
                );
                Self::default()
            }
        }
    }

    /// Fills `report.accepted` for the skill folder `key` (as [`key_of`] gives it): the rules
    /// accepted for this folder at the report's digest, and those `settings` accepts for
    /// every skill; then takes its verdict again against `fail_on`.
    pub fn apply(
        &self,
        report: &mut Report,
        key: &Path,
        settings: &AuditConfig,
        fail_on: Severity,
    ) {
        let bound = self
            .entries
            .iter()
            .filter(|entry| entry.path == key && entry.digest == report.digest)
            .flat_map(|entry| entry.rules.iter());
        let everywhere = settings.accepted.iter();
        let rules: Vec<String> = bound.chain(everywhere).cloned().collect();
        report.set_accepted(rules.iter().map(String::as_str), fail_on);
    }
}

/// Accepts the findings of the skill `target` names (a catalog name or a folder, as
/// [`crate::audit`] reads targets) as its files are now: every rule with a finding at or
/// above the lowest `[audit]` threshold. Nothing is written when there is none.
pub fn accept(config: &SkillsConfig, target: &str) -> Result<Accepted, Error> {
    let effective = skills_ops::discover::run_policy(config)?;
    let settings = &effective.audit;
    let catalog = skills_ops::discover::discover(config)?;
    let folder = folder_of(&catalog, target)?;
    let options = options(&catalog, settings)?.with_fail_on(settings.fail_on);
    let stamp = crate::stamp::stamp(&folder.real, &options.caps);
    let mut report = scan_dir(&folder.real, &options)?;
    report.skill_path.clone_from(&folder.real);
    let threshold = settings.lowest_threshold();
    let mut rules: Vec<String> = report
        .findings
        .iter()
        .filter(|finding| finding.severity >= threshold)
        .map(|finding| finding.rule_id.clone())
        .collect();
    rules.sort_unstable();
    rules.dedup();
    let at = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let accepted = Accepted::new(&report, rules, at);
    if !accepted.recorded {
        return Ok(accepted);
    }
    let file = FILE.path(config);
    let mut entries = FILE
        .load::<Entry>(config)
        .map_err(|reason| Error::StateFileInvalid {
            path: file.clone(),
            reason: format!("{reason}; fix or remove it to record acceptances"),
        })?;
    entries.retain(|entry| entry.path != report.skill_path);
    entries.push(Entry {
        path: report.skill_path.clone(),
        name: report.skill_name.clone(),
        digest: report.digest.clone(),
        rules_version: report.rules_version.clone(),
        rules: accepted.rules.clone(),
        at: accepted.at.clone(),
    });
    if entries.len() > MAX_ENTRIES {
        // RFC 3339 times in UTC sort as text.
        entries.sort_by(|a, b| a.at.cmp(&b.at));
        let excess = entries.len() - MAX_ENTRIES;
        entries.drain(..excess);
    }
    FILE.store(config, entries)?;
    // The verdict the listings show stops saying "blocked" for the files accepted.
    report.set_accepted(accepted.rules.iter().map(String::as_str), settings.fail_on);
    let entry = stamp.map(|stamp| {
        crate::verdicts::Entry::new(folder.real.clone(), stamp, &report, settings.refuse_on)
    });
    if let Err(error) = crate::verdicts::store_entries(config, entry.into_iter().collect()) {
        tracing::warn!("the audit verdict was not recorded: {error}");
    }
    Ok(accepted)
}

/// A skill folder as acceptances are keyed: resolved when it exists; else its parent resolved
/// and its name (a folder an install is about to write).
pub fn key_of(folder: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(folder) {
        return real;
    }
    match (folder.parent(), folder.file_name()) {
        (Some(parent), Some(name)) => std::fs::canonicalize(parent)
            .map(|parent| parent.join(name))
            .unwrap_or_else(|_| absolute(folder)),
        _ => absolute(folder),
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests;
