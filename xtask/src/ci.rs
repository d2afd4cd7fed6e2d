//! `cargo xtask ci`: every check CI runs, in the order of `STEPS`, cheapest first, stopping at
//! the first failure with a one-line hint how to fix it.
//!
//! `.ci/run` executes exactly this, and so should a developer before pushing: there is no
//! second list of checks hidden in a CI configuration file.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::process::{self, cargo};
use crate::{Failure, tidy};

/// The crates the `skills` feature brings in. With `default-features = false` none of them may
/// be compiled into an agent core: that absence is the point of the stub.
const FEATURE_ONLY_CRATES: [&str; 13] = [
    "skills-ops",
    "skills-audit",
    "skills-net",
    "skills-install",
    "skills-bus",
    "skills-schemas",
    "skills-runtime",
    "uuid",
    "jsonschema",
    "landlock",
    "seccompiler",
    "skills-mcp",
    "rmcp",
];

/// The crates only the `mcp` feature brings in: absent from the facade's default build too,
/// so an agent core that serves no MCP host compiles no protocol SDK.
const MCP_ONLY_CRATES: [&str; 2] = ["skills-mcp", "rmcp"];

/// What the runtime must not depend on: it reaches the network and archives through
/// `skills-net` (managed Node), never through the installer above it.
const NOT_UNDER_RUNTIME: [&str; 1] = ["skills-install"];

/// The out-of-workspace crate that depends on `skills` exactly as an agent core with the
/// feature off does.
const STUB_CONSUMER_MANIFEST: &str = "tests/stub-consumer/Cargo.toml";

/// One step of CI.
struct Step {
    /// The name printed in `==> <name>` and in the summary.
    name: &'static str,
    run: fn(&Path) -> Result<(), Failure>,
}

/// The ways the network safety tests (`tests/src/netns.rs`) get a private network namespace,
/// as `unshare` options: directly with root's `CAP_SYS_ADMIN`, or as a normal user inside a
/// user namespace of their own.
const NAMESPACE_PROBES: [&[&str]; 2] = [&["--net"], &["--user", "--map-root-user", "--net"]];

const STEPS: [Step; 10] = [
    Step {
        name: "network namespace for the tests",
        run: namespace,
    },
    Step {
        name: "fmt",
        run: fmt,
    },
    Step {
        name: "tidy",
        run: tidy::run,
    },
    Step {
        name: "clippy",
        run: clippy,
    },
    Step {
        name: "test (skills feature on)",
        run: test_enabled,
    },
    Step {
        name: "test (skills feature off)",
        run: test_disabled,
    },
    Step {
        name: "fuzz targets compile",
        run: fuzz_check,
    },
    Step {
        name: "absence of feature-only crates",
        run: absence,
    },
    Step {
        name: "codegen is fresh",
        run: codegen_fresh,
    },
    Step {
        name: "doc",
        run: doc,
    },
];

/// Runs every step; the first failure ends the run.
pub(crate) fn run(root: &Path) -> Result<(), Failure> {
    let started = Instant::now();
    let mut times = Vec::new();
    for step in &STEPS {
        println!("==> {}", step.name);
        let step_started = Instant::now();
        let outcome = (step.run)(root);
        let elapsed = step_started.elapsed();
        match outcome {
            Ok(()) => {
                println!("<== {} ok in {}", step.name, seconds(elapsed));
                times.push((step.name, elapsed));
            }
            Err(failure) => {
                println!("<== {} FAILED after {}", step.name, seconds(elapsed));
                return Err(Failure::new(
                    format!("ci step `{}` failed: {}", step.name, failure.message),
                    failure.hint,
                ));
            }
        }
    }
    println!("\nci passed in {}", seconds(started.elapsed()));
    let width = times.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    for (name, elapsed) in times {
        println!("  {name:<width$}  {:>8}", seconds(elapsed));
    }
    Ok(())
}

/// The network safety tests fail when they cannot make a private network namespace; checked
/// first, so a machine that cannot learns it in a second rather than after the build. The
/// tests make the same two attempts (`tests/src/netns.rs`).
fn namespace(_root: &Path) -> Result<(), Failure> {
    for options in NAMESPACE_PROBES {
        let shown = format!("unshare {} true", options.join(" "));
        let works = Command::new("unshare")
            .args(options)
            .arg("true")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if works {
            println!("`{shown}` works");
            return Ok(());
        }
    }
    Err(Failure::new(
        "the network safety tests cannot make a private network namespace here: neither `unshare --net true` (root) nor `unshare --user --map-root-user --net true` (a normal user) works",
        "run `cargo xtask ci` as root, or let this user create user namespaces (util-linux `unshare` on PATH; `sysctl -w kernel.unprivileged_userns_clone=1` on Debian kernels, `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` on Ubuntu 23.10 and later, `user.max_user_namespaces` above 0) and install iproute2's `ip`",
    ))
}

/// The fuzz targets are run by hand (`cargo xtask fuzz`, nightly), not in CI, but they call the
/// library's public functions: checking that they still compile, on the pinned toolchain, keeps
/// them runnable.
fn fuzz_check(root: &Path) -> Result<(), Failure> {
    process::run(cargo(root).args(["check", "--locked", "--manifest-path", "fuzz/Cargo.toml"]))
        .map_err(|message| {
            Failure::new(
                message,
                "update the fuzz targets in fuzz/fuzz_targets/ to the changed API (and `cargo update --manifest-path fuzz/Cargo.toml` if the lock is stale)",
            )
        })
}

/// `docs/rpc.md` matches the schemas (the schema snapshots themselves are checked by the
/// tests, with `INSTA_UPDATE=no`).
fn codegen_fresh(root: &Path) -> Result<(), Failure> {
    crate::codegen::run(root, true)
}

fn seconds(duration: Duration) -> String {
    format!("{:.1}s", duration.as_secs_f64())
}

fn fmt(root: &Path) -> Result<(), Failure> {
    process::run(cargo(root).args(["fmt", "--all", "--check"]))
        .map_err(|message| Failure::new(message, "run `cargo fmt --all` and commit the result"))
}

fn clippy(root: &Path) -> Result<(), Failure> {
    // Every feature direction an agent core can build, each with what a failure there means.
    let directions: [(&[&str], &str); 3] = [
        (
            &["--workspace", "--all-features"],
            "fix the warnings above; where a lint is wrong, use `#[expect(lint, reason = \"...\")]`",
        ),
        (
            &["-p", "skills", "--no-default-features"],
            "this is the slim build (feature `skills` off): a type error means a twin in crates/skills-stub no longer matches its real signature (crates/skills/tests/it/parity.rs pins both); otherwise fix the warnings above",
        ),
        (
            &["-p", "skills"],
            "this is the default build (feature `mcp` off): a type error means crates/skills-stub/src/mcp.rs no longer matches crates/skills-mcp (crates/skills/tests/it/parity.rs pins both); otherwise fix the warnings above",
        ),
    ];
    for (features, hint) in directions {
        process::run(cargo(root).arg("clippy").args(features).args([
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]))
        .map_err(|message| Failure::new(message, hint))?;
    }
    Ok(())
}

fn test_enabled(root: &Path) -> Result<(), Failure> {
    process::run(
        cargo(root)
            .args(["test", "--workspace", "--all-features"])
            .env("INSTA_UPDATE", "no")
            .env("CI", "true")
            .env("SKILLS_EXPECT_ENABLED", "1"),
    )
    .map_err(|message| {
        Failure::new(
            message,
            "fix the failing tests above; if a snapshot changed on purpose, run `cargo insta review` and commit the snapshots",
        )
    })
}

fn test_disabled(root: &Path) -> Result<(), Failure> {
    process::run(
        cargo(root)
            .args(["test", "-p", "skills", "--no-default-features"])
            .env("INSTA_UPDATE", "no")
            .env("CI", "true")
            .env("SKILLS_EXPECT_ENABLED", "0"),
    )
    .map_err(|message| {
        Failure::new(
            message,
            "the stub must keep every facade signature: add the missing twin to crates/skills-stub and its line to crates/skills/tests/it/parity.rs",
        )
    })?;
    // The command line over the stub: `skills serve` must answer every method with -32601.
    process::run(
        cargo(root)
            .args(["test", "-p", "skills-cli", "--no-default-features"])
            .env("CI", "true"),
    )
    .map_err(|message| {
        Failure::new(
            message,
            "the command line must build and behave over the stub: see crates/skills-cli/tests/serve.rs",
        )
    })?;
    let mut consumer = cargo(root);
    consumer.args([
        "test",
        "--locked",
        "--manifest-path",
        STUB_CONSUMER_MANIFEST,
    ]);
    // Share the workspace's build directory: the consumer's dependencies are the workspace's,
    // so they are built once instead of twice.
    if std::env::var_os("CARGO_TARGET_DIR").is_none() {
        consumer.env("CARGO_TARGET_DIR", root.join("target"));
    }
    process::run(&mut consumer).map_err(|message| {
        Failure::new(
            message,
            "if the lock file is out of date, run `cargo update --workspace --manifest-path tests/stub-consumer/Cargo.toml` and commit tests/stub-consumer/Cargo.lock; otherwise fix the stub so an agent core's code compiles and gets `Error::Disabled`",
        )
    })
}

fn absence(root: &Path) -> Result<(), Failure> {
    // Slim: no subsystem crate at all without default features.
    absent_from(
        root,
        "skills",
        &["--no-default-features"],
        &FEATURE_ONLY_CRATES,
        "`skills` without default features still depends on a feature-only crate",
        "make that dependency optional and enable it only from the `skills` feature in crates/skills/Cargo.toml (and keep it out of skills-stub and skills-types)",
    )?;
    // Default: the MCP server and its SDK only with the `mcp` feature.
    absent_from(
        root,
        "skills",
        &[],
        &MCP_ONLY_CRATES,
        "`skills` with its default features depends on an MCP-only crate",
        "enable `skills-mcp` (and so `rmcp`) only from the `mcp` feature in crates/skills/Cargo.toml",
    )?;
    // The runtime sits beside the installer, not above it (docs/ARCHITECTURE.md).
    absent_from(
        root,
        "skills-runtime",
        &[],
        &NOT_UNDER_RUNTIME,
        "`skills-runtime` depends on `skills-install`",
        "reach the network, archives and digests through `skills-net` instead (crates/skills-runtime/Cargo.toml)",
    )
}

/// The normal dependency tree of `package` built with `features` names none of `crates`.
fn absent_from(
    root: &Path,
    package: &str,
    features: &[&str],
    crates: &[&str],
    problem: &str,
    hint: &str,
) -> Result<(), Failure> {
    let tree = process::output(
        cargo(root)
            .args(["tree", "-p", package, "-e", "normal"])
            .args(features),
    )
    .map_err(|message| {
        Failure::new(
            message,
            format!("make `cargo tree -p {package}` work again"),
        )
    })?;
    let offending = offending_lines(&tree, crates);
    if offending.is_empty() {
        println!(
            "none of {} in the dependency tree of {package}{}",
            crates.join(", "),
            if features.is_empty() {
                String::new()
            } else {
                format!(" ({})", features.join(" "))
            }
        );
        return Ok(());
    }
    for line in &offending {
        eprintln!("{line}");
    }
    Err(Failure::new(
        format!("{problem} ({} line(s) above)", offending.len()),
        hint,
    ))
}

fn offending_lines<'a>(tree: &'a str, crates: &[&str]) -> Vec<&'a str> {
    tree.lines()
        .filter(|line| crates.iter().any(|name| line.contains(name)))
        .collect()
}

fn doc(root: &Path) -> Result<(), Failure> {
    process::run(
        cargo(root)
            .args(["doc", "--workspace", "--no-deps"])
            .env("RUSTDOCFLAGS", "-Dwarnings"),
    )
    .map_err(|message| {
        Failure::new(
            message,
            "fix the rustdoc warnings above (broken intra-doc links, missing docs); reproduce with `RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps`",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absence_check_flags_feature_only_crates() {
        let clean = "skills v0.1.0 (/r/crates/skills)\n├── skills-stub v0.1.0 (/r/crates/skills-stub)\n└── skills-types v0.1.0 (/r/crates/skills-types)\n";
        assert!(offending_lines(clean, &FEATURE_ONLY_CRATES).is_empty());
        let dirty = format!("{clean}└── skills-ops v0.1.0 (/r/crates/skills-ops)\n");
        assert!(offending_lines(&dirty, &MCP_ONLY_CRATES).is_empty());
        assert_eq!(
            offending_lines(&dirty, &FEATURE_ONLY_CRATES),
            ["└── skills-ops v0.1.0 (/r/crates/skills-ops)"]
        );
        let runtime = "skills-runtime v0.1.0 (/r/crates/skills-runtime)\n├── skills-net v0.1.0 (/r/crates/skills-net)\n└── skills-types v0.1.0 (/r/crates/skills-types)\n";
        assert!(offending_lines(runtime, &NOT_UNDER_RUNTIME).is_empty());
        let climbed = format!("{runtime}└── skills-install v0.1.0 (/r/crates/skills-install)\n");
        assert_eq!(
            offending_lines(&climbed, &NOT_UNDER_RUNTIME),
            ["└── skills-install v0.1.0 (/r/crates/skills-install)"]
        );
        let slim_with_net = format!("{clean}└── skills-net v0.1.0 (/r/crates/skills-net)\n");
        assert_eq!(
            offending_lines(&slim_with_net, &FEATURE_ONLY_CRATES),
            ["└── skills-net v0.1.0 (/r/crates/skills-net)"]
        );
    }

    #[test]
    fn step_names_are_unique() {
        for (index, step) in STEPS.iter().enumerate() {
            assert!(
                STEPS[index + 1..]
                    .iter()
                    .all(|other| other.name != step.name),
                "{}",
                step.name
            );
        }
    }
}
