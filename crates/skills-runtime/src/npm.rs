//! The `Npm` target (07 §What a run is): `npm ci`, `npm install`, `npm run SCRIPT` and
//! `npm test` in the folder of a skill that ships a `package.json`.
//!
//! npm is a program that runs other programs and fetches code, so its run is planned more
//! tightly than a script's:
//!
//! - **A closed set of subcommands**, each one argv element. `ci` and `install` take flags
//!   from [`INSTALL_FLAGS`] only: a flag outside it could turn scripts back on
//!   (`--ignore-scripts=false`, `--foreground-scripts`), fetch from elsewhere (`--registry`),
//!   install elsewhere (`--prefix`, `-g`) or read another configuration (`--userconfig`), and
//!   a package name would change `package.json` with code nobody reviewed. `run` and `test`
//!   run the package's own scripts, which is what they are for; every word after the script
//!   name goes to the script behind `--`, never to npm, so it cannot be read as npm
//!   configuration (`npm run x --prefix /elsewhere` would run another package's script).
//! - **Install scripts off** (`--ignore-scripts`) unless the home configuration says
//!   `[runtime] allow_install_scripts = true`: a dependency's `postinstall` is the usual way
//!   a hostile package runs.
//! - **No project `.npmrc`.** npm reads one from the package's folder, and a skill's could
//!   re-enable what this plan turns off (`ignore-scripts`, `registry`, the `git` or
//!   `script-shell` program); a skill that ships one is refused.
//! - **Only installs write into the skill folder** (`node_modules/`, the lock file): the
//!   folder goes into the run's extra writable folders, with npm's cache. `run` and `test` get
//!   neither and write no npm log (`logs-max=0`).
//! - **Under `network = "deny"` an install must need no registry**: every dependency of
//!   `package.json` is a `file:` path inside the skill folder, and every package of the lock
//!   file is a link to such a folder or a `file:` tarball. Anything else (a version range, a
//!   tag, a URL, git) is refused before anything is spawned, naming the setting; and npm is
//!   passed `--offline`, so even a dependency the check cannot see (one of a local package's
//!   own, without a lock) fails at once instead of waiting on a network the sandbox closed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;
use skills_types::runtime::{NetworkMode, RuntimeConfig, SandboxMode};
use skills_types::{Error, SkillsConfig};

/// The file that makes a skill an npm package.
pub(crate) const PACKAGE_JSON: &str = "package.json";
/// The lock files npm reads, in its order of preference.
const LOCK_FILES: [&str; 2] = ["npm-shrinkwrap.json", "package-lock.json"];
/// The project configuration npm would read from the skill folder.
pub(crate) const PROJECT_NPMRC: &str = ".npmrc";
/// Where npm's cache lives, under `<home>/<app_dir>/`: shared by the installs of every skill
/// (npm checks each cached package's integrity when it reads it).
const CACHE_DIR: [&str; 2] = [
    skills_ops::state::RUNTIMES_DIR,
    skills_ops::state::NPM_CACHE_DIR,
];
/// The dependency tables of `package.json` npm installs (peers too, since npm 7).
const DEPENDENCY_TABLES: [&str; 4] = [
    "dependencies",
    "devDependencies",
    "optionalDependencies",
    "peerDependencies",
];
/// The most bytes of `package.json` or a lock file read.
const MAX_MANIFEST_BYTES: u64 = 8 * 1024 * 1024;

/// The subcommands a run may give, and what each is.
const SUBCOMMANDS: [(&str, Subcommand); 7] = [
    ("ci", Subcommand::Ci),
    ("install", Subcommand::Install),
    ("i", Subcommand::Install),
    ("run", Subcommand::Run),
    ("run-script", Subcommand::Run),
    ("test", Subcommand::Test),
    ("t", Subcommand::Test),
];

/// The flags `ci` and `install` accept: how much is installed and how much npm says, nothing
/// about where from, where to, or what runs. Valued ones are written `--flag=value`.
const INSTALL_FLAGS: [&str; 14] = [
    "--omit=dev",
    "--omit=optional",
    "--omit=peer",
    "--include=dev",
    "--include=optional",
    "--include=peer",
    "--production",
    "--legacy-peer-deps",
    "--strict-peer-deps",
    "--prefer-offline",
    "--dry-run",
    "--silent",
    "--quiet",
    "--verbose",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Subcommand {
    Ci,
    Install,
    Run,
    Test,
}

impl Subcommand {
    fn installs(self) -> bool {
        matches!(self, Self::Ci | Self::Install)
    }
}

/// What an npm run adds to a plan besides the program.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// Everything after `npm`, each one argv element.
    pub(crate) argv: Vec<OsString>,
    /// Variables set for npm (`npm_config_*`), after the allowlisted ones.
    pub(crate) env: Vec<(String, String)>,
    /// Folders the run may write: the skill folder and the cache, for installs only.
    pub(crate) extra_writable: Vec<PathBuf>,
}

/// Checks an npm run of the skill in `skill_dir` (`args` are npm's, `script_args` the
/// request's arguments, which go to a script) and plans it.
pub(crate) fn plan(
    config: &SkillsConfig,
    settings: &RuntimeConfig,
    skill_dir: &Path,
    args: &[String],
    script_args: &[String],
) -> Result<Plan, Error> {
    let package = read_package_file(skill_dir, PACKAGE_JSON)?.ok_or_else(|| {
        Error::InvalidInput(format!(
            "npm runs only in a skill with a {PACKAGE_JSON} in its folder, and {} has none (or \
             it is not a regular file reached without a symlink)",
            skill_dir.display()
        ))
    })?;
    let package: Value = serde_json::from_slice(&package).map_err(|error| {
        Error::InvalidInput(format!(
            "{} is not valid JSON ({error}); npm could not read it either",
            skill_dir.join(PACKAGE_JSON).display()
        ))
    })?;
    if std::fs::symlink_metadata(skill_dir.join(PROJECT_NPMRC)).is_ok() {
        return Err(Error::InvalidInput(format!(
            "the skill ships {}, which npm would read and which can turn back on what a run \
             turns off (install scripts, the registry, the programs npm starts); npm runs \
             only in a skill without one (your own settings belong in ~/.npmrc)",
            skill_dir.join(PROJECT_NPMRC).display()
        )));
    }
    let Some((first, rest)) = args.split_first() else {
        return Err(unknown_subcommand(None));
    };
    let subcommand = SUBCOMMANDS
        .iter()
        .find(|(name, _)| name == first)
        .map(|(_, subcommand)| *subcommand)
        .ok_or_else(|| unknown_subcommand(Some(first)))?;

    let mut argv: Vec<OsString> = vec![OsString::from(first)];
    let mut env = vec![
        ("npm_config_update_notifier".to_owned(), "false".to_owned()),
        ("npm_config_fund".to_owned(), "false".to_owned()),
        ("npm_config_audit".to_owned(), "false".to_owned()),
    ];
    let mut extra_writable = Vec::new();
    if subcommand.installs() {
        if let Some(word) = rest
            .iter()
            .chain(script_args)
            .find(|word| !INSTALL_FLAGS.contains(&word.as_str()))
        {
            return Err(Error::InvalidInput(format!(
                "`npm {first}` in a skill takes only these flags: {}; '{}' is not one of them \
                 (a package name, or a flag that changes where npm fetches from, installs to, \
                 or whether install scripts run)",
                INSTALL_FLAGS.join(" "),
                word.escape_debug()
            )));
        }
        if settings.sandbox == SandboxMode::ReadOnly {
            // The sandbox would stop the first write into node_modules; say why now.
            return Err(Error::Forbidden {
                reason: format!(
                    "`npm {first}` writes node_modules and the lock file inside the skill \
                     folder, which `[runtime] sandbox = \"read-only\"` forbids; installs need \
                     \"workspace-write\" (the default) or \"off\""
                ),
            });
        }
        check_local_dependencies(config, settings, skill_dir, &package)?;
        argv.extend(rest.iter().chain(script_args).map(OsString::from));
        if !settings.allow_install_scripts {
            argv.push(OsString::from("--ignore-scripts"));
        }
        if settings.network == NetworkMode::Deny {
            argv.push(OsString::from("--offline"));
        }
        // npm runs in the skill folder: a relative home would land the cache inside it.
        let app = skills_ops::state::app_dir(config);
        let app = std::path::absolute(&app).map_err(|source| Error::io("resolve", &app, source))?;
        // The cache is a folder of the program's, made through the one state writer: a link at
        // `runtimes/` or at `npm-cache/` is refused, never handed to npm (and to the sandbox
        // as writable) as the place it points to.
        let cache = skills_ops::state::Folder::create(&app, &CACHE_DIR)
            .map_err(|refusal| Error::StateFileInvalid {
                path: CACHE_DIR
                    .iter()
                    .fold(app.clone(), |dir, part| dir.join(part)),
                reason: refusal.to_string(),
            })?
            .path()
            .to_path_buf();
        env.push(("npm_config_cache".to_owned(), cache.display().to_string()));
        extra_writable.push(skill_dir.to_path_buf());
        extra_writable.push(cache);
    } else {
        let mut words = rest.iter();
        if subcommand == Subcommand::Run {
            let script = words.next().ok_or_else(|| {
                Error::InvalidInput(format!(
                    "`npm {first}` needs the name of one of the package's scripts ({})",
                    script_names(&package)
                ))
            })?;
            if script.starts_with('-') || script.is_empty() {
                return Err(Error::InvalidInput(format!(
                    "'{}' is not a script name; `npm {first} SCRIPT [ARGS...]` takes the \
                     script first ({})",
                    script.escape_debug(),
                    script_names(&package)
                )));
            }
            argv.push(OsString::from(script));
        }
        let words: Vec<&String> = words
            .skip_while(|word| word.as_str() == "--")
            .chain(script_args.iter())
            .collect();
        if !words.is_empty() {
            argv.push(OsString::from("--"));
            argv.extend(words.into_iter().map(OsString::from));
        }
        // Nothing here may write outside the workspace; a log file in the cache would.
        env.push(("npm_config_logs_max".to_owned(), "0".to_owned()));
    }
    Ok(Plan {
        argv,
        env,
        extra_writable,
    })
}

fn unknown_subcommand(given: Option<&str>) -> Error {
    let given = given.map_or_else(
        || "no subcommand was given".to_owned(),
        |given| format!("'{}' is not one of them", given.escape_debug()),
    );
    Error::InvalidInput(format!(
        "npm in a skill runs `ci`, `install` (`i`), `run SCRIPT [ARGS...]` (`run-script`) or \
         `test` (`t`); {given}"
    ))
}

/// The scripts `package.json` declares, for a message.
fn script_names(package: &Value) -> String {
    let names: Vec<&str> = package
        .get("scripts")
        .and_then(Value::as_object)
        .map(|scripts| scripts.keys().map(String::as_str).collect())
        .unwrap_or_default();
    if names.is_empty() {
        "its package.json declares none".to_owned()
    } else {
        format!("it declares {}", names.join(", "))
    }
}

/// Under `network = "deny"`, refuses an install that would need a registry; under either
/// setting, refuses a `file:` dependency outside the skill folder (an install writes only
/// inside it, and npm installs a linked folder's own dependencies inside that folder).
fn check_local_dependencies(
    config: &SkillsConfig,
    settings: &RuntimeConfig,
    skill_dir: &Path,
    package: &Value,
) -> Result<(), Error> {
    let deny = settings.network == NetworkMode::Deny;
    let refuse = |what: String| Error::Forbidden {
        reason: format!(
            "this install needs the network: {what}, and runs may not reach it (`[runtime] \
             network = \"deny\"`, the default); to allow it, set `[runtime] network = \"allow\"` \
             in the home {} (a workspace's file cannot), or make every dependency a `file:` \
             path inside the skill folder",
            config
                .home
                .join(&config.app_dir)
                .join(skills_ops::discover::CONFIG_FILE)
                .display()
        ),
    };
    for table in DEPENDENCY_TABLES {
        let Some(dependencies) = package.get(table).and_then(Value::as_object) else {
            continue;
        };
        for (name, spec) in dependencies {
            let spec = spec.as_str().unwrap_or_default();
            match spec.strip_prefix("file:") {
                Some(path) => check_inside(skill_dir, name, path)?,
                None if deny => {
                    return Err(refuse(format!(
                        "package.json's {table} asks for '{}' as '{}', which comes from a \
                         registry or another server",
                        name.escape_debug(),
                        spec.escape_debug()
                    )));
                }
                None => {}
            }
        }
    }
    for lock in LOCK_FILES {
        let Some(bytes) = read_package_file(skill_dir, lock)? else {
            continue;
        };
        let lock_json: Value = serde_json::from_slice(&bytes).map_err(|error| {
            Error::InvalidInput(format!(
                "{} is not valid JSON ({error}); npm could not read it either",
                skill_dir.join(lock).display()
            ))
        })?;
        let packages = lock_json.get("packages").and_then(Value::as_object);
        if deny && packages.is_none() {
            return Err(refuse(format!(
                "{lock} has no `packages` table (a lock file older than npm 7), so what it \
                 fetches cannot be told"
            )));
        }
        for (key, entry) in packages.into_iter().flatten() {
            // Entries outside node_modules are the local folders themselves ("" is the
            // skill); what npm puts into node_modules came from somewhere.
            if !key.contains("node_modules/") {
                continue;
            }
            let resolved = entry.get("resolved").and_then(Value::as_str);
            let linked = entry.get("link").and_then(Value::as_bool) == Some(true);
            match (linked, resolved) {
                (true, Some(path)) => check_inside(skill_dir, key, path)?,
                (false, Some(path)) if path.starts_with("file:") => {
                    check_inside(skill_dir, key, &path["file:".len()..])?;
                }
                _ if deny => {
                    return Err(refuse(format!(
                        "{lock} installs '{}' from '{}'",
                        key.escape_debug(),
                        resolved.unwrap_or("a registry").escape_debug()
                    )));
                }
                _ => {}
            }
        }
        // npm reads the first lock file it finds; so does this check.
        break;
    }
    Ok(())
}

/// Refuses a local dependency whose path leaves the skill folder.
fn check_inside(skill_dir: &Path, name: &str, path: &str) -> Result<(), Error> {
    let relative = skills_types::path::strip_current_dir_prefix(path.trim_end_matches('/'));
    skills_types::path::check_relative(relative).map_err(|refusal| {
        Error::InvalidInput(format!(
            "the local dependency '{}' is '{}', which is not a path inside the skill folder \
             {} ({refusal}); an npm install writes only inside the skill folder",
            name.escape_debug(),
            path.escape_debug(),
            skill_dir.display()
        ))
    })?;
    Ok(())
}

/// The bytes of `name` in the skill folder when it is a regular file reached without a
/// symlink; `None` when there is none.
fn read_package_file(skill_dir: &Path, name: &str) -> Result<Option<Vec<u8>>, Error> {
    use std::io::Read as _;

    use rustix::fs::{Mode, OFlags};
    use rustix::io::Errno;

    let path = skill_dir.join(name);
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let file = match rustix::fs::open(&path, flags, Mode::empty()) {
        Ok(fd) => std::fs::File::from(fd),
        // A symlink answers ELOOP: taken as absent, and the caller's message says so.
        Err(Errno::NOENT | Errno::LOOP | Errno::NOTDIR | Errno::NXIO) => return Ok(None),
        Err(errno) => return Err(Error::io("open", &path, std::io::Error::from(errno))),
    };
    let metadata = file
        .metadata()
        .map_err(|source| Error::io("inspect", &path, source))?;
    if !metadata.is_file() {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    file.take(MAX_MANIFEST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| Error::io("read", &path, source))?;
    if bytes.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(Error::InvalidInput(format!(
            "{} is larger than {MAX_MANIFEST_BYTES} bytes",
            path.display()
        )));
    }
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// `package` (and `lock`, when given) in a fresh skill folder, checked under `network`.
    fn check(package: &Value, lock: Option<&Value>, network: NetworkMode) -> Result<(), String> {
        let dir = tempfile::tempdir().unwrap();
        if let Some(lock) = lock {
            std::fs::write(dir.path().join("package-lock.json"), lock.to_string()).unwrap();
        }
        let config = SkillsConfig::new(dir.path(), dir.path());
        let mut settings = RuntimeConfig::default();
        settings.network = network;
        check_local_dependencies(&config, &settings, dir.path(), package)
            .map_err(|error| error.to_string())
    }

    #[test]
    fn under_deny_only_local_dependencies_and_locks_install() {
        use NetworkMode::{Allow, Deny};
        let local = json!({ "dependencies": { "a": "file:vendor/a" } });
        let linked = json!({ "packages": {
            "": {},
            "node_modules/a": { "resolved": "vendor/a", "link": true },
            "node_modules/b": { "resolved": "file:vendor/b-1.0.0.tgz" },
            "vendor/a": { "version": "1.0.0" }
        } });
        let fetched = json!({ "packages": {
            "node_modules/a": { "resolved": "vendor/a", "link": true },
            "vendor/a/node_modules/c": { "resolved": "https://registry.npmjs.org/c/-/c-1.0.0.tgz" }
        } });
        let cases: [(Value, Option<Value>, NetworkMode, Option<&str>); 10] = [
            (local.clone(), None, Deny, None),
            (local.clone(), Some(linked.clone()), Deny, None),
            (
                local.clone(),
                Some(fetched.clone()),
                Deny,
                Some("installs 'vendor/a/node_modules/c'"),
            ),
            (local.clone(), Some(fetched), Allow, None),
            (
                local.clone(),
                Some(json!({ "lockfileVersion": 1 })),
                Deny,
                Some("no `packages` table"),
            ),
            (
                json!({ "devDependencies": { "x": "^1.0.0" } }),
                None,
                Deny,
                Some("devDependencies asks for 'x'"),
            ),
            (
                json!({ "peerDependencies": { "x": "latest" } }),
                None,
                Deny,
                Some("peerDependencies"),
            ),
            (
                json!({ "dependencies": { "x": "github:a/b" } }),
                None,
                Allow,
                None,
            ),
            (
                json!({ "dependencies": { "x": "file:../outside" } }),
                None,
                Allow,
                Some("not a path inside the skill folder"),
            ),
            (
                json!({ "dependencies": { "x": "file:/etc" } }),
                None,
                Deny,
                Some("not a path inside the skill folder"),
            ),
        ];
        for (package, lock, network, refused) in cases {
            let result = check(&package, lock.as_ref(), network);
            match refused {
                None => assert!(result.is_ok(), "{package} {lock:?}: {result:?}"),
                Some(needle) => {
                    let error = result.expect_err(needle);
                    assert!(error.contains(needle), "{error}");
                }
            }
        }
        // The message of a refusal under deny names the setting to change.
        let error = check(&json!({ "dependencies": { "x": "1" } }), None, Deny).unwrap_err();
        assert!(error.contains("`[runtime] network = \"allow\"`"), "{error}");
    }
}
