//! Managed Node (07 §Runtimes): opt-in with `[runtime] managed_node = "22"` in the home
//! `skills.toml`, used when no compatible `node` (≥ 18) is configured or on `PATH`.
//!
//! An installed `<home>/<app_dir>/runtimes/node-v<major>.x.y/` is used as it is, so a
//! machine that installed one once needs no network again. Otherwise the newest `v<major>.x.y`
//! of the distribution's `index.json` is fetched with its `SHASUMS256.txt`, through the one
//! guarded client of `skills-net` (the URL policy, the address checks, the caps); the
//! tarball's SHA-256 must be the one `SHASUMS256.txt` names before a byte of it is parsed; it
//! is unpacked by the one extractor ([`skills_net::archive::extract_runtime`]: the skill
//! rules plus execute bits and in-tree links) and written into a fresh staging folder that is
//! renamed into place in one step. A wrong checksum, a refused archive or a failed write
//! leaves nothing in `runtimes/`: a half-written runtime would be run by the next handle.
//!
//! The distribution's base URL is `[runtime] node_dist` (home only), `https://nodejs.org/dist`
//! by default. The runtime is synchronous and the client is not: the fetches run on a thread
//! of their own with a current-thread tokio runtime, since a `block_on` inside a caller's own
//! tokio runtime would panic.

use std::path::{Path, PathBuf};
use std::time::Duration;

use skills_net::archive::{self, RUNTIME_LIMITS, Unpacked};
use skills_net::client::{Client, Settings};
use skills_net::digest::{check_digest, hex_digest};
use skills_net::policy::{self, Policy};
use skills_ops::state::{self, EntryKind, Folder};
use skills_types::SkillsConfig;
use skills_types::runtime::{DEFAULT_NODE_DIST, RuntimeConfig};
use url::Url;

/// The folder under `<home>/<app_dir>/` that holds managed runtimes.
pub(crate) const RUNTIMES_DIR: &str = state::RUNTIMES_DIR;
/// The most bytes of `index.json` read (nodejs.org's is a few hundred KiB).
const MAX_INDEX_BYTES: u64 = 16 * 1024 * 1024;
/// The most bytes of `SHASUMS256.txt` read.
const MAX_SHASUMS_BYTES: u64 = 1024 * 1024;
/// The most bytes of a tarball read (an official one is a few tens of MiB).
const MAX_TARBALL_BYTES: u64 = 256 * 1024 * 1024;
/// The deadline of the whole download.
const DOWNLOAD_DEADLINE: Duration = Duration::from_secs(600);

/// Where managed runtimes of one handle live and what the network policy lets it fetch.
#[derive(Clone, Debug)]
pub(crate) struct Place {
    /// The app folder, absolute: the node found here is spawned with another working
    /// directory.
    app: PathBuf,
    allow_loopback_http: bool,
    denied: Vec<String>,
}

impl Place {
    /// The place of a handle's configuration.
    pub(crate) fn of(config: &SkillsConfig) -> Self {
        let app = state::app_dir(config);
        Self {
            app: std::path::absolute(&app).unwrap_or(app),
            allow_loopback_http: config.network.allow_loopback_http,
            denied: config.network.denied.clone(),
        }
    }
}

/// The `bin/node` of managed Node `major`: the installed one, or one downloaded now.
pub(crate) fn ensure(
    place: &Place,
    settings: &RuntimeConfig,
    major: &str,
) -> Result<PathBuf, String> {
    // The runtimes folder is the program's: a link there is neither followed (a `node` from
    // wherever it points would be run) nor written through.
    match Folder::open(&place.app, &[RUNTIMES_DIR]) {
        Ok(Some(runtimes)) => {
            if let Some(node) = installed(&runtimes, major) {
                return Ok(node);
            }
        }
        Ok(None) => {}
        Err(refusal) => {
            return Err(format!(
                "{} cannot be used: {refusal}",
                place.app.join(RUNTIMES_DIR).display()
            ));
        }
    }
    let platform = Platform::current()?;
    let base = settings
        .node_dist
        .clone()
        .unwrap_or_else(|| DEFAULT_NODE_DIST.to_owned());
    let place = place.clone();
    let major = major.to_owned();
    // A thread of its own, so a caller inside a tokio runtime never meets a nested `block_on`.
    std::thread::Builder::new()
        .name("skills-managed-node".to_owned())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|error| format!("could not start the download: {error}"))?;
            runtime.block_on(download(&place, &base, &major, platform))
        })
        .map_err(|error| format!("could not start the download: {error}"))?
        .join()
        .map_err(|_| "the download stopped unexpectedly".to_owned())?
}

/// The newest installed `node-v<major>.x.y` whose `bin/node` is an executable file, none of
/// the three a link.
fn installed(runtimes: &Folder, major: &str) -> Option<PathBuf> {
    let prefix = format!("node-v{major}.");
    runtimes
        .entries()
        .ok()?
        .into_iter()
        .filter_map(|entry| {
            let version = parse_triple(entry.name.strip_prefix("node-v")?)?;
            entry.name.starts_with(&prefix).then_some(())?;
            // A symlinked runtime folder is not one this module wrote.
            (entry.kind == EntryKind::Folder).then_some(())?;
            Some((version, node_in(runtimes, &entry.name)?))
        })
        .max_by_key(|(version, _)| *version)
        .map(|(_, node)| node)
}

/// The `bin/node` of the runtime `name` when it is an executable file, neither the runtime's
/// folder nor `bin` nor `node` a link.
fn node_in(runtimes: &Folder, name: &str) -> Option<PathBuf> {
    let bin = runtimes.child(name).ok()??.child("bin").ok()??;
    let node = bin.entry("node")?;
    (node.kind == EntryKind::File && node.mode & 0o111 != 0).then(|| bin.join("node"))
}

/// `major.minor.patch` of `22.11.0`.
fn parse_triple(text: &str) -> Option<(u64, u64, u64)> {
    let mut parts = text.split('.');
    let triple = (
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
    );
    parts.next().is_none().then_some(triple)
}

/// This machine as Node's distribution names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Platform {
    /// In tarball names: `linux`, `darwin`.
    os: &'static str,
    /// `x64`, `arm64`.
    arch: &'static str,
    /// In `index.json`'s `files`: `linux-x64`, `osx-arm64-tar`.
    index_key: &'static str,
}

impl Platform {
    fn current() -> Result<Self, String> {
        Self::of(std::env::consts::OS, std::env::consts::ARCH)
    }

    fn of(os: &str, arch: &str) -> Result<Self, String> {
        let platform = match (os, arch) {
            ("linux", "x86_64") => ("linux", "x64", "linux-x64"),
            ("linux", "aarch64") => ("linux", "arm64", "linux-arm64"),
            ("macos", "x86_64") => ("darwin", "x64", "osx-x64-tar"),
            ("macos", "aarch64") => ("darwin", "arm64", "osx-arm64-tar"),
            _ => {
                return Err(format!(
                    "managed Node is offered for Linux and macOS on x86_64 and aarch64, not \
                     {os} on {arch}; install node 18 or newer and put it on PATH (or set \
                     `[runtime] node` in the home skills.toml)"
                ));
            }
        };
        Ok(Self {
            os: platform.0,
            arch: platform.1,
            index_key: platform.2,
        })
    }
}

async fn download(
    place: &Place,
    base: &str,
    major: &str,
    platform: Platform,
) -> Result<PathBuf, String> {
    let mut policy = Policy::default();
    policy.allow_loopback_http = place.allow_loopback_http;
    policy.denied = place
        .denied
        .iter()
        .map(|text| {
            text.parse::<ipnet::IpNet>()
                .map_err(|error| format!("'{text}' is not an address range: {error}"))
        })
        .collect::<Result<_, _>>()?;
    let base = base.trim_end_matches('/');
    let url = |path: &str| -> Result<Url, String> {
        let text = format!("{base}/{path}");
        policy::parse(&text, &policy).map_err(|refusal| {
            let mut why = format!("the URL {text} is refused: {refusal}");
            if !policy.allow_loopback_http {
                why = format!("{why} (`[runtime] node_dist` in the home skills.toml)");
            }
            why
        })
    };
    let mut settings = Settings::new(DOWNLOAD_DEADLINE);
    settings.policy = policy.clone();
    let client = Client::new(settings).map_err(|error| error.to_string())?;
    let fetch = |url: Url, cap: u64| {
        let client = client.clone();
        async move {
            client
                .fetch(&url, cap)
                .await
                .map_err(|error| format!("{}: {error}", policy::redact(&url)))
        }
    };

    let index = fetch(url("index.json")?, MAX_INDEX_BYTES).await?;
    let version = newest(&index, major, platform)?;
    let file = format!("node-v{version}-{}-{}.tar.gz", platform.os, platform.arch);
    let shasums = fetch(
        url(&format!("v{version}/SHASUMS256.txt"))?,
        MAX_SHASUMS_BYTES,
    )
    .await?;
    let expected = digest_for(&shasums, &file)?;
    let tarball_url = url(&format!("v{version}/{file}"))?;
    let shown = policy::redact(&tarball_url);
    let tarball = fetch(tarball_url, MAX_TARBALL_BYTES).await?;
    check_digest(&tarball, &format!("sha256:{expected}")).map_err(|_| {
        format!(
            "checksum mismatch: {shown} has SHA-256 {}, but SHASUMS256.txt says {expected}; \
             nothing was installed",
            hex_digest(&tarball)
        )
    })?;
    let unpacked = archive::extract_runtime(&tarball, &RUNTIME_LIMITS)
        .map_err(|why| format!("{shown}: {why}; nothing was installed"))?;
    drop(tarball);
    let top = format!("node-v{version}-{}-{}", platform.os, platform.arch);
    install(&place.app, &format!("node-v{version}"), &top, unpacked)
}

/// The newest `v<major>.x.y` of `index.json` that has a build for `platform`.
fn newest(index: &[u8], major: &str, platform: Platform) -> Result<String, String> {
    let releases: Vec<serde_json::Value> = serde_json::from_slice(index)
        .map_err(|error| format!("the distribution's index.json is not a JSON list: {error}"))?;
    releases
        .iter()
        .filter_map(|release| {
            let version = release.get("version")?.as_str()?.strip_prefix('v')?;
            let triple = parse_triple(version)?;
            (triple.0.to_string() == major).then_some(())?;
            let files = release.get("files")?.as_array()?;
            files
                .iter()
                .any(|file| file.as_str() == Some(platform.index_key))
                .then_some((triple, version.to_owned()))
        })
        .max_by_key(|(triple, _)| *triple)
        .map(|(_, version)| version)
        .ok_or_else(|| {
            format!(
                "the distribution's index.json lists no Node {major}.x.y for {}; check \
                 `[runtime] managed_node` in the home skills.toml",
                platform.index_key
            )
        })
}

/// The hex SHA-256 `SHASUMS256.txt` gives for `file`.
fn digest_for(shasums: &[u8], file: &str) -> Result<String, String> {
    String::from_utf8_lossy(shasums)
        .lines()
        .find_map(|line| {
            let mut words = line.split_whitespace();
            let digest = words.next()?;
            (words.next()? == file && words.next().is_none()).then(|| digest.to_ascii_lowercase())
        })
        .filter(|digest| digest.len() == 64 && digest.bytes().all(|byte| byte.is_ascii_hexdigit()))
        .ok_or_else(|| format!("SHASUMS256.txt names no SHA-256 for {file}; nothing was installed"))
}

/// Writes `unpacked` (every entry under `top/`) into a fresh staging folder beside
/// `<app>/runtimes/name`, then renames it into place; on any failure the staging folder is
/// removed. Returns the `bin/node` installed. Every folder, file and link is made through
/// [`state`], relative to the runtimes folder, which is never a link.
fn install(app: &Path, name: &str, top: &str, unpacked: Unpacked) -> Result<PathBuf, String> {
    let prefix = format!("{top}/");
    let strip = |path: &str| -> Result<String, String> {
        path.strip_prefix(&prefix)
            .filter(|rest| !rest.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| {
                format!(
                    "the tarball's entry '{}' is not under {top}/, as every entry of a Node \
                     distribution is; nothing was installed",
                    path.escape_debug()
                )
            })
    };
    // Checked before anything is created, so a tarball of the wrong shape leaves nothing.
    let files: Vec<(String, Vec<u8>, bool)> = unpacked
        .files
        .into_iter()
        .map(|file| Ok((strip(&file.path)?, file.bytes, file.executable)))
        .collect::<Result<_, String>>()?;
    let folders: Vec<String> = unpacked
        .folders
        .iter()
        .filter(|folder| folder.as_str() != top)
        .map(|folder| strip(folder))
        .collect::<Result<_, String>>()?;
    let links: Vec<(String, String)> = unpacked
        .links
        .into_iter()
        .map(|link| Ok((strip(&link.path)?, link.target)))
        .collect::<Result<_, String>>()?;
    if !files
        .iter()
        .any(|(path, _, executable)| path == "bin/node" && *executable)
    {
        return Err(format!(
            "the tarball has no executable {top}/bin/node; nothing was installed"
        ));
    }

    let runtimes_dir = app.join(RUNTIMES_DIR);
    let runtimes = Folder::create(app, &[RUNTIMES_DIR])
        .map_err(|refusal| format!("could not create {}: {refusal}", runtimes_dir.display()))?;
    let staging = format!(".{name}.staging-{}", uuid::Uuid::now_v7().simple());
    let written = runtimes
        .create_child(&staging)
        .map_err(|refusal| {
            format!(
                "could not create {}: {refusal}",
                runtimes.join(&staging).display()
            )
        })
        .and_then(|folder| write_tree(&folder, &files, &folders, &links))
        .and_then(|()| match runtimes.rename_noreplace(&staging, name) {
            Ok(()) => Ok(()),
            // Another process installed the same version meanwhile: theirs stands.
            Err(_) if node_in(&runtimes, name).is_some() => {
                drop(runtimes.remove_tree(&staging));
                Ok(())
            }
            Err(error) => Err(format!(
                "could not move {} into place: {error}",
                runtimes.join(&staging).display()
            )),
        });
    if let Err(why) = written {
        drop(runtimes.remove_tree(&staging));
        return Err(format!("{why}; nothing was installed"));
    }
    Ok(runtimes_dir.join(name).join("bin").join("node"))
}

/// Folders first, then files (created new, mode 0755 or 0644), then links: no link exists
/// while anything is written, and the extractor made sure no entry lies through one.
fn write_tree(
    staging: &Folder,
    files: &[(String, Vec<u8>, bool)],
    folders: &[String],
    links: &[(String, String)],
) -> Result<(), String> {
    let parts = |path: &str| -> Vec<String> { path.split('/').map(str::to_owned).collect() };
    let shown = |path: &str| staging.path().join(path).display().to_string();
    for folder in folders {
        let relative = parts(folder);
        let relative: Vec<&str> = relative.iter().map(String::as_str).collect();
        staging
            .create_below(&relative)
            .map_err(|refusal| format!("could not create {}: {refusal}", shown(folder)))?;
    }
    for (path, bytes, executable) in files {
        let relative = parts(path);
        let relative: Vec<&str> = relative.iter().map(String::as_str).collect();
        staging
            .write_new_below(&relative, bytes, if *executable { 0o755 } else { 0o644 })
            .map_err(|error| format!("could not write {}: {error}", shown(path)))?;
    }
    for (path, target) in links {
        let relative = parts(path);
        let relative: Vec<&str> = relative.iter().map(String::as_str).collect();
        staging
            .symlink_below(&relative, target)
            .map_err(|error| format!("could not create the link {}: {error}", shown(path)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platforms_map_to_the_distribution_names() {
        let linux = Platform::of("linux", "x86_64").unwrap();
        assert_eq!(
            (linux.os, linux.arch, linux.index_key),
            ("linux", "x64", "linux-x64")
        );
        let mac = Platform::of("macos", "aarch64").unwrap();
        assert_eq!(
            (mac.os, mac.arch, mac.index_key),
            ("darwin", "arm64", "osx-arm64-tar")
        );
        let error = Platform::of("windows", "x86_64").unwrap_err();
        assert!(error.contains("not windows on x86_64"), "{error}");
    }

    #[test]
    fn the_newest_release_of_the_major_with_a_build_is_chosen() {
        let index = br#"[
            {"version": "v23.1.0", "files": ["linux-x64"]},
            {"version": "v22.12.0", "files": ["osx-arm64-tar"]},
            {"version": "v22.11.0", "files": ["linux-x64", "headers"]},
            {"version": "v22.9.3", "files": ["linux-x64"]},
            {"version": "v2.0.0", "files": ["linux-x64"]}
        ]"#;
        let linux = Platform::of("linux", "x86_64").unwrap();
        assert_eq!(newest(index, "22", linux).unwrap(), "22.11.0");
        assert!(
            newest(index, "21", linux)
                .unwrap_err()
                .contains("no Node 21.x.y")
        );
        assert!(
            newest(b"{}", "22", linux)
                .unwrap_err()
                .contains("not a JSON list")
        );
    }

    #[test]
    fn shasums_lines_are_matched_by_the_whole_file_name() {
        let hex = "a".repeat(64);
        let text = format!(
            "{hex}  node-v22.1.0-linux-x64.tar.gz\n{}  node-v22.1.0-linux-x64.tar.xz\n",
            "b".repeat(64)
        );
        assert_eq!(
            digest_for(text.as_bytes(), "node-v22.1.0-linux-x64.tar.gz").unwrap(),
            hex
        );
        assert!(digest_for(text.as_bytes(), "node-v22.1.0-linux-x64.tar").is_err());
        assert!(digest_for(b"xyz  node.tar.gz\n", "node.tar.gz").is_err());
    }

    #[test]
    fn only_whole_installed_runtimes_of_the_major_are_used() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let make = |name: &str, mode: u32| {
            let bin = dir.path().join(name).join("bin");
            std::fs::create_dir_all(&bin).unwrap();
            std::fs::write(bin.join("node"), "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(bin.join("node"), std::fs::Permissions::from_mode(mode))
                .unwrap();
        };
        make("node-v22.2.0", 0o755);
        make("node-v22.10.1", 0o755);
        make("node-v22.11.0", 0o644);
        make("node-v23.0.0", 0o755);
        make(".node-v22.99.0.staging-x", 0o755);
        let runtimes = Folder::open(dir.path(), &[]).unwrap().unwrap();
        assert_eq!(
            installed(&runtimes, "22").unwrap(),
            dir.path().join("node-v22.10.1/bin/node")
        );
        assert!(installed(&runtimes, "20").is_none());
    }
}
