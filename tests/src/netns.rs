//! A private network namespace for the tests that prove a refusal.
//!
//! A test of the installer's network defences must not depend on those defences to stay safe:
//! if the code under test is wrong, it will try to connect where it should not. [`run`] runs
//! the test on a fresh thread that first moves into a network namespace of its own, where the
//! only interface is `lo`. A connection to anything but loopback then fails at once with
//! "network unreachable" and no packet leaves the machine, whatever the code does. Threads and
//! processes started from that thread (a tokio runtime's, a fixture server's, a `skills`
//! child) inherit the namespace.
//!
//! Creating a network namespace needs `CAP_SYS_ADMIN` over the current one: root has it, a
//! normal user does not. A normal user can still get it inside a user namespace of their own,
//! but a process can only enter a new user namespace while it has one thread, which a test
//! binary never has. So when the thread's own `unshare` is refused, [`run`] re-runs that one
//! test in a fresh copy of the test binary started by util-linux's
//! `unshare --user --map-root-user --net` (see [`rerun`]); there the thread's `unshare`
//! succeeds and the test runs exactly as it does for root. Where neither works the test fails
//! with a message saying what to run; it never quietly runs outside, and never passes without
//! having run.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::thread;

use nix::sched::CloneFlags;

/// Where `ip` may live; the first that exists is used. Absolute, because `/usr/sbin` is often
/// not on a normal user's `PATH`.
const IP_COMMANDS: [&str; 3] = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"];

/// util-linux's `unshare`, looked up on `PATH`.
const UNSHARE: &str = "unshare";

/// The options that give the child a user namespace in which it is root (and so may create
/// network namespaces) and a network namespace of its own from the start.
const UNSHARE_OPTIONS: [&str; 3] = ["--user", "--map-root-user", "--net"];

/// Set in the environment of a re-run test binary: it is already inside a user namespace, so
/// a refusal there is final and must not start yet another copy.
const INSIDE: &str = "SKILLS_TESTS_NETNS_RERUN";

/// What a person can do when no namespace can be made.
const REMEDY: &str = "the network safety tests need a private network namespace: run them as \
     root, or as a user allowed to create user namespaces with util-linux `unshare` on PATH \
     (check with `unshare --user --map-root-user --net true`; enable with `sysctl -w \
     kernel.unprivileged_userns_clone=1` on Debian kernels, `sysctl -w \
     kernel.apparmor_restrict_unprivileged_userns=0` on Ubuntu 23.10 and later, or a non-zero \
     `user.max_user_namespaces`), and with iproute2's `ip` installed";

/// Runs `body` on a new thread inside a new network namespace whose only interface is `lo`
/// (up). A panic in `body` is passed on; a namespace that turns out to have any other
/// interface fails the calling test.
///
/// Without the privilege to create the namespace, the calling test is run again by name in a
/// copy of the test binary inside `unshare --user --map-root-user --net`, and passes or fails
/// with it; `body` is then not run in this process. So `run` must be called on the test's own
/// thread (libtest names it after the test), and a test must do all its work inside `body`.
pub fn run<F>(body: F)
where
    F: FnOnce() + Send + 'static,
{
    let refused = match on_private_thread(body) {
        Ok(()) => return,
        Err(Entry::Broken(why)) => panic!("{why}"),
        Err(Entry::Refused(why)) => why,
    };
    if std::env::var_os(INSIDE).is_some() {
        panic!(
            "{refused}, even inside `{UNSHARE} {}`",
            UNSHARE_OPTIONS.join(" ")
        );
    }
    let current = thread::current();
    let test = match current.name() {
        Some(name) if name != "main" => name,
        _ => panic!(
            "{refused}, and this thread has no test name to re-run under `{UNSHARE} {}`: call \
             netns::run on the test's own thread (or {REMEDY})",
            UNSHARE_OPTIONS.join(" ")
        ),
    };
    match rerun(test) {
        // Passed on, so `--nocapture` or a failing neighbour shows what the copy printed.
        Ok(output) => print!("{output}"),
        Err(why) => panic!("{refused}; re-running it in a namespace of its own failed too: {why}"),
    }
}

/// Runs the test named `test` (its full libtest path, such as `network::namespace::x`) in a
/// fresh copy of the current test binary inside `unshare --user --map-root-user --net`, and
/// returns what that copy printed. It is an error unless the copy exits successfully *and*
/// reports that exact test as passed: a name that matches nothing runs no test and still exits
/// 0, which must not count as a pass.
pub fn rerun(test: &str) -> Result<String, String> {
    user_namespaces()?;
    let binary = std::env::current_exe()
        .map_err(|error| format!("cannot tell where the test binary is: {error}"))?;
    let output = Command::new(UNSHARE)
        .args(UNSHARE_OPTIONS)
        .arg("--")
        .arg(&binary)
        .args(["--exact", test, "--test-threads=1", "--color=never"])
        // Captured in the copy, so its report has one line per test that can be checked.
        .env_remove("RUST_TEST_NOCAPTURE")
        .env(INSIDE, "1")
        .output()
        .map_err(|error| format!("cannot run `{UNSHARE}`: {error}"))?;
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if output.status.success() && passed(test, &String::from_utf8_lossy(&output.stdout)) {
        Ok(printed)
    } else {
        Err(format!(
            "`{test}` did not pass in `{} --exact {test}` under `{UNSHARE} {}` ({}); it printed:\n{printed}",
            binary.display(),
            UNSHARE_OPTIONS.join(" "),
            output.status,
        ))
    }
}

/// Whether this user may create a user namespace with a network namespace inside, as
/// [`rerun`] does; the error says why not and what to do. Probed once per process.
pub fn user_namespaces() -> Result<(), String> {
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            let shown = format!("{UNSHARE} {} true", UNSHARE_OPTIONS.join(" "));
            let mut command = Command::new(UNSHARE);
            command.args(UNSHARE_OPTIONS).arg("true");
            probe(command, &shown, REMEDY)
        })
        .clone()
}

/// Runs `command` (shown to the reader as `shown`) to learn whether the machine allows what
/// a test needs: `Ok` when it succeeds, else a sentence with its error and `remedy`.
pub fn probe(mut command: Command, shown: &str, remedy: &str) -> Result<(), String> {
    let output = command
        .output()
        .map_err(|error| format!("cannot run `{shown}` ({error}); {remedy}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{shown}` failed ({}: {}); {remedy}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// Whether libtest's report `stdout` (one `test NAME ... RESULT` line per test, as printed
/// with `--test-threads=1`) says that `test` ran and passed.
fn passed(test: &str, stdout: &str) -> bool {
    let expected = format!("test {test} ... ok");
    stdout.lines().any(|line| line.trim_end() == expected)
}

/// Why a thread could not be moved into a checked private namespace.
enum Entry {
    /// This process may not create network namespaces; a user namespace may help.
    Refused(String),
    /// The namespace exists but cannot be trusted or set up; nothing else will help.
    Broken(String),
}

/// Runs `body` on a new thread once that thread is in a checked private namespace; `body` is
/// dropped unrun when the namespace cannot be made.
fn on_private_thread<F>(body: F) -> Result<(), Entry>
where
    F: FnOnce() + Send + 'static,
{
    let thread = thread::Builder::new()
        .name("netns".to_owned())
        .spawn(move || {
            enter()?;
            body();
            Ok(())
        });
    let thread = match thread {
        Ok(thread) => thread,
        Err(error) => panic!("no thread for the network namespace: {error}"),
    };
    match thread.join() {
        Ok(entered) => entered,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// Moves the calling thread into a new network namespace, brings `lo` up, and checks that
/// nothing but `lo` is there, so no route leads off the machine.
fn enter() -> Result<(), Entry> {
    let before = namespace().map_err(Entry::Broken)?;
    nix::sched::unshare(CloneFlags::CLONE_NEWNET).map_err(|error| {
        Entry::Refused(format!(
            "cannot create a private network namespace on this thread ({error}: that needs \
             CAP_SYS_ADMIN)"
        ))
    })?;
    let after = namespace().map_err(Entry::Broken)?;
    if before == after {
        return Err(Entry::Broken(format!(
            "unshare succeeded but the thread is still in network namespace {before}"
        )));
    }
    let ip = IP_COMMANDS
        .iter()
        .find(|path| Path::new(path).exists())
        .ok_or_else(|| {
            Entry::Broken(format!(
                "no `ip` command at any of {IP_COMMANDS:?}: install iproute2"
            ))
        })?;
    // A child forked from this thread starts in this thread's namespace.
    let status = Command::new(ip)
        .args(["link", "set", "lo", "up"])
        .status()
        .map_err(|error| Entry::Broken(format!("cannot run {ip}: {error}")))?;
    if !status.success() {
        return Err(Entry::Broken(format!(
            "`{ip} link set lo up` failed: {status}"
        )));
    }
    only_loopback().map_err(Entry::Broken)
}

/// The identity of this thread's network namespace (`net:[inode]`).
fn namespace() -> Result<String, String> {
    std::fs::read_link("/proc/thread-self/ns/net")
        .map(|target| target.display().to_string())
        .map_err(|error| format!("cannot read /proc/thread-self/ns/net: {error}"))
}

/// Checks that this thread's namespace has no interface but `lo` and no route through any
/// other device, so a wrong connection cannot leave the machine.
fn only_loopback() -> Result<(), String> {
    let read = |name: &str| {
        let path = format!("/proc/thread-self/net/{name}");
        std::fs::read_to_string(&path).map_err(|error| format!("cannot read {path}: {error}"))
    };
    let devices: Vec<String> = read("dev")?
        .lines()
        .skip(2)
        .filter_map(|line| line.split_once(':'))
        .map(|(name, _)| name.trim().to_owned())
        .collect();
    if devices != ["lo"] {
        return Err(format!(
            "the private network namespace has interfaces {devices:?}, not just lo"
        ));
    }
    // IPv4 routes name their device first, IPv6 routes last.
    let ipv4 = read("route")?;
    let ipv6 = read("ipv6_route")?;
    let routes = ipv4
        .lines()
        .skip(1)
        .filter_map(|line| line.split_whitespace().next())
        .chain(
            ipv6.lines()
                .filter_map(|line| line.split_whitespace().last()),
        );
    for device in routes {
        if device != "lo" {
            return Err(format!(
                "the private network namespace routes through {device}"
            ));
        }
    }
    Ok(())
}

/// Adds `address` to `lo` in the calling thread's private namespace (from inside [`run`]), so a
/// test can listen on an address the installer must refuse, such as a documentation or private
/// one, without a packet leaving the machine. Refuses when the thread shares the process's
/// namespace: outside [`run`] this would change the machine's own network.
pub fn add_loopback_address(address: std::net::IpAddr) -> Result<(), String> {
    let process = std::fs::read_link("/proc/self/ns/net")
        .map(|target| target.display().to_string())
        .map_err(|error| format!("cannot read /proc/self/ns/net: {error}"))?;
    let thread = namespace()?;
    if process == thread {
        return Err(format!(
            "refusing to add {address} to lo: this thread is in the process's own network \
             namespace ({thread}), not a private one; call this inside netns::run"
        ));
    }
    let ip = IP_COMMANDS
        .iter()
        .find(|path| Path::new(path).exists())
        .ok_or_else(|| format!("no `ip` command at any of {IP_COMMANDS:?}"))?;
    let prefix = if address.is_ipv4() { 32 } else { 128 };
    let status = Command::new(ip)
        .args([
            "address",
            "add",
            &format!("{address}/{prefix}"),
            "dev",
            "lo",
        ])
        .status()
        .map_err(|error| format!("cannot run {ip}: {error}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{ip} address add {address}/{prefix} dev lo` failed: {status}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::passed;

    const NAME: &str = "network::namespace::loopback_works_inside";

    #[test]
    fn only_the_exact_test_reported_ok_is_a_pass() {
        let ran = format!(
            "\nrunning 1 test\ntest {NAME} ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 40 filtered out\n"
        );
        assert!(passed(NAME, &ran));
        let failed = ran.replace("... ok", "... FAILED");
        assert!(!passed(NAME, &failed));
        // `--exact` with a name that matches nothing runs nothing and still exits 0.
        let none = "\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 41 filtered out\n";
        assert!(!passed(NAME, none));
        let other = ran.replace(NAME, "network::namespace::loopback_works_inside_too");
        assert!(!passed(NAME, &other));
        assert!(!passed(NAME, &format!("{NAME} ... ok")));
    }
}
