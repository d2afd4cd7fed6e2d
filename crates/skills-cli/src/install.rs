//! `skills install SOURCE`: downloads, checks and installs skills (03, 09), one line per
//! skill; with `--list`, what the source offers, nothing installed. `skills install` without
//! a source restores what the install records list (`--frozen`: only if nothing differs).

use anstream::eprintln;
use skills::Error;
use skills::restore::{Action, Report};

use crate::Exit;
use crate::cli::{Global, InstallArgs, WritableScope};
use crate::context;
use crate::output::{self, DIM, ERROR, OK, WARNING};
use crate::progress::Progress;

pub(crate) fn run(global: &Global, args: &InstallArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let Some(source) = &args.source else {
        return restore(global, args, skills);
    };
    let progress = Progress::start(global, "installing");
    let skills = match &progress {
        Some(progress) => skills.with_progress(progress.sink()),
        None => skills,
    };
    let mut request = skills::install::Request::new(source);
    request.scope = args.placement.scope_or(WritableScope::User);
    match crate::cli::agent_choice(&args.placement.agent) {
        Ok((agent, agents)) => {
            request.agent = agent;
            request.agents = agents;
        }
        Err(message) => return output::usage(global, &message),
    }
    request.force = args.force;
    request.audit = consent(args.force, args.yes);
    request.timeout_secs = Some(args.placement.timeout);
    request.skills.clone_from(&args.skills);
    request.plugins.clone_from(&args.plugins);
    request.list = args.list;
    request.version.clone_from(&args.version);
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(message) => return output::usage(global, &message),
    };
    let result = with_agreement(global, request.audit, |audit| {
        let mut request = request.clone();
        request.audit = audit;
        runtime.block_on(skills.install(&request))
    });
    drop(progress);
    let outcomes = match result {
        Ok(outcomes) => outcomes,
        Err(error) => return output::fail(global, &error),
    };
    if args.list {
        return print_offered(global, &outcomes);
    }
    print_outcomes(global, &outcomes)
}

/// `skills install` without a source: restores the records of the scope (the project's by
/// default), one line per recorded skill; a skill that differs is an error line, and makes
/// the exit status 1.
fn restore(global: &Global, args: &InstallArgs, skills: skills::Skills) -> Exit {
    let mut request =
        skills::restore::Request::new(args.placement.scope_or(WritableScope::Project));
    match crate::cli::agent_choice(&args.placement.agent) {
        Ok((agent, agents)) if agents.is_empty() => request.agent = agent,
        Ok(_) => {
            return output::usage(
                global,
                "a restore writes each skill back into the root that records it; --agent can only choose that root (app, agents, claude), not link other agents",
            );
        }
        Err(message) => return output::usage(global, &message),
    }
    request.frozen = args.frozen;
    request.force = args.force;
    request.timeout_secs = Some(args.placement.timeout);
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(message) => return output::usage(global, &message),
    };
    let progress = Progress::start(global, "restoring");
    let skills = match &progress {
        Some(progress) => skills.with_progress(progress.sink()),
        None => skills,
    };
    let result = runtime.block_on(skills.restore(&request));
    drop(progress);
    match result {
        Ok(report) => print_restored(global, &report),
        Err(error) => output::fail(global, &error),
    }
}

/// Prints a restore: `{"restore": {...}}` with `--json`, else one line per recorded skill
/// (current ones only without `-q`), the differences last, on stderr, with what to do.
fn print_restored(global: &Global, report: &Report) -> Exit {
    let status = if report.differences().next().is_some() {
        Exit::Failure
    } else {
        Exit::Success
    };
    if global.json {
        output::print_json(&serde_json::json!({ "restore": report }));
        return status;
    }
    if report.records.is_empty() {
        output::warn(
            "no install record lists a skill here; `skills install SOURCE` installs one and records it",
        );
        return status;
    }
    for outcome in &report.skills {
        let (state, shown) = match outcome.action {
            Action::Installed => ("restored", true),
            Action::Current => ("current", !global.quiet),
            Action::Held => ("held", true),
            Action::Differs => continue,
        };
        if !shown {
            continue;
        }
        output::line(format_args!(
            "{OK}{state}{OK:#} {} {DIM}({} scope, from {}, {}){DIM:#}",
            output::shown(&outcome.slug),
            outcome.scope,
            output::shown(&outcome.source),
            output::shown_path(&outcome.path)
        ));
        if let Some(message) = &outcome.message {
            output::line(format_args!("    {DIM}{}{DIM:#}", output::shown(message)));
        }
        for warning in outcome
            .installed
            .iter()
            .flat_map(|installed| &installed.warnings)
        {
            output::warn(warning);
        }
    }
    let differences: Vec<_> = report.differences().collect();
    if !differences.is_empty() {
        eprintln!(
            "{ERROR}{} of {} recorded skill{} differ{} from the record{ERROR:#}{}:",
            differences.len(),
            report.skills.len(),
            if report.skills.len() == 1 { "" } else { "s" },
            if differences.len() == 1 { "s" } else { "" },
            if report.frozen {
                "; nothing was written"
            } else {
                ""
            }
        );
        for outcome in differences {
            let kind = outcome
                .difference
                .and_then(|difference| serde_json::to_value(difference).ok())
                .and_then(|value| value.as_str().map(str::to_owned))
                .unwrap_or_default();
            eprintln!(
                "  {WARNING}{kind}{WARNING:#} {}: {}",
                output::shown(&outcome.slug),
                output::shown(outcome.message.as_deref().unwrap_or_default())
            );
        }
    }
    status
}

/// Prints what a source offers: `{"offered": [...]}` with `--json` (each with its `plugin`
/// when it has one), else one line per skill (name, kind, whether installed) and its
/// description below it, under a heading per plugin when the source has plugins (the skills in
/// none last).
fn print_offered(global: &Global, outcomes: &[skills::install::Outcome]) -> Exit {
    if global.json {
        output::print_json(&serde_json::json!({ "offered": outcomes }));
        return Exit::Success;
    }
    if outcomes.iter().any(|outcome| outcome.plugin.is_some()) {
        let mut groups: Vec<(Option<&str>, Vec<&skills::install::Outcome>)> = Vec::new();
        for outcome in outcomes {
            let plugin = outcome.plugin.as_deref();
            match groups.iter_mut().find(|(name, _)| *name == plugin) {
                Some((_, members)) => members.push(outcome),
                None => groups.push((plugin, vec![outcome])),
            }
        }
        // The skills in no plugin come last.
        groups.sort_by_key(|(name, _)| name.is_none());
        for (name, members) in groups {
            let count = members.len();
            let plural = if count == 1 { "" } else { "s" };
            match name {
                Some(name) => output::line(format_args!(
                    "plugin {OK}{}{OK:#} {DIM}({count} skill{plural}){DIM:#}",
                    output::shown(name)
                )),
                None => output::line(format_args!(
                    "in no plugin {DIM}({count} skill{plural}){DIM:#}"
                )),
            }
            print_offers(&members, "  ");
        }
        return Exit::Success;
    }
    print_offers(&outcomes.iter().collect::<Vec<_>>(), "");
    Exit::Success
}

/// One line per offered skill, indented by `indent`, its description and warnings below.
fn print_offers(outcomes: &[&skills::install::Outcome], indent: &str) {
    for outcome in outcomes {
        let version = outcome
            .version
            .as_deref()
            .map(|version| format!(", version {}", output::shown(version)))
            .unwrap_or_default();
        let state = if outcome.already_installed {
            ", installed"
        } else {
            ""
        };
        output::line(format_args!(
            "{indent}{OK}{}{OK:#} {DIM}({}, {} file{}{version}{state}){DIM:#}",
            output::shown(&outcome.slug),
            outcome.kind,
            outcome.files,
            if outcome.files == 1 { "" } else { "s" },
        ));
        if !outcome.description.is_empty() {
            output::line(format_args!(
                "{indent}    {}",
                output::shown(&outcome.description)
            ));
        }
        for warning in &outcome.warnings {
            output::warn(warning);
        }
    }
}

/// Prints install outcomes: `{"installed": [...]}` with `--json`, else one line per skill
/// (already installed ones only without `-q`), warnings on stderr. Shared with `registry
/// install`.
pub(crate) fn print_outcomes(global: &Global, outcomes: &[skills::install::Outcome]) -> Exit {
    if global.json {
        output::print_json(&serde_json::json!({ "installed": outcomes }));
        return Exit::Success;
    }
    for outcome in outcomes {
        let state = if outcome.already_installed {
            "already installed"
        } else if outcome.replaced {
            "replaced"
        } else {
            "installed"
        };
        if !global.quiet || !outcome.already_installed {
            output::line(format_args!(
                "{OK}{state}{OK:#} {} {DIM}({} scope, {} file{}, {}){DIM:#}",
                output::shown(&outcome.slug),
                outcome.scope,
                outcome.files,
                if outcome.files == 1 { "" } else { "s" },
                output::shown_path(&outcome.path)
            ));
            for link in &outcome.links {
                output::line(format_args!(
                    "  {DIM}linked{DIM:#} {}",
                    output::shown_path(link)
                ));
            }
        }
        for warning in &outcome.warnings {
            output::warn(warning);
        }
    }
    Exit::Success
}

/// What the flags agree to about the audit's findings: `--force` to everything (a refusing
/// finding too), `--yes` to the findings that ask.
pub(crate) fn consent(force: bool, yes: bool) -> skills::audit::Consent {
    if force {
        skills::audit::Consent::Force
    } else if yes {
        skills::audit::Consent::Yes
    } else {
        skills::audit::Consent::None
    }
}

/// Runs an install with `consent`; when the audit asks (`audit_unconfirmed`) and a person can
/// be asked (a terminal on stdin and stderr, no `--json`), shows the findings, asks, and on a
/// yes runs it again agreeing. The library never prompts: it refuses, and this asks. The second
/// attempt downloads and scans again, so it is judged on what it would write.
pub(crate) fn with_agreement<T>(
    global: &Global,
    consent: skills::audit::Consent,
    mut attempt: impl FnMut(skills::audit::Consent) -> Result<T, Error>,
) -> Result<T, Error> {
    match attempt(consent) {
        Err(Error::AuditUnconfirmed { skill, findings })
            if consent == skills::audit::Consent::None && !global.json && crate::run::can_ask() =>
        {
            for finding in &findings {
                output::warn(&format!("audit: {finding}"));
            }
            if ask_install(&skill) {
                attempt(skills::audit::Consent::Yes)
            } else {
                Err(Error::AuditUnconfirmed { skill, findings })
            }
        }
        other => other,
    }
}

/// Asks on stderr whether to install despite the findings; anything but `y` or `yes` is a no.
fn ask_install(skill: &str) -> bool {
    use std::io::Write;
    let mut stderr = std::io::stderr().lock();
    let _ = write!(
        stderr,
        "Install '{}' with these findings? [y/N] ",
        output::shown(skill)
    );
    let _ = stderr.flush();
    drop(stderr);
    let mut answer = String::new();
    if std::io::stdin().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// A runtime on this thread: the CLI runs one install at a time.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("the async runtime cannot start: {error}"))
}
