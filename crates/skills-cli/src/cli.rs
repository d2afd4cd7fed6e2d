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
    /// The project directory [default: the current directory].
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) workspace: Option<PathBuf>,
    /// The home directory whose user skills are loaded [default: $HOME].
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        env = "SKILLS_HOME",
        hide_env_values = true
    )]
    pub(crate) home: Option<PathBuf>,
    /// The application directory under home and workspace: one plain folder name (no `/`,
    /// `\`, `.` or `..`).
    #[arg(
        long,
        global = true,
        value_name = "NAME",
        default_value = skills::types::config::DEFAULT_APP_DIR,
        value_parser = AppDirParser
    )]
    pub(crate) app_dir: String,
    /// Load the workspace's project skills for this one command, as if trusted (nothing is
    /// recorded; `skills trust` records it for good).
    #[arg(long, global = true)]
    pub(crate) trust_workspace: bool,
    /// Open the skills read-only: every run and every change is refused.
    #[arg(long, global = true)]
    pub(crate) read_only: bool,
}

/// What `install --help` and `registry --help` say about the fixture switch: the URL policy
/// refuses plain http, other ports and this machine, and a person testing a local server must
/// be able to find the one way around it without reading the source.
fn local_http_help() -> String {
    format!(
        "Only https URLs on port 443 of public hosts are fetched. {}.",
        capitalised(&skills::types::install::local_http_advice())
    )
}

fn install_help() -> String {
    let [first, second] = skills::types::install::GITHUB_TOKEN_VARS;
    format!(
        "{} A private GitHub repository needs a token: {first} or {second}, or the variable \
         `[github] token_env` names in the home skills.toml; it is sent to the configured \
         GitHub's API and archive hosts only.",
        local_http_help()
    )
}

fn capitalised(text: &str) -> String {
    let mut characters = text.chars();
    characters
        .next()
        .map(|first| first.to_uppercase().chain(characters).collect())
        .unwrap_or_default()
}

/// `--app-dir` as typed, refused (a usage error, status 2) unless it is one plain folder name:
/// the same check the facade makes on every call. A parser of its own rather than a function,
/// so the message is ours alone: clap's would repeat the raw value, escape sequences and all.
#[derive(Clone, Copy, Debug)]
struct AppDirParser;

impl clap::builder::TypedValueParser for AppDirParser {
    type Value = String;

    fn parse_ref(
        &self,
        command: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let refuse = |message: String| {
            command
                .clone()
                .error(clap::error::ErrorKind::ValueValidation, message)
        };
        let text = value.to_str().ok_or_else(|| {
            refuse("--app-dir: the name is not UTF-8; it must be one plain folder name".to_owned())
        })?;
        skills::types::config::check_app_dir(text)
            .map_err(|error| refuse(format!("--app-dir: {error}")))?;
        Ok(text.to_owned())
    }
}

/// Options of the commands that discover skills.
#[derive(Debug, Args)]
pub(crate) struct Discovery {
    /// The profile (personality) whose `personalities/<ID>/skills` root is loaded.
    #[arg(long, value_name = "ID")]
    pub(crate) profile: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// The catalog: every skill an agent sees, with its scope and description.
    List(ListArgs),
    /// One skill: frontmatter, inputs, diagnostics and location.
    Show(NameArgs),
    /// Skill bodies for an agent, each with its base directory.
    Read(ReadArgs),
    /// Every copy of a skill name and why the winner won.
    Explain(NameArgs),
    /// The catalog as an agent sees it.
    Prompt(PromptArgs),
    /// Write the skills block of AGENTS.md, leaving the rest of the file alone.
    Sync(SyncArgs),
    /// Trust a workspace, so its project skills are loaded (recorded in your home), or stop
    /// trusting it, or list the trusted ones.
    Trust(TrustArgs),
    /// One bundled file of a skill, read safely (no traversal, no symlinks, at most 128 KiB).
    Resource(ResourceArgs),
    /// Scaffold a new skill in the user (or project) scope.
    New(NewArgs),
    /// Remove a skill from the user or project scope.
    Uninstall(UninstallArgs),
    /// Install skills from where they are published: an https URL (a SKILL.md, a site or docs
    /// page, a well-known index, a pack, a .tar.gz or .zip, a GitHub page), the GitHub
    /// shorthand owner/repo[/path][@ref], or a local folder or archive (./dir, /abs/x.zip).
    /// Without a source, restore every skill the install records list (the project's by
    /// default; --scope user for the home's), each from its recorded source at its recorded
    /// version and digest; --frozen writes nothing unless nothing differs (for CI).
    #[command(after_help = install_help())]
    Install(InstallArgs),
    /// Installed skills whose source offers other files now (a new version or a different
    /// digest), and those changed locally since install. Writes nothing.
    #[command(after_help = local_http_help())]
    Check(CheckArgs),
    /// Re-install skills whose source changed, from the source each was installed from; a
    /// skill changed locally is kept unless --force.
    #[command(after_help = local_http_help())]
    Update(UpdateArgs),
    /// The registry catalog (SKILLS_REGISTRY_CATALOG_URL): browse and search its entries, see
    /// its categories and sources, install an entry.
    #[command(subcommand, after_help = local_http_help())]
    Registry(RegistryCommand),
    /// Lint skills against a profile; exit 0 when all are valid, 1 when one is not, 2 when a
    /// path cannot be validated.
    Validate(ValidateArgs),
    /// Scan skills for what they would make an agent do (prompt injection, hidden text,
    /// credential theft, download-and-run, ...), offline: skill folders (written as paths,
    /// ./pdf) or catalog names, or every skill of the catalog. Exit 0 clean, 1 findings at or
    /// above --fail-on, 2 a skill could not be scanned.
    Audit(AuditArgs),
    /// Write skill folders as an agent-skills site (SITE/.well-known/agent-skills/: index.json,
    /// one SKILL.md or reproducible .tar.gz per skill, older versions kept), after validating
    /// each strictly; any static file server can then serve SITE.
    Publish(PublishArgs),
    /// Run a skill's script, its entry (no SCRIPT) or inline code (-e), streaming its output;
    /// exits with the script's status (124 when stopped at --timeout, 130 when cancelled).
    Run(RunArgs),
    /// Install a skill's dependencies (requirements.txt, its scripts' `# /// script` block,
    /// package.json) into its own environment in your home, which its runs then use; the
    /// network is allowed for this step as `[runtime] setup_network` says (allow by default).
    Setup(SetupArgs),
    /// The newest runs, with their status.
    Runs(RunsArgs),
    /// A run's log: its output in order, then how it ended.
    Logs(LogsArgs),
    /// Stop a run (from any process sharing the home): its whole process group.
    Cancel(CancelArgs),
    /// The interpreters runs use: path, version, and whether they are usable.
    Runtimes(RuntimesArgs),
    /// An instruction-only skill as an agent task: its body with a block of the inputs, its
    /// [agent] table and its preflight.
    Task(TaskArgs),
    /// The tools skills declare (`[[tools]]` in skill.toml), as agents are offered them.
    Tools(ToolsArgs),
    /// The skills that best match a task, ranked (BM25 over name, description, when_to_use,
    /// tags and headings; the index is kept in the cache folder): `skills search pull the
    /// tables out of a scanned invoice`.
    Search(SearchArgs),
    /// Watch the catalog's roots and print each change as it happens (skills added, changed,
    /// removed; a broken file, whose skill keeps its last valid version) until interrupted;
    /// --json prints one JSON object per line.
    Watch(WatchArgs),
    /// Run a skill's self-tests (`[[tests]]` in skill.toml), or every skill's with --all;
    /// exits 1 when any fails.
    Test(TestArgs),
    /// Serve every operation as JSON-RPC 2.0 over stdin and stdout, one message per line.
    Serve,
    /// Print every RPC method with the JSON Schemas of its params and result.
    Schemas,
    /// Serve the catalog to any Model Context Protocol host (Claude Desktop, Cursor, VS Code,
    /// Zed) over stdin and stdout, or loopback HTTP: tools, a resource per file, a prompt per
    /// skill.
    Mcp(McpArgs),
    /// Print a completion script for a shell (`skills completions bash > ~/.local/share/...`).
    Completions(CompletionsArgs),
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The skill's name (or its directory name).
    pub(crate) name: String,
    /// A script bundled with the skill, relative to its folder (`scripts/extract.py`)
    /// [default: the skill's `entry`].
    #[arg(value_name = "SCRIPT", conflicts_with = "code")]
    pub(crate) script: Option<String>,
    /// Run this code instead of a file (needs `[runtime] allow_inline = true` in the home
    /// skills.toml).
    #[arg(short = 'e', long = "eval", value_name = "CODE", requires = "lang")]
    pub(crate) code: Option<String>,
    /// Run npm in the skill folder instead (`--npm ci`, `--npm test`, `--npm run build`):
    /// `ci`, `install`, `run SCRIPT` or `test`; words starting with `-` (an install's flags,
    /// a script's arguments) go after `--`.
    #[arg(long, value_name = "NPM ARGS", num_args = 1.., allow_hyphen_values = false,
          conflicts_with_all = ["script", "code"])]
    pub(crate) npm: Option<Vec<String>>,
    /// The language of -e CODE.
    #[arg(long, value_enum, value_name = "LANG", requires = "code")]
    pub(crate) lang: Option<LangArg>,
    /// A value of a declared input (repeatable), read as the input's declared type.
    #[arg(long = "input", value_name = "NAME=VALUE")]
    pub(crate) inputs: Vec<String>,
    /// Stop the run after this many seconds (1 to 1800; 0, the default, means no deadline).
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<u64>,
    /// Confirm the run without asking (needed off a terminal for `ask` and project skills).
    #[arg(short = 'y', long)]
    pub(crate) yes: bool,
    /// Set the skill's dependencies up first when they are not (as `skills setup NAME`).
    #[arg(long)]
    pub(crate) setup: bool,
    /// Arguments for the script, after `--`; each is one argument, never read by a shell.
    #[arg(last = true, value_name = "ARGS")]
    pub(crate) args: Vec<String>,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct SetupArgs {
    /// The skill's name (or its directory name).
    pub(crate) name: String,
    /// A Python package to install besides what the skill declares (repeatable; a name with
    /// version specifiers, `pypdf>=4`), for a skill that declares none; kept for later setups.
    #[arg(long = "package", value_name = "SPEC")]
    pub(crate) packages: Vec<String>,
    /// Set the environment up again even when it is up to date.
    #[arg(long)]
    pub(crate) force: bool,
    /// Confirm without asking (needed off a terminal for `ask` and project skills).
    #[arg(short = 'y', long)]
    pub(crate) yes: bool,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

/// The languages of inline code, as the command line spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum LangArg {
    /// `node -e CODE`
    Node,
    /// `python3 -c CODE`
    Python,
    /// `sh -c CODE`
    Sh,
}

impl From<LangArg> for skills::run::InlineLanguage {
    fn from(lang: LangArg) -> Self {
        match lang {
            LangArg::Node => Self::Node,
            LangArg::Python => Self::Python,
            LangArg::Sh => Self::Sh,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct RunsArgs {
    /// At most this many runs, newest first (1 to 100).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub(crate) limit: usize,
}

#[derive(Debug, Args)]
pub(crate) struct LogsArgs {
    /// The run's id (as `skills runs` shows it).
    #[arg(value_name = "RUN")]
    pub(crate) run_id: String,
    /// Keep reading until the run ends.
    #[arg(short, long)]
    pub(crate) follow: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CancelArgs {
    /// The run's id (as `skills runs` shows it).
    #[arg(value_name = "RUN")]
    pub(crate) run_id: String,
}

#[derive(Debug, Args)]
pub(crate) struct RuntimesArgs {
    /// Only this interpreter.
    #[arg(value_enum, value_name = "KIND")]
    pub(crate) kind: Option<RuntimeArg>,
}

/// The interpreters, as the command line spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum RuntimeArg {
    Node,
    Npm,
    Python,
    Sh,
}

impl From<RuntimeArg> for skills::run::RuntimeKind {
    fn from(kind: RuntimeArg) -> Self {
        match kind {
            RuntimeArg::Node => Self::Node,
            RuntimeArg::Npm => Self::Npm,
            RuntimeArg::Python => Self::Python,
            RuntimeArg::Sh => Self::Sh,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct TaskArgs {
    /// The skill's name (or its directory name).
    pub(crate) name: String,
    /// A value of a declared input (repeatable), read as the input's declared type.
    #[arg(long = "input", value_name = "NAME=VALUE")]
    pub(crate) inputs: Vec<String>,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Serve read-only: no `run_skill_script` and no declared tools, so nothing runs.
    #[arg(long)]
    pub(crate) no_scripts: bool,
    /// Serve streamable HTTP at ADDR (`PORT`, `127.0.0.1:PORT`, `[::1]:PORT`, `localhost:PORT`;
    /// loopback only) instead of stdio, on the path /mcp. Every request needs
    /// `Authorization: Bearer TOKEN`: the token in SKILLS_MCP_TOKEN (at least 16 characters),
    /// or one made at start and printed on stderr.
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<String>,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// The task, in your own words (several words are one query).
    #[arg(required = true, num_args = 1.., value_name = "QUERY")]
    pub(crate) query: Vec<String>,
    /// The most skills shown (1 to 50).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=50))]
    pub(crate) limit: u16,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct WatchArgs {
    /// How long a burst of file events must be quiet before the catalog is looked at again,
    /// in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(10..=60_000))]
    pub(crate) debounce_ms: u64,
    /// How often a path the kernel will not watch (the inotify limit) is scanned instead, in
    /// milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 2_000, value_parser = clap::value_parser!(u64).range(100..=600_000))]
    pub(crate) poll_ms: u64,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct TestArgs {
    /// The skill whose tests run.
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub(crate) name: Option<String>,
    /// Run the tests of every skill that declares any.
    #[arg(long)]
    pub(crate) all: bool,
    /// Confirm the runs without asking (needed off a terminal for `ask` and project skills).
    #[arg(short = 'y', long)]
    pub(crate) yes: bool,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

/// The languages `skills new --script` scaffolds an entry script in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ScriptArg {
    /// `scripts/main.mjs`
    Node,
    /// `scripts/main.py`
    Python,
    /// `scripts/main.sh`
    Sh,
}

impl ScriptArg {
    /// The language's name in a sentence.
    pub(crate) fn language_name(self) -> &'static str {
        match self {
            Self::Node => "Node.js",
            Self::Python => "Python",
            Self::Sh => "shell",
        }
    }
}

impl From<ScriptArg> for skills::run::InlineLanguage {
    fn from(script: ScriptArg) -> Self {
        match script {
            ScriptArg::Node => Self::Node,
            ScriptArg::Python => Self::Python,
            ScriptArg::Sh => Self::Sh,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Also list the copies that lost a name collision, and the hidden skills.
    #[arg(long)]
    pub(crate) all: bool,
    /// Only skills of this scope.
    #[arg(long, value_enum, value_name = "SCOPE")]
    pub(crate) scope: Option<ScopeArg>,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct NameArgs {
    /// The skill's name (or its directory name).
    pub(crate) name: String,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct ReadArgs {
    /// One or more skill names, separated by commas or given as separate arguments.
    #[arg(required = true, value_name = "NAME[,NAME...]")]
    pub(crate) names: Vec<String>,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct PromptArgs {
    /// The format.
    #[arg(long, value_enum, default_value_t = FormatArg::Xml)]
    pub(crate) format: FormatArg,
    /// At most this many characters: descriptions are shortened, then skills dropped.
    #[arg(long, value_name = "CHARS")]
    pub(crate) budget: Option<usize>,
    /// A skill never shortened or dropped (repeatable).
    #[arg(long, value_name = "NAME")]
    pub(crate) pin: Vec<String>,
    /// Rank for a task: the pinned skills first, then the ones the task matches (best first),
    /// then the rest; a budget leaves out the least relevant first.
    #[arg(long, value_name = "TASK")]
    pub(crate) query: Option<String>,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct SyncArgs {
    /// The file to write, relative to the workspace.
    #[arg(long, value_name = "FILE", default_value = skills::render::AGENTS_MD)]
    pub(crate) output: PathBuf,
    /// Only list project skills.
    #[arg(long)]
    pub(crate) project_only: bool,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct ResourceArgs {
    /// The skill's name (or its directory name).
    pub(crate) name: String,
    /// The file's path inside the skill folder, such as `references/api.md`.
    pub(crate) path: String,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct NewArgs {
    /// The skill's name: lowercase letters, digits and single hyphens; it becomes the folder.
    pub(crate) name: String,
    /// What the skill does and when to use it [required unless --script, which writes a
    /// placeholder to replace].
    #[arg(long, short, required_unless_present = "script")]
    pub(crate) description: Option<String>,
    /// Where to create it.
    #[arg(long, value_enum, default_value_t = WritableScope::User, value_name = "SCOPE")]
    pub(crate) scope: WritableScope,
    /// Which root of the scope to create it in (app, agents, claude) [default: `[install]
    /// root` of the home skills.toml, else agents], and the agents that should see it too
    /// (repeatable: cursor, windsurf, ..., or detected; see `docs/cli.md`).
    #[arg(long, value_name = "AGENT", value_parser = agent_values(), ignore_case = true)]
    pub(crate) agent: Vec<String>,
    /// An input the skill takes (repeatable), written to skill.toml.
    #[arg(long = "input", value_name = "NAME:DESCRIPTION[:required]")]
    pub(crate) inputs: Vec<String>,
    /// When an agent should reach for it, written to skill.toml.
    #[arg(long, value_name = "TEXT")]
    pub(crate) when_to_use: Option<String>,
    /// The license (an SPDX id such as MIT, or the name of a license file).
    #[arg(long)]
    pub(crate) license: Option<String>,
    /// Also scaffold an entry script in this language that prints a JSON result, with a
    /// skill.toml naming it, one input and a self-test, so `skills test NAME` passes at once.
    #[arg(long, value_enum, value_name = "LANG")]
    pub(crate) script: Option<ScriptArg>,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct UninstallArgs {
    /// The skill's folder name, or the name `list` shows when it names one skill.
    pub(crate) name: String,
    /// Only from this scope.
    #[arg(long, value_enum, value_name = "SCOPE")]
    pub(crate) scope: Option<WritableScope>,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct InstallArgs {
    /// The source: a URL, owner/repo[/path][@ref], or ./folder, ../x.zip, /abs/path. Without
    /// one, the skills the install records list are restored.
    pub(crate) source: Option<String>,
    #[command(flatten)]
    pub(crate) placement: Placement,
    /// Replace a different skill already installed under the same name (atomically); when
    /// restoring, replace a skill changed since it was installed with its recorded version.
    /// Also installs a skill the audit refuses (a critical finding), its findings still
    /// printed and recorded.
    #[arg(long)]
    pub(crate) force: bool,
    /// Agree to the audit's high findings without being asked (needed off a terminal).
    #[arg(short = 'y', long, requires = "source")]
    pub(crate) yes: bool,
    /// Install only this skill of a multi-skill source (repeatable).
    #[arg(long = "skill", value_name = "NAME", requires = "source")]
    pub(crate) skills: Vec<String>,
    /// Install only the skills of this plugin of a Claude Code plugin marketplace
    /// (`.claude-plugin/marketplace.json`, `plugin.json`) (repeatable).
    #[arg(long = "plugin", value_name = "NAME", requires = "source")]
    pub(crate) plugins: Vec<String>,
    /// Show what the source offers (name, description, kind; grouped by plugin when it has
    /// plugins) and install nothing.
    #[arg(long, requires = "source")]
    pub(crate) list: bool,
    /// Install a published version of an agent-skills site (one its versions.json lists).
    #[arg(long, value_name = "VERSION", requires = "source")]
    pub(crate) version: Option<String>,
    /// Restore only when everything matches the records: fetch every recorded source and
    /// compare every skill first, and on any difference (a source that cannot be reached, a
    /// skill it no longer offers, another digest, a copy changed since) list them, write
    /// nothing and exit 1. For CI.
    #[arg(long, conflicts_with_all = ["source", "force"])]
    pub(crate) frozen: bool,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Only these skills (folder or skill names) [default: every installed skill].
    #[arg(value_name = "NAME")]
    pub(crate) names: Vec<String>,
    /// Give up on a source after this many seconds (1 to 600).
    #[arg(long, value_name = "SECONDS", default_value_t = skills::types::limits::DEFAULT_INSTALL_TIMEOUT_SECS)]
    pub(crate) timeout: u64,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

#[derive(Debug, Args)]
pub(crate) struct UpdateArgs {
    /// Only these skills (folder or skill names) [default: every installed skill].
    #[arg(value_name = "NAME", conflicts_with = "remote")]
    pub(crate) names: Vec<String>,
    /// Fetch the remote packs `urls` lists in skills.toml (listed in the remote scope) instead
    /// of updating installed skills. Each pack is audited before it is stored: one the audit
    /// refuses or asks about keeps its last good copy unless `--force` or `--yes` is given.
    #[arg(long)]
    pub(crate) remote: bool,
    /// Overwrite skills changed locally since they were installed; also writes new files
    /// (or stores a remote pack) the audit refuses (a critical finding), its findings still
    /// printed and recorded.
    #[arg(long)]
    pub(crate) force: bool,
    /// Agree to the audit's high findings in the new files (or a remote pack) without being
    /// asked.
    #[arg(short = 'y', long)]
    pub(crate) yes: bool,
    /// Give up on a source after this many seconds (1 to 600).
    #[arg(long, value_name = "SECONDS", default_value_t = skills::types::limits::DEFAULT_INSTALL_TIMEOUT_SECS)]
    pub(crate) timeout: u64,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

/// Where an install goes and how long it may take: the same for `install` and `registry
/// install`.
#[derive(Debug, Args)]
pub(crate) struct Placement {
    /// Where to install [default: user; project when `install` restores the records].
    #[arg(long, value_enum, value_name = "SCOPE")]
    pub(crate) scope: Option<WritableScope>,
    /// Which root of the scope to install into (app, agents, claude) [default: `[install]
    /// root` of the home skills.toml, else agents], and the agents that should see it too
    /// (repeatable: cursor, windsurf, ..., or detected; see `docs/cli.md`).
    #[arg(long, value_name = "AGENT", value_parser = agent_values(), ignore_case = true)]
    pub(crate) agent: Vec<String>,
    /// Give up after this many seconds (1 to 600).
    #[arg(long, value_name = "SECONDS", default_value_t = skills::types::limits::DEFAULT_INSTALL_TIMEOUT_SECS)]
    pub(crate) timeout: u64,
}

/// `skills registry ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum RegistryCommand {
    /// Every entry, by name. A cached catalog older than an hour is shown at once, then
    /// refreshed.
    Browse(RegistryBrowseArgs),
    /// Entries whose name, description or tags hold every word of QUERY (ignoring case),
    /// best match first.
    Search(RegistrySearchArgs),
    /// The categories, with how many entries each holds.
    Categories,
    /// The sources, with how many entries each holds.
    Sources,
    /// One entry as the registry describes it (a ClawHub skill with its moderation state).
    Show(RegistryShowArgs),
    /// Install an entry under its bare slug.
    #[command(after_help = local_http_help())]
    Install(RegistryInstallArgs),
}

#[derive(Debug, Args)]
pub(crate) struct RegistryBrowseArgs {
    /// Only entries of this category (ignoring case).
    #[arg(long, value_name = "CATEGORY")]
    pub(crate) category: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct RegistrySearchArgs {
    /// The words to look for.
    #[arg(value_name = "QUERY", num_args = 1.., required = true)]
    pub(crate) query: Vec<String>,
    /// Only entries of this category (ignoring case).
    #[arg(long, value_name = "CATEGORY")]
    pub(crate) category: Option<String>,
    /// Only entries of this source (ignoring case).
    #[arg(long, value_name = "SOURCE")]
    pub(crate) source: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct RegistryShowArgs {
    /// The entry: its name, `namespace/slug`, `@namespace/slug[@VERSION]` or
    /// `namespace--slug`.
    pub(crate) id: String,
}

#[derive(Debug, Args)]
pub(crate) struct RegistryInstallArgs {
    /// The entry: its name, `namespace/slug`, `@namespace/slug[@VERSION]` or
    /// `namespace--slug`.
    pub(crate) id: String,
    #[command(flatten)]
    pub(crate) placement: Placement,
    /// Replace a different skill installed under the same slug, even one from another
    /// namespace (atomically); also installs a skill the audit refuses (a critical finding),
    /// its findings still printed and recorded.
    #[arg(long)]
    pub(crate) force: bool,
    /// Agree to the audit's high findings without being asked (needed off a terminal).
    #[arg(short = 'y', long)]
    pub(crate) yes: bool,
}

impl Placement {
    /// The scope asked for, else `default`.
    pub(crate) fn scope_or(&self, default: WritableScope) -> skills::SkillScope {
        self.scope.unwrap_or(default).into()
    }
}

/// The roots of a scope `install --agent` and `new --agent` can write to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum AgentArg {
    /// `<app_dir>/skills`, read by this application alone
    App,
    /// `.agents/skills`, shared with Codex, Gemini CLI, OpenCode and others (the default)
    Agents,
    /// `.claude/skills`
    Claude,
}

impl From<AgentArg> for skills::install::AgentTarget {
    fn from(agent: AgentArg) -> Self {
        match agent {
            AgentArg::App => Self::App,
            AgentArg::Agents => Self::Agents,
            AgentArg::Claude => Self::Claude,
        }
    }
}

/// Every `--agent` value: the three roots, `detected`, and each agent of the table with its
/// aliases (so a typo is refused by the parser, and shells complete the names).
fn agent_values() -> clap::builder::PossibleValuesParser {
    let roots = AgentArg::value_variants()
        .iter()
        .filter_map(ValueEnum::to_possible_value);
    let detected = clap::builder::PossibleValue::new(skills::types::agents::DETECTED)
        .help("every agent whose config folder exists in the home or the workspace");
    let agents = skills::types::agents::AGENTS.iter().map(|agent| {
        clap::builder::PossibleValue::new(agent.name)
            .aliases(agent.aliases.iter().copied())
            .help(agent.display_name)
    });
    clap::builder::PossibleValuesParser::new(roots.chain([detected]).chain(agents))
}

/// `--agent` values as the request takes them: the one root named (`app`, `agents`,
/// `claude`), and every other value as an agent to reach. Two roots are refused: a skill is
/// written once.
pub(crate) fn agent_choice(
    values: &[String],
) -> Result<(Option<skills::install::AgentTarget>, Vec<String>), String> {
    let mut root: Option<AgentArg> = None;
    let mut agents = Vec::new();
    for value in values {
        match AgentArg::from_str(value, true) {
            Ok(named) => match root {
                Some(earlier) if earlier != named => {
                    return Err(format!(
                        "--agent names two roots ({} and {}); a skill is written into one root, and other agents are reached with --agent NAME",
                        earlier
                            .to_possible_value()
                            .map_or_else(String::new, |value| value.get_name().to_owned()),
                        value
                    ));
                }
                _ => root = Some(named),
            },
            Err(_) => agents.push(value.clone()),
        }
    }
    Ok((root.map(Into::into), agents))
}

#[derive(Debug, Args)]
pub(crate) struct TrustArgs {
    /// The workspace to trust or revoke [default: the workspace].
    #[arg(value_name = "PATH", conflicts_with = "list")]
    pub(crate) path: Option<PathBuf>,
    /// Remove your record of the workspace instead (also when its folder is gone).
    #[arg(long, conflicts_with = "list")]
    pub(crate) revoke: bool,
    /// Show every workspace you trust, and whether its folder is still the one you trusted.
    #[arg(long)]
    pub(crate) list: bool,
}

/// The scopes, as the command line spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ScopeArg {
    Legacy,
    Remote,
    User,
    Project,
    Profile,
}

impl From<ScopeArg> for skills::SkillScope {
    fn from(scope: ScopeArg) -> Self {
        match scope {
            ScopeArg::Legacy => Self::Legacy,
            ScopeArg::Remote => Self::Remote,
            ScopeArg::User => Self::User,
            ScopeArg::Project => Self::Project,
            ScopeArg::Profile => Self::Profile,
        }
    }
}

/// The scopes skills are created in and removed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum WritableScope {
    User,
    Project,
}

impl From<WritableScope> for skills::SkillScope {
    fn from(scope: WritableScope) -> Self {
        match scope {
            WritableScope::User => Self::User,
            WritableScope::Project => Self::Project,
        }
    }
}

/// The catalog formats, as the command line spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum FormatArg {
    Xml,
    Markdown,
    Json,
}

impl From<FormatArg> for skills::render::Format {
    fn from(format: FormatArg) -> Self {
        match format {
            FormatArg::Xml => Self::Xml,
            FormatArg::Markdown => Self::Markdown,
            FormatArg::Json => Self::Json,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct PublishArgs {
    /// Skill folders (holding SKILL.md), or folders whose subfolders are skills.
    #[arg(required = true, value_name = "DIR")]
    pub(crate) dirs: Vec<PathBuf>,
    /// The site root to write into (created when missing); only its
    /// .well-known/agent-skills/ folder is written.
    #[arg(long, value_name = "SITE")]
    pub(crate) out: PathBuf,
    /// Publish the skills that pass and list the others with why (exit status 1 when any is
    /// refused), instead of writing nothing when one fails. A refused skill the site already
    /// publishes keeps its earlier copy there.
    #[arg(long)]
    pub(crate) keep_going: bool,
}

#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    /// Skill folders (a path: ./pdf, /abs/skill, skills/pdf/SKILL.md) or catalog names;
    /// none: every skill of the catalog, every scope.
    #[arg(value_name = "PATH | NAME")]
    pub(crate) targets: Vec<String>,
    /// Exit 1 for a finding at or above this severity (info, low, medium, high, critical; any
    /// case) that is not accepted [default: `[audit] fail_on` of skills.toml, else high].
    #[arg(long, value_name = "SEVERITY", value_parser = parse_severity)]
    pub(crate) fail_on: Option<skills::audit::Severity>,
    /// Also write the findings as SARIF 2.1.0 to FILE, for code-scanning pages; `-` writes
    /// them to stdout instead of the report.
    #[arg(long, value_name = "FILE", conflicts_with = "accept")]
    pub(crate) sarif: Option<PathBuf>,
    /// Accept the findings of this skill as its files are now (every finding at or above
    /// the lowest `[audit]` threshold): they stop blocking until a byte of the skill changes.
    /// Recorded in your home, never in the workspace.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["targets", "fail_on"])]
    pub(crate) accept: Option<String>,
    #[command(flatten)]
    pub(crate) discovery: Discovery,
}

/// A severity in any case (`HIGH`, `high`), as `skills audit --fail-on` takes it.
fn parse_severity(text: &str) -> Result<skills::audit::Severity, String> {
    text.parse()
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
    /// What `skills list` loads: only what keeps a skill out of the catalog is an error.
    Lenient,
    /// agentskills plus platforms, triggers, legacy fields and x-* keys.
    Openhuman,
    /// agentskills plus x-astron-* keys, package rules and compliance claims.
    Skillhub,
    /// The fields and name rules Claude Code documents (disable-model-invocation, hooks, ...).
    ClaudeCode,
    /// The fields and name rules Codex documents (and its agents/openai.yaml).
    Codex,
    /// The fields and name rules OpenCode documents.
    Opencode,
}

impl From<ProfileArg> for Profile {
    fn from(profile: ProfileArg) -> Self {
        match profile {
            ProfileArg::Agentskills => Profile::Agentskills,
            ProfileArg::Lenient => Profile::Lenient,
            ProfileArg::Openhuman => Profile::Openhuman,
            ProfileArg::Skillhub => Profile::Skillhub,
            ProfileArg::ClaudeCode => Profile::ClaudeCode,
            ProfileArg::Codex => Profile::Codex,
            ProfileArg::Opencode => Profile::Opencode,
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
    fn every_scope_and_format_is_offered() {
        for scope in skills::SkillScope::ALL {
            let arg = ScopeArg::from_str(scope.as_str(), false).unwrap();
            assert_eq!(skills::SkillScope::from(arg), scope);
        }
        for format in skills::render::Format::ALL {
            let arg = FormatArg::from_str(format.as_str(), false).unwrap();
            assert_eq!(skills::render::Format::from(arg), format);
        }
    }

    #[test]
    fn every_runtime_and_language_is_offered() {
        for kind in skills::run::RuntimeKind::ALL {
            let arg = RuntimeArg::from_str(kind.as_str(), false).unwrap();
            assert_eq!(skills::run::RuntimeKind::from(arg), kind);
        }
        for lang in [
            skills::run::InlineLanguage::Node,
            skills::run::InlineLanguage::Python,
            skills::run::InlineLanguage::Sh,
        ] {
            let name = lang.runtime().as_str();
            let arg = LangArg::from_str(name, false).unwrap();
            assert_eq!(skills::run::InlineLanguage::from(arg), lang);
        }
    }

    #[test]
    fn run_arguments_after_the_separator_are_taken_literally() {
        let cli = Cli::try_parse_from([
            "skills",
            "run",
            "s",
            "scripts/x.py",
            "--yes",
            "--",
            "; touch x",
            "--input",
            "-e",
        ])
        .unwrap();
        let Command::Run(args) = cli.command else {
            panic!("not a run: {cli:?}");
        };
        assert_eq!(args.script.as_deref(), Some("scripts/x.py"));
        assert!(args.yes);
        assert!(args.inputs.is_empty());
        assert_eq!(args.args, ["; touch x", "--input", "-e"]);
        assert!(Cli::try_parse_from(["skills", "run", "s", "-e", "1"]).is_err());
        assert!(
            Cli::try_parse_from(["skills", "run", "s", "x.py", "-e", "1", "--lang", "sh"]).is_err()
        );
    }

    #[test]
    fn every_profile_is_offered() {
        for profile in Profile::ALL {
            let arg = ProfileArg::from_str(profile.as_str(), false).unwrap();
            assert_eq!(Profile::from(arg), profile);
        }
    }
}
