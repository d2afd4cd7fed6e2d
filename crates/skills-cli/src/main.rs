//! The `skills` command line: argument parsing, output and exit codes over the `skills`
//! facade. No behaviour lives here that an agent core could not reach through the library.

mod cli;
mod output;
mod validate;

use std::process::ExitCode;

use clap::Parser as _;

/// Exit codes of 05 §Conventions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Exit {
    /// Everything succeeded.
    Success = 0,
    /// The operation failed or found problems.
    Failure = 1,
    /// A usage error or bad input (a missing path, a directory without `SKILL.md`).
    Usage = 2,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(exit as u8)
    }
}

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    cli.global.apply();
    let exit = match &cli.command {
        cli::Command::Validate(args) => validate::run(&cli.global, args),
    };
    exit.into()
}
