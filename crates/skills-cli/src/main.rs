//! The `skills` command line: argument parsing, output and exit codes over the `skills`
//! facade. No behaviour lives here that an agent core could not reach through the library.

mod audit;
mod cli;
mod context;
mod explain;
mod install;
mod list;
mod manage;
mod mcp;
mod output;
mod progress;
mod prompt;
mod publish;
mod read;
mod registry;
mod run;
mod runs;
mod runtimes;
mod sarif;
mod search;
mod secrets;
mod serve;
mod setup;
mod show;
mod task;
mod test;
mod tools;
mod trust;
mod update;
mod validate;
mod watch;

use std::process::ExitCode;

use clap::Parser as _;

/// Exit codes of 05 §Conventions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Exit {
    /// Everything succeeded.
    Success,
    /// The operation failed or found problems.
    Failure,
    /// A usage error or bad input (a missing path, a directory without `SKILL.md`).
    Usage,
    /// The status of a script `skills run` ran (124 at its deadline, 130 when cancelled):
    /// the command line passes it on, so a shell sees what the script said.
    Status(u8),
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(match exit {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::Status(status) => status,
        })
    }
}

fn main() -> ExitCode {
    // First, before any thread or argument parsing: started as the sandbox helper, this
    // restricts the process and execs the script's interpreter instead of returning.
    skills::run::sandbox_main();
    // Then, before any thread: no other process of the user reads this one's `/proc`, and
    // the tokens it was given leave its environment (it executes itself again without them).
    secrets::not_dumpable();
    secrets::take_own();
    let cli = cli::Cli::parse();
    cli.global.apply();
    let global = &cli.global;
    let exit = match &cli.command {
        cli::Command::List(args) => list::run(global, args),
        cli::Command::Show(args) => show::run(global, args),
        cli::Command::Read(args) => read::run(global, args),
        cli::Command::Explain(args) => explain::run(global, args),
        cli::Command::Prompt(args) => prompt::prompt(global, args),
        cli::Command::Sync(args) => prompt::sync(global, args),
        cli::Command::Trust(args) => trust::run(global, args),
        cli::Command::Resource(args) => manage::resource(global, args),
        cli::Command::New(args) => manage::new(global, args),
        cli::Command::Uninstall(args) => manage::uninstall(global, args),
        cli::Command::Install(args) => install::run(global, args),
        cli::Command::Check(args) => update::check(global, args),
        cli::Command::Update(args) => update::update(global, args),
        cli::Command::Registry(command) => registry::run(global, command),
        cli::Command::Validate(args) => validate::run(global, args),
        cli::Command::Audit(args) => audit::run(global, args),
        cli::Command::Publish(args) => publish::run(global, args),
        cli::Command::Run(args) => run::run(global, args),
        cli::Command::Setup(args) => setup::run(global, args),
        cli::Command::Runs(args) => runs::runs(global, args),
        cli::Command::Logs(args) => runs::logs(global, args),
        cli::Command::Cancel(args) => runs::cancel(global, args),
        cli::Command::Runtimes(args) => runtimes::run(global, args),
        cli::Command::Task(args) => task::run(global, args),
        cli::Command::Tools(args) => tools::run(global, args),
        cli::Command::Test(args) => test::run(global, args),
        cli::Command::Serve => serve::serve(global),
        cli::Command::Schemas => serve::schemas(),
        cli::Command::Mcp(args) => mcp::run(global, args),
        cli::Command::Search(args) => search::run(global, args),
        cli::Command::Watch(args) => watch::run(global, args),
        cli::Command::Completions(args) => {
            let mut command = <cli::Cli as clap::CommandFactory>::command();
            clap_complete::generate(args.shell, &mut command, "skills", &mut std::io::stdout());
            Exit::Success
        }
    };
    exit.into()
}
