//! Helpers for the workspace-level integration tests, which drive the built `skills` binary
//! the way a person or a script would.
//!
//! The binary is the one cargo built beside the test executable (`target/<profile>/skills`).
//! `cargo test --workspace` builds it before running any test; running this crate alone needs
//! `cargo build -p skills-cli` first, and the helper says so instead of testing a stale file.

use std::path::PathBuf;
use std::process::Command;

/// The path of the built `skills` binary.
#[expect(
    clippy::expect_used,
    reason = "a test helper: a panic with the message is how a broken test setup is reported"
)]
pub fn skills_binary() -> PathBuf {
    let test_exe = std::env::current_exe().expect("the test executable has a path");
    // target/<profile>/deps/it-<hash> -> target/<profile>/skills
    let profile_dir = test_exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test executables live in target/<profile>/deps");
    let binary = profile_dir.join(format!("skills{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.is_file(),
        "{} is missing: run `cargo build -p skills-cli` (or `cargo test --workspace`) first",
        binary.display()
    );
    binary
}

/// A `skills` command with a clean environment: no colour, no inherited skills settings.
pub fn skills() -> Command {
    let mut command = Command::new(skills_binary());
    command.env_remove("NO_COLOR").env("CLICOLOR", "0");
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("SKILLS_") {
            command.env_remove(key);
        }
    }
    command
}
