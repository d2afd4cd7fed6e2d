//! The Linux half of the sandbox: reading the kernel's Landlock ABI, and the restriction the
//! helper applies to itself before it execs the interpreter.
//!
//! Every Landlock right of the planned ABI is a hard requirement: the ruleset must come back
//! fully enforced, with `no_new_privs` set, or the helper refuses. Reading is allowed
//! everywhere (a script reads what the user can), writing only beneath the planned folders
//! and the null devices. Under `network = "deny"` Landlock handles TCP bind and connect with
//! no port allowed, and a seccomp filter refuses `socket(2)` for every address family (UDP,
//! Unix and raw sockets are beyond Landlock) and `io_uring_setup(2)` (io_uring can create
//! sockets without the `socket` system call, past any seccomp filter).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};
use seccompiler::{BpfProgram, SeccompAction, SeccompFilter};
use skills_types::runtime::NetworkMode;

use super::{MAX_ABI, MIN_FS_ABI, MIN_NET_ABI, Policy};

/// The first ABI with scopes (signals, abstract Unix sockets).
const SCOPE_ABI: u8 = 6;

/// The kernel's Landlock ABI, up to [`MAX_ABI`], read once per process: the highest ABI
/// whose every right a ruleset can handle as a hard requirement. Creating a ruleset restricts
/// nothing; only `restrict_self` does.
pub(super) fn kernel_abi() -> u8 {
    static KERNEL_ABI: OnceLock<u8> = OnceLock::new();
    *KERNEL_ABI.get_or_init(|| (1..=MAX_ABI).rev().find(|&abi| handles(abi)).unwrap_or(0))
}

fn handles(abi: u8) -> bool {
    ruleset(abi, abi >= MIN_NET_ABI, abi >= SCOPE_ABI)
        .and_then(Ruleset::create)
        .is_ok()
}

/// A ruleset that handles every file right of `abi`, the TCP rights when `network`, and both
/// scopes when `scopes`, each one required.
fn ruleset(abi: u8, network: bool, scopes: bool) -> Result<Ruleset, landlock::RulesetError> {
    let level = ABI::from(i32::from(abi));
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(level))?;
    if network {
        ruleset = ruleset.handle_access(AccessNet::from_all(level))?;
    }
    if scopes {
        ruleset = ruleset.scope(Scope::from_all(level))?;
    }
    Ok(ruleset)
}

/// The sysctls that forbid unprivileged user namespaces: the file, the value that forbids
/// them, whether it binds root too, and the command that allows them.
/// `user.max_user_namespaces` is on every kernel (per user namespace, so a parent namespace
/// can set it to 0 for its children); Debian's `kernel.unprivileged_userns_clone` and
/// Ubuntu's AppArmor restriction (23.10 and later) leave a process with `CAP_SYS_ADMIN` free.
const USER_NAMESPACE_SWITCHES: [(&str, &str, bool, &str); 3] = [
    (
        "/proc/sys/user/max_user_namespaces",
        "0",
        true,
        "sysctl user.max_user_namespaces=15000",
    ),
    (
        "/proc/sys/kernel/unprivileged_userns_clone",
        "0",
        false,
        "sysctl kernel.unprivileged_userns_clone=1",
    ),
    (
        "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
        "1",
        false,
        "sysctl kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile that \
         grants `userns` to this program",
    ),
];

/// Which sysctl forbids this process a user namespace, and how to allow them, if one does.
pub(super) fn user_namespaces_missing() -> Option<String> {
    let root = nix::unistd::geteuid().is_root();
    USER_NAMESPACE_SWITCHES
        .iter()
        .filter(|(_, _, binds_root, _)| *binds_root || !root)
        .find_map(|(path, forbidding, _, allow)| {
            let value = std::fs::read_to_string(path).ok()?;
            (value.trim() == *forbidding).then(|| {
                let name = path.trim_start_matches("/proc/sys/").replace('/', ".");
                format!("`{name}` is {forbidding} (`{allow}` allows them)")
            })
        })
}

/// Restricts this process (single-threaded: the helper calls this first in `main`) as
/// `policy` says, or says why it cannot in full.
pub(super) fn restrict(policy: &Policy) -> Result<(), String> {
    let deny = policy.network == NetworkMode::Deny;
    if !(MIN_FS_ABI..=MAX_ABI).contains(&policy.abi) || (deny && policy.abi < MIN_NET_ABI) {
        return Err(format!(
            "the policy asks for Landlock ABI {}, outside what this helper enforces",
            policy.abi
        ));
    }
    let level = ABI::from(i32::from(policy.abi));
    let landlock = |error: landlock::RulesetError| {
        format!(
            "Landlock ABI {} cannot be enforced in full here: {error}",
            policy.abi
        )
    };
    let open = |path: &std::path::Path| {
        PathFd::new(path).map_err(|error| format!("cannot open {}: {error}", path.display()))
    };
    // Signals are scoped whatever the network rule; abstract Unix sockets (a way out to
    // other programs' services) only under `deny`, with the rest of the network.
    let mut ruleset = ruleset(policy.abi, deny, false).map_err(landlock)?;
    if policy.abi >= SCOPE_ABI {
        ruleset = ruleset.scope(Scope::Signal).map_err(landlock)?;
        if deny {
            ruleset = ruleset.scope(Scope::AbstractUnixSocket).map_err(landlock)?;
        }
    }
    let mut created = ruleset
        .create()
        .map_err(landlock)?
        .add_rule(PathBeneath::new(
            open("/".as_ref())?,
            AccessFs::from_read(level),
        ))
        .map_err(landlock)?;
    for dir in &policy.write_dirs {
        created = created
            .add_rule(PathBeneath::new(open(dir)?, AccessFs::from_all(level)))
            .map_err(landlock)?;
    }
    for file in &policy.write_files {
        // A system without `/dev/zero` has nothing there to write.
        if !file.exists() {
            continue;
        }
        created = created
            .add_rule(PathBeneath::new(
                open(file)?,
                AccessFs::from_file(level) & !AccessFs::Execute,
            ))
            .map_err(landlock)?;
    }
    let status = created.restrict_self().map_err(landlock)?;
    if status.ruleset != RulesetStatus::FullyEnforced || !status.no_new_privs {
        return Err(format!(
            "Landlock ABI {} is not fully enforced here ({:?}, no_new_privs {})",
            policy.abi, status.ruleset, status.no_new_privs
        ));
    }
    if deny {
        deny_sockets()?;
    }
    Ok(())
}

/// Installs the seccomp filter of `network = "deny"`: `socket(2)` and `io_uring_setup(2)`
/// fail with `EACCES`; every other call is allowed. `socketpair(2)` stays, so a script can
/// still talk to its own children.
fn deny_sockets() -> Result<(), String> {
    let refuse = |error: String| format!("the seccomp filter for `network = \"deny\"`: {error}");
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|_| refuse(format!("no filter for {}", std::env::consts::ARCH)))?;
    let mut rules = BTreeMap::from([
        (libc::SYS_socket, Vec::new()),
        (libc::SYS_io_uring_setup, Vec::new()),
    ]);
    // x86_64 kernels with the x32 ABI accept the same calls under numbers with this bit set
    // and the same audit architecture: without these, `socket` would pass under its x32
    // number.
    #[cfg(target_arch = "x86_64")]
    {
        const X32_SYSCALL_BIT: i64 = 0x4000_0000;
        rules.insert(X32_SYSCALL_BIT | libc::SYS_socket, Vec::new());
        rules.insert(X32_SYSCALL_BIT | libc::SYS_io_uring_setup, Vec::new());
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES.unsigned_abs()),
        arch,
    )
    .map_err(|error| refuse(error.to_string()))?;
    let program: BpfProgram = filter
        .try_into()
        .map_err(|error: seccompiler::BackendError| refuse(error.to_string()))?;
    seccompiler::apply_filter(&program).map_err(|error| refuse(error.to_string()))
}
