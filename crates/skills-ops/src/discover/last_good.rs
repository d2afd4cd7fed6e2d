//! The last good version (08 §The live catalog): while a watch runs, a definition file that
//! stops loading (an editor mid-save, a half-written file) keeps its last valid record in the
//! catalog, flagged, until it loads again or is removed. A file that never loaded is reported
//! and absent.
//!
//! A file whose frontmatter does not parse is a failure like any other (discovery refuses it:
//! its name and description would be guesses), so while a watch runs agents see its last good
//! version, and outside a watch nothing of it.

use std::collections::HashSet;
use std::path::Path;

use skills_types::watch::LastGood;
use skills_types::{Diagnostic, DiagnosticCode, Severity, Skill};

/// Remembers every valid record, forgets the files no longer found, and puts the last valid
/// record in place of each failure it remembers. Returns the failures whose record was kept:
/// they stay findings of the catalog (a `load_error`), though the skill is listed.
pub(super) fn keep(memory: &LastGood, built: &mut [Result<Skill, Diagnostic>]) -> Vec<Diagnostic> {
    memory
        .with(|records| {
            let found: HashSet<&Path> = built
                .iter()
                .filter_map(|outcome| match outcome {
                    Ok(skill) => Some(skill.location.as_path()),
                    Err(diagnostic) => diagnostic.path.as_deref(),
                })
                .collect();
            records.retain(|path, _| found.contains(path.as_path()));
            let mut failures = Vec::new();
            for outcome in built.iter_mut() {
                if let Ok(skill) = outcome {
                    if records.get(&skill.location) != Some(skill) {
                        records.insert(skill.location.clone(), skill.clone());
                    }
                    continue;
                }
                let Err(diagnostic) = outcome else { continue };
                let Some(last) = diagnostic.path.as_ref().and_then(|path| records.get(path)) else {
                    // Never valid while remembered: reported, and absent.
                    continue;
                };
                let mut kept = last.clone();
                let flag = Diagnostic::new(
                    DiagnosticCode::LastGoodKept,
                    Severity::Warning,
                    format!(
                        "{} no longer loads ({}); its last valid version is kept until the file \
                         is fixed or removed",
                        kept.location.display(),
                        diagnostic.message
                    ),
                )
                .with_path(&kept.location);
                kept.diagnostics.push(flag);
                if let Err(failure) = std::mem::replace(outcome, Ok(kept)) {
                    failures.push(failure);
                }
            }
            failures
        })
        .unwrap_or_default()
}
