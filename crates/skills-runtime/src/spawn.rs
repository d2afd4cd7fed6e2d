//! The one door through which the runtime makes a child process: a script's run (through
//! the sandbox helper or not) and an interpreter's `--version` probe alike. Every child
//! starts from an empty environment given whole by the caller, reads nothing from the
//! parent's standard input, and leads a process group of its own, so a deadline stops
//! everything it started. Tidy's door rule allows `Command::new` here and in the sandbox
//! helper's own stages only.

use std::ffi::OsStr;
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// A command for `program` with exactly `env` as its environment, standard input from
/// `/dev/null` (a caller that feeds input replaces it), in a process group of its own.
pub(crate) fn command<K, V>(program: &Path, env: impl IntoIterator<Item = (K, V)>) -> Command
where
    K: AsRef<OsStr>,
    V: AsRef<OsStr>,
{
    let mut command = Command::new(program);
    command
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .process_group(0);
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_gets_only_the_environment_given_and_leads_its_own_group() {
        let output = command(Path::new("/bin/sh"), [("ONLY", "this")])
            .args([
                "-c",
                "env; echo pid=$$; echo pgid=$(cut -d' ' -f5 /proc/$$/stat)",
            ])
            .stdout(Stdio::piped())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(text.contains("ONLY=this"), "{text}");
        assert!(
            !text.contains("HOME="),
            "the parent's environment leaked: {text}"
        );
        let value = |key: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(key))
                .map(str::to_owned)
        };
        let pid = value("pid=");
        assert!(pid.is_some(), "{text}");
        assert_eq!(
            pid,
            value("pgid="),
            "the child does not lead its own group: {text}"
        );
    }
}
