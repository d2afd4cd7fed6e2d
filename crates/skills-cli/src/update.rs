//! `skills check [NAME…]` and `skills update [NAME…] [--force]` (09 §Updates): installed
//! skills compared with the sources their provenance names, and re-installed from them.
//!
//! `check` also scans again every skill whose last audit verdict is missing, was made by other
//! rules than those in force (a rules update, a changed `[audit] rules` folder) or is older
//! than its files, records the verdicts, and lists the flagged skills as `audit-flagged`
//! diagnostics (they do not change the exit status).
//!
//! Exit status: `check` 0 when every source could be compared (whether or not updates are
//! available), 1 when one could not; `update` 0 when every selected skill is current or was
//! updated, 1 when one was kept for its local changes or failed; 2 for a name that is not an
//! installed skill.

use skills::Error;
use skills::audit::Recheck;
use skills::update::{Action, Check, Request};

use crate::Exit;
use crate::cli::{CheckArgs, Global, UpdateArgs};
use crate::context;
use crate::install::runtime;
use crate::output::{self, DIM, OK, WARNING};

pub(crate) fn check(global: &Global, args: &CheckArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let mut request = Request::named(args.names.clone());
    request.timeout_secs = Some(args.timeout);
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(message) => return output::usage(global, &message),
    };
    let checks = match runtime.block_on(skills.check_updates(&request)) {
        Ok(checks) => checks,
        Err(error) => return output::fail(global, &error),
    };
    let exit = if checks.iter().any(|check| check.problem.is_some()) {
        Exit::Failure
    } else {
        Exit::Success
    };
    // The audit's part: verdicts the rules or the files outdated are made again. It needs no
    // network, and a failure of it (a configuration that cannot be honoured) is said without
    // hiding the sources' comparison.
    let recheck = match skills.audit_recheck(&args.names) {
        Ok(recheck) => Some(recheck),
        Err(Error::Disabled) => None,
        Err(error) => {
            output::warn(&format!("the skills were not audited again: {error}"));
            None
        }
    };
    if global.json {
        output::print_json(&serde_json::json!({ "skills": checks, "audit": recheck }));
        return exit;
    }
    if let Some(recheck) = &recheck {
        print_recheck(recheck, global.quiet);
    }
    if checks.is_empty() && !global.quiet {
        output::line(
            "no installed skills (only skills installed with a provenance record are checked)",
        );
    }
    for check in &checks {
        if let Some(problem) = &check.problem {
            output::warn(&format!("{}: {problem}", output::shown(&check.slug)));
            continue;
        }
        let state = match (check.update_available, check.locally_modified) {
            (true, true) => format!("{WARNING}update available, changed locally{WARNING:#}"),
            (true, false) => format!("{WARNING}update available{WARNING:#}"),
            (false, true) => format!("{WARNING}changed locally{WARNING:#}"),
            (false, false) if global.quiet => continue,
            (false, false) => format!("{OK}current{OK:#}"),
        };
        output::line(format_args!(
            "{state} {} {DIM}({} scope, {}){DIM:#}",
            output::shown(&check.slug),
            check.scope,
            versions(check)
        ));
    }
    exit
}

/// The flagged skills (and those that could not be scanned again), then a line saying how
/// many verdicts were made again and under which rules.
fn print_recheck(recheck: &Recheck, quiet: bool) {
    for diagnostic in &recheck.diagnostics {
        output::line(output::diagnostic_line(diagnostic));
    }
    if quiet {
        return;
    }
    let scanned = recheck.scanned.len();
    output::line(format_args!(
        "{DIM}audit: {scanned} skill{} scanned again, {} unchanged (rules {}){DIM:#}",
        if scanned == 1 { "" } else { "s" },
        recheck.unchanged,
        output::shown(&recheck.rules_version)
    ));
}

pub(crate) fn update(global: &Global, args: &UpdateArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    if args.remote {
        return remote(global, &skills, args);
    }
    let mut request = Request::named(args.names.clone());
    request.force = args.force;
    request.audit = crate::install::consent(args.force, args.yes);
    request.timeout_secs = Some(args.timeout);
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(message) => return output::usage(global, &message),
    };
    let outcomes = match runtime.block_on(skills.update_installed(&request)) {
        Ok(outcomes) => outcomes,
        Err(error) => return output::fail(global, &error),
    };
    let exit = if outcomes
        .iter()
        .any(|outcome| matches!(outcome.action, Action::KeptLocalChanges | Action::Failed))
    {
        Exit::Failure
    } else {
        Exit::Success
    };
    if global.json {
        output::print_json(&serde_json::json!({ "updated": outcomes }));
        return exit;
    }
    for outcome in &outcomes {
        let slug = output::shown(&outcome.check.slug);
        match outcome.action {
            Action::Updated => {
                output::line(format_args!(
                    "{OK}updated{OK:#} {slug} {DIM}({} scope, {}){DIM:#}",
                    outcome.check.scope,
                    versions(&outcome.check)
                ));
                // The audit's findings a --force or --yes let through, among the rest.
                for warning in outcome
                    .installed
                    .iter()
                    .flat_map(|installed| &installed.warnings)
                {
                    output::warn(&format!("{slug}: {warning}"));
                }
            }
            Action::Current if !global.quiet => output::line(format_args!(
                "{OK}current{OK:#} {slug} {DIM}({} scope){DIM:#}",
                outcome.check.scope
            )),
            Action::Current => {}
            Action::KeptLocalChanges | Action::Failed => output::warn(&format!(
                "{slug}: {}",
                outcome.message.as_deref().unwrap_or("not updated")
            )),
        }
    }
    exit
}

/// `update --remote`: every configured pack fetched now, one line each. Status 1 when one
/// failed (its last good copy stays listed).
fn remote(global: &Global, skills: &skills::Skills, args: &UpdateArgs) -> Exit {
    let mut request = skills::remote::Refresh::all();
    request.timeout_secs = Some(args.timeout);
    request.audit = crate::install::consent(args.force, args.yes);
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(message) => return output::usage(global, &message),
    };
    let refreshed = match runtime.block_on(skills.refresh_remotes(&request)) {
        Ok(refreshed) => refreshed,
        Err(error) => return output::fail(global, &error),
    };
    let exit = if refreshed.iter().any(|line| line.error.is_some()) {
        Exit::Failure
    } else {
        Exit::Success
    };
    if global.json {
        output::print_json(&serde_json::json!({ "remotes": refreshed }));
        return exit;
    }
    if refreshed.is_empty() && !global.quiet {
        output::line("no remote packs are configured (urls = [...] in skills.toml)");
    }
    for line in &refreshed {
        match &line.error {
            Some(error) => output::warn(&format!(
                "{}: {error} (the last good copy stays listed)",
                output::shown(&line.url)
            )),
            None if !global.quiet => output::line(format_args!(
                "{OK}fetched{OK:#} {} {DIM}({} skill{}){DIM:#}",
                output::shown(&line.url),
                line.skills.len(),
                if line.skills.len() == 1 { "" } else { "s" }
            )),
            None => {}
        }
    }
    exit
}

/// `1.0.0 → 1.1.0`, `1.0.0`, or the source when no version is known.
fn versions(check: &Check) -> String {
    match (&check.installed_version, &check.available_version) {
        (Some(installed), Some(available)) if installed != available => {
            format!(
                "{} → {}",
                output::shown(installed),
                output::shown(available)
            )
        }
        (Some(version), _) | (None, Some(version)) => output::shown(version).into_owned(),
        (None, None) => output::shown(&check.source).into_owned(),
    }
}
