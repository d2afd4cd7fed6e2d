//! `cargo xtask fuzz --seconds N [--target NAME]`: runs the cargo-fuzz targets of `fuzz/`
//! (06 §Safety and reliability) one after the other, each for N seconds, and reports which
//! crashed. Not part of CI: fuzzing needs the nightly toolchain and time CI does not have.
//!
//! The targets are read from `fuzz/Cargo.toml`, so adding a `[[bin]]` there is all it takes
//! for a new target to be run.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Failure;
use crate::process;

/// The cargo-fuzz project, relative to the repository root.
const FUZZ_DIR: &str = "fuzz";

/// The toolchain cargo-fuzz needs (`-Zsanitizer`).
const TOOLCHAIN: &str = "+nightly";

/// The parsed command line of `cargo xtask fuzz`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Args {
    seconds: u64,
    target: Option<String>,
}

impl Args {
    pub(crate) fn parse(args: &[String]) -> Result<Self, String> {
        let mut seconds = None;
        let mut target = None;
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| {
                args.next()
                    .cloned()
                    .ok_or_else(|| format!("`{name}` needs a value"))
            };
            match arg.as_str() {
                "--seconds" => {
                    let text = value("--seconds")?;
                    let parsed = text
                        .parse::<u64>()
                        .ok()
                        .filter(|seconds| *seconds > 0)
                        .ok_or_else(|| {
                            format!("`--seconds` wants a positive whole number, not `{text}`")
                        })?;
                    seconds = Some(parsed);
                }
                "--target" => target = Some(value("--target")?),
                other => return Err(format!("unknown argument `{other}` for `fuzz`")),
            }
        }
        let seconds = seconds.ok_or("`fuzz` needs `--seconds N`")?;
        Ok(Self { seconds, target })
    }
}

/// How one target's run ended.
enum Outcome {
    Passed,
    /// libFuzzer wrote these new inputs to `fuzz/artifacts/<target>/`.
    Crashed(Vec<PathBuf>),
    /// Non-zero exit without a new artifact: the build failed, or cargo-fuzz did.
    Failed(String),
}

pub(crate) fn run(root: &Path, args: &Args) -> Result<(), Failure> {
    let dir = root.join(FUZZ_DIR);
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).map_err(|error| {
        Failure::new(
            format!("could not read {FUZZ_DIR}/Cargo.toml: {error}"),
            "run from a checkout that has the `fuzz/` crate",
        )
    })?;
    let all = targets(&manifest);
    let selected: Vec<&str> = match &args.target {
        None => all.iter().map(String::as_str).collect(),
        Some(name) if all.contains(name) => vec![name.as_str()],
        Some(name) => {
            return Err(Failure::new(
                format!("there is no fuzz target `{name}`"),
                format!("pick one of: {}", all.join(", ")),
            ));
        }
    };
    ensure_cargo_fuzz(&dir)?;
    let mut outcomes = Vec::new();
    for target in &selected {
        println!("==> fuzz {target} for {}s", args.seconds);
        outcomes.push((*target, run_target(&dir, target, args.seconds)));
    }
    println!("\nfuzz results:");
    let mut broken = Vec::new();
    for (target, outcome) in &outcomes {
        match outcome {
            Outcome::Passed => println!("  {target}: no crash in {}s", args.seconds),
            Outcome::Crashed(artifacts) => {
                broken.push(*target);
                println!("  {target}: CRASHED");
                for artifact in artifacts {
                    println!("    {}", artifact.display());
                }
            }
            Outcome::Failed(message) => {
                broken.push(*target);
                println!("  {target}: FAILED: {message}");
            }
        }
    }
    if broken.is_empty() {
        return Ok(());
    }
    Err(Failure::new(
        format!("fuzz target(s) crashed or failed: {}", broken.join(", ")),
        "reproduce with `cargo +nightly fuzz run <target> <artifact>` in fuzz/, fix the bug, and add the input as a regression test",
    ))
}

/// The `name`s of the `[[bin]]` tables: cargo-fuzz makes one per target.
fn targets(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line.starts_with("[[bin]]");
            continue;
        }
        if !in_bin {
            continue;
        }
        if let Some((key, value)) = line.split_once('=')
            && key.trim() == "name"
        {
            names.push(value.trim().trim_matches('"').to_owned());
        }
    }
    names
}

/// `cargo` through rustup's proxy: `$CARGO` names one toolchain's binary, which does not
/// understand `+nightly`.
fn rustup_cargo(dir: &Path) -> Command {
    let mut command = Command::new("cargo");
    command.current_dir(dir).env_remove("CARGO");
    command
}

fn ensure_cargo_fuzz(dir: &Path) -> Result<(), Failure> {
    let installed = rustup_cargo(dir)
        .args([TOOLCHAIN, "fuzz", "--version"])
        .output()
        .is_ok_and(|output| output.status.success());
    if installed {
        return Ok(());
    }
    println!("cargo-fuzz is missing; installing it");
    process::run(rustup_cargo(dir).args(["install", "cargo-fuzz", "--locked"])).map_err(
        |message| {
            Failure::new(
                message,
                "install cargo-fuzz and a nightly toolchain (`rustup toolchain install nightly`) by hand, then retry",
            )
        },
    )
}

fn run_target(dir: &Path, target: &str, seconds: u64) -> Outcome {
    let artifacts_dir = dir.join("artifacts").join(target);
    let before = list(&artifacts_dir);
    let result = process::run(rustup_cargo(dir).args([
        TOOLCHAIN,
        "fuzz",
        "run",
        target,
        "--",
        &format!("-max_total_time={seconds}"),
    ]));
    let new: Vec<PathBuf> = list(&artifacts_dir).difference(&before).cloned().collect();
    if !new.is_empty() {
        return Outcome::Crashed(new);
    }
    match result {
        Ok(()) => Outcome::Passed,
        Err(message) => Outcome::Failed(message),
    }
}

fn list(dir: &Path) -> BTreeSet<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, String> {
        Args::parse(&args.iter().map(ToString::to_string).collect::<Vec<_>>())
    }

    #[test]
    fn parses_seconds_and_target() {
        assert_eq!(
            parse(&["--seconds", "30"]),
            Ok(Args {
                seconds: 30,
                target: None
            })
        );
        assert_eq!(
            parse(&["--target", "frontmatter", "--seconds", "5"]),
            Ok(Args {
                seconds: 5,
                target: Some("frontmatter".to_owned())
            })
        );
        assert!(parse(&[]).is_err());
        assert!(parse(&["--seconds"]).is_err());
        assert!(parse(&["--seconds", "0"]).is_err());
        assert!(parse(&["--seconds", "ten"]).is_err());
        assert!(parse(&["--seconds", "1", "--jobs", "2"]).is_err());
    }

    #[test]
    fn reads_targets_from_bin_tables() {
        let manifest = r#"
[package]
name = "skills-fuzz"

[[bin]]
name = "frontmatter"
path = "fuzz_targets/frontmatter.rs"

[dependencies]
name = "not a target"

[[bin]]
name = "relative_path"
"#;
        assert_eq!(targets(manifest), ["frontmatter", "relative_path"]);
    }

    #[test]
    fn the_fuzz_crate_has_targets() {
        let manifest =
            std::fs::read_to_string(crate::project_root().join(FUZZ_DIR).join("Cargo.toml"))
                .unwrap();
        let targets = targets(&manifest);
        assert!(targets.contains(&"frontmatter".to_owned()), "{targets:?}");
        assert!(targets.contains(&"relative_path".to_owned()), "{targets:?}");
    }
}
