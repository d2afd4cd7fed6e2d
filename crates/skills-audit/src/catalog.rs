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
//!
//! [`audit_each`] hands each report on as soon as its turn comes and keeps none: the folders
//! are scanned in chunks of a few dozen (in parallel within a chunk, in order across them), so
//! the reports alive at once are a chunk's, whatever the count of skills (issue 31: memory
//! bounded by the largest file, not by the catalog). [`audit`] is built on it for the callers
//! that want every report at once (RPC, MCP, tests).

use rayon::prelude::*;
use skills_types::audit::{Report, Reports, Request, Skipped, Summary};
use skills_types::{Error, SkillsConfig};

use crate::accept::Acceptances;
use crate::report::scan_dir_among;
use crate::targets::{Folder, folders, options};
use crate::verdicts::{self, Entry};

/// Folders scanned per thread between two hand-overs: enough that a thread seldom waits at
/// the end of a chunk for the slowest scan of the others, few enough that the reports alive
/// at once stay a few dozen (each holds every finding, snippet and message of its skill).
const FOLDERS_PER_THREAD: usize = 16;

/// Scans what `request` names under `config`: one report per skill folder, in the order asked
/// (the catalog's order when nothing is), each with the acceptances of its digest, and the
/// targets that could not be scanned.
pub fn audit(config: &SkillsConfig, request: &Request) -> Result<Reports, Error> {
    let mut results = Vec::new();
    let summary = audit_each(config, request, &mut |report| results.push(report))?;
    Ok(Reports::with_summary(results, summary))
}

/// [`audit`] with each report handed to `sink` in order as soon as it is known, none kept:
/// the answer is the totals ([`Summary`]: counts, the targets that could not be scanned, the
/// threshold). An error comes before the first report (a configuration that cannot be
/// honoured, a catalog that cannot be read, a missing rule folder), never after one.
pub fn audit_each(
    config: &SkillsConfig,
    request: &Request,
    sink: &mut dyn FnMut(Report),
) -> Result<Summary, Error> {
    let effective = skills_ops::discover::run_policy(config)?;
    let settings = &effective.audit;
    let fail_on = request.fail_on.unwrap_or(settings.fail_on);
    let catalog = skills_ops::discover::discover(config)?;
    let (folders, skipped) = folders(&catalog, &request.targets);
    let options = options(&catalog, settings)?.with_fail_on(fail_on);
    // The folders and the neighbours' names are taken: the catalog (a tenth of a kilobyte and
    // more a skill) is not kept through the scan, whose own memory would come on top of it.
    drop(catalog);
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
    let mut summary = Summary::new();
    summary.skills_skipped = skipped;
    summary.fail_on = Some(fail_on);
    let mut entries = Vec::new();
    let mut hand_over = |scanned: Result<(Report, Option<Entry>), Skipped>| match scanned {
        Ok((report, entry)) => {
            summary.count(&report);
            entries.extend(entry);
            sink(report);
        }
        Err(skipped) => summary.skills_skipped.push(skipped),
    };
    if folders.len() > 1 {
        let chunk = 2 * rayon::current_num_threads() * FOLDERS_PER_THREAD;
        for folders in folders.chunks(chunk) {
            let scanned: Vec<_> = folders.par_iter().map(scan).collect();
            scanned.into_iter().for_each(&mut hand_over);
        }
    } else {
        // One folder is scanned on this thread: starting rayon's pool for it costs more than
        // the scan (its idle workers spin in `sched_yield`).
        folders.iter().map(scan).for_each(&mut hand_over);
    }
    // What `list`, `show` and the MCP catalog mark skills by. A verdict that cannot be kept
    // costs the marks, not the scan: said, and the report stands.
    if let Err(error) = verdicts::store_entries(config, entries) {
        tracing::warn!("the audit verdicts were not recorded: {error}");
    }
    Ok(summary)
}

#[cfg(test)]
mod tests;
