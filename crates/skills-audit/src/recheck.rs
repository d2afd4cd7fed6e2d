//! `skills check` and `skills watch` over the verdict store (`verdicts.rs`): which skills'
//! verdicts the rules or their files outdated, scanned again with the user's acceptances and
//! recorded; the flagged ones as diagnostics, the verdicts that changed as changes.

use std::path::PathBuf;

use rayon::prelude::*;
use skills_types::audit::{Mark, Recheck, Severity};
use skills_types::files::SKILL_MD;
use skills_types::{Diagnostic, DiagnosticCode, Error, SkillsConfig, sanitize};

use crate::accept::Acceptances;
use crate::report::scan_dir_among;
use crate::stamp::stamp;
use crate::targets;
use crate::verdicts::{Entry, Verdicts, store_entries};

/// `skills check`'s audit part: every skill `names` names (every skill of the catalog when
/// none) whose verdict is missing, was made by other rules than those in force now, or is
/// older than its files, is scanned again and its verdict recorded; the others keep theirs,
/// unscanned (the fast path: a read of the store and a stamp of each folder). The skills
/// whose verdict is high or critical come back as `audit-flagged` diagnostics.
pub fn recheck(config: &SkillsConfig, names: &[String]) -> Result<Recheck, Error> {
    recheck_changes(config, names).map(|(recheck, _)| recheck)
}

/// `skills watch`'s audit part: the skills `names` names (a burst's added and changed ones)
/// are scanned again when their verdict is outdated, as [`recheck`] does, and each whose
/// verdict differs from the one recorded before (worst severity, number of findings,
/// whether it blocks, rules), or that had none and is flagged now, comes back as
/// `(name, before, after)`. `before` is the old verdict as it stands now (stale, since the
/// files changed), none when there was none.
pub fn rescan(
    config: &SkillsConfig,
    names: &[String],
) -> Result<Vec<(String, Option<Mark>, Mark)>, Error> {
    recheck_changes(config, names).map(|(_, changes)| changes)
}

/// A verdict change: the skill's name, its verdict before (as it stands now) and after.
type Change = (String, Option<Mark>, Mark);

fn recheck_changes(
    config: &SkillsConfig,
    names: &[String],
) -> Result<(Recheck, Vec<Change>), Error> {
    let effective = skills_ops::discover::run_policy(config)?;
    let settings = &effective.audit;
    let catalog = skills_ops::discover::discover(config)?;
    let (folders, skipped) = targets::folders(&catalog, names);
    let options = targets::options(&catalog, settings)?.with_fail_on(settings.fail_on);
    let rules_version = options.rules_version();
    let verdicts = Verdicts::read(config);
    let acceptances = Acceptances::read(config);
    let neighbours = options.shared_neighbours();
    let looked: Vec<Looked> = folders
        .par_iter()
        .map(|(target, folder)| {
            let stamp = stamp(&folder.real, &options.caps);
            let kept = verdicts.get(&folder.real).filter(|entry| {
                entry.rules_version == rules_version && stamp.as_deref() == Some(&entry.stamp)
            });
            if let Some(entry) = kept {
                return Looked::Kept(target.clone(), folder.shown.clone(), entry.clone());
            }
            match scan_dir_among(&folder.real, &options, &neighbours) {
                Ok(mut report) => {
                    acceptances.apply(&mut report, &folder.real, settings, settings.fail_on);
                    let entry = Entry::new(
                        folder.real.clone(),
                        stamp.unwrap_or_default(),
                        &report,
                        settings.refuse_on,
                    );
                    Looked::Scanned(target.clone(), folder.shown.clone(), entry)
                }
                Err(error) => {
                    Looked::Failed(target.clone(), folder.shown.clone(), error.to_string())
                }
            }
        })
        .collect();
    let mut recheck = Recheck::default();
    recheck.rules_version = rules_version;
    let mut fresh = Vec::new();
    let mut changes = Vec::new();
    for looked in looked {
        let (target, shown, entry) = match looked {
            Looked::Kept(target, shown, entry) => {
                recheck.unchanged += 1;
                (target, shown, entry)
            }
            Looked::Scanned(target, shown, entry) => {
                recheck.scanned.push(target.clone());
                // A skill first scanned here is news only when it is flagged; a verdict
                // that was recorded before is news whenever it says something else now.
                let before = verdicts.get(&entry.path);
                let news = match before {
                    Some(before) => !before.same_verdict(&entry),
                    None => entry
                        .max_severity
                        .is_some_and(|worst| worst >= Severity::High),
                };
                if news {
                    changes.push((
                        sanitize::line(&entry.name).into_owned(),
                        before.map(|before| before.mark(Some(&entry.stamp))),
                        entry.mark(Some(&entry.stamp)),
                    ));
                }
                fresh.push(entry.clone());
                (target, shown, entry)
            }
            Looked::Failed(target, shown, reason) => {
                recheck
                    .diagnostics
                    .push(unscanned(&target, &reason).with_path(shown));
                continue;
            }
        };
        let mark = entry.mark(Some(&entry.stamp));
        if let Some(note) = mark
            .note(&sanitize::line(&target))
            .filter(|_| mark.flagged())
        {
            recheck.diagnostics.push(
                Diagnostic::warning(
                    DiagnosticCode::AuditFlagged,
                    sanitize::line(&format!("{target}: {note}")).into_owned(),
                )
                .with_path(shown.join(SKILL_MD)),
            );
        }
    }
    for skipped in skipped {
        recheck
            .diagnostics
            .push(unscanned(&skipped.file, &skipped.reason));
    }
    store_entries(config, fresh)?;
    Ok((recheck, changes))
}

/// One skill as [`recheck`] found it: its target, its folder as shown, and its verdict.
enum Looked {
    Kept(String, PathBuf, Entry),
    Scanned(String, PathBuf, Entry),
    Failed(String, PathBuf, String),
}

fn unscanned(target: &str, reason: &str) -> Diagnostic {
    Diagnostic::warning(
        DiagnosticCode::AuditUnscanned,
        sanitize::line(&format!(
            "{target}: not scanned again ({reason}); its audit verdict is unknown"
        ))
        .into_owned(),
    )
}
