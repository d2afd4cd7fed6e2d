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
//! Creating a namespace needs `CAP_SYS_ADMIN` (root, or a user namespace). Without it the test
//! fails with a message saying so; it never quietly runs outside.

use std::path::Path;
use std::process::Command;
use std::thread;

use nix::sched::CloneFlags;

/// Where `ip` may live; the first that exists is used.
const IP_COMMANDS: [&str; 3] = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"];

/// Runs `body` on a new thread inside a new network namespace whose only interface is `lo`
/// (up), and returns what it returns. A panic in `body` is passed on; a namespace that cannot
/// be created, or one that turns out to have any other interface, fails the calling test.
pub fn run<T, F>(body: F) -> T
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let thread = thread::Builder::new()
        .name("netns".to_owned())
        .spawn(move || {
            if let Err(why) = enter() {
                panic!("{why}");
            }
            body()
        });
    let thread = match thread {
        Ok(thread) => thread,
        Err(error) => panic!("no thread for the network namespace: {error}"),
    };
    match thread.join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// Moves the calling thread into a new network namespace, brings `lo` up, and checks that
/// nothing but `lo` is there, so no route leads off the machine.
fn enter() -> Result<(), String> {
    let before = namespace()?;
    nix::sched::unshare(CloneFlags::CLONE_NEWNET).map_err(|error| {
        format!(
            "cannot create a private network namespace ({error}): the network safety tests \
             need CAP_SYS_ADMIN; run them as root or inside `unshare --user --map-root-user --net`"
        )
    })?;
    let after = namespace()?;
    if before == after {
        return Err(format!(
            "unshare succeeded but the thread is still in network namespace {before}"
        ));
    }
    let ip = IP_COMMANDS
        .iter()
        .find(|path| Path::new(path).exists())
        .ok_or_else(|| format!("no `ip` command at any of {IP_COMMANDS:?}"))?;
    // A child forked from this thread starts in this thread's namespace.
    let status = Command::new(ip)
        .args(["link", "set", "lo", "up"])
        .status()
        .map_err(|error| format!("cannot run {ip}: {error}"))?;
    if !status.success() {
        return Err(format!("`{ip} link set lo up` failed: {status}"));
    }
    only_loopback()
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
