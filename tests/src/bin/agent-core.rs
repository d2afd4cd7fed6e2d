//! A library user's binary, as an agent core would write it: `main` calls
//! `skills::run::sandbox_main()` first, then opens a `Skills` handle and runs a skill's
//! script, printing the outcome as JSON (or `{"error": {"kind", "message"}}` and status 1).
//! The sandbox tests run it to prove a host program gets the same sandbox as the `skills`
//! binary, with itself as the helper.
//!
//! Usage: `agent-core [--no-dispatch] WORKSPACE HOME SKILL SCRIPT [ARGS...]`.
//! `--no-dispatch` skips `sandbox_main()`: a host that forgot it, which must be refused.

use std::path::PathBuf;
use std::process::ExitCode;

use skills::{Skills, SkillsConfig};

fn main() -> ExitCode {
    // Before anything else, as the documentation of `sandbox_main` asks.
    if std::env::args_os().nth(1).as_deref() != Some("--no-dispatch".as_ref()) {
        skills::run::sandbox_main();
    }
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--no-dispatch") {
        args.remove(0);
    }
    let [workspace, home, skill, script, rest @ ..] = args.as_slice() else {
        eprintln!("usage: agent-core [--no-dispatch] WORKSPACE HOME SKILL SCRIPT [ARGS...]");
        return ExitCode::from(2);
    };
    let mut config = SkillsConfig::new(PathBuf::from(workspace), PathBuf::from(home));
    // What this host lets its scripts see: its own PATH and HOME, nothing else.
    config.runtime.inherited_env = std::env::vars()
        .filter(|(name, _)| name == "PATH" || name == "HOME" || name == "TMPDIR")
        .collect();
    let mut request = skills::run::Request::new(
        skill.clone(),
        skills::run::Target::Script {
            path: script.clone(),
        },
    );
    request.args = rest.to_vec();
    match Skills::new(config).run(&request) {
        Ok(outcome) => match serde_json::to_string(&outcome) {
            Ok(json) => {
                println!("{json}");
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("the outcome is not JSON: {error}");
                ExitCode::FAILURE
            }
        },
        Err(error) => {
            let document = serde_json::json!({
                "error": {"kind": error.kind(), "message": error.to_string()}
            });
            println!("{document}");
            ExitCode::FAILURE
        }
    }
}
