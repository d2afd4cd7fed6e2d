//! The secrets this process holds (the MCP bearer token, the registry's token, a GitHub
//! token), kept out of its environment once read (issue 29).
//!
//! A variable stays in a process's environment block for its whole life, readable as
//! `/proc/PID/environ`, and is inherited by any child started without clearing it. The
//! runs' own children get a cleaned environment and a `/proc` in which this process does not
//! exist, and this process is not dumpable (so other processes of the user cannot read its
//! `/proc` entries); this module closes the last door: the token itself leaves the
//! environment. Removing a variable needs `unsafe` (`std::env::remove_var` since the 2024
//! edition) and would not erase the block the kernel shows anyway, so the process instead
//! executes itself again, once, without the secret variables, and hands their values over
//! in an anonymous memory file whose descriptor number travels in [`HANDOVER`]. The new image
//! reads the values into memory, closes the descriptor and goes on: same pid, same argv, same
//! standard streams.
//!
//! Only `context.rs` and `mcp.rs` read secrets, through [`value`]; the variables a user's
//! configuration names (`[registry] token_env`, `[github] token_env`) are taken the same way
//! once known. A variable taken out is still the user's to give a script: `[runtime]
//! pass_env` reaches it through [`taken`] (the runs' environment is built from a list, never
//! inherited).

use std::collections::BTreeMap;
use std::io::{Read as _, Seek as _, Write as _};
use std::sync::OnceLock;

/// `skills mcp --http`'s bearer token.
pub(crate) const MCP_TOKEN: &str = "SKILLS_MCP_TOKEN";
/// The registry's bearer token (sent to the registry's own origin only).
pub(crate) const REGISTRY_TOKEN: &str = "SKILLS_REGISTRY_TOKEN";

/// The variables whose values are secrets this process holds: the two of its own, and the
/// GitHub token's (`skills_types::install::GITHUB_TOKEN_VARS`). `[registry] token_env` and
/// `[github] token_env` name others at run time.
pub(crate) const SECRET_VARIABLES: [&str; 4] = [
    MCP_TOKEN,
    REGISTRY_TOKEN,
    skills::install::GITHUB_TOKEN_VARS[0],
    skills::install::GITHUB_TOKEN_VARS[1],
];

/// The variable that carries the handover's descriptor number into the new image.
const HANDOVER: &str = "SKILLS_SECRETS_FD";

/// The largest handover read: a few tokens.
const MAX_HANDOVER_BYTES: u64 = 64 * 1024;

/// The secrets handed over by the image before this one, read once.
fn handed_over() -> &'static BTreeMap<String, String> {
    static SECRETS: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    SECRETS.get_or_init(|| {
        let Some(number) = std::env::var(HANDOVER)
            .ok()
            .and_then(|text| text.parse::<i32>().ok())
            .filter(|number| *number > 2)
        else {
            return BTreeMap::new();
        };
        let mut text = String::new();
        let read = std::fs::File::open(format!("/proc/self/fd/{number}"))
            .and_then(|file| file.take(MAX_HANDOVER_BYTES).read_to_string(&mut text));
        close(number);
        match read {
            Ok(_) => parse(&text),
            Err(error) => {
                tracing::warn!(%error, "could not read the secrets handed over");
                BTreeMap::new()
            }
        }
    })
}

/// The value of the secret variable `name`, as it was set: handed over, or (not taken, or
/// not Unicode) from the environment.
pub(crate) fn value(name: &str) -> Option<String> {
    handed_over()
        .get(name)
        .cloned()
        .or_else(|| std::env::var(name).ok())
}

/// Every secret taken out of the environment, by variable name: what the runs' environment
/// may still be given by `pass_env`.
pub(crate) fn taken() -> &'static BTreeMap<String, String> {
    handed_over()
}

/// Reads what the image before this one handed over (closing its descriptor, so no child
/// inherits it), then takes [`SECRET_VARIABLES`] out of the environment. First thing in
/// `main`, after the sandbox helper's dispatch.
pub(crate) fn take_own() {
    handed_over();
    take(&SECRET_VARIABLES);
}

/// Takes `names` out of the environment: when one of them is set, this process executes
/// itself again without them (and without every secret taken before), their values handed
/// over. Returns when there is nothing to take, or when the new image could not be started
/// (then the values stay where they were, and a warning says so).
pub(crate) fn take(names: &[&str]) {
    let present: Vec<(String, String)> = names
        .iter()
        .filter_map(|name| Some((name.to_string(), std::env::var(name).ok()?)))
        .collect();
    if present.is_empty() {
        return;
    }
    let mut secrets = handed_over().clone();
    secrets.extend(present.iter().cloned());
    if let Err(error) = exec_without(&secrets) {
        tracing::warn!(%error, "could not take the secrets out of the environment");
    }
}

/// Executes this program again with `secrets` out of its environment and handed over.
/// Returns only with the error that kept it from doing so.
#[cfg(target_os = "linux")]
fn exec_without(secrets: &BTreeMap<String, String>) -> std::io::Result<()> {
    use std::os::fd::AsRawFd as _;
    use std::os::unix::process::CommandExt as _;

    let text = format_handover(secrets);
    let memory = rustix::fs::memfd_create("skills-secrets", rustix::fs::MemfdFlags::empty())?;
    let mut file = std::fs::File::from(memory);
    file.write_all(text.as_bytes())?;
    file.rewind()?;
    let mut args = std::env::args_os();
    let mut command = std::process::Command::new("/proc/self/exe");
    if let Some(name) = args.next() {
        command.arg0(name);
    }
    command
        .args(args)
        .env(HANDOVER, file.as_raw_fd().to_string());
    for name in secrets.keys() {
        command.env_remove(name);
    }
    // Created close-on-exec: cleared here so the new image inherits exactly this one.
    rustix::io::fcntl_setfd(&file, rustix::io::FdFlags::empty())?;
    Err(command.exec())
}

#[cfg(not(target_os = "linux"))]
fn exec_without(_secrets: &BTreeMap<String, String>) -> std::io::Result<()> {
    Err(std::io::Error::other(
        "this platform has no anonymous memory file to hand secrets over in",
    ))
}

/// The handover's text: each name and value followed by a NUL, which no environment variable
/// can hold.
fn format_handover(secrets: &BTreeMap<String, String>) -> String {
    secrets
        .iter()
        .map(|(name, value)| format!("{name}\0{value}\0"))
        .collect()
}

/// The secrets in a handover's text.
fn parse(text: &str) -> BTreeMap<String, String> {
    let mut fields = text.split('\0');
    let mut secrets = BTreeMap::new();
    while let (Some(name), Some(value)) = (fields.next(), fields.next()) {
        secrets.insert(name.to_owned(), value.to_owned());
    }
    secrets
}

/// Closes an inherited descriptor by number: the handover's, once read.
fn close(number: i32) {
    #[cfg(unix)]
    nix::unistd::close(number).ok();
}

/// Makes this process non-dumpable: its `/proc` entries (`environ`, `maps`, `fd`, `mem`) become the superuser's alone, so no other process of the user — a
/// script run with `sandbox = "off"`, say — reads what this one holds.
pub(crate) fn not_dumpable() {
    #[cfg(target_os = "linux")]
    if let Err(error) =
        rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
    {
        tracing::warn!(%error, "could not make this process non-dumpable");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handover_gives_back_what_was_handed_over() {
        let secrets = BTreeMap::from([
            ("SKILLS_MCP_TOKEN".to_owned(), "a=b c\nd".to_owned()),
            ("HUB_TOKEN".to_owned(), String::new()),
        ]);
        assert_eq!(parse(&format_handover(&secrets)), secrets);
        assert_eq!(parse(""), BTreeMap::new());
    }
}
