//! `skills setup NAME` (issue 30 §11): a skill's declared dependencies installed into its own
//! environment in the home's app folder, on the user's request only.
//!
//! What is installed is what the skill declares (`dependencies.rs`), plus the Python
//! requirements the user adds (`--package`, kept in the record for later setups). Each step
//! is a run through the one spawner, under the home's sandbox, logged like any run:
//!
//! 1. `python3 -m venv <env>/python`, with the interpreter runs use (`[runtime] python`, else
//!    `python3` on `PATH`); then `<env>/python/bin/python3 -m pip install -- REQUIREMENTS`,
//!    with `--only-binary=:all:` unless the home allows install scripts (building a source
//!    distribution runs the package's own code, as npm's install scripts do);
//! 2. `npm install --omit=dev` in `<env>/node`, over a `package.json` holding only the
//!    checked dependencies, with `--ignore-scripts` unless the home allows install scripts,
//!    and npm's cache in the app folder.
//!
//! Each step may write only the new environment folder (and npm's cache) and its temporary
//! folder, never the workspace or the skill; its network rule is `[runtime] setup_network`
//! (home only, `allow` by default: the user asked for packages to be fetched), so runs of the
//! skill keep `network`. The package managers see the user's own configuration: their files
//! (`pip.conf`, `~/.npmrc`, read from the user's home as always, never replaced by a
//! `--prefix` or `--isolated`) and their variables (`PIP_*`, `npm_config_*`, the proxy and
//! CA-bundle variables), which reach the setup and never a run.
//!
//! Every setup fills a fresh `env-*` folder; only when every step succeeded does the record
//! name it (one atomic replace) and the older ones go. A setup that fails leaves the
//! environment in use as it was, and removes what it made.

use std::ffi::OsString;
use std::path::PathBuf;

use serde_json::json;
use skills_ops::state::{
    Folder, NPM_CACHE_DIR, RUNTIMES_DIR, SETUP_LOCK_FILE, SKILL_ENV_LOCK, Wait,
};
use skills_types::config::Permission;
use skills_types::run::{
    RunHooks, RunOutcome, RunStatus, RuntimeKind, SetupOutcome, SetupRequest, SetupStatus,
};
use skills_types::runtime::{NetworkMode, RuntimeConfig};
use skills_types::{Error, SkillScope, SkillsConfig};

use crate::dependencies;
use crate::environment::{self, Place, PythonPart};
use crate::inherited_env;
use crate::prepare::{self, Step};
use crate::runtimes;

/// Variables of the inherited environment a setup's package managers see besides the
/// allowlist: their own configuration, and how this machine reaches the network (proxies,
/// the CA bundle of a TLS-intercepting proxy). Names that start with one of these prefixes
/// pass too.
const SETUP_ENV: [&str; 12] = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
];
/// The prefixes of the package managers' own variables (pip's `PIP_INDEX_URL`,
/// `PIP_FIND_LINKS`, `PIP_CERT`; npm's `npm_config_registry`, `npm_config_cafile`).
const SETUP_ENV_PREFIXES: [&str; 3] = ["PIP_", "npm_config_", "NPM_CONFIG_"];

/// Sets up the skill `request` names, each step through `runtime`.
pub(crate) fn setup(
    runtime: &crate::Runtime,
    config: &SkillsConfig,
    request: &SetupRequest,
    hooks: &RunHooks,
) -> Result<SetupOutcome, Error> {
    if config.read_only {
        return Err(Error::ReadOnly {
            action: "set up a skill's dependencies".to_owned(),
        });
    }
    let runtimes = runtime.runtimes();
    runtimes.know(config);
    let effective = skills_ops::discover::run_policy(config)?;
    let settings = &effective.runtime;
    let skill = skills_ops::resources::describe(config, &request.skill)?;
    if skill.permission == Permission::Deny {
        return Err(prepare::denied(config, &skill.name));
    }
    if skill.scope == SkillScope::Profile && !prepare::in_current_profile(config, &skill.root) {
        return Err(Error::OtherProfile {
            skill: skill.name.clone(),
        });
    }
    // A setup fetches and installs what the skill's repository declares: it needs the same
    // yes as a run of that skill.
    if let Some(reason) =
        prepare::confirmation_needed(settings.confirm, skill.scope, skill.permission)
        && !request.confirmed
    {
        return Err(Error::NeedsConfirmation {
            skill: skill.name.clone(),
            reason: reason.to_owned(),
        });
    }
    let skill_dir = prepare::real_dir(&skill.dir)?;
    // A setup installs what the skill declares and fetches it into the skill's environment,
    // which its runs then use: the audit's gate refuses it exactly as it refuses a run.
    skills_audit::Reviewer::new(config)?.check_run("setting up", &skill.name, &skill_dir)?;
    let files = skill.resources.clone().unwrap_or_default();
    let declared = dependencies::read(&skill_dir, &files)?;
    let place = Place::of(config, &skill.name, &skill_dir)?;
    let recorded = place
        .open()
        .and_then(|folder| environment::read_record(&folder));

    let mut added = recorded
        .as_ref()
        .map(|record| record.added.clone())
        .unwrap_or_default();
    for package in &request.packages {
        let checked = dependencies::check_requirement(package.trim()).map_err(|why| {
            Error::InvalidInput(format!("--package '{}': {why}", package.escape_debug()))
        })?;
        if !added.contains(&checked) {
            added.push(checked);
        }
    }
    let mut requirements = declared.requirements.clone();
    for package in &added {
        if !requirements.contains(package) {
            requirements.push(package.clone());
        }
    }
    let mut declared_in = declared.declared_in.clone();
    if !added.is_empty() {
        declared_in.push("--package".to_owned());
    }
    let mut outcome = SetupOutcome::new(skill.name.clone(), SetupStatus::SetUp);
    outcome.requirements.clone_from(&requirements);
    outcome.node_dependencies = declared
        .node
        .as_ref()
        .map(|node| node.dependencies.clone())
        .unwrap_or_default();
    outcome.declared_in.clone_from(&declared_in);
    if requirements.is_empty() && declared.node.is_none() {
        outcome.status = SetupStatus::NothingDeclared;
        return Ok(outcome);
    }

    let python = if requirements.is_empty() {
        None
    } else {
        Some(prepare::usable(runtimes, settings, RuntimeKind::Python)?)
    };
    let node_tools = match &declared.node {
        None => None,
        Some(_) => Some((
            prepare::usable(runtimes, settings, RuntimeKind::Npm)?,
            prepare::usable(runtimes, settings, RuntimeKind::Node)?,
        )),
    };
    let digest = skills_net::digest::hex_digest(
        json!({
            "requirements": requirements,
            "package": declared.node.as_ref().map(|node| String::from_utf8_lossy(&node.manifest).into_owned()),
            "python": python.as_ref().map(|(path, version)| (path, version)),
            "npm": node_tools.as_ref().map(|((npm, _), (node, _))| (npm, node)),
            "binary_only": !settings.allow_install_scripts,
        })
        .to_string()
        .as_bytes(),
    );

    let folder = Folder::create(&place.app, &place.folders()).map_err(|refusal| {
        Error::StateFileInvalid {
            path: place.path(),
            reason: refusal.to_string(),
        }
    })?;
    let lock = folder
        .lock(&SKILL_ENV_LOCK, SETUP_LOCK_FILE, Wait::No)
        .map_err(|source| Error::io("lock", folder.join(SETUP_LOCK_FILE), source))?
        .ok_or_else(|| Error::Busy {
            reason: format!(
                "another setup of '{}' is going; wait for it to end",
                skill.name
            ),
        })?;
    // Read again under the lock: a setup that just finished may have made this one.
    if !request.force
        && let Some(record) = environment::read_record(&folder)
        && record.digest == digest
        && folder.child(&record.env).ok().flatten().is_some()
    {
        outcome.status = SetupStatus::UpToDate;
        outcome.environment = Some(folder.join(&record.env));
        return Ok(outcome);
    }

    let env_name = environment::fresh_env_name();
    let env = folder
        .create_child(&env_name)
        .map_err(|refusal| Error::StateFileInvalid {
            path: folder.join(&env_name),
            reason: refusal.to_string(),
        })?;
    let plan = Plan {
        config,
        settings,
        place: &place,
        skill: &skill.name,
        skill_dir: &skill_dir,
        env: &env,
        runtimes,
    };
    let made = plan.make(
        runtime,
        hooks,
        python.as_ref(),
        &requirements,
        declared.node.as_ref().zip(node_tools.as_ref()),
        &mut outcome.steps,
    );
    let succeeded = match made {
        Ok(succeeded) => succeeded,
        Err(error) => {
            discard(&folder, &env_name);
            return Err(error);
        }
    };
    if !succeeded {
        discard(&folder, &env_name);
        outcome.status = SetupStatus::Failed;
        return Ok(outcome);
    }
    let mut record = environment::new_record(&skill.name, &env_name, digest);
    record.python = python.map(|(base, base_version)| PythonPart {
        base,
        base_version,
        requirements: requirements.clone(),
    });
    record
        .node_dependencies
        .clone_from(&outcome.node_dependencies);
    record.added = added;
    record.declared_in = declared_in;
    if let Err(error) = environment::write_record(&folder, &record) {
        discard(&folder, &env_name);
        return Err(error);
    }
    // The record names the new folder now: the older ones are no longer used by any run
    // that starts from here on.
    if let Ok(entries) = folder.entries() {
        for entry in entries {
            if entry.name != env_name
                && environment::is_env_name(&entry.name)
                && let Err(error) = folder.remove_tree(&entry.name)
            {
                tracing::warn!(path = %folder.join(&entry.name).display(), %error, "could not remove an older environment");
            }
        }
    }
    drop(folder.sync());
    drop(lock);
    outcome.environment = Some(env.path().to_path_buf());
    Ok(outcome)
}

/// Removes a setup's unfinished folder; what cannot be removed is said in the trace and
/// removed by the next setup.
fn discard(folder: &Folder, name: &str) {
    if let Err(error) = folder.remove_tree(name) {
        tracing::warn!(path = %folder.join(name).display(), %error, "could not remove an unfinished environment");
    }
}

/// What every step of one setup shares.
struct Plan<'a> {
    config: &'a SkillsConfig,
    settings: &'a RuntimeConfig,
    place: &'a Place,
    skill: &'a str,
    skill_dir: &'a std::path::Path,
    env: &'a Folder,
    runtimes: &'a runtimes::Runtimes,
}

/// A resolved program and its version.
type Program = (PathBuf, Option<String>);

impl Plan<'_> {
    /// Runs every step; `false` when one failed (its outcome is the last in `steps`).
    fn make(
        &self,
        runtime: &crate::Runtime,
        hooks: &RunHooks,
        python: Option<&Program>,
        requirements: &[String],
        node: Option<(&dependencies::NodePackage, &(Program, Program))>,
        steps: &mut Vec<RunOutcome>,
    ) -> Result<bool, Error> {
        let env_dir = self.env.path().to_path_buf();
        let binary_only = !self.settings.allow_install_scripts;
        if let Some((python, version)) = python {
            let venv = environment::venv_dir(&env_dir);
            let made = self.run(
                runtime,
                hooks,
                "setup python -m venv",
                (python.clone(), version.clone()),
                vec!["-m".into(), "venv".into(), venv.into_os_string()],
                env_dir.clone(),
                Vec::new(),
                vec![env_dir.clone()],
            )?;
            if !record(steps, made) {
                return Ok(false);
            }
            let mut argv: Vec<OsString> = [
                "-m",
                "pip",
                "install",
                "--no-input",
                "--disable-pip-version-check",
                "--no-cache-dir",
            ]
            .map(OsString::from)
            .to_vec();
            if binary_only {
                argv.push("--only-binary=:all:".into());
            }
            argv.push("--".into());
            argv.extend(requirements.iter().map(OsString::from));
            let installed = self.run(
                runtime,
                hooks,
                "setup pip install",
                (environment::python_in(&env_dir), version.clone()),
                argv,
                env_dir.clone(),
                Vec::new(),
                vec![env_dir.clone()],
            )?;
            if !record(steps, installed) {
                return Ok(false);
            }
        }
        if let Some((package, ((npm, npm_version), (node, _)))) = node {
            self.env
                .write_new_below(
                    &["node", crate::npm::PACKAGE_JSON],
                    &package.manifest,
                    0o644,
                )
                .map_err(|source| Error::io("write", environment::node_dir(&env_dir), source))?;
            // npm's cache, shared with the skills' own npm installs (`npm.rs`).
            let cache = Folder::create(&self.place.app, &[RUNTIMES_DIR, NPM_CACHE_DIR])
                .map_err(|refusal| Error::StateFileInvalid {
                    path: self.place.app.join(RUNTIMES_DIR).join(NPM_CACHE_DIR),
                    reason: refusal.to_string(),
                })?
                .path()
                .to_path_buf();
            let mut argv: Vec<OsString> = ["install", "--omit=dev", "--no-audit", "--no-fund"]
                .map(OsString::from)
                .to_vec();
            if binary_only {
                argv.push("--ignore-scripts".into());
            }
            if self.settings.setup_network == NetworkMode::Deny {
                // Nothing but npm's cache and `file:` tarballs: fail at once rather than wait
                // on a network the sandbox closed.
                argv.push("--offline".into());
            }
            let mut extra = vec![
                ("npm_config_cache".to_owned(), cache.display().to_string()),
                ("npm_config_update_notifier".to_owned(), "false".to_owned()),
            ];
            // npm is a node script: the node it finds first must be the one resolved.
            if let Some(dir) = node.parent() {
                extra.push(("PATH".to_owned(), dir.display().to_string()));
            }
            let installed = self.run(
                runtime,
                hooks,
                "setup npm install",
                (npm.clone(), npm_version.clone()),
                argv,
                environment::node_dir(&env_dir),
                extra,
                vec![env_dir.clone(), cache],
            )?;
            if !record(steps, installed) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// One step as a run, to its end.
    #[expect(
        clippy::too_many_arguments,
        reason = "one step's whole plan, named at the call"
    )]
    fn run(
        &self,
        runtime: &crate::Runtime,
        hooks: &RunHooks,
        target: &str,
        (program, program_version): Program,
        argv: Vec<OsString>,
        cwd: PathBuf,
        extra: Vec<(String, String)>,
        write_dirs: Vec<PathBuf>,
    ) -> Result<RunOutcome, Error> {
        let mut env = setup_env(self.settings);
        env.push(("SKILL_DIR".to_owned(), self.skill_dir.display().to_string()));
        env.push(("SKILL_NAME".to_owned(), self.skill.to_owned()));
        if let Some(bin) = self.runtimes.managed_bin() {
            runtimes::prepend_path(&mut env, &bin);
        }
        for (name, value) in extra {
            if name == "PATH" {
                runtimes::prepend_path(&mut env, std::path::Path::new(&value));
            } else {
                env.push((name, value));
            }
        }
        let prepared = prepare::step(
            self.settings,
            Step {
                skill: self.skill,
                skill_dir: self.skill_dir,
                place: self.place,
                target: target.to_owned(),
                program,
                program_version,
                argv,
                env,
                cwd,
                write_dirs,
            },
        )?;
        runtime.start_prepared(self.config, prepared, hooks)?.wait()
    }
}

/// Keeps a step's outcome; whether it succeeded.
fn record(steps: &mut Vec<RunOutcome>, outcome: RunOutcome) -> bool {
    let succeeded = outcome.status == RunStatus::Succeeded;
    steps.push(outcome);
    succeeded
}

/// A setup step's environment: the allowlist and `pass_env`, then the package managers' own
/// variables and the network's ([`SETUP_ENV`], [`SETUP_ENV_PREFIXES`]).
fn setup_env(settings: &RuntimeConfig) -> Vec<(String, String)> {
    let mut env = inherited_env::allowlisted_env(settings);
    for (name, value) in &settings.inherited_env {
        let wanted = SETUP_ENV.contains(&name.as_str())
            || SETUP_ENV_PREFIXES
                .iter()
                .any(|prefix| name.starts_with(prefix));
        if wanted && !env.iter().any(|(known, _)| known == name) {
            env.push((name.clone(), value.clone()));
        }
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setup_sees_the_package_managers_configuration_and_nothing_else() {
        let mut settings = RuntimeConfig::default();
        settings.inherited_env = [
            ("PATH", "/usr/bin"),
            ("PIP_INDEX_URL", "https://mirror.example/simple"),
            ("npm_config_cafile", "/etc/ca.pem"),
            ("HTTPS_PROXY", "http://proxy.example:3128"),
            ("SSL_CERT_FILE", "/etc/ca.pem"),
            ("GITHUB_TOKEN", "secret"),
            ("AWS_SECRET_ACCESS_KEY", "secret"),
            ("PYTHONPATH", "/elsewhere"),
        ]
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .to_vec();
        let env = setup_env(&settings);
        let names: Vec<&str> = env.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "PATH",
                "PIP_INDEX_URL",
                "npm_config_cafile",
                "HTTPS_PROXY",
                "SSL_CERT_FILE"
            ]
        );
    }
}
