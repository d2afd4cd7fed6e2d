//! `skills audit [PATH | NAME ...]` over a configuration: the folders a request names
//! (`targets.rs`) scanned in parallel, and each report read against the user's acceptances.
//!
//! A request's targets are folders or catalog names
//! ([`Target::of`](skills_types::audit::Target::of) reads the text alone);
//! none is every skill of the catalog, every scope. The catalog is discovered once, for the
//! names and for the neighbours a name may imitate. A target that cannot be scanned (a
//! missing folder, a folder without `SKILL.md`, a name the catalog does not know) is listed in
//! the summary's `skills_skipped` with why, and the others are still scanned: the command line
//! exits 2 for it.
//!
//! The configuration is read as a run reads it (`run_policy`): a `skills.toml` that exists
//! but cannot be honoured is an error, never a scan at default thresholds, since its
//! `[audit]` table may have lowered them or named the user's own rules.

use rayon::prelude::*;
use skills_types::audit::{Report, Reports, Request, Skipped};
use skills_types::{Error, SkillsConfig};

use crate::accept::Acceptances;
use crate::report::scan_dir_among;
use crate::targets::{Folder, folders, options};
use crate::verdicts::{self, Entry};

/// Scans what `request` names under `config`: one report per skill folder, in the order asked
/// (the catalog's order when nothing is), each with the acceptances of its digest, and the
/// targets that could not be scanned.
pub fn audit(config: &SkillsConfig, request: &Request) -> Result<Reports, Error> {
    let effective = skills_ops::discover::run_policy(config)?;
    let settings = &effective.audit;
    let fail_on = request.fail_on.unwrap_or(settings.fail_on);
    let catalog = skills_ops::discover::discover(config)?;
    let (folders, skipped) = folders(&catalog, &request.targets);
    let options = options(&catalog, settings)?.with_fail_on(fail_on);
    let acceptances = Acceptances::read(config);
    let neighbours = options.shared_neighbours();
    let caps = options.caps;
    let scan = |(target, folder): &(String, Folder)| -> Result<(Report, Option<Entry>), Skipped> {
        // Stamped before the files are read: a change during the scan leaves the verdict
        // stale rather than vouching for bytes it never read.
        let stamp = crate::stamp::stamp(&folder.real, &caps);
        let mut report =
            scan_dir_among(&folder.real, &options, &neighbours).map_err(|error| Skipped {
                file: target.clone(),
                reason: error.to_string(),
            })?;
        report.skill_path.clone_from(&folder.shown);
        acceptances.apply(&mut report, &folder.real, settings, fail_on);
        let entry =
            stamp.map(|stamp| Entry::new(folder.real.clone(), stamp, &report, settings.refuse_on));
        Ok((report, entry))
    };
    // One folder is scanned on this thread: starting rayon's pool for it costs more than the
    // scan (its idle workers spin in `sched_yield`).
    let scanned: Vec<Result<(Report, Option<Entry>), Skipped>> = if folders.len() > 1 {
        folders.par_iter().map(scan).collect()
    } else {
        folders.iter().map(scan).collect()
    };
    let mut results = Vec::new();
    let mut entries = Vec::new();
    let mut skills_skipped = skipped;
    for scanned in scanned {
        match scanned {
            Ok((report, entry)) => {
                results.push(report);
                entries.extend(entry);
            }
            Err(skipped) => skills_skipped.push(skipped),
        }
    }
    // What `list`, `show` and the MCP catalog mark skills by. A verdict that cannot be kept
    // costs the marks, not the scan: said, and the report stands.
    if let Err(error) = verdicts::store_entries(config, entries) {
        tracing::warn!("the audit verdicts were not recorded: {error}");
    }
    let mut reports = Reports::new(results, skills_skipped);
    reports.summary.fail_on = Some(fail_on);
    Ok(reports)
}

#[cfg(test)]
mod tests;
