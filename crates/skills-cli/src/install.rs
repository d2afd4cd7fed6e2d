//! `skills install SOURCE`: downloads, checks and installs skills (03, 09), one line per
//! skill; with `--list`, what the source offers, nothing installed.

use skills::install::{InstallOutcome, InstallRequest};

use crate::Exit;
use crate::cli::{Global, InstallArgs};
use crate::context;
use crate::output::{self, DIM, OK};
use crate::progress::Progress;

pub(crate) fn run(global: &Global, args: &InstallArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let progress = Progress::start(global, "installing");
    let skills = match &progress {
        Some(progress) => skills.with_progress(progress.sink()),
        None => skills,
    };
    let mut request = InstallRequest::new(&args.source);
    request.scope = args.placement.scope.into();
    request.agent = args.placement.agent.map(Into::into);
    request.force = args.force;
    request.timeout_secs = Some(args.placement.timeout);
    request.skills.clone_from(&args.skills);
    request.list = args.list;
    request.version.clone_from(&args.version);
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(message) => return output::usage(global, &message),
    };
    let result = runtime.block_on(skills.install(&request));
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

/// Prints what a source offers: `{"offered": [...]}` with `--json`, else one line per skill
/// (name, kind, whether installed) and its description below it.
fn print_offered(global: &Global, outcomes: &[InstallOutcome]) -> Exit {
    if global.json {
        output::print_json(&serde_json::json!({ "offered": outcomes }));
        return Exit::Success;
    }
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
            "{OK}{}{OK:#} {DIM}({}, {} file{}{version}{state}){DIM:#}",
            output::shown(&outcome.slug),
            outcome.kind,
            outcome.files,
            if outcome.files == 1 { "" } else { "s" },
        ));
        if !outcome.description.is_empty() {
            output::line(format_args!("    {}", output::shown(&outcome.description)));
        }
        for warning in &outcome.warnings {
            output::warn(warning);
        }
    }
    Exit::Success
}

/// Prints install outcomes: `{"installed": [...]}` with `--json`, else one line per skill
/// (already installed ones only without `-q`), warnings on stderr. Shared with `registry
/// install`.
pub(crate) fn print_outcomes(global: &Global, outcomes: &[InstallOutcome]) -> Exit {
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
        }
        for warning in &outcome.warnings {
            output::warn(warning);
        }
    }
    Exit::Success
}

/// A runtime on this thread: the CLI runs one install at a time.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("the async runtime cannot start: {error}"))
}
