//! The first stage of a run: every check, before anything is registered, logged or spawned.
//! Every configuration file must be honoured (one that cannot be read or holds a policy key
//! that means nothing refuses the run, `config_invalid`, rather than let defaults stand in for
//! the user's rules), the skill must be found and allowed, the target must be exactly one thing the skill
//! bundles (a script reached with no symlink at any step, or inline code the home
//! configuration allows), the interpreter must exist, the inputs must fit what the skill
//! declares, a run that needs the user's confirmation must carry it, and the audit must find
//! nothing unaccepted at or above `[audit] refuse_on` in the skill's folder. What comes out is
//! the whole plan of the child process: program, argv, working directory, environment and
//! sandbox (the kernel is asked here whether it can enforce the one configured).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use skills_ops::reader::Refusal;
use skills_types::config::Permission;
use skills_types::run::{
    InlineLanguage, MAX_TIMEOUT_SECS, RunRequest, RunTarget, RuntimeKind, SANDBOXED_DEADLINE_SECS,
    ScriptLanguage,
};
use skills_types::runtime::{ConfirmMode, RuntimeConfig, SandboxMode};
use skills_types::{Error, SkillScope, SkillsConfig};

use crate::environment::{InUse, Place};
use crate::inherited_env::allowlisted_env;
use crate::inputs;
use crate::npm;
use crate::runtimes::{self, NODE_STRIPS_TYPES, Runtimes};
use crate::sandbox;

/// The bytes of a script read to find its `#!` line.
const SHEBANG_BYTES: usize = 256;

/// A run that passed every check: what to spawn and what to record.
#[derive(Clone, Debug)]
pub(crate) struct Prepared {
    /// The skill's name.
    pub(crate) skill: String,
    /// Its folder, absolute (a symlinked skill folder resolved to its target).
    pub(crate) skill_dir: PathBuf,
    /// What runs, in words (`script scripts/x.py`).
    pub(crate) target: String,
    /// The interpreter.
    pub(crate) program: PathBuf,
    /// Its version, when known.
    pub(crate) program_version: Option<String>,
    /// Everything after the program, each one argv element.
    pub(crate) argv: Vec<OsString>,
    /// The caller's arguments (also inside `argv`), for the log.
    pub(crate) args: Vec<String>,
    /// The environment, without `SKILL_RUN_ID` (the run has no id yet).
    pub(crate) env: Vec<(String, String)>,
    /// The names of the inputs given.
    pub(crate) input_names: Vec<String>,
    /// The deadline, clamped; `None` for none.
    pub(crate) timeout_secs: Option<u64>,
    /// The working directory: the workspace, the skill folder for npm, the environment for
    /// a setup step.
    pub(crate) cwd: PathBuf,
    /// The folders a sandboxed run may write besides its temporary folder: under
    /// `workspace-write` the workspace, the home's `[runtime] writable` folders and the skill
    /// folder of an npm install; under `read-only` none; for a setup step the skill's
    /// environment (and npm's cache).
    pub(crate) write_dirs: Vec<PathBuf>,
    /// The `[runtime]` key whose value is the run's network rule: `network`, or
    /// `setup_network` for a setup step (what a refusal names).
    pub(crate) network_key: &'static str,
    /// The skill's own environment, and whether this run takes its interpreter or modules.
    pub(crate) environment: Environment,
    /// What the child reads on stdin (a tool's arguments); `None` gives it a null stdin.
    pub(crate) stdin: Option<Vec<u8>>,
    /// The `[runtime]` settings in force.
    pub(crate) settings: RuntimeConfig,
    /// The sandbox the helper will apply; `None` for `sandbox = "off"`.
    pub(crate) sandbox: Option<sandbox::Plan>,
}

/// A run's view of the skill's environment (`skills setup`).
#[derive(Clone, Debug)]
pub(crate) struct Environment {
    /// Where it is (or would be).
    pub(crate) place: Place,
    /// The one set up, if any.
    pub(crate) in_use: Option<InUse>,
    /// Whether this run takes its interpreter (Python) or modules (Node) from it.
    pub(crate) used: bool,
    /// Whether this run is a step of a setup (no hint tells it to set itself up).
    pub(crate) setting_up: bool,
}

impl Prepared {
    /// The deadline as a duration.
    pub(crate) fn deadline(&self) -> Option<Duration> {
        self.timeout_secs.map(Duration::from_secs)
    }
}

/// Checks `request` and plans its process, or says why it cannot run.
pub(crate) fn prepare(
    runtimes: &Runtimes,
    config: &SkillsConfig,
    request: &RunRequest,
) -> Result<Prepared, Error> {
    prepare_for(runtimes, config, request, Purpose::Run)
}

/// What a run is for: the skill's declared inputs belong to its runs, not to its tools,
/// whose arguments (checked against the tool's own schema) are their inputs. A skill with a
/// required input can still serve tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    Run,
    Tool,
}

/// [`prepare`], for `purpose`.
pub(crate) fn prepare_for(
    runtimes: &Runtimes,
    config: &SkillsConfig,
    request: &RunRequest,
    purpose: Purpose,
) -> Result<Prepared, Error> {
    if config.read_only {
        return Err(Error::ReadOnly {
            action: "run code".to_owned(),
        });
    }
    runtimes.know(config);
    // A configuration file that exists but cannot be honoured refuses the run
    // (`config_invalid`): its rules are unknown, and defaults must not stand in for them.
    let effective = skills_ops::discover::run_policy(config)?;
    let settings = &effective.runtime;
    let skill = skills_ops::resources::describe(config, &request.skill)?;
    if skill.permission == Permission::Deny {
        return Err(denied(config, &skill.name));
    }
    if skill.scope == SkillScope::Profile && !in_current_profile(config, &skill.root) {
        return Err(Error::OtherProfile {
            skill: skill.name.clone(),
        });
    }
    let skill_dir = real_dir(&skill.dir)?;
    // The audit's gate, on the folder as it is now (no verdict is kept: a byte changed since
    // the last run is scanned again): an unaccepted finding at or above `refuse_on` refuses
    // every run of the skill, inline code and npm included, whatever `[runtime]` says.
    skills_audit::Reviewer::new(config)?.check_run("running", &skill.name, &skill_dir)?;
    let place = Place::of(config, &skill.name, &skill_dir)?;
    let in_use = place.in_use();
    let mut used = false;

    let (target, plan) = match &request.target {
        RunTarget::Script { path } => (format!("script {path}"), Plan::Script(path.clone())),
        RunTarget::Entry => {
            let (manifest, _) = skills_ops::discover::read_skill_manifest(&skill_dir);
            let Some(entry) = manifest.entry else {
                return Err(Error::InvalidInput(format!(
                    "the skill '{name}' declares no entry script (`entry = \"scripts/main.py\"` in its \
                     skill.toml); pass a script path instead (`skills run {name} scripts/NAME`) or \
                     inline code (`skills run {name} -e CODE --lang sh`)",
                    name = skill.name
                )));
            };
            (format!("entry {entry}"), Plan::Script(entry))
        }
        RunTarget::Inline { language, code } => {
            if !settings.allow_inline {
                // `forbidden`: nothing about the skill or the request is wrong; the user's
                // configuration does not offer this, and only the user may change it.
                return Err(Error::Forbidden {
                    reason: format!(
                        "inline code is refused because it runs no reviewed file; to allow it, \
                         set `[runtime] allow_inline = true` in the home {} (a workspace's file \
                         cannot)",
                        home_config_file(config).display()
                    ),
                });
            }
            (
                format!("inline {}", language.runtime().as_str()),
                Plan::Inline(*language, code.clone()),
            )
        }
        RunTarget::Npm { args } => (format!("npm {}", args.join(" ")), Plan::Npm(args.clone())),
        // The target is non-exhaustive: a kind this runtime does not know yet.
        _ => {
            return Err(Error::Unsupported {
                reason: "this kind of run target is not supported by this runtime".to_owned(),
            });
        }
    };

    let mut npm_plan = None;
    // Which interpreter kind runs the code, for the skill's environment below.
    let mut kind = None;
    let (mut program, program_version, mut argv) = match plan {
        Plan::Script(path) => {
            let (absolute, head, extension) = open_script(&skill_dir, &path)?;
            let interpreter =
                interpreter_for(runtimes, settings, &path, &extension, &head, &skill_dir)?;
            // Only Python and Node have a skill environment; a shell script runs as it is.
            kind = ScriptLanguage::of(&path, &head)
                .map(ScriptLanguage::runtime)
                .filter(|runtime| matches!(runtime, RuntimeKind::Python | RuntimeKind::Node));
            (
                interpreter.0,
                interpreter.1,
                vec![absolute.into_os_string()],
            )
        }
        Plan::Inline(language, code) => {
            kind = Some(language.runtime());
            let info = usable(runtimes, settings, language.runtime())?;
            let flag = match language {
                InlineLanguage::Node => "-e",
                InlineLanguage::Python => "-c",
                InlineLanguage::Sh => "-c",
            };
            let mut argv = vec![OsString::from(flag), OsString::from(code)];
            if language == InlineLanguage::Sh {
                // `sh -c CODE a b` makes `a` the script's `$0`; the skill's name takes that
                // place so the arguments are `$1`, `$2`, ... as in a script file.
                argv.push(OsString::from(&skill.name));
            }
            (info.0, info.1, argv)
        }
        Plan::Npm(args) => {
            let npm = usable(runtimes, settings, RuntimeKind::Npm)?;
            // npm is a node script: the node it finds first on PATH must be the one resolved.
            let node = usable(runtimes, settings, RuntimeKind::Node)?;
            let plan = npm::plan(config, settings, &skill_dir, &args, &request.args)?;
            let argv = plan.argv.clone();
            npm_plan = Some((plan, node.0));
            (npm.0, npm.1, argv)
        }
    };
    if npm_plan.is_none() {
        argv.extend(request.args.iter().map(OsString::from));
    }
    // A skill set up with `skills setup` runs Python in its own virtual environment (made
    // with the interpreter chosen above, which it links to), and Node with its
    // `node_modules` on `NODE_PATH`.
    let mut node_path = None;
    if let Some(in_use) = &in_use {
        match kind {
            Some(RuntimeKind::Python) => {
                if let Some(python) = in_use.python_for(&program) {
                    program = python;
                    used = true;
                }
            }
            Some(RuntimeKind::Node) => {
                node_path = in_use.node_modules();
                used = node_path.is_some();
            }
            _ => {}
        }
    }

    let declared: &[skills_types::skill::SkillInput] = match purpose {
        Purpose::Run => &skill.inputs,
        Purpose::Tool => &[],
    };
    let checked = inputs::check(declared, &request.inputs)?;

    if let Some(reason) = confirmation_needed(settings.confirm, skill.scope, skill.permission)
        && !request.confirmed
    {
        return Err(Error::NeedsConfirmation {
            skill: skill.name.clone(),
            reason: reason.to_owned(),
        });
    }

    // Last of the checks: whether the kernel can enforce the configured sandbox.
    let sandbox = sandbox::plan(settings)?;

    let mut env = allowlisted_env(settings);
    env.push(("SKILL_DIR".to_owned(), skill_dir.display().to_string()));
    env.push(("SKILL_NAME".to_owned(), skill.name.clone()));
    env.extend(checked.env());
    if let Some(modules) = node_path {
        env.push(("NODE_PATH".to_owned(), modules.display().to_string()));
    }
    if let Some(bin) = runtimes.managed_bin() {
        runtimes::prepend_path(&mut env, &bin);
    }
    let (cwd, extra_writable) = match npm_plan {
        Some((plan, node)) => {
            if let Some(dir) = node.parent() {
                runtimes::prepend_path(&mut env, dir);
            }
            env.extend(plan.env);
            (skill_dir.clone(), plan.extra_writable)
        }
        None => (config.workspace.clone(), Vec::new()),
    };
    let write_dirs = match (&sandbox, settings.sandbox) {
        (Some(_), SandboxMode::WorkspaceWrite) => {
            let mut dirs = vec![config.workspace.clone()];
            dirs.extend(writable_folders(config, settings)?);
            dirs.extend(extra_writable);
            dirs
        }
        _ => Vec::new(),
    };

    Ok(Prepared {
        skill: skill.name.clone(),
        skill_dir,
        target,
        program,
        program_version,
        argv,
        args: request.args.clone(),
        env,
        input_names: checked.names(),
        timeout_secs: deadline(request.timeout_secs, sandbox.is_some()),
        cwd,
        write_dirs,
        network_key: "network",
        environment: Environment {
            place,
            in_use,
            used,
            setting_up: false,
        },
        stdin: None,
        settings: settings.clone(),
        sandbox,
    })
}

/// The home's `[runtime] writable` folders, each resolved (a link the user made is followed:
/// the sandbox's bind mount and Landlock rule name the folder it leads to). A folder that is
/// not there refuses the run, naming it: granting nothing quietly would fail later, inside
/// the script, with a message that names neither the folder nor the setting.
fn writable_folders(
    config: &SkillsConfig,
    settings: &RuntimeConfig,
) -> Result<Vec<PathBuf>, Error> {
    settings
        .writable
        .iter()
        .map(|folder| match std::fs::canonicalize(folder) {
            Ok(resolved) if resolved.is_dir() => Ok(resolved),
            found => Err(Error::ConfigInvalid {
                path: home_config_file(config),
                reason: format!(
                    "`[runtime] writable` names {}, which {}; create the folder or take it off the list",
                    folder.display(),
                    match found {
                        Ok(_) => "is not a folder".to_owned(),
                        Err(error) => format!("cannot be used ({error})"),
                    }
                ),
            }),
        })
        .collect()
}

/// The home `skills.toml`, for messages.
pub(crate) fn home_config_file(config: &SkillsConfig) -> PathBuf {
    config
        .home
        .join(&config.app_dir)
        .join(skills_ops::discover::CONFIG_FILE)
}

/// One step of a setup (`setup.rs`) as a run: a program the runtime chose, with its argv,
/// working directory, environment and writable folders, under the home's sandbox with the
/// network rule of `setup_network`.
pub(crate) struct Step<'a> {
    pub(crate) skill: &'a str,
    pub(crate) skill_dir: &'a Path,
    pub(crate) place: &'a Place,
    pub(crate) target: String,
    pub(crate) program: PathBuf,
    pub(crate) program_version: Option<String>,
    pub(crate) argv: Vec<OsString>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) cwd: PathBuf,
    pub(crate) write_dirs: Vec<PathBuf>,
}

/// Plans `step` as a run under `settings` (the effective `[runtime]`).
pub(crate) fn step(settings: &RuntimeConfig, step: Step<'_>) -> Result<Prepared, Error> {
    let mut settings = settings.clone();
    settings.network = settings.setup_network;
    let sandbox = sandbox::plan(&settings)?;
    Ok(Prepared {
        skill: step.skill.to_owned(),
        skill_dir: step.skill_dir.to_path_buf(),
        target: step.target,
        program: step.program,
        program_version: step.program_version,
        argv: step.argv,
        args: Vec::new(),
        env: step.env,
        input_names: Vec::new(),
        // Installing packages can take a while, but not for ever.
        timeout_secs: deadline(Some(MAX_TIMEOUT_SECS), sandbox.is_some()),
        cwd: step.cwd,
        write_dirs: if sandbox.is_some() {
            step.write_dirs
        } else {
            Vec::new()
        },
        network_key: "setup_network",
        environment: Environment {
            place: step.place.clone(),
            in_use: None,
            used: false,
            setting_up: true,
        },
        stdin: None,
        settings,
        sandbox,
    })
}

enum Plan {
    Script(String),
    Inline(InlineLanguage, String),
    Npm(Vec<String>),
}

/// `None` and `0` are no deadline; anything else is clamped to 1..=1800 seconds.
pub(crate) fn clamp_timeout(seconds: Option<u64>) -> Option<u64> {
    seconds
        .filter(|&seconds| seconds > 0)
        .map(|seconds| seconds.clamp(1, MAX_TIMEOUT_SECS))
}

/// The deadline of a run: the clamped one asked for; a sandboxed run that asked for none
/// still gets [`SANDBOXED_DEADLINE_SECS`], so no confined process runs forever.
pub(crate) fn deadline(seconds: Option<u64>, sandboxed: bool) -> Option<u64> {
    clamp_timeout(seconds).or(sandboxed.then_some(SANDBOXED_DEADLINE_SECS))
}

/// Why a run of this skill needs the user's yes, if it does. A skill that came with the
/// workspace (project, legacy or profile scope) always does: a cloned repository chose it,
/// not the user.
pub(crate) fn confirmation_needed(
    confirm: ConfirmMode,
    scope: SkillScope,
    permission: Permission,
) -> Option<&'static str> {
    if confirm == ConfirmMode::Always {
        Some("the home configuration says `[runtime] confirm = \"always\"`")
    } else if matches!(
        scope,
        SkillScope::Project | SkillScope::Legacy | SkillScope::Profile
    ) {
        Some("it comes with the workspace (a project skill), not from the user")
    } else if permission == Permission::Ask && confirm != ConfirmMode::Never {
        Some("its permission is `ask`")
    } else {
        None
    }
}

pub(crate) fn in_current_profile(config: &SkillsConfig, root: &Path) -> bool {
    skills_ops::discover::profile_root(config).is_some_and(|own| own == root)
}

/// `denied` for a skill whose permission is `deny`, naming the rule that decided. Discovery
/// hides denied skills, so reaching this is a second lock on the same door; the rule is read
/// again from the configuration rather than guessed.
pub(crate) fn denied(config: &SkillsConfig, name: &str) -> Error {
    let (_, rule) = skills_ops::discover::permission(config, name);
    Error::SkillDenied {
        name: name.to_owned(),
        pattern: rule.unwrap_or_else(|| name.to_owned()),
    }
}

/// The folder a skill's files are read from: a skill reached through a symlinked folder
/// (which discovery vetted) runs from its target, so the no-symlink walk starts there.
pub(crate) fn real_dir(dir: &Path) -> Result<PathBuf, Error> {
    let metadata =
        std::fs::symlink_metadata(dir).map_err(|source| Error::io("inspect", dir, source))?;
    let dir = if metadata.is_symlink() {
        std::fs::canonicalize(dir).map_err(|source| Error::io("resolve", dir, source))?
    } else {
        dir.to_path_buf()
    };
    if dir.is_absolute() {
        Ok(dir)
    } else {
        std::path::absolute(&dir).map_err(|source| Error::io("resolve", &dir, source))
    }
}

fn refused(path: &str, refusal: &Refusal) -> Error {
    Error::PathRefused {
        path: path.to_owned(),
        reason: refusal.to_string(),
        refusal: refusal.kind(),
    }
}

/// Checks that `relative` names a regular file inside `dir`, reached with no symlink at any
/// step, and returns its absolute path, its first bytes and its extension. Each component is
/// opened relative to the one before with `O_NOFOLLOW`, so a link a repository committed
/// (`scripts -> /usr/bin`) is refused rather than followed.
fn open_script(dir: &Path, relative: &str) -> Result<(PathBuf, Vec<u8>, String), Error> {
    use std::io::Read as _;

    use rustix::fd::{AsFd as _, OwnedFd};
    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    use rustix::io::Errno;

    let stripped = skills_types::path::strip_current_dir_prefix(relative);
    let components = skills_types::path::check_relative(stripped)
        .map_err(|refusal| refused(relative, &Refusal::Path(refusal)))?;
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let errno_refusal = |errno: Errno| match errno {
        Errno::LOOP => Refusal::Symlink,
        Errno::NOENT | Errno::NOTDIR => Refusal::NotFound,
        Errno::NXIO => Refusal::NotAFile("socket"),
        other => Refusal::Io(other.to_string()),
    };
    let root: PathBuf = dir.components().collect();
    let mut current: OwnedFd = rustix::fs::open(&root, flags | OFlags::DIRECTORY, Mode::empty())
        .map_err(|errno| refused(relative, &Refusal::RootUnavailable(errno.to_string())))?;
    let Some((last, folders)) = components.split_last() else {
        return Err(refused(relative, &Refusal::NotFound));
    };
    for folder in folders {
        current = rustix::fs::openat(&current, *folder, flags | OFlags::DIRECTORY, Mode::empty())
            .map_err(|errno| {
            // `O_DIRECTORY | O_NOFOLLOW` on a symlink answers ENOTDIR; say what it is.
            let linked = rustix::fs::statat(current.as_fd(), *folder, AtFlags::SYMLINK_NOFOLLOW)
                .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Symlink);
            refused(
                relative,
                &if linked {
                    Refusal::Symlink
                } else {
                    errno_refusal(errno)
                },
            )
        })?;
    }
    let file = rustix::fs::openat(&current, *last, flags, Mode::empty())
        .map_err(|errno| refused(relative, &errno_refusal(errno)))?;
    let stat = rustix::fs::fstat(&file)
        .map_err(|errno| refused(relative, &Refusal::Io(errno.to_string())))?;
    let kind = match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => None,
        FileType::Directory => Some(Refusal::NotAFile("folder")),
        FileType::Fifo => Some(Refusal::NotAFile("FIFO")),
        FileType::CharacterDevice => Some(Refusal::NotAFile("character device")),
        FileType::BlockDevice => Some(Refusal::NotAFile("block device")),
        FileType::Socket => Some(Refusal::NotAFile("socket")),
        FileType::Symlink => Some(Refusal::Symlink),
        FileType::Unknown => Some(Refusal::NotAFile("special file")),
    };
    if let Some(refusal) = kind {
        return Err(refused(relative, &refusal));
    }
    let mut head = Vec::with_capacity(SHEBANG_BYTES);
    drop(
        std::fs::File::from(file)
            .take(SHEBANG_BYTES as u64)
            .read_to_end(&mut head),
    );
    let mut absolute = root;
    absolute.extend(&components);
    let extension = last
        .rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase())
        .unwrap_or_default();
    Ok((absolute, head, extension))
}

/// The interpreter of a script: by its extension, the `#!` line of a `.sh`, or the skill's
/// `[interpreters]` table for any other extension.
fn interpreter_for(
    runtimes: &Runtimes,
    settings: &RuntimeConfig,
    path: &str,
    extension: &str,
    head: &[u8],
    skill_dir: &Path,
) -> Result<(PathBuf, Option<String>), Error> {
    match ScriptLanguage::of(path, head) {
        Some(ScriptLanguage::JavaScript) => usable(runtimes, settings, RuntimeKind::Node),
        Some(ScriptLanguage::Python) => usable(runtimes, settings, RuntimeKind::Python),
        Some(ScriptLanguage::Bash) => {
            let bash = runtimes::find_on_path(settings, "bash").ok_or_else(|| {
                Error::RuntimeUnavailable {
                    runtime: "bash".to_owned(),
                    reason: format!("{path} asks for bash in its #! line; looked for `bash` on PATH and found none"),
                }
            })?;
            Ok((bash, None))
        }
        Some(ScriptLanguage::Sh) => usable(runtimes, settings, RuntimeKind::Sh),
        Some(ScriptLanguage::TypeScript) => {
            let node = usable(runtimes, settings, RuntimeKind::Node)?;
            let strips = node
                .1
                .as_deref()
                .and_then(runtimes::parse_version)
                .is_some_and(|version| version >= NODE_STRIPS_TYPES);
            if strips {
                Ok(node)
            } else {
                Err(Error::RuntimeUnavailable {
                    runtime: "node".to_owned(),
                    reason: format!(
                        "{path} is TypeScript, which runs only with a node that strips types ({}.{} or newer); {} is {}",
                        NODE_STRIPS_TYPES.0,
                        NODE_STRIPS_TYPES.1,
                        node.0.display(),
                        node.1.as_deref().unwrap_or("of an unknown version")
                    ),
                })
            }
        }
        None => {
            let other = extension;
            let (manifest, diagnostics) = skills_ops::discover::read_skill_manifest(skill_dir);
            let Some(program) = manifest.interpreters.get(other) else {
                // The sidecar reader drops an unusable entry (a path, a bad name) with a
                // diagnostic; say so rather than only that none is declared.
                let key = format!("interpreters.{other}");
                let ignored = diagnostics
                    .iter()
                    .find(|diagnostic| !other.is_empty() && diagnostic.message.contains(&key))
                    .map(|diagnostic| {
                        format!(
                            "; the skill.toml's entry was not taken: {}",
                            diagnostic.message
                        )
                    })
                    .unwrap_or_default();
                return Err(Error::InvalidInput(format!(
                    "no interpreter for {path}: .js .mjs .cjs run with node, .py with python, .sh with sh, \
                     .ts with node ≥ 23.6; for another extension the skill's skill.toml must name one \
                     (`[interpreters] {} = \"PROGRAM\"`, a program name looked up on PATH){ignored}",
                    if other.is_empty() { "EXT" } else { other }
                )));
            };
            if program.is_empty() || program.contains(['/', '\\']) {
                return Err(Error::InvalidInput(format!(
                    "the skill's `[interpreters] {other}` is '{}'; it must be a program name looked up on PATH, not a path",
                    program.escape_debug()
                )));
            }
            let found = runtimes::find_on_path(settings, program).ok_or_else(|| {
                Error::RuntimeUnavailable {
                    runtime: program.clone(),
                    reason: format!("looked for `{program}` on PATH (the skill's interpreter for .{other}) and found none"),
                }
            })?;
            Ok((found, None))
        }
    }
}

/// The path and version of `kind`, or why no run may use it.
pub(crate) fn usable(
    runtimes: &Runtimes,
    settings: &RuntimeConfig,
    kind: RuntimeKind,
) -> Result<(PathBuf, Option<String>), Error> {
    let info = runtimes.get(settings, kind);
    match (&info.path, info.usable) {
        (Some(path), true) => Ok((path.clone(), info.version.clone())),
        _ => Err(Error::RuntimeUnavailable {
            runtime: kind.as_str().to_owned(),
            reason: info
                .problem
                .unwrap_or_else(|| format!("looked for {}", info.looked_for)),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_denial_names_the_rule_that_decided_and_a_profile_is_its_own_root() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = SkillsConfig::new(dir.path(), dir.path());
        config.permissions = vec![
            skills_types::config::PermissionRule {
                pattern: "*".into(),
                permission: Permission::Ask,
            },
            skills_types::config::PermissionRule {
                pattern: "pdf*".into(),
                permission: Permission::Deny,
            },
        ];
        match denied(&config, "pdf-tools") {
            Error::SkillDenied { name, pattern } => {
                assert_eq!((name.as_str(), pattern.as_str()), ("pdf-tools", "pdf*"));
            }
            other => panic!("{other:?}"),
        }

        config.profile = Some("writer".to_owned());
        let own = dir.path().join("personalities/writer/skills");
        assert!(in_current_profile(&config, &own));
        assert!(!in_current_profile(
            &config,
            &dir.path().join("elsewhere/personalities/writer/skills")
        ));
        assert!(!in_current_profile(
            &config,
            &dir.path().join("personalities/other/skills")
        ));
        config.profile = Some("../writer".to_owned());
        assert!(!in_current_profile(&config, &own));
    }

    #[test]
    fn a_sh_script_runs_with_bash_only_when_its_line_names_bash() {
        let of = |head: &[u8]| ScriptLanguage::of("scripts/x.sh", head);
        assert_eq!(of(b"#!/bin/bash\necho"), Some(ScriptLanguage::Bash));
        assert_eq!(of(b"#!/usr/bin/env bash\n"), Some(ScriptLanguage::Bash));
        assert_eq!(of(b"#! /bin/sh -e\n"), Some(ScriptLanguage::Sh));
        assert_eq!(of(b"#!/usr/bin/zsh\n"), Some(ScriptLanguage::Sh));
        assert_eq!(of(b"echo hi\n"), Some(ScriptLanguage::Sh));
    }

    #[test]
    fn deadlines_are_clamped() {
        assert_eq!(clamp_timeout(None), None);
        assert_eq!(clamp_timeout(Some(0)), None);
        assert_eq!(clamp_timeout(Some(5)), Some(5));
        assert_eq!(clamp_timeout(Some(99_999)), Some(MAX_TIMEOUT_SECS));
        assert_eq!(deadline(None, false), None);
        assert_eq!(deadline(Some(0), true), Some(SANDBOXED_DEADLINE_SECS));
        assert_eq!(deadline(None, true), Some(24 * 60 * 60));
        assert_eq!(deadline(Some(5), true), Some(5));
    }

    #[test]
    fn confirmation_follows_scope_permission_and_setting() {
        use ConfirmMode::{Always, Ask, Never};
        assert!(confirmation_needed(Ask, SkillScope::User, Permission::Allow).is_none());
        assert!(confirmation_needed(Ask, SkillScope::User, Permission::Ask).is_some());
        assert!(confirmation_needed(Never, SkillScope::User, Permission::Ask).is_none());
        assert!(confirmation_needed(Never, SkillScope::Project, Permission::Allow).is_some());
        assert!(confirmation_needed(Always, SkillScope::User, Permission::Allow).is_some());
    }
}
