//! The interpreters (07 §Runtimes): where each one is (the home configuration's path first,
//! then the `PATH` of [`RuntimeConfig::inherited_env`]), which version it reports, and whether
//! runs may use it. Resolved once per [`crate::Runtime`]: a run must not pay for five
//! `--version` children, and two runs of one handle must not see two different interpreters.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use skills_types::SkillsConfig;
use skills_types::run::{RuntimeInfo, RuntimeKind, RuntimeSource};
use skills_types::runtime::RuntimeConfig;

use crate::managed_node;
use crate::versions::{self, Identity};

/// The first bytes of an ELF file: an executable binary, not a script.
const ELF_MAGIC: &[u8; 4] = b"\x7fELF";

/// How long `--version` may take before the interpreter is called unusable.
const VERSION_DEADLINE: Duration = Duration::from_secs(5);
/// The oldest Node runs accept.
const MIN_NODE: (u64, u64) = (18, 0);
/// The oldest Python runs accept.
const MIN_PYTHON: (u64, u64) = (3, 8);
/// The first Node that strips TypeScript types by default, so `.ts` files run.
pub(crate) const NODE_STRIPS_TYPES: (u64, u64) = (23, 6);

/// The interpreters resolved so far, by kind.
#[derive(Debug, Default)]
pub(crate) struct Runtimes {
    resolved: Mutex<BTreeMap<RuntimeKind, RuntimeInfo>>,
    /// Where managed Node lives and how it is fetched: the handle's home, known from the
    /// first configuration a run or a resolution brings (a runtime belongs to one handle).
    managed: Mutex<Option<managed_node::Place>>,
    /// The handle's app folder, where the versions of binaries are remembered (`versions`).
    app: Mutex<Option<PathBuf>>,
}

impl Runtimes {
    /// Takes note of the handle's home for managed Node; the first call wins.
    pub(crate) fn know(&self, config: &SkillsConfig) {
        let mut managed = self.managed.lock().unwrap_or_else(PoisonError::into_inner);
        if managed.is_none() {
            *managed = Some(managed_node::Place::of(config));
        }
        let mut app = self.app.lock().unwrap_or_else(PoisonError::into_inner);
        if app.is_none() {
            *app = Some(skills_ops::state::app_dir(config));
        }
    }

    /// The `bin` folder of the managed Node this handle resolved, if it uses one: it goes
    /// first on a child's `PATH`, so a script's `node` (and npm's) is that one.
    pub(crate) fn managed_bin(&self) -> Option<PathBuf> {
        let resolved = self.resolved.lock().unwrap_or_else(PoisonError::into_inner);
        let node = resolved.get(&RuntimeKind::Node)?;
        if node.source != Some(RuntimeSource::Managed) || !node.usable {
            return None;
        }
        node.path.as_deref()?.parent().map(Path::to_path_buf)
    }

    /// `kind` as resolved the first time it was asked for.
    pub(crate) fn get(&self, config: &RuntimeConfig, kind: RuntimeKind) -> RuntimeInfo {
        if let Some(info) = self
            .resolved
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&kind)
        {
            return info.clone();
        }
        // Resolved outside the lock: `--version` may take seconds, and other kinds need not
        // wait for it. Two first calls racing both resolve; the first answer stored wins.
        let app = self
            .app
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let mut info = resolve(config, kind, app.as_deref());
        if !info.usable
            && let Some(major) = &config.managed_node
        {
            info = self.managed(config, kind, major, info);
        }
        self.resolved
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(kind)
            .or_insert(info)
            .clone()
    }
}

impl Runtimes {
    /// `kind` from managed Node (07 §Runtimes), when nothing usable was found and the home
    /// configuration opted in: node itself, or the npm its distribution ships.
    fn managed(
        &self,
        config: &RuntimeConfig,
        kind: RuntimeKind,
        major: &str,
        found: RuntimeInfo,
    ) -> RuntimeInfo {
        let place = self
            .managed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let (program, place) = match (kind, place) {
            (RuntimeKind::Node, Some(place)) => ("node", place),
            (RuntimeKind::Npm, Some(place)) => ("npm", place),
            _ => return found,
        };
        let looked_for = format!(
            "{}; then managed Node {major} (`[runtime] managed_node` in the home skills.toml)",
            found.looked_for
        );
        let node = if kind == RuntimeKind::Node {
            managed_node::ensure(&place, config, major)
        } else {
            // npm comes with the managed node, which is resolved (and cached) first; a node
            // of the machine's own is not one whose npm this may take.
            let node = self.get(config, RuntimeKind::Node);
            match (node.path, node.source, node.usable) {
                (Some(path), Some(RuntimeSource::Managed), true) => Ok(path),
                (_, _, true) => return found,
                _ => Err(node.problem.unwrap_or_else(|| "no usable node".to_owned())),
            }
        };
        let mut info = RuntimeInfo::new(kind, looked_for);
        let path = match node {
            Ok(node) => node
                .parent()
                .map(|bin| bin.join(program))
                .filter(|path| is_executable(path)),
            Err(problem) => {
                let found = found
                    .problem
                    .unwrap_or_else(|| "nothing usable found".to_owned());
                info.problem = Some(if kind == RuntimeKind::Node {
                    format!("{found}; managed Node {major} could not be installed: {problem}")
                } else {
                    format!(
                        "{found}; npm would come with managed Node, and node is not usable: {problem}"
                    )
                });
                return info;
            }
        };
        let Some(path) = path else {
            info.problem = Some(format!(
                "{}; the managed Node {major} has no `bin/{program}`",
                found
                    .problem
                    .unwrap_or_else(|| "nothing usable found".to_owned())
            ));
            return info;
        };
        let (version, problem) = if kind == RuntimeKind::Node {
            let app = self
                .app
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            match version_of(config, &path, app.as_deref()) {
                Ok(version) => {
                    let problem = parse_version(&version)
                        .is_none_or(|found| found < MIN_NODE)
                        .then(|| {
                            format!(
                                "the managed node {version} is too old; {}.{} or newer is needed",
                                MIN_NODE.0, MIN_NODE.1
                            )
                        });
                    (Some(version), problem)
                }
                Err(problem) => (None, Some(problem)),
            }
        } else {
            (None, None)
        };
        info.path = Some(path);
        info.source = Some(RuntimeSource::Managed);
        info.version = version;
        info.usable = problem.is_none();
        info.problem = problem;
        info
    }
}

/// `dir` first on the `PATH` of a child's environment (added when there is none).
pub(crate) fn prepend_path(env: &mut Vec<(String, String)>, dir: &Path) {
    let dir = dir.display().to_string();
    match env.iter_mut().find(|(name, _)| name == "PATH") {
        Some((_, value)) if value.split(':').next() == Some(dir.as_str()) => {}
        Some((_, value)) if value.is_empty() => *value = dir,
        Some((_, value)) => *value = format!("{dir}:{value}"),
        None => env.push(("PATH".to_owned(), dir)),
    }
}

/// The program name looked for on `PATH`.
const fn program(kind: RuntimeKind) -> &'static str {
    match kind {
        RuntimeKind::Node => "node",
        RuntimeKind::Npm => "npm",
        RuntimeKind::Python => "python3",
        RuntimeKind::Sh => "sh",
    }
}

fn configured(config: &RuntimeConfig, kind: RuntimeKind) -> Option<&PathBuf> {
    match kind {
        RuntimeKind::Node => config.node.as_ref(),
        RuntimeKind::Npm => config.npm.as_ref(),
        RuntimeKind::Python => config.python.as_ref(),
        RuntimeKind::Sh => config.sh.as_ref(),
    }
}

fn resolve(config: &RuntimeConfig, kind: RuntimeKind, app: Option<&Path>) -> RuntimeInfo {
    let (looked_for, path, source) = match configured(config, kind) {
        Some(path) => (
            format!(
                "{} (`[runtime] {}` in the home skills.toml)",
                path.display(),
                kind.as_str()
            ),
            is_executable(path).then(|| path.clone()),
            Some(RuntimeSource::Config),
        ),
        None => (
            format!("`{}` on PATH", program(kind)),
            find_on_path(config, program(kind)),
            Some(RuntimeSource::Path),
        ),
    };
    let Some(path) = path else {
        let mut info = RuntimeInfo::new(kind, looked_for);
        info.problem = Some(format!("nothing found: looked for {}", info.looked_for));
        return info;
    };
    let (version, problem) = match kind {
        RuntimeKind::Sh => (None, None),
        _ => match version_of(config, &path, app) {
            Ok(version) => {
                let problem = minimum(kind).and_then(|(major, minor)| {
                    let found = parse_version(&version);
                    (found.is_none_or(|found| found < (major, minor))).then(|| {
                        format!(
                            "{} {version} is too old; {major}.{minor} or newer is needed",
                            kind.as_str()
                        )
                    })
                });
                (Some(version), problem)
            }
            Err(problem) => (None, Some(problem)),
        },
    };
    let mut info = RuntimeInfo::new(kind, looked_for);
    info.path = Some(path);
    info.source = source;
    info.version = version;
    info.usable = problem.is_none();
    info.problem = problem;
    info
}

const fn minimum(kind: RuntimeKind) -> Option<(u64, u64)> {
    match kind {
        RuntimeKind::Node => Some(MIN_NODE),
        RuntimeKind::Python => Some(MIN_PYTHON),
        RuntimeKind::Npm | RuntimeKind::Sh => None,
    }
}

/// `program` (a bare name) in the directories of the inherited `PATH`, the first executable
/// file met. Relative `PATH` entries are skipped: they would resolve against whatever the
/// working directory happens to be.
pub(crate) fn find_on_path(config: &RuntimeConfig, program: &str) -> Option<PathBuf> {
    let path = config.inherited("PATH")?;
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path)
        .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

/// The identity of the binary `path` resolves to (`versions`); `None` for a script (its
/// version follows its configuration, not its file) or a file that cannot be read.
pub(crate) fn identity(path: &Path) -> Option<Identity> {
    use std::os::unix::fs::MetadataExt as _;

    let path = std::fs::canonicalize(path).ok()?;
    let mut file = std::fs::File::open(&path).ok()?;
    let mut magic = [0u8; 4];
    file.read_exact(&mut magic).ok()?;
    if &magic != ELF_MAGIC {
        return None;
    }
    let metadata = file.metadata().ok()?;
    let nanos = |seconds: i64, nanos: i64| i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
    Some(Identity {
        path,
        device: metadata.dev(),
        inode: metadata.ino(),
        size: metadata.len(),
        modified_ns: nanos(metadata.mtime(), metadata.mtime_nsec()),
        changed_ns: nanos(metadata.ctime(), metadata.ctime_nsec()),
    })
}

/// `path`'s version: remembered in the app folder `app` for a binary whose file has not
/// changed since, else asked.
fn version_of(config: &RuntimeConfig, path: &Path, app: Option<&Path>) -> Result<String, String> {
    let Some((app, identity)) = app.zip(identity(path)) else {
        return ask_version(config, path);
    };
    if let Some(version) = versions::recall(app, &identity) {
        return Ok(version);
    }
    let version = ask_version(config, path)?;
    versions::remember(app, identity, &version);
    Ok(version)
}

/// What `path --version` prints, as a bare version (`22.11.0`), within the deadline.
fn ask_version(config: &RuntimeConfig, path: &Path) -> Result<String, String> {
    let mut command = crate::spawn::command(path, crate::inherited_env::allowlisted_env(config));
    command
        .arg("--version")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = command
        .spawn()
        .map_err(|error| format!("{} --version could not start: {error}", path.display()))?;
    let started = Instant::now();
    // Most interpreters answer within a few milliseconds: start polling at 1 ms and back off,
    // so a resolution costs about what the interpreter takes, not a fixed tick.
    let mut pause = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < VERSION_DEADLINE => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Ok(None) | Err(_) => {
                drop(child.kill());
                drop(child.wait());
                return Err(format!(
                    "{} --version did not answer within {} s",
                    path.display(),
                    VERSION_DEADLINE.as_secs()
                ));
            }
        }
    };
    let mut text = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        drop(stdout.by_ref().take(4096).read_to_string(&mut text));
    }
    if !status.success() {
        return Err(format!("{} --version failed ({status})", path.display()));
    }
    version_token(&text)
        .map(str::to_owned)
        .ok_or_else(|| format!("{} --version printed no version", path.display()))
}

/// The first word that looks like a version (`v22.1.0`, `Python 3.11.2`), without its `v`.
fn version_token(text: &str) -> Option<&str> {
    text.split_whitespace()
        .map(|word| word.strip_prefix('v').unwrap_or(word))
        .find(|word| word.starts_with(|c: char| c.is_ascii_digit()))
}

/// `major.minor` of a version text.
pub(crate) fn parse_version(version: &str) -> Option<(u64, u64)> {
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts
        .next()
        .map(|minor| {
            minor
                .chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        })
        .and_then(|minor| minor.parse().ok())
        .unwrap_or(0);
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_what_interpreters_print() {
        assert_eq!(version_token("v22.11.0\n"), Some("22.11.0"));
        assert_eq!(version_token("Python 3.11.2\n"), Some("3.11.2"));
        assert_eq!(version_token("nothing here"), None);
        assert_eq!(parse_version("23.6.1"), Some((23, 6)));
        assert_eq!(parse_version("3.8"), Some((3, 8)));
        assert_eq!(parse_version("3.12rc1"), Some((3, 12)));
        assert_eq!(parse_version("x"), None);
    }

    #[test]
    fn a_folder_goes_first_on_path_once() {
        let mut env = vec![("PATH".to_owned(), "/usr/bin:/bin".to_owned())];
        prepend_path(&mut env, Path::new("/opt/node/bin"));
        prepend_path(&mut env, Path::new("/opt/node/bin"));
        assert_eq!(env[0].1, "/opt/node/bin:/usr/bin:/bin");
        let mut empty = Vec::new();
        prepend_path(&mut empty, Path::new("/opt/node/bin"));
        assert_eq!(empty, [("PATH".to_owned(), "/opt/node/bin".to_owned())]);
    }
}
