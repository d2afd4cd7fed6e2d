//! From command-line options and the environment to a `SkillsConfig`.
//!
//! This is the only place that reads the environment (the library never does, 02
//! §Configuration): `SKILLS_HOME` (through clap, as `--home`'s default),
//! `SKILLS_DISABLE_EXTERNAL`, and `$HOME`.

use skills::{Skills, SkillsConfig};

use crate::cli::{Discovery, Global};

/// `SKILLS_DISABLE_EXTERNAL=1` turns off the shared `.agents` and `.claude` roots.
const DISABLE_EXTERNAL: &str = "SKILLS_DISABLE_EXTERNAL";
/// `SKILLS_INSTALL_ALLOW_LOCAL_HTTP=1` lets installs fetch over http from this machine only
/// (`127.0.0.1`, `[::1]`, `localhost`): for test fixtures.
const ALLOW_LOCAL_HTTP: &str = skills::install::ALLOW_LOCAL_HTTP_VAR;
/// The registry catalog's URL.
pub(crate) const REGISTRY_CATALOG_URL: &str = "SKILLS_REGISTRY_CATALOG_URL";
/// The registry's download base URL.
const REGISTRY_DOWNLOAD_BASE_URL: &str = "SKILLS_REGISTRY_DOWNLOAD_BASE_URL";
/// `SKILLS_REGISTRY_REFRESH_ON_BOOT=1`: every `skills registry` command fetches the catalog
/// before answering, however fresh the cache.
const REGISTRY_REFRESH_ON_BOOT: &str = "SKILLS_REGISTRY_REFRESH_ON_BOOT";
/// The registry's bearer token (sent to the registry's own origin only).
const REGISTRY_TOKEN: &str = crate::secrets::REGISTRY_TOKEN;
/// The GitHub (or GitHub Enterprise) web base, `[github] url`.
const GITHUB_URL: &str = "SKILLS_GITHUB_URL";
/// Tests only: `SKILLS_TEST_LANDLOCK_ABI=3` makes the runtime treat the kernel's Landlock ABI
/// as at most 3, to prove an older kernel is refused; it cannot raise what the kernel has.
const TEST_LANDLOCK_ABI: &str = "SKILLS_TEST_LANDLOCK_ABI";
/// Tests only: `SKILLS_TEST_NO_USER_NAMESPACES=1` makes the runtime treat this machine as one
/// that forbids unprivileged user namespaces; it can only refuse runs.
const TEST_NO_USER_NAMESPACES: &str = "SKILLS_TEST_NO_USER_NAMESPACES";

/// The configuration the options describe, or a message saying what is missing.
pub(crate) fn config(
    global: &Global,
    discovery: Option<&Discovery>,
) -> Result<SkillsConfig, String> {
    let workspace = match &global.workspace {
        Some(workspace) => workspace.clone(),
        None => std::env::current_dir()
            .map_err(|error| format!("the current directory cannot be read: {error}"))?,
    };
    let home = match &global.home {
        Some(home) => {
            check_home(home)?;
            home.clone()
        }
        None => std::env::home_dir()
            .ok_or("no home directory is known: pass --home DIR or set SKILLS_HOME")?,
    };
    // A mistyped --workspace would otherwise list only the user's skills without a word.
    match std::fs::metadata(&workspace) {
        Ok(metadata) if metadata.is_dir() => {}
        Ok(_) => {
            return Err(format!(
                "the workspace {} is not a directory",
                workspace.display()
            ));
        }
        Err(error) => {
            return Err(format!(
                "the workspace {} cannot be used: {error}",
                workspace.display()
            ));
        }
    }
    let mut config = SkillsConfig::new(workspace, home);
    config.app_dir = global.app_dir.clone();
    if global.trust_workspace {
        // Typed by the user for this one command: the same standing as their record.
        config.trust = skills::catalog::TrustPolicy::Always;
    }
    config.read_only = global.read_only;
    config.profile = discovery.and_then(|discovery| discovery.profile.clone());
    config.interop = !is_set(DISABLE_EXTERNAL);
    config.network.allow_loopback_http = is_set(ALLOW_LOCAL_HTTP);
    config.registry.catalog_url = text(REGISTRY_CATALOG_URL);
    config.registry.download_base_url = text(REGISTRY_DOWNLOAD_BASE_URL);
    config.registry.token = secret(REGISTRY_TOKEN);
    config.github.url = text(GITHUB_URL);
    Ok(config)
}

/// A home the user named (`--home`, `SKILLS_HOME`) must be a folder that exists: a mistyped
/// one would otherwise list "no skills found" and exit 0, or have `install` build a new home
/// where nobody looks. `$HOME` itself is not checked: an account whose home is missing (a
/// service user's `/nonexistent`) still lists the project's skills.
fn check_home(home: &std::path::Path) -> Result<(), String> {
    match std::fs::metadata(home) {
        Ok(metadata) if metadata.is_dir() => Ok(()),
        Ok(_) => Err(format!(
            "the home {} (from --home or SKILLS_HOME) is not a directory",
            home.display()
        )),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Err(format!(
            "the home {} (from --home or SKILLS_HOME) does not exist; create it, or name an \
             existing folder",
            home.display()
        )),
        Err(error) => Err(format!(
            "the home {} (from --home or SKILLS_HOME) cannot be used: {error}",
            home.display()
        )),
    }
}

/// The handle for a discovery command.
pub(crate) fn skills(global: &Global, discovery: Option<&Discovery>) -> Result<Skills, String> {
    let mut config = config(global, discovery)?;
    let home = Skills::new(config.clone()).home_config();
    resolve_token_env(&mut config, &home);
    resolve_github_token(&mut config, &home);
    // The runtime draws a script's (allowlisted) environment from here; the library reads
    // no environment itself. A variable whose name or value is not UTF-8 is left out. The
    // secrets this process took out of its own environment are still the user's to pass to a
    // script by name (`pass_env = ["GITHUB_TOKEN"]`); the allowlist keeps them out otherwise.
    config.runtime.inherited_env = std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .chain(
            crate::secrets::taken()
                .iter()
                .map(|(name, value)| (name.clone(), value.clone())),
        )
        .collect();
    // Tests simulate an older kernel with it; a lower ABI can only refuse more runs.
    config.runtime.landlock_abi_ceiling = text(TEST_LANDLOCK_ABI).and_then(|abi| abi.parse().ok());
    config.runtime.simulate_no_user_namespaces = is_set(TEST_NO_USER_NAMESPACES);
    // The helper installed beside this program, when there is one: it starts in half the
    // time this whole program takes, twice per run. The home `[runtime] sandbox_helper` still
    // wins (it is layered on later), and without the file this program is its own helper.
    config.runtime.sandbox_helper = sibling_helper();
    Ok(Skills::new(config))
}

/// The sandbox helper binary beside this executable (`skills-sandbox`), if it is there.
fn sibling_helper() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let helper = exe.with_file_name(format!("skills-sandbox{}", std::env::consts::EXE_SUFFIX));
    helper.is_file().then_some(helper)
}

/// `[registry] token_env = "NAME"` in the home `skills.toml`: the library reads no
/// environment, so the command line reads the variable it names, once the effective
/// configuration is known. `SKILLS_REGISTRY_TOKEN` wins over it.
fn resolve_token_env(config: &mut SkillsConfig, home: &SkillsConfig) {
    if config.registry.token.is_some() {
        return;
    }
    if let Some(name) = home.registry.token_env.as_deref() {
        // A secret like the two this program knows by name: out of the environment (this
        // process starts itself again without it when it is set) before anything runs.
        crate::secrets::take(&[name]);
        config.registry.token = secret(name);
    }
}

/// The GitHub token for private repositories: the variable the home `skills.toml`'s
/// `[github] token_env` names when it names one (the user's explicit choice), else
/// `GITHUB_TOKEN`, else `GH_TOKEN`. The library sends it to the configured GitHub's API and
/// archive origins only; like every secret here, it leaves this process's environment.
fn resolve_github_token(config: &mut SkillsConfig, home: &SkillsConfig) {
    config.github.token_env.clone_from(&home.github.token_env);
    if let Some(name) = home.github.token_env.as_deref() {
        crate::secrets::take(&[name]);
        config.github.token = secret(name);
        return;
    }
    config.github.token = skills::install::GITHUB_TOKEN_VARS
        .iter()
        .find_map(|name| secret(name));
}

/// Whether `skills registry` commands refresh the catalog first, however fresh the cache.
pub(crate) fn refresh_registry_on_boot() -> bool {
    is_set(REGISTRY_REFRESH_ON_BOOT)
}

/// Whether a boolean environment variable is on (`1`, `true`, `yes`).
fn is_set(name: &str) -> bool {
    std::env::var(name).is_ok_and(|value| matches!(value.trim(), "1" | "true" | "yes"))
}

/// A secret's non-empty value (`secrets`: it is no longer in the environment).
fn secret(name: &str) -> Option<String> {
    crate::secrets::value(name)
        .map(|value| value.trim().to_owned())
        .filter(|value| !value.is_empty())
}

/// A non-empty environment variable's value.
fn text(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|value| value.trim().to_owned())
        .filter(|value| !value.is_empty())
}
