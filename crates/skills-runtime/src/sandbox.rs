//! The sandbox (07 §Sandbox, issue 29): what a run may write, whether it may reach the
//! network, and the process boundary around it, enforced by the kernel on the run's own
//! processes before the interpreter starts.
//!
//! The workspace forbids `unsafe`, and restricting a child between `fork` and `exec` needs a
//! `pre_exec` hook, which is `unsafe`. So the restriction is applied by a helper process
//! instead: the spawner starts a program whose `main` calls [`sandbox_main`] first (the
//! `skills` binary does, and so can an agent core) with the argv
//! `[MARKER, POLICY_JSON, "--", INTERPRETER, ARGS...]`. The helper runs in two stages
//! (`isolate.rs`): the outer stage closes inherited descriptors and enters new user, mount
//! and PID namespaces; the init stage, PID 1 of those, makes every mount read-only but the
//! folders the run may write, mounts a `/proc` that shows the run's processes alone,
//! restricts itself with Landlock and seccomp (`linux.rs`) and starts the interpreter. A
//! stage that cannot do its part in full refuses (exit [`REFUSED_EXIT`], one line on
//! stderr): nothing of the skill runs then. The policy travels as one argv element, never in
//! the environment: the child's environment is the cleaned one and must stay exactly that.
//!
//! The parent decides before anything is registered ([`plan`]): it reads the kernel's
//! Landlock ABI and whether user namespaces can be made, and refuses with
//! `sandbox_unavailable` when the configured mode needs more than the machine has. The
//! helper checks again on its own, so a wrong decision in the parent can only end in a
//! refusal, never in a run with less than was configured. `docs/sandbox.md` says which layer
//! closes which door.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use skills_types::Error;
use skills_types::runtime::{NetworkMode, RuntimeConfig, SandboxMode};

#[cfg(target_os = "linux")]
mod isolate;
#[cfg(target_os = "linux")]
mod linux;

/// `argv[1]` of a helper invocation. No command line of the `skills` binary (or a sensible
/// agent core) starts with it, so the dispatch cannot take an ordinary invocation. Versioned
/// with the protocol: a helper built before the two-stage boundary (issue 29) does not know
/// this marker and takes the line for a command line it refuses, so it can never run a
/// script with the older, fewer layers.
pub const MARKER: &str = "__skills-sandbox-v2";

/// `argv[1]` of the helper's init stage, which the outer stage starts as PID 1 of the run's
/// namespace: `[INIT_MARKER, POLICY_JSON, HANDOFF_JSON, "--", INTERPRETER, ARGS...]`.
pub(crate) const INIT_MARKER: &str = "__skills-sandbox-v2-init";

/// The helper's exit status when it refuses to exec (a policy it cannot enforce in full):
/// distinct from any status the interpreter is likely to use, and the one `env` and `timeout`
/// use for "the wrapper failed".
pub(crate) const REFUSED_EXIT: i32 = 125;

/// What the helper prints before its one-line reason, so the parent can tell its refusal from
/// a script that happens to exit 125.
pub(crate) const REFUSED_PREFIX: &str = "skills sandbox refused: ";

/// The lowest Landlock ABI that confines writes: ABI 3 handles `truncate(2)`, which ABI 1
/// and 2 leave open (a script could empty any file it may read). Renames and links across
/// folders (ABI 2's "refer") are handled from there too.
pub(crate) const MIN_FS_ABI: u8 = 3;
/// The lowest Landlock ABI with network rules (TCP bind and connect).
pub(crate) const MIN_NET_ABI: u8 = 4;
/// The highest Landlock ABI whose rights this policy was written for and tested with: ABI 5
/// adds device ioctls (no `TIOCSTI` into the user's terminal), ABI 6 scopes signals and
/// abstract Unix sockets to the sandbox. A newer kernel is used at this level.
pub(crate) const MAX_ABI: u8 = 6;

/// Files a run may always write: writing to them discards the data or reads back zeros.
/// `/dev/tty` is not one: a script's output is captured, so it has no business writing to
/// the user's terminal (and from ABI 5 no ioctl on it, such as `TIOCSTI`, is allowed).
const NULL_DEVICES: [&str; 2] = ["/dev/null", "/dev/zero"];

/// Whether this process called [`sandbox_main`] (so its own executable can be the helper).
static DISPATCHES: AtomicBool = AtomicBool::new(false);

/// What the helper enforces, as the parent planned it: one JSON argv element. A field this
/// helper does not know is refused, so a newer parent's restriction is never dropped by an
/// older helper.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Policy {
    /// The Landlock ABI whose rights are all handled; every one must be enforced.
    pub(crate) abi: u8,
    /// Folders the run may write under (everything else is read-only).
    pub(crate) write_dirs: Vec<PathBuf>,
    /// Single files the run may write (the null devices).
    pub(crate) write_files: Vec<PathBuf>,
    /// Whether the run may open network connections.
    pub(crate) network: NetworkMode,
    /// The pid of the process that supervises the run: the helper dies with it, and refuses
    /// to start when it is already gone.
    pub(crate) supervisor: u32,
}

/// What the outer stage tells the init stage, as one argv element after the policy.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Handoff {
    /// The descriptor (inherited, not close-on-exec) the status line is written to.
    pub(crate) status_fd: i32,
    /// The outer stage's pid, as the host sees it: the init stage's parent.
    pub(crate) parent: u32,
    /// The caller's real uid and gid, mapped back for the script.
    pub(crate) uid: u32,
    pub(crate) gid: u32,
}

/// A sandboxed run's plan, decided before the run is registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// The sandbox that will be applied.
    pub(crate) mode: SandboxMode,
    /// The network rule that will be applied.
    pub(crate) network: NetworkMode,
    /// The Landlock ABI the helper handles.
    pub(crate) abi: u8,
    /// The helper program.
    pub(crate) helper: PathBuf,
}

/// The helper entry: call it first thing in `main`. When this process was started as the
/// sandbox helper (`argv[1]` is [`MARKER`]), it isolates and restricts the run as the policy
/// in `argv[2]` says, runs the interpreter that follows `--` and ends with its status; it
/// never returns then (a policy it cannot enforce in full ends the process with status 125
/// and a one-line reason on stderr). Otherwise it returns at once, and remembers that this
/// program can be its own helper.
pub fn sandbox_main() {
    let mut args = std::env::args_os();
    let stage = match args.nth(1) {
        Some(marker) if marker == MARKER => Stage::Outer,
        Some(marker) if marker == INIT_MARKER => Stage::Init,
        _ => {
            DISPATCHES.store(true, Ordering::SeqCst);
            return;
        }
    };
    let (status, line) = match helper(stage, args.collect()) {
        Ok(Ending::Exit(code)) => std::process::exit(code),
        Ok(Ending::Signal(signal)) => end_by_signal(signal),
        Err(Failure::Refused(reason)) => (REFUSED_EXIT, format!("{REFUSED_PREFIX}{reason}")),
        // Restricted, but the interpreter could not be started: what a shell says for a
        // command it cannot run.
        Err(Failure::Exec(reason)) => (127, format!("skills sandbox: {reason}")),
    };
    eprintln!("{line}");
    std::process::exit(status);
}

/// Which stage of the helper this process is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Started by the supervisor: isolates, then starts the init stage.
    Outer,
    /// PID 1 of the run's namespace: restricts, then runs the interpreter.
    Init,
}

/// Why the helper did not run the interpreter to its end.
#[derive(Debug)]
enum Failure {
    /// The policy could not be read or enforced in full: nothing ran.
    Refused(String),
    /// The restriction is in force, and the interpreter could not be started.
    Exec(String),
}

/// How the interpreter ended, as a stage passes it on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    Exit(i32),
    Signal(i32),
}

impl Ending {
    /// The line the init stage writes to the outer stage.
    #[cfg_attr(not(target_os = "linux"), expect(dead_code, reason = "Linux only"))]
    fn line(self) -> String {
        match self {
            Self::Exit(code) => format!("exit {code}"),
            Self::Signal(signal) => format!("signal {signal}"),
        }
    }

    #[cfg_attr(not(target_os = "linux"), expect(dead_code, reason = "Linux only"))]
    fn parse(line: &str) -> Option<Self> {
        let (kind, number) = line.trim().split_once(' ')?;
        let number = number.parse().ok()?;
        match kind {
            "exit" => Some(Self::Exit(number)),
            "signal" => Some(Self::Signal(number)),
            _ => None,
        }
    }

    /// The status a shell would show for it.
    #[cfg_attr(not(target_os = "linux"), expect(dead_code, reason = "Linux only"))]
    fn exit_code(self) -> i32 {
        match self {
            Self::Exit(code) => code,
            Self::Signal(signal) => 128 + signal,
        }
    }
}

/// The helper's work after the marker: parse, then the stage's own work.
fn helper(stage: Stage, args: Vec<OsString>) -> Result<Ending, Failure> {
    let refused = |reason: &str| Failure::Refused(reason.to_owned());
    let mut args = args.into_iter();
    let policy_text = args
        .next()
        .ok_or_else(|| refused("no policy after the marker"))?;
    let policy: Policy = policy_text
        .to_str()
        .ok_or_else(|| refused("a policy that is not UTF-8"))
        .and_then(|text| {
            serde_json::from_str(text)
                .map_err(|error| Failure::Refused(format!("unreadable policy: {error}")))
        })?;
    let handoff = match stage {
        Stage::Outer => None,
        Stage::Init => Some(
            args.next()
                .and_then(|text| serde_json::from_str(text.to_str()?).ok())
                .ok_or_else(|| refused("no handoff after the policy"))?,
        ),
    };
    if args.next().as_deref() != Some("--".as_ref()) {
        return Err(refused("no `--` after the policy"));
    }
    let command: Vec<OsString> = args.collect();
    if command.is_empty() {
        return Err(refused("no program after `--`"));
    }
    run_stage(&policy, &policy_text, handoff.as_ref(), &command)
}

#[cfg(target_os = "linux")]
fn run_stage(
    policy: &Policy,
    policy_text: &std::ffi::OsStr,
    handoff: Option<&Handoff>,
    command: &[OsString],
) -> Result<Ending, Failure> {
    if !(MIN_FS_ABI..=MAX_ABI).contains(&policy.abi) {
        return Err(Failure::Refused(format!(
            "the policy asks for Landlock ABI {}, outside what this helper enforces",
            policy.abi
        )));
    }
    match handoff {
        None => isolate::outer(policy, policy_text, command),
        Some(handoff) => isolate::init(policy, handoff, command),
    }
}

#[cfg(not(target_os = "linux"))]
fn run_stage(
    _policy: &Policy,
    _policy_text: &std::ffi::OsStr,
    _handoff: Option<&Handoff>,
    _command: &[OsString],
) -> Result<Ending, Failure> {
    Err(Failure::Refused(
        "there is no sandbox on this platform".to_owned(),
    ))
}

#[cfg(target_os = "linux")]
fn end_by_signal(signal: i32) -> ! {
    isolate::end_by_signal(signal)
}

#[cfg(not(target_os = "linux"))]
fn end_by_signal(signal: i32) -> ! {
    std::process::exit(128 + signal)
}

#[cfg(target_os = "linux")]
fn restrict(policy: &Policy) -> Result<(), String> {
    linux::restrict(policy)
}

/// The Landlock ABI of the running kernel, as far as this policy uses it (0 when Landlock is
/// missing or disabled, at most [`MAX_ABI`]).
pub(crate) fn kernel_abi() -> u8 {
    #[cfg(target_os = "linux")]
    {
        linux::kernel_abi()
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// The sandbox a run will get, or why it cannot run: `None` for `sandbox = "off"`. Decided
/// before the run is registered, so a refusal leaves nothing behind.
pub(crate) fn plan(settings: &RuntimeConfig) -> Result<Option<Plan>, Error> {
    if settings.sandbox == SandboxMode::Off {
        return Ok(None);
    }
    if !cfg!(target_os = "linux") {
        return Err(Error::SandboxUnavailable {
            missing: format!(
                "this platform has no sandbox, and `[runtime] sandbox = \"{}\"` asks for one \
                 (\"off\" is the only value outside Linux)",
                mode_name(settings.sandbox)
            ),
        });
    }
    let kernel = kernel_abi();
    // The simulated ceiling only decides refusals; the helper still handles every right the
    // kernel has, so the test hook can never make a run that goes ahead looser.
    let abi = settings
        .landlock_abi_ceiling
        .map_or(kernel, |ceiling| ceiling.min(kernel));
    let simulated = if abi < kernel {
        format!(" (limited to {abi} for this test; the kernel has {kernel})")
    } else {
        String::new()
    };
    if abi < MIN_FS_ABI {
        return Err(Error::SandboxUnavailable {
            missing: format!(
                "`[runtime] sandbox = \"{}\"` needs Landlock ABI {MIN_FS_ABI} or newer (Linux \
                 6.2+, with landlock in the kernel's `lsm=` list), and this kernel's ABI is \
                 {abi}{simulated}",
                mode_name(settings.sandbox)
            ),
        });
    }
    if settings.network == NetworkMode::Deny && abi < MIN_NET_ABI {
        return Err(Error::SandboxUnavailable {
            missing: format!(
                "`[runtime] network = \"deny\"` needs Landlock ABI {MIN_NET_ABI} or newer (Linux \
                 6.7+) for its network rules, and this kernel's ABI is {abi}{simulated}; set \
                 `network = \"allow\"` in the home skills.toml to run with files confined only"
            ),
        });
    }
    if let Some(missing) = user_namespaces_missing(settings) {
        return Err(Error::SandboxUnavailable {
            missing: format!(
                "`[runtime] sandbox = \"{}\"` needs unprivileged user namespaces, which give \
                 each run its own processes, mounts and /proc (so a script cannot read the \
                 environment of the program that started it, change files it may only read, \
                 or outlive its run), and this machine forbids them: {missing}",
                mode_name(settings.sandbox)
            ),
        });
    }
    Ok(Some(Plan {
        mode: settings.sandbox,
        network: settings.network,
        abi: kernel,
        helper: helper_program(settings)?,
    }))
}

/// Why this machine cannot make the user namespaces a sandboxed run needs, as far as its
/// settings tell before trying (the helper's own attempt is the final word): `None` when
/// nothing forbids them.
fn user_namespaces_missing(settings: &RuntimeConfig) -> Option<String> {
    if settings.simulate_no_user_namespaces {
        return Some("simulated for this test (SKILLS_TEST_NO_USER_NAMESPACES)".to_owned());
    }
    #[cfg(target_os = "linux")]
    {
        linux::user_namespaces_missing()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The helper: the configured one, else this program when it dispatches the marker.
fn helper_program(settings: &RuntimeConfig) -> Result<PathBuf, Error> {
    if let Some(helper) = &settings.sandbox_helper {
        return Ok(helper.clone());
    }
    if !DISPATCHES.load(Ordering::SeqCst) {
        return Err(Error::SandboxUnavailable {
            missing: "a sandbox helper: this program did not call `skills::run::sandbox_main()` \
                      first in its `main`, and `[runtime] sandbox_helper` is unset; call it, or \
                      set `sandbox_helper = \"/path/to/skills\"` in the home skills.toml"
                .to_owned(),
        });
    }
    std::env::current_exe().map_err(|error| Error::SandboxUnavailable {
        missing: format!(
            "the path of this program, to run it as the sandbox helper ({error}); set \
             `[runtime] sandbox_helper` in the home skills.toml"
        ),
    })
}

/// The helper's command line for a run: the policy, `--`, then the interpreter and its argv.
/// The run may write its temporary folder and `write_dirs` (which the plan of the run chose
/// for its mode: `prepare.rs`).
pub(crate) fn helper_argv(
    plan: &Plan,
    temp: &Path,
    write_dirs: &[PathBuf],
    program: &Path,
    argv: &[OsString],
) -> Result<Vec<OsString>, Error> {
    // Absolute: the helper opens them from the run's working directory, where a relative
    // path would name another folder.
    let absolute = |path: &Path| {
        std::path::absolute(path).map_err(|source| Error::io("resolve", path, source))
    };
    let mut dirs = vec![absolute(temp)?];
    for dir in write_dirs {
        let dir = absolute(dir)?;
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    let write_dirs = dirs;
    let policy = Policy {
        abi: plan.abi,
        write_dirs,
        write_files: NULL_DEVICES.iter().map(PathBuf::from).collect(),
        network: plan.network,
        supervisor: std::process::id(),
    };
    let json = serde_json::to_string(&policy).map_err(|_| Error::SandboxUnavailable {
        missing: "a policy the helper can read: a folder the run may write has a path that is \
                  not UTF-8"
            .to_owned(),
    })?;
    let mut line = vec![
        OsString::from(MARKER),
        OsString::from(json),
        OsString::from("--"),
        program.as_os_str().to_owned(),
    ];
    line.extend(argv.iter().cloned());
    Ok(line)
}

/// The helper's refusal in `stderr` (its first line, after the prefix), when it refused.
pub(crate) fn refusal(exit_code: Option<i32>, stderr: &str) -> Option<String> {
    if exit_code != Some(REFUSED_EXIT) {
        return None;
    }
    let line = stderr.lines().next()?;
    line.strip_prefix(REFUSED_PREFIX).map(str::to_owned)
}

fn mode_name(mode: SandboxMode) -> &'static str {
    match mode {
        SandboxMode::WorkspaceWrite => "workspace-write",
        SandboxMode::ReadOnly => "read-only",
        SandboxMode::Off => "off",
    }
}

/// The run's own temporary folder: created before the spawn (for every run, sandboxed or
/// not, so a script sees the same `TMPDIR` either way), private to the user, and removed with
/// everything in it when the run ends, however it ends.
#[derive(Debug)]
pub(crate) struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates `<base>/skills-run-<run_id>` with mode 0700; `base` is the inherited `TMPDIR`,
    /// else `/tmp`. Created exclusively: a folder someone placed there first is not used.
    pub(crate) fn create(settings: &RuntimeConfig, run_id: &str) -> Result<Self, Error> {
        use std::os::unix::fs::DirBuilderExt as _;

        let base = settings
            .inherited("TMPDIR")
            .filter(|dir| Path::new(dir).is_absolute())
            .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
        let path = base.join(format!("skills-run-{run_id}"));
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(|source| Error::io("create the run's temporary folder", &path, source))?;
        Ok(Self { path })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // `remove_dir_all` does not follow symlinks: a link the script left in its folder
        // is removed, not what it points to.
        if let Err(error) = std::fs::remove_dir_all(&self.path)
            && error.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(path = %self.path.display(), %error, "could not remove the run's temporary folder");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_for(mode: SandboxMode, network: NetworkMode) -> Plan {
        Plan {
            mode,
            network,
            abi: 4,
            helper: PathBuf::from("/bin/skills"),
        }
    }

    fn policy_of(line: &[OsString]) -> Policy {
        serde_json::from_str(line[1].to_str().unwrap()).unwrap()
    }

    #[test]
    fn the_helper_line_carries_the_policy_then_the_interpreter() {
        let line = helper_argv(
            &plan_for(SandboxMode::WorkspaceWrite, NetworkMode::Deny),
            Path::new("/tmp/skills-run-1"),
            &[
                PathBuf::from("/work/space"),
                PathBuf::from("/skills/npm-skill"),
                PathBuf::from("/work/space"),
            ],
            Path::new("/usr/bin/python3"),
            &[OsString::from("/skills/x/run.py"), OsString::from("--flag")],
        )
        .unwrap();
        assert_eq!(line[0], MARKER);
        assert_eq!(line[2], "--");
        assert_eq!(
            line[3..],
            ["/usr/bin/python3", "/skills/x/run.py", "--flag"]
        );
        let policy = policy_of(&line);
        assert_eq!(
            policy.write_dirs,
            [
                PathBuf::from("/tmp/skills-run-1"),
                PathBuf::from("/work/space"),
                PathBuf::from("/skills/npm-skill")
            ]
        );
        assert_eq!(
            policy.write_files,
            [Path::new("/dev/null"), Path::new("/dev/zero")]
        );
        assert_eq!((policy.abi, policy.network), (4, NetworkMode::Deny));
    }

    #[test]
    fn a_run_with_no_folders_writes_only_its_temporary_folder() {
        let line = helper_argv(
            &plan_for(SandboxMode::ReadOnly, NetworkMode::Allow),
            Path::new("/tmp/skills-run-1"),
            &[],
            Path::new("/bin/sh"),
            &[],
        )
        .unwrap();
        assert_eq!(
            policy_of(&line).write_dirs,
            [PathBuf::from("/tmp/skills-run-1")]
        );
    }

    #[test]
    fn off_plans_nothing_and_older_abis_are_refused_with_what_is_missing() {
        let mut settings = RuntimeConfig::default();
        settings.sandbox = SandboxMode::Off;
        assert_eq!(plan(&settings).unwrap(), None);

        settings.sandbox = SandboxMode::WorkspaceWrite;
        settings.landlock_abi_ceiling = Some(0);
        let refused = plan(&settings).unwrap_err();
        assert_eq!(refused.kind(), "sandbox_unavailable");
        if cfg!(target_os = "linux") {
            assert!(refused.to_string().contains("ABI 3"), "{refused}");
        }
        assert!(
            refused.to_string().contains("sandbox = \"off\""),
            "{refused}"
        );

        settings.landlock_abi_ceiling = Some(3);
        settings.sandbox_helper = Some(PathBuf::from("/bin/skills"));
        let kernel = kernel_abi();
        if kernel >= MIN_FS_ABI {
            let refused = plan(&settings).unwrap_err().to_string();
            assert!(refused.contains("network = \"deny\""), "{refused}");
            assert!(refused.contains("ABI 4"), "{refused}");
            settings.network = NetworkMode::Allow;
            // Allowed to go ahead, it still gets every right the kernel has.
            assert_eq!(plan(&settings).unwrap().unwrap().abi, kernel);
        }
    }

    #[test]
    fn a_program_that_did_not_dispatch_the_helper_is_refused() {
        // This test binary never calls `sandbox_main`.
        let mut settings = RuntimeConfig::default();
        settings.network = NetworkMode::Allow;
        if kernel_abi() >= MIN_FS_ABI {
            let refused = plan(&settings).unwrap_err();
            assert_eq!(refused.kind(), "sandbox_unavailable");
            assert!(refused.to_string().contains("sandbox_main()"), "{refused}");
        } else {
            assert_eq!(plan(&settings).unwrap_err().kind(), "sandbox_unavailable");
        }
    }

    #[test]
    fn a_refusal_is_told_from_a_script_that_exits_125() {
        let said = format!("{REFUSED_PREFIX}Landlock is missing\n");
        assert_eq!(
            refusal(Some(125), &said).as_deref(),
            Some("Landlock is missing")
        );
        assert_eq!(refusal(Some(125), "my own error\n"), None);
        assert_eq!(refusal(Some(1), &said), None);
    }

    #[test]
    fn the_temporary_folder_is_private_and_removed_with_its_contents() {
        use std::os::unix::fs::PermissionsExt as _;

        let base = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("keep"), "kept").unwrap();
        let mut settings = RuntimeConfig::default();
        settings.inherited_env = vec![("TMPDIR".into(), base.path().display().to_string())];
        let temp = TempDir::create(&settings, "run-1").unwrap();
        let path = temp.path().to_path_buf();
        assert_eq!(path, base.path().join("skills-run-run-1"));
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        std::fs::create_dir(path.join("sub")).unwrap();
        std::fs::write(path.join("sub/file"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), path.join("link")).unwrap();
        assert!(
            TempDir::create(&settings, "run-1").is_err(),
            "created twice"
        );
        drop(temp);
        assert!(!path.exists());
        assert_eq!(
            std::fs::read_to_string(outside.path().join("keep")).unwrap(),
            "kept"
        );
    }
}
