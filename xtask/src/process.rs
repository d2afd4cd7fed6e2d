//! Running child processes the way every xtask command wants: echo the command line first (so
//! a failure in a long log can be reproduced by copy and paste), stream its output, and turn a
//! non-zero exit into an error that names the command.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};

/// A `cargo` command. `$CARGO` is the exact binary that is running us under `cargo xtask`, so
/// the checks use the pinned toolchain even when the rustup proxy is not on `PATH`.
pub(crate) fn cargo(root: &Path) -> Command {
    let program = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(program);
    command.current_dir(root);
    command
}

/// Runs `command` to completion with inherited output.
pub(crate) fn run(command: &mut Command) -> Result<(), String> {
    println!("$ {}", describe(command));
    let status = command
        .status()
        .map_err(|error| format!("could not start `{}`: {error}", describe(command)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed ({status})", describe(command)))
    }
}

/// Runs `command` to completion and returns its standard output; standard error is shown.
pub(crate) fn output(command: &mut Command) -> Result<String, String> {
    println!("$ {}", describe(command));
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .map_err(|error| format!("could not start `{}`: {error}", describe(command)))?;
    if !output.status.success() {
        return Err(format!(
            "`{}` failed ({})",
            describe(command),
            output.status
        ));
    }
    String::from_utf8(output.stdout).map_err(|_| {
        format!(
            "`{}` printed something that is not UTF-8",
            describe(command)
        )
    })
}

/// The command as a person would type it: environment assignments, the program's file name
/// (not the toolchain path `$CARGO` holds) and the arguments.
pub(crate) fn describe(command: &Command) -> String {
    let mut words = Vec::new();
    for (key, value) in command.get_envs() {
        if let Some(value) = value {
            words.push(format!(
                "{}={}",
                key.to_string_lossy(),
                value.to_string_lossy()
            ));
        }
    }
    let program = Path::new(command.get_program())
        .file_name()
        .unwrap_or_else(|| OsStr::new("?"));
    words.push(program.to_string_lossy().into_owned());
    words.extend(
        command
            .get_args()
            .map(|arg| arg.to_string_lossy().into_owned()),
    );
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_env_program_and_arguments() {
        let mut command = Command::new("/opt/toolchain/bin/cargo");
        command.args(["test", "-p", "skills"]).env("CI", "true");
        assert_eq!(describe(&command), "CI=true cargo test -p skills");
    }
}
