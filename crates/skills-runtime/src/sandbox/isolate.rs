//! The process boundary of a sandboxed run: the doors Landlock does not guard (issue 29).
//!
//! Landlock confines what a script may write and which sockets it may open. It does not stop
//! a script from reading the `/proc` entries of the process that started it (its whole
//! environment, tokens included), from changing the mode, owner, times or extended
//! attributes of files it may only read, from leaving a daemon behind (`setsid`, a double
//! fork), or from using a descriptor it inherited. Those are closed here, by two stages of
//! the helper, each a fresh exec of the helper program, with no `unsafe` on the way:
//!
//! 1. **The outer stage** (the process the supervisor spawned, the run's process group
//!    leader) closes every descriptor above 2 it inherited, dies with the supervisor
//!    (`PR_SET_PDEATHSIG`), makes itself non-dumpable, enters a new user namespace (the
//!    caller's uid and gid mapped to 0), and from there a new mount and PID namespace. It
//!    starts the init stage as the first process of that PID namespace, passes its status
//!    on, and blocks the stop signals so that a TERM to the group reaches the script (which
//!    may clean up during the grace) without ending the outer stage first.
//! 2. **The init stage** (PID 1 of the run's namespace) dies with the outer stage, turns
//!    every mount read-only except the folders the run may write (bind-mounted over
//!    themselves, writable), mounts a `/proc` of its own PID namespace (the processes of the
//!    run and nothing else: the supervisor, its environment and its command line do not
//!    exist there), maps the caller's uid and gid back in a second user namespace (so a
//!    script sees its own ids and holds no capability), restricts itself with Landlock and
//!    seccomp (`linux.rs`), starts the interpreter, reaps every process of the namespace and
//!    reports the interpreter's status. When it exits, the kernel kills every process left
//!    in the namespace: whatever a run started ends with the run, on its end, its deadline,
//!    a cancel, or the death of the supervisor.
//!
//! Every step is required: a step the machine refuses (unprivileged user namespaces
//! forbidden, `/proc` not mountable) refuses the run with what is missing, never a run with
//! less. `docs/sandbox.md` says which layer closes which door.

use std::ffi::{OsStr, OsString};
use std::io::{Read as _, Write as _};
use std::os::fd::{AsRawFd as _, RawFd};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Ending, Failure, Handoff, INIT_MARKER, Policy};
use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};
use nix::sys::signal::{SigSet, SigmaskHow, Signal, sigprocmask};
use nix::sys::statvfs::{FsFlags, statvfs};
use nix::sys::wait::{WaitStatus, waitpid};

/// The signals the outer stage holds blocked: the ones a supervisor or a terminal sends to
/// stop a run. The script gets them (its own mask is empty: the standard library clears the
/// mask of every child it starts), and the outer stage outlives them to pass its status on.
const HELD_SIGNALS: [Signal; 3] = [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP];

/// Where the kernel lists this process's mounts (before the run's own `/proc` is mounted,
/// the host's).
const MOUNTINFO: &str = "/proc/self/mountinfo";

/// The largest status line the init stage writes (`signal 15`).
const MAX_STATUS_BYTES: u64 = 64;

/// Why a step failed, as the refusal's text.
fn refused(step: &str) -> impl Fn(nix::Error) -> Failure + '_ {
    move |error| Failure::Refused(format!("{step}: {}", error.desc()))
}

/// The outer stage: isolate, start the init stage, pass its status on.
pub(super) fn outer(
    policy: &Policy,
    policy_text: &OsStr,
    command: &[OsString],
) -> Result<Ending, Failure> {
    close_inherited(None);
    die_with_parent(policy.supervisor)?;
    let (uid, gid) = (
        nix::unistd::getuid().as_raw(),
        nix::unistd::getgid().as_raw(),
    );
    enter_user_namespace(0, uid, 0, gid).map_err(|error| {
        Failure::Refused(format!(
            "unprivileged user namespaces, which isolate the run's processes, mounts and /proc \
             ({error}); allow them (Debian: `sysctl kernel.unprivileged_userns_clone=1`; \
             Ubuntu 23.10+: `sysctl kernel.apparmor_restrict_unprivileged_userns=0`; \
             everywhere: `user.max_user_namespaces` above 0)"
        ))
    })?;
    // Only now: a non-dumpable process's `/proc/self` files belong to the superuser, and it
    // could not have written its own id maps.
    nix::sys::prctl::set_dumpable(false).map_err(refused("making the helper non-dumpable"))?;
    unshare(CloneFlags::CLONE_NEWNS | CloneFlags::CLONE_NEWPID)
        .map_err(refused("a mount and PID namespace of the run's own"))?;
    let mut held = SigSet::empty();
    for signal in HELD_SIGNALS {
        held.add(signal);
    }
    sigprocmask(SigmaskHow::SIG_BLOCK, Some(&held), None)
        .map_err(refused("holding the stop signals"))?;

    let (mut status_reader, status_writer) = std::io::pipe()
        .map_err(|error| Failure::Refused(format!("a pipe for the run's status: {error}")))?;
    // The init stage inherits the writing end across its exec; everything else this stage
    // opens stays close-on-exec.
    rustix::io::fcntl_setfd(&status_writer, rustix::io::FdFlags::empty())
        .map_err(|error| Failure::Refused(format!("a pipe for the run's status: {error}")))?;
    let handoff = Handoff {
        status_fd: status_writer.as_raw_fd(),
        parent: std::process::id(),
        uid,
        gid,
    };
    let handoff = serde_json::to_string(&handoff)
        .map_err(|error| Failure::Refused(format!("the init stage's handoff: {error}")))?;
    let mut init = Command::new("/proc/self/exe");
    if let Some(name) = std::env::args_os().next() {
        init.arg0(name);
    }
    let mut init = init
        .arg(INIT_MARKER)
        .arg(policy_text)
        .arg(handoff)
        .arg("--")
        .args(command)
        .spawn()
        .map_err(|error| Failure::Refused(format!("starting the run's init stage: {error}")))?;
    drop(status_writer);
    let waited = init.wait();
    let mut line = String::new();
    // The init stage wrote its line before exiting, or nothing: a short bounded read.
    drop(
        (&mut status_reader)
            .take(MAX_STATUS_BYTES)
            .read_to_string(&mut line),
    );
    if let Some(ending) = Ending::parse(&line) {
        return Ok(ending);
    }
    // No line: the init stage refused or failed (its reason is on stderr) or was killed.
    use std::os::unix::process::ExitStatusExt as _;
    match waited {
        Ok(status) => match (status.code(), status.signal()) {
            (Some(code), _) => Ok(Ending::Exit(code)),
            (None, Some(signal)) => Ok(Ending::Signal(signal)),
            (None, None) => Ok(Ending::Exit(super::REFUSED_EXIT)),
        },
        Err(error) => Err(Failure::Refused(format!(
            "waiting for the run's init stage: {error}"
        ))),
    }
}

/// The init stage: PID 1 of the run's namespace.
pub(super) fn init(
    policy: &Policy,
    handoff: &Handoff,
    command: &[OsString],
) -> Result<Ending, Failure> {
    // The host's /proc is still mounted here: its `PPid` is the outer stage's host pid, which
    // `getppid` cannot show from inside the new PID namespace (it answers 0).
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)
        .map_err(refused("tying the run to the helper"))?;
    if host_parent() != Some(handoff.parent) {
        return Err(Failure::Refused(
            "the helper that started the run's init stage is gone".to_owned(),
        ));
    }
    let mut status = reopen_status(handoff.status_fd)?;
    close_inherited(Some(status.as_raw_fd()));
    read_only_except(&policy.write_dirs)?;
    mount(
        Some("proc"),
        "/proc",
        Some("proc"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        None::<&str>,
    )
    .map_err(refused(
        "a /proc of the run's own PID namespace (mounting procfs in the user namespace was \
         refused; a container that masks parts of the host's /proc forbids it)",
    ))?;
    // The working directory was entered before the mounts changed: entered again by its
    // path, it is on the writable bind mount (a workspace) rather than the read-only one
    // beneath.
    std::env::current_dir()
        .and_then(std::env::set_current_dir)
        .map_err(|error| {
            Failure::Refused(format!("entering the working directory again: {error}"))
        })?;
    enter_user_namespace(handoff.uid, 0, handoff.gid, 0)
        .map_err(|error| Failure::Refused(format!("mapping the caller's ids back: {error}")))?;
    // After the id maps, which a non-dumpable process could not write: the script may not
    // read this process's memory or descriptors (the status pipe).
    nix::sys::prctl::set_dumpable(false).map_err(refused("making the helper non-dumpable"))?;
    super::restrict(policy).map_err(Failure::Refused)?;

    let (program, args) = command
        .split_first()
        .ok_or_else(|| Failure::Refused("no program after `--`".to_owned()))?;
    let child = Command::new(program).args(args).spawn().map_err(|error| {
        Failure::Exec(format!(
            "could not start {}: {error}",
            Path::new(program).display()
        ))
    })?;
    let interpreter = nix::unistd::Pid::from_raw(
        i32::try_from(child.id()).map_err(|_| Failure::Refused("a pid past i32".to_owned()))?,
    );
    // PID 1 inherits every orphan of the namespace: reap them all until the interpreter
    // itself has ended.
    let ending = loop {
        match waitpid(None::<nix::unistd::Pid>, None) {
            Ok(WaitStatus::Exited(pid, code)) if pid == interpreter => break Ending::Exit(code),
            Ok(WaitStatus::Signaled(pid, signal, _)) if pid == interpreter => {
                break Ending::Signal(signal as i32);
            }
            Ok(_) | Err(nix::Error::EINTR) => {}
            Err(error) => {
                return Err(Failure::Refused(format!(
                    "waiting for the interpreter: {}",
                    error.desc()
                )));
            }
        }
    };
    drop(status.write_all(ending.line().as_bytes()));
    // PID 1 cannot die of its own signal; the outer stage re-raises it.
    Ok(Ending::Exit(ending.exit_code()))
}

/// Ends the outer stage the way the interpreter ended: by the same signal, so the
/// supervisor sees the status the script had. A signal this process ignores (the standard
/// library ignores SIGPIPE) ends it with the shell's `128 + signal` instead.
pub(super) fn end_by_signal(signal: i32) -> ! {
    sigprocmask(SigmaskHow::SIG_SETMASK, Some(&SigSet::empty()), None).ok();
    if let Ok(signal) = Signal::try_from(signal) {
        nix::sys::signal::raise(signal).ok();
    }
    std::process::exit(128 + signal)
}

/// Closes every descriptor above 2 but `keep`: whatever the process that started the
/// helper left open without close-on-exec (an agent core's log file, a socket, a shell's
/// redirection) must not reach a script. The numbers come from `/proc/self/fd`, read whole
/// before anything is closed.
fn close_inherited(keep: Option<RawFd>) {
    let numbers: Vec<RawFd> = match std::fs::read_dir("/proc/self/fd") {
        Ok(entries) => entries
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
            .collect(),
        Err(_) => return,
    };
    for number in numbers {
        if number > 2 && Some(number) != keep {
            // The listing's own descriptor is among them, already closed: EBADF.
            nix::unistd::close(number).ok();
        }
    }
}

/// Asks for SIGKILL when the parent dies, then checks the parent is still the expected one
/// (it may have died before the request).
fn die_with_parent(expected: u32) -> Result<(), Failure> {
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)
        .map_err(refused("tying the run to its supervisor"))?;
    let parent = nix::unistd::getppid().as_raw();
    if u32::try_from(parent).ok() != Some(expected) {
        return Err(Failure::Refused(
            "the process that started the run is gone".to_owned(),
        ));
    }
    Ok(())
}

/// The parent's pid from `/proc/self/status` (`PPid:`), as the mounted `/proc` sees it.
fn host_parent() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("PPid:"))?
        .trim()
        .parse()
        .ok()
}

/// The status pipe inherited at `fd`, opened again by name (a new descriptor on the same
/// pipe, close-on-exec) so the inherited number can be closed: the interpreter must not get
/// it.
fn reopen_status(fd: RawFd) -> Result<std::fs::File, Failure> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(format!("/proc/self/fd/{fd}"))
        .map_err(|error| Failure::Refused(format!("the run's status pipe: {error}")))?;
    nix::unistd::close(fd).ok();
    Ok(file)
}

/// Enters a new user namespace whose `inside_uid`/`inside_gid` are `outside_uid`/
/// `outside_gid` of the current one. `setgroups` is denied first: an unprivileged process may
/// write its gid map only then, and a script must not drop the groups that restrict it.
fn enter_user_namespace(
    inside_uid: u32,
    outside_uid: u32,
    inside_gid: u32,
    outside_gid: u32,
) -> Result<(), String> {
    unshare(CloneFlags::CLONE_NEWUSER).map_err(|error| error.desc().to_owned())?;
    let write = |file: &str, text: String| {
        std::fs::write(format!("/proc/self/{file}"), text)
            .map_err(|error| format!("writing /proc/self/{file}: {error}"))
    };
    write("setgroups", "deny".to_owned())?;
    write("uid_map", format!("{inside_uid} {outside_uid} 1\n"))?;
    write("gid_map", format!("{inside_gid} {outside_gid} 1\n"))
}

/// Makes every mount of this (private) mount namespace read-only, then every folder of
/// `writable` a writable bind mount of itself. Landlock confines writes of file contents;
/// this confines what it does not see: `chmod`, `chown`, `utime`, `setxattr` and
/// `removexattr` fail with `EROFS` outside the folders the run may write, and work inside
/// them (`chmod +x` on a script in the workspace).
fn read_only_except(writable: &[PathBuf]) -> Result<(), Failure> {
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .map_err(refused("a private copy of the mounts"))?;
    // The writable folders' flags are read before anything turns read-only: a folder on a
    // read-only file system stays read-only.
    let mut binds = Vec::new();
    for dir in writable {
        let flags = kept_flags(dir).map_err(|error| {
            Failure::Refused(format!(
                "the folder the run may write {}: {}",
                dir.display(),
                error.desc()
            ))
        })?;
        binds.push((dir, flags));
    }
    let text = std::fs::read_to_string(MOUNTINFO)
        .map_err(|error| Failure::Refused(format!("reading {MOUNTINFO}: {error}")))?;
    for (point, flags) in mounts(&text) {
        // The run's own /proc replaces the host's; its entries are not files to protect.
        // A mount that is read-only already needs nothing.
        if point == Path::new("/proc")
            || point.starts_with("/proc/")
            || flags.contains(MsFlags::MS_RDONLY)
        {
            continue;
        }
        match remount(&point, flags | MsFlags::MS_RDONLY) {
            // Not a mount point from here (covered by a later mount), or out of reach.
            Ok(()) | Err(nix::Error::EINVAL | nix::Error::ENOENT | nix::Error::EACCES) => {}
            Err(error) => {
                return Err(Failure::Refused(format!(
                    "making the mount at {} read-only: {}",
                    point.display(),
                    error.desc()
                )));
            }
        }
    }
    for (dir, flags) in binds {
        let step = |error: nix::Error| {
            Failure::Refused(format!(
                "a writable bind mount of {}: {}",
                dir.display(),
                error.desc()
            ))
        };
        mount(
            Some(dir.as_path()),
            dir.as_path(),
            None::<&str>,
            MsFlags::MS_BIND | MsFlags::MS_REC,
            None::<&str>,
        )
        .map_err(step)?;
        remount(dir, flags).map_err(step)?;
    }
    Ok(())
}

/// A bind remount of `point` with `flags`.
fn remount(point: &Path, flags: MsFlags) -> nix::Result<()> {
    mount(
        None::<&str>,
        point,
        None::<&str>,
        MsFlags::MS_BIND | MsFlags::MS_REMOUNT | flags,
        None::<&str>,
    )
}

/// The per-mount flags of the mount holding `path` that a remount must keep (the same as
/// [`KEPT_OPTIONS`], read through `statvfs` for a folder rather than a mount point).
fn kept_flags(path: &Path) -> nix::Result<MsFlags> {
    let found = statvfs(path)?.flags();
    let mut flags = MsFlags::empty();
    for (statvfs, mount) in [
        (FsFlags::ST_RDONLY, MsFlags::MS_RDONLY),
        (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
        (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
        (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
        (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
    ] {
        if found.contains(statvfs) {
            flags |= mount;
        }
    }
    Ok(flags)
}

/// The per-mount options of `mountinfo` that a remount must keep, and the flag of each: a
/// user namespace may not clear `ro`, `nosuid`, `nodev`, `noexec` or the access-time
/// choice that came from outside it (the remount fails with `EPERM`).
const KEPT_OPTIONS: [(&str, MsFlags); 7] = [
    ("ro", MsFlags::MS_RDONLY),
    ("nosuid", MsFlags::MS_NOSUID),
    ("nodev", MsFlags::MS_NODEV),
    ("noexec", MsFlags::MS_NOEXEC),
    ("noatime", MsFlags::MS_NOATIME),
    ("nodiratime", MsFlags::MS_NODIRATIME),
    ("relatime", MsFlags::MS_RELATIME),
];

/// The mount points of a `mountinfo` text (its fifth field, with the kernel's octal escapes
/// of space, tab, newline and backslash undone) with the flags of their per-mount options
/// (the sixth field), each point once: a remount acts on the mount on top, the last listed.
/// Reading the flags here spares a `statvfs` per mount on every run.
fn mounts(text: &str) -> Vec<(PathBuf, MsFlags)> {
    let mut found: Vec<(PathBuf, MsFlags)> = Vec::new();
    for line in text.lines() {
        let mut fields = line.split(' ').skip(4);
        let (Some(point), Some(options)) = (fields.next(), fields.next()) else {
            continue;
        };
        let flags = options
            .split(',')
            .filter_map(|option| {
                KEPT_OPTIONS
                    .iter()
                    .find(|(name, _)| *name == option)
                    .map(|(_, flag)| *flag)
            })
            .fold(MsFlags::empty(), |all, flag| all | flag);
        let point = PathBuf::from(unescape(point));
        found.retain(|(seen, _)| *seen != point);
        found.push((point, flags));
    }
    found
}

fn unescape(field: &str) -> OsString {
    use std::os::unix::ffi::OsStringExt as _;
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let octal = bytes.get(index + 1..index + 4).and_then(|digits| {
            let text = std::str::from_utf8(digits).ok()?;
            u8::from_str_radix(text, 8).ok()
        });
        match (bytes[index], octal) {
            (b'\\', Some(byte)) => {
                out.push(byte);
                index += 4;
            }
            (byte, _) => {
                out.push(byte);
                index += 1;
            }
        }
    }
    OsString::from_vec(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_points_are_unescaped_in_order_once_each_with_their_kept_options() {
        let text = "22 27 0:21 / /proc rw,relatime - proc proc rw\n\
                    27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n\
                    28 27 0:25 / /mnt/my\\040disk\\134x ro,nosuid - tmpfs t ro\n\
                    29 27 0:26 / /odd\\0 rw,noexec,noatime - tmpfs t rw\n\
                    30 27 0:27 / / rw,nodev - tmpfs t rw\n\
                    31 27 0:28 /x /short\n";
        assert_eq!(
            mounts(text),
            [
                (PathBuf::from("/proc"), MsFlags::MS_RELATIME),
                (
                    PathBuf::from("/mnt/my disk\\x"),
                    MsFlags::MS_RDONLY | MsFlags::MS_NOSUID
                ),
                (
                    PathBuf::from("/odd\\0"),
                    MsFlags::MS_NOEXEC | MsFlags::MS_NOATIME
                ),
                (PathBuf::from("/"), MsFlags::MS_NODEV),
            ]
        );
    }
}
