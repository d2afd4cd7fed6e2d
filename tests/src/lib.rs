//! Helpers for the workspace-level integration tests, which drive the built `skills` binary
//! the way a person or a script would.
//!
//! Cargo builds a package's binaries only for that package's own integration tests, so the
//! first test that needs `skills` runs `cargo build -p skills-cli` into the same target
//! directory and profile as the running test (cargo has released its build lock by then). A
//! plain `cargo test` on a clean clone therefore works, and no test ever drives a stale binary.

pub mod archives;
pub mod catalog;
pub mod fixtures;
pub mod http;
pub mod netns;
pub mod peers;
pub mod pipes;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The path of the freshly built `skills` binary.
#[expect(
    clippy::expect_used,
    reason = "a test helper: a panic with the message is how a broken test setup is reported"
)]
pub fn skills_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let test_exe = std::env::current_exe().expect("the test executable has a path");
        // target/<profile>/deps/it-<hash> -> target/<profile> -> target
        let profile_dir = test_exe
            .parent()
            .and_then(Path::parent)
            .expect("test executables live in target/<profile>/deps");
        let target_dir = profile_dir
            .parent()
            .expect("profile directories live in a target directory");
        let profile = match profile_dir.file_name().and_then(|name| name.to_str()) {
            Some("debug") | None => "dev",
            Some(other) => other,
        };
        let status = Command::new(env!("CARGO"))
            // The command line and the sandbox helper it starts beside it.
            .args(["build", "--quiet", "-p", "skills-cli", "--bins"])
            .args(["--profile", profile])
            .arg("--target-dir")
            .arg(target_dir)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "`cargo build -p skills-cli` failed");
        let binary = profile_dir.join(format!("skills{}", std::env::consts::EXE_SUFFIX));
        assert!(binary.is_file(), "{} was not built", binary.display());
        binary
    })
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
