//! The twin of `skills-audit`: nothing is scanned. An empty report would say "clean" about a
//! skill nobody looked at, so every call that answers about a skill is `Err(Error::Disabled)`,
//! and [`scan_files`] (which has no error to return) answers a report that is not safe and
//! lists every file as skipped.

use std::path::Path;

use skills_types::audit::{
    Accepted, Recheck, Report, Reports, Request, Severity, Skipped, Summary,
};
use skills_types::{Error, Skill, SkillsConfig};

/// No rules are compiled in.
pub const RULES_VERSION: &str = "";

/// The twin of `skills_audit::Caps`: how much of a skill a scan reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Bytes read of one file.
    pub bytes_per_file: u64,
    /// Files read of one skill.
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

/// The twin of `skills_audit::Options`: how a scan runs.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// A report is not safe with a finding at or above this.
    pub fail_on: Severity,
    /// How much of a skill is read.
    pub caps: Caps,
    /// The names of the other skills the user has.
    pub neighbours: Vec<String>,
}

impl Options {
    /// Failing on high, with the default caps and no neighbours.
    pub fn new() -> Self {
        Self {
            fail_on: Severity::High,
            caps: Caps::default(),
            neighbours: Vec::new(),
        }
    }

    /// This threshold instead.
    pub fn with_fail_on(mut self, fail_on: Severity) -> Self {
        self.fail_on = fail_on;
        self
    }

    /// These neighbours instead.
    pub fn with_neighbours(mut self, neighbours: Vec<String>) -> Self {
        self.neighbours = neighbours;
        self
    }

    /// Disabled: the user's rule folders cannot be compiled without the subsystem, so this is
    /// always `Err(Error::Disabled)` (a scan without them must not look like one with them).
    pub fn with_rule_dirs<P: AsRef<Path>>(self, _dirs: &[P]) -> Result<Self, Error> {
        Err(Error::Disabled)
    }

    /// The version of the built-in rules this build has: none.
    pub fn rules_version(&self) -> String {
        RULES_VERSION.to_owned()
    }
}

impl Default for Options {
    fn default() -> Self {
        Self::new()
    }
}

/// Disabled: always `Err(Error::Disabled)`.
pub fn scan_dir(_dir: &Path, _options: &Options) -> Result<Report, Error> {
    Err(Error::Disabled)
}

/// A report that is not safe and scanned nothing: every file is listed as skipped, so no
/// gate reads it as clean.
pub fn scan_files(path: &Path, staged: &[(String, Vec<u8>)], options: &Options) -> Report {
    let skipped = staged
        .iter()
        .map(|(file, _)| Skipped {
            file: file.clone(),
            reason: "not scanned: the audit is not compiled in".to_owned(),
        })
        .collect();
    let mut report = Report::new(
        String::new(),
        path.to_path_buf(),
        Vec::new(),
        options.fail_on,
        RULES_VERSION,
        String::new(),
        skipped,
    );
    report.is_safe = false;
    report
}

/// Disabled: always `Err(Error::Disabled)`.
pub fn audit(_config: &SkillsConfig, _request: &Request) -> Result<Reports, Error> {
    Err(Error::Disabled)
}

/// Disabled: always `Err(Error::Disabled)`, and nothing is handed to `sink`.
pub fn audit_each(
    _config: &SkillsConfig,
    _request: &Request,
    _sink: &mut dyn FnMut(Report),
) -> Result<Summary, Error> {
    Err(Error::Disabled)
}

/// Disabled: always `Err(Error::Disabled)`.
pub fn accept(_config: &SkillsConfig, _target: &str) -> Result<Accepted, Error> {
    Err(Error::Disabled)
}

/// Nothing is marked: no verdict is read (no mark is "never audited", not "clean").
pub fn mark(_config: &SkillsConfig, _skills: &mut [Skill]) {}

/// Disabled: always `Err(Error::Disabled)`.
pub fn record(_config: &SkillsConfig, _reports: &[Report]) -> Result<(), Error> {
    Err(Error::Disabled)
}

/// Disabled: always `Err(Error::Disabled)`.
pub fn recheck(_config: &SkillsConfig, _names: &[String]) -> Result<Recheck, Error> {
    Err(Error::Disabled)
}

/// Disabled: always `Err(Error::Disabled)`.
pub fn rescan(
    _config: &SkillsConfig,
    _names: &[String],
) -> Result<
    Vec<(
        String,
        Option<skills_types::audit::Mark>,
        skills_types::audit::Mark,
    )>,
    Error,
> {
    Err(Error::Disabled)
}

/// No stamp: nothing is recorded to compare it with.
pub fn stamp(_dir: &Path, _caps: &Caps) -> Option<String> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_scanned_is_never_safe() {
        let staged = vec![("SKILL.md".to_owned(), b"---\nname: x\n---\n".to_vec())];
        let report = scan_files(Path::new("x"), &staged, &Options::new());
        assert!(!report.is_safe);
        assert_eq!(report.skipped.len(), 1);
        assert!(matches!(
            scan_dir(Path::new("x"), &Options::new()),
            Err(Error::Disabled)
        ));
    }
}
