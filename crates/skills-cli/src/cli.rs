//! The command-line grammar (05-cli.md), declared with clap's derive API.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use skills::validate::Profile;

/// Fast, safe Agent Skills: validate, discover and manage `SKILL.md` skills.
#[derive(Debug, Parser)]
#[command(name = "skills", version, about, max_term_width = 100)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) global: Global,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Options every command takes.
#[derive(Debug, Args)]
pub(crate) struct Global {
    /// Machine output on stdout (a documented, stable JSON shape), nothing else on stdout.
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// Print only problems.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub(crate) quiet: bool,
    /// Log what happens to stderr (repeat for more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub(crate) verbose: u8,
    /// When to use colour (`NO_COLOR` is honoured by `auto`).
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub(crate) color: ColorWhen,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Lint skills against a profile; exit 0 when all are valid, 1 when one is not, 2 when a
    /// path cannot be validated.
    Validate(ValidateArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// Skill directories or `SKILL.md` files.
    #[arg(default_value = ".", value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
    /// The rule set to apply.
    #[arg(long, value_enum, default_value_t = ProfileArg::Agentskills, value_name = "PROFILE")]
    pub(crate) profile: ProfileArg,
    /// Treat every warning as an error.
    #[arg(long)]
    pub(crate) strict: bool,
    /// Validate every skill below each PATH instead of PATH itself.
    #[arg(short, long)]
    pub(crate) recursive: bool,
}

/// The validation profiles, as the command line spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ProfileArg {
    /// The agentskills.io specification, as its reference validator applies it.
    Agentskills,
    /// What Claude Code, Codex and OpenCode load (unknown fields are warnings).
    Lenient,
    /// agentskills plus platforms, triggers, legacy fields and x-* keys.
    Openhuman,
    /// agentskills plus x-astron-* keys, package rules and compliance claims.
    Skillhub,
}

impl From<ProfileArg> for Profile {
    fn from(profile: ProfileArg) -> Self {
        match profile {
            ProfileArg::Agentskills => Profile::Agentskills,
            ProfileArg::Lenient => Profile::Lenient,
            ProfileArg::Openhuman => Profile::Openhuman,
            ProfileArg::Skillhub => Profile::Skillhub,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn grammar_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_profile_is_offered() {
        for profile in Profile::ALL {
            let arg = ProfileArg::from_str(profile.as_str(), false).unwrap();
            assert_eq!(Profile::from(arg), profile);
        }
    }
}
