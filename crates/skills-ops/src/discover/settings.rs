//! The configuration files (02 §Configuration): `~/<app_dir>/skills.toml`, then
//! `<workspace>/<app_dir>/skills.toml` when the workspace is trusted, applied to the
//! `SkillsConfig` the caller built.
//!
//! One rule (issue 29 §2): the home decides, a workspace can only tighten. Every key is looked
//! up in [`skills_types::settings::KEYS`] before its value is read, and the row says where the
//! key may be set and which way a workspace's value may move it; no check beside the table
//! decides that. The caller's configuration counts with the home. A workspace's
//! `[permissions]` rules are kept apart from the home's, so each file's verdict is its own last
//! matching rule and the stricter of the two applies ([`Layered::verdict`]); the folders and
//! packs a workspace names are project-scope sources ([`Sources`]), never user roots, so their
//! skills are trust-gated and every run of them needs confirmation.
//!
//! A file that exists but cannot be honoured (no permission, a FIFO, a folder, a link to
//! nowhere, too large, not UTF-8, not TOML), and a policy key whose value means nothing, fail
//! closed: an error diagnostic, every skill's verdict at least `ask`, and
//! [`Layered::refusal`], which refuses runs, tools and self-tests with `config_invalid`. A
//! default never stands in for a rule the user wrote: a `deny` in an unreadable file would
//! otherwise stop applying the moment a script took the file's read permission away. Other
//! malformed keys are warnings, and the rest of the file still applies.

use std::path::{Path, PathBuf};

use skills_types::audit::{AuditConfig, Severity as AuditSeverity};
use skills_types::config::{Permission, PermissionRule};
use skills_types::install::{AgentTarget, RegistryKind};
use skills_types::runtime::{ConfirmMode, NetworkMode, RuntimeConfig, SandboxMode, Strictness};
use skills_types::settings::{self as keys, Key, OnInvalid, Place};
use skills_types::{Diagnostic, DiagnosticCode, Error, SkillsConfig};

use super::permission;

/// The configuration file's name inside an app directory.
pub const CONFIG_FILE: &str = "skills.toml";

/// Largest configuration file read.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// Whose file is being applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layer {
    /// The user's own, `~/<app_dir>/skills.toml`.
    Home,
    /// A trusted workspace's, which ships with a repository.
    Workspace,
}

/// One configuration file being applied.
struct File<'a> {
    path: &'a Path,
    /// The folder holding the app directory: relative `paths` resolve against it.
    base: &'a Path,
    home: &'a Path,
    layer: Layer,
}

/// The sources of skills a trusted workspace's file names: project scope, since a repository
/// chose them, not the user.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sources {
    /// Its `paths`, resolved.
    pub(crate) paths: Vec<PathBuf>,
    /// Its `urls`, as written (less any the home also lists).
    pub(crate) urls: Vec<String>,
}

/// The configuration files applied to the caller's configuration, and what they could not say.
#[derive(Clone, Debug)]
pub(crate) struct Layered {
    /// The caller's configuration with the home file applied, and what a workspace's file may
    /// change in it (`[runtime]` tightened, names added to `disabled`, `budget_chars`).
    pub(crate) config: SkillsConfig,
    /// A trusted workspace's `[permissions]` rules: their verdict is combined with the home's
    /// (the caller's and the home file's rules), never appended to them.
    pub(crate) workspace_rules: Vec<PermissionRule>,
    /// The sources of skills a trusted workspace names.
    pub(crate) project: Sources,
    /// What was wrong with the files.
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Each file that cannot be honoured and why: runs are refused while there is one.
    pub(crate) invalid: Vec<(PathBuf, String)>,
}

impl Layered {
    /// The verdict for the skill `name`: the stricter of the home's and the workspace's, each
    /// its own file's last matching rule (deny > ask > allow), and at least `ask` while a file
    /// cannot be honoured, since a rule it holds is unknown. The pattern of the rule that
    /// decided comes with it, when one did.
    pub(crate) fn verdict(&self, name: &str) -> (Permission, Option<&str>) {
        let home = permission::decide(&self.config.permissions, name);
        let workspace = permission::decide(&self.workspace_rules, name);
        let verdict = if workspace.0.rank() > home.0.rank() {
            workspace
        } else {
            home
        };
        if self.invalid.is_empty() || verdict.0.tightens(Permission::Ask) {
            verdict
        } else {
            (Permission::Ask, None)
        }
    }

    /// Why runs, tools and self-tests must be refused (`config_invalid`, naming the first file
    /// that cannot be honoured and everything wrong with it), or `None`.
    pub(crate) fn refusal(&self) -> Option<Error> {
        let (path, _) = self.invalid.first()?;
        let reasons: Vec<&str> = self
            .invalid
            .iter()
            .filter(|(file, _)| file == path)
            .map(|(_, reason)| reason.as_str())
            .collect();
        let mut reason = reasons.join("; ");
        if let Some((other, _)) = self.invalid.iter().find(|(file, _)| file != path) {
            reason.push_str(&format!(
                " (and {} cannot be honoured either)",
                other.display()
            ));
        }
        Some(Error::ConfigInvalid {
            path: path.clone(),
            reason,
        })
    }

    /// Applies one file, when it exists.
    fn apply_file(&mut self, file: &File<'_>) {
        let text = match read_config(file.path) {
            Read::Absent => return,
            Read::Text(text) => text,
            Read::Broken(reason) => return self.report(file, OnInvalid::Refuse, reason),
        };
        let table: toml::Table = match text.parse() {
            Ok(table) => table,
            Err(error) => {
                let line = error
                    .span()
                    .map(|span| format!(" at line {}", line_of(&text, span.start)))
                    .unwrap_or_default();
                return self.report(
                    file,
                    OnInvalid::Refuse,
                    format!(
                        "it is not valid TOML{line} ({}); correct it",
                        error.message().trim()
                    ),
                );
            }
        };
        for (name, value) in &table {
            if !keys::is_table(name) {
                self.apply_key(file, None, name, value);
                continue;
            }
            match value.as_table() {
                Some(entries) => {
                    for (entry, value) in entries {
                        self.apply_key(file, Some(name), entry, value);
                    }
                }
                None => self.report(
                    file,
                    keys::unknown_in(Some(name)),
                    format!("'{name}' must be a table ([{name}])"),
                ),
            }
        }
    }

    /// Applies one key as its row of the table says.
    fn apply_key(&mut self, file: &File<'_>, table: Option<&str>, name: &str, value: &toml::Value) {
        let Some(row) = keys::key(table, name) else {
            let dotted = table.map_or_else(|| name.to_owned(), |table| format!("{table}.{name}"));
            return self.report(
                file,
                keys::unknown_in(table),
                format!("unknown key '{dotted}'{}", misplaced(table, name)),
            );
        };
        if file.layer == Layer::Workspace && row.place == Place::Home {
            return self.ignored(file, row, name, "is read only from the home skills.toml");
        }
        match self.assign(row, name, value, file) {
            Ok(Taken::All) => {}
            Ok(Taken::OnlyWhatTightens) => self.ignored(
                file,
                row,
                name,
                "would loosen what the home skills.toml sets, and a workspace may only tighten it",
            ),
            Err(message) => {
                self.report(
                    file,
                    row.invalid,
                    format!("{message}{}", misplaced(table, name)),
                );
            }
        }
    }

    /// A key of a workspace's file that is not taken (or not all of it).
    fn ignored(&mut self, file: &File<'_>, row: &Key, name: &str, why: &str) {
        self.diagnostics.push(
            Diagnostic::warning(
                DiagnosticCode::InvalidConfig,
                format!(
                    "{} in the workspace's {} is ignored: it {why}; {}",
                    row.shown(name),
                    file.path.display(),
                    row.rule
                ),
            )
            .with_path(file.path),
        );
    }

    /// A problem with `file`: a warning, or, when it leaves a rule of the user's unknown, an
    /// error that refuses runs until it is fixed.
    fn report(&mut self, file: &File<'_>, invalid: OnInvalid, message: String) {
        let diagnostic = match invalid {
            OnInvalid::Refuse => {
                self.invalid
                    .push((file.path.to_path_buf(), message.clone()));
                Diagnostic::error(
                    DiagnosticCode::InvalidConfig,
                    format!(
                        "{message}; runs, tools and self-tests are refused (config_invalid) until the file is fixed"
                    ),
                )
            }
            _ => Diagnostic::warning(DiagnosticCode::InvalidConfig, message),
        };
        self.diagnostics.push(diagnostic.with_path(file.path));
    }

    /// Reads `value` as the key `row` (`name` is the key as written) and applies it; the
    /// direction of a workspace's value is the row's.
    fn assign(
        &mut self,
        row: &Key,
        name: &str,
        value: &toml::Value,
        file: &File<'_>,
    ) -> Result<Taken, String> {
        let workspace = file.layer == Layer::Workspace;
        let config = &mut self.config;
        match (row.table, row.name) {
            (None, "paths") => {
                let paths = strings(value).ok_or("'paths' must be a list of strings")?;
                let resolved = paths.iter().map(|path| resolve(path, file.base, file.home));
                own(workspace, &mut self.project.paths, &mut config.extra_roots).extend(resolved);
            }
            (None, "urls") => {
                let urls = strings(value).ok_or("'urls' must be a list of strings")?;
                own(workspace, &mut self.project.urls, &mut config.urls).extend(urls);
            }
            (None, "disabled") => {
                let names = strings(value).ok_or("'disabled' must be a list of skill names")?;
                config.disabled.extend(names);
            }
            (Some("permissions"), _) => {
                let rules = own(
                    workspace,
                    &mut self.workspace_rules,
                    &mut config.permissions,
                );
                let permission = value.as_str().and_then(parse_permission);
                rules.push(PermissionRule {
                    pattern: name.to_owned(),
                    // A verdict that cannot be read is the strictest, so nothing the rule was
                    // meant to keep out is listed while the file is fixed.
                    permission: permission.unwrap_or(Permission::Deny),
                });
                if permission.is_none() {
                    return Err(format!(
                        "permission for '{name}' must be \"allow\", \"ask\" or \"deny\" (until it is, the rule counts as \"deny\")"
                    ));
                }
            }
            (Some("catalog"), "budget_chars") => {
                let budget = value
                    .as_integer()
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or("'catalog.budget_chars' must be a positive number")?;
                config.budget_chars = Some(budget);
            }
            (Some("sync"), "read_command") => match value.as_str() {
                Some(command) if is_command(command) => {
                    config.read_command = Some(command.to_owned());
                }
                _ => {
                    return Err(
                        "'sync.read_command' must be one word of letters, digits and \
                                . _ - + / ~ (a program name or path)"
                            .to_owned(),
                    );
                }
            },
            (Some("install"), "root") => {
                let root = value.as_str().and_then(install_root).ok_or(
                    "'install.root' must be \"agents\" (.agents/skills), \"app\" \
                     (<app_dir>/skills) or \"claude\" (.claude/skills)",
                )?;
                config.install_root = Some(root);
            }
            (Some("registry"), key) => registry(key, value, config)?,
            (Some("github"), "url") => {
                let url = value.as_str().ok_or("'github.url' must be a string")?;
                // What the caller set (the CLI's SKILLS_GITHUB_URL) wins.
                config.github.url.get_or_insert_with(|| url.to_owned());
            }
            (Some("github"), "token_env") => match value.as_str() {
                Some(name) if is_variable(name) => config.github.token_env = Some(name.to_owned()),
                _ => {
                    return Err(
                        "'github.token_env' must name an environment variable (letters, digits, _)"
                            .to_owned(),
                    );
                }
            },
            (Some("runtime"), key) => {
                return runtime(key, value, workspace, file.home, &mut config.runtime);
            }
            (Some("audit"), key) => return audit(key, value, workspace, file, &mut config.audit),
            _ => return Err(no_reader(row)),
        }
        Ok(Taken::All)
    }
}

/// Where a file's entries of a list go: `kept_apart` for a workspace's (its permission rules
/// and sources, which never join the home's), `home` for the home's.
fn own<'a, T>(workspace: bool, kept_apart: &'a mut T, home: &'a mut T) -> &'a mut T {
    if workspace { kept_apart } else { home }
}

/// How much of a workspace's value was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Taken {
    /// All of it (and every value of the home file).
    All,
    /// Only what does not loosen the home's setting, which may be nothing.
    OnlyWhatTightens,
}

/// The effective configuration: `config` with its files applied (the workspace's only when
/// `trusted`), and what was wrong with them.
pub(crate) fn effective(config: &SkillsConfig, trusted: bool) -> Layered {
    let mut layered = Layered {
        config: config.clone(),
        workspace_rules: Vec::new(),
        project: Sources::default(),
        diagnostics: Vec::new(),
        invalid: Vec::new(),
    };
    if !config.read_config_files {
        return layered;
    }
    let home_file = config.home.join(&config.app_dir).join(CONFIG_FILE);
    layered.apply_file(&File {
        path: &home_file,
        base: &config.home,
        home: &config.home,
        layer: Layer::Home,
    });
    let workspace_file = config.workspace.join(&config.app_dir).join(CONFIG_FILE);
    // A workspace that is the home folder has the home's file: it is the user's, read once.
    if trusted && !same_file(&home_file, &workspace_file) {
        layered.apply_file(&File {
            path: &workspace_file,
            base: &config.workspace,
            home: &config.home,
            layer: Layer::Workspace,
        });
    }
    // A folder or pack the home names stays the home's: user (or remote) scope, listed once.
    let Layered {
        config: merged,
        project,
        ..
    } = &mut layered;
    project
        .paths
        .retain(|path| !merged.extra_roots.contains(path));
    project
        .urls
        .retain(|url| !merged.urls.iter().any(|home| home.trim() == url.trim()));
    layered
}

/// Whether two paths name one file (both resolved), or are written alike.
fn same_file(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => std::path::absolute(a).ok() == std::path::absolute(b).ok(),
    }
}

/// The `[runtime]` key `key` onto `runtime`. From the home file every valid value applies; from
/// a workspace's, only what tightens the setting in force.
fn runtime(
    key: &str,
    value: &toml::Value,
    workspace: bool,
    home: &Path,
    runtime: &mut RuntimeConfig,
) -> Result<Taken, String> {
    let text = value.as_str();
    let taken = match key {
        "sandbox" => stricter(
            &mut runtime.sandbox,
            text.and_then(sandbox_mode)
                .ok_or("'runtime.sandbox' must be \"workspace-write\", \"read-only\" or \"off\"")?,
            workspace,
        ),
        "network" => stricter(
            &mut runtime.network,
            text.and_then(network_mode)
                .ok_or("'runtime.network' must be \"deny\" or \"allow\"")?,
            workspace,
        ),
        "confirm" => stricter(
            &mut runtime.confirm,
            text.and_then(confirm_mode)
                .ok_or("'runtime.confirm' must be \"ask\", \"always\" or \"never\"")?,
            workspace,
        ),
        "allow_inline" | "allow_install_scripts" => {
            let allowed = value
                .as_bool()
                .ok_or_else(|| format!("'runtime.{key}' must be true or false"))?;
            let field = if key == "allow_inline" {
                &mut runtime.allow_inline
            } else {
                &mut runtime.allow_install_scripts
            };
            // Turning a permission off always tightens.
            if !workspace || !allowed || *field {
                *field = allowed;
                Taken::All
            } else {
                Taken::OnlyWhatTightens
            }
        }
        "pass_env" => {
            let names = strings(value)
                .filter(|names| names.iter().all(|name| is_variable(name)))
                .ok_or("'runtime.pass_env' must be a list of environment variable names")?;
            if workspace {
                // Fewer variables tighten; a name the home does not pass would loosen.
                let loosens = names.iter().any(|name| !runtime.pass_env.contains(name));
                runtime.pass_env.retain(|name| names.contains(name));
                if loosens {
                    Taken::OnlyWhatTightens
                } else {
                    Taken::All
                }
            } else {
                runtime.pass_env = names;
                Taken::All
            }
        }
        "writable" => {
            let folders = strings(value)
                .ok_or("'runtime.writable' must be a list of folders")?
                .iter()
                .map(|folder| writable_folder(folder, home))
                .collect::<Result<Vec<_>, _>>()?;
            if workspace {
                // Fewer folders tighten; one the home does not list would loosen.
                let loosens = folders
                    .iter()
                    .any(|folder| !runtime.writable.contains(folder));
                runtime.writable.retain(|folder| folders.contains(folder));
                if loosens {
                    Taken::OnlyWhatTightens
                } else {
                    Taken::All
                }
            } else {
                runtime.writable = folders;
                Taken::All
            }
        }
        "max_concurrent_runs" | "max_runs_per_minute" => {
            let limit = value
                .as_integer()
                .and_then(|n| usize::try_from(n).ok())
                .filter(|n| (1..=10_000).contains(n))
                .ok_or_else(|| format!("'runtime.{key}' must be a number from 1 to 10000"))?;
            let field = if key == "max_concurrent_runs" {
                &mut runtime.max_concurrent_runs
            } else {
                &mut runtime.max_runs_per_minute
            };
            if !workspace || limit <= *field {
                *field = limit;
                Taken::All
            } else {
                Taken::OnlyWhatTightens
            }
        }
        // The keys below are the home's alone (the table says so, and a workspace's value
        // never reaches here).
        "setup_network" => {
            runtime.setup_network = text
                .and_then(network_mode)
                .ok_or("'runtime.setup_network' must be \"allow\" or \"deny\"")?;
            Taken::All
        }
        "sandbox_helper" => {
            let path = text.filter(|path| Path::new(path).is_absolute()).ok_or(
                "'runtime.sandbox_helper' must be an absolute path to a program whose main \
                 calls skills::run::sandbox_main() first (the skills binary does)",
            )?;
            runtime.sandbox_helper = Some(PathBuf::from(path));
            Taken::All
        }
        "node" | "npm" | "python" | "sh" => {
            let path = text
                .filter(|path| !path.trim().is_empty())
                .map(PathBuf::from)
                .ok_or_else(|| format!("'runtime.{key}' must be a path"))?;
            let field = match key {
                "node" => &mut runtime.node,
                "npm" => &mut runtime.npm,
                "python" => &mut runtime.python,
                _ => &mut runtime.sh,
            };
            *field = Some(path);
            Taken::All
        }
        "managed_node" => {
            let major = text
                .filter(|major| {
                    !major.is_empty()
                        && major.len() <= 8
                        && major.bytes().all(|b| b.is_ascii_digit())
                })
                .ok_or("'runtime.managed_node' must be a Node major version such as \"22\"")?;
            runtime.managed_node = Some(major.to_owned());
            Taken::All
        }
        // Checked as a URL when managed Node is fetched, by the URL policy every download
        // passes.
        "node_dist" => {
            let base = text
                .map(str::trim)
                .filter(|base| !base.is_empty())
                .ok_or("'runtime.node_dist' must be a URL such as \"https://nodejs.org/dist\"")?;
            runtime.node_dist = Some(base.to_owned());
            Taken::All
        }
        _ => return Err(format!("'runtime.{key}' has no reader; this is a bug")),
    };
    Ok(taken)
}

/// The `[audit]` key `key` onto `audit`. From the home file every valid value applies; from a
/// workspace's, a threshold only when it is lower and rule folders only added (the table says
/// `accepted` is the home's alone, so a workspace's never reaches here).
fn audit(
    key: &str,
    value: &toml::Value,
    workspace: bool,
    file: &File<'_>,
    audit: &mut AuditConfig,
) -> Result<Taken, String> {
    let taken = match key {
        "fail_on" | "ask_on" | "refuse_on" => {
            let severity = value
                .as_str()
                .and_then(|text| text.parse::<AuditSeverity>().ok())
                .ok_or_else(|| {
                    format!(
                        "'audit.{key}' must be \"info\", \"low\", \"medium\", \"high\" or \"critical\""
                    )
                })?;
            let field = match key {
                "fail_on" => &mut audit.fail_on,
                "ask_on" => &mut audit.ask_on,
                _ => &mut audit.refuse_on,
            };
            // A lower threshold blocks more: it tightens.
            if !workspace || severity <= *field {
                *field = severity;
                Taken::All
            } else {
                Taken::OnlyWhatTightens
            }
        }
        "rules" => {
            let folders = strings(value)
                .filter(|folders| folders.iter().all(|folder| !folder.trim().is_empty()))
                .ok_or("'audit.rules' must be a list of folders")?;
            audit.rules.extend(
                folders
                    .iter()
                    .map(|folder| resolve(folder, file.base, file.home)),
            );
            Taken::All
        }
        "accepted" => {
            let rules = strings(value)
                .filter(|rules| rules.iter().all(|rule| is_rule_id(rule)))
                .ok_or(
                    "'audit.accepted' must be a list of rule ids (such as \"HIDDEN_BIDI_CONTROL\")",
                )?;
            audit.accepted = rules;
            Taken::All
        }
        _ => return Err(format!("'audit.{key}' has no reader; this is a bug")),
    };
    Ok(taken)
}

/// Whether `text` can be a rule's id: letters, digits, `_`, `-` and `.` (the built-in ids and
/// the names of rule files).
fn is_rule_id(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 128
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// One folder of `[runtime] writable`: absolute, or `~/...` below the home; never `..` (a
/// folder the user can read at a glance is the one granted) and never `/` (every folder:
/// that is `sandbox = "off"`, which says so).
fn writable_folder(text: &str, home: &Path) -> Result<PathBuf, String> {
    let path = match text.strip_prefix('~') {
        Some("") => home.to_path_buf(),
        Some(rest) if rest.starts_with('/') => home.join(rest.trim_start_matches('/')),
        _ => PathBuf::from(text),
    };
    let shown = text.escape_debug();
    if !path.is_absolute() {
        return Err(format!(
            "'runtime.writable' holds '{shown}', which is not an absolute path (write /path or ~/path)"
        ));
    }
    if path
        .components()
        .any(|part| matches!(part, std::path::Component::ParentDir))
    {
        return Err(format!(
            "'runtime.writable' holds '{shown}', which goes through '..'; name the folder itself"
        ));
    }
    if path.parent().is_none() {
        return Err(
            "'runtime.writable' holds '/', every folder: to run without the sandbox, say `sandbox = \"off\"`"
                .to_owned(),
        );
    }
    Ok(path)
}

/// `value` into `field` when it comes from the home, or from a workspace and is at least as
/// strict as what is in force.
fn stricter<T: Strictness>(field: &mut T, value: T, workspace: bool) -> Taken {
    if !workspace || value.tightens(*field) {
        *field = value;
        Taken::All
    } else {
        Taken::OnlyWhatTightens
    }
}

/// The message of a row the parser has no reader for (a test proves there is none).
fn no_reader(row: &Key) -> String {
    format!(
        "'{}' has no reader in this version; this is a bug",
        row.shown(row.name)
    )
}

/// The end of a message about `key` found inside `[table]`: a hint to move it up when it is a
/// top-level key, nothing otherwise. TOML puts every key written after a header into that
/// table, so `disabled = [...]` placed below `[permissions]` becomes a permission rule for a
/// skill named "disabled".
fn misplaced(table: Option<&str>, key: &str) -> String {
    match table {
        Some(table) if keys::key(None, key).is_some() => format!(
            "; '{key}' is a top-level key: move it above the [{table}] header (every key after a header belongs to that table)"
        ),
        _ => String::new(),
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

/// The `[registry]` key `key` onto `config.registry`.
fn registry(key: &str, value: &toml::Value, config: &mut SkillsConfig) -> Result<(), String> {
    let registry = &mut config.registry;
    let number = value
        .as_integer()
        .and_then(|n| u64::try_from(n).ok())
        .filter(|n| *n > 0);
    match (key, value.as_str()) {
        ("kind", Some("catalog")) => registry.kind = RegistryKind::Catalog,
        ("kind", Some("clawhub")) => registry.kind = RegistryKind::Clawhub,
        ("kind", Some("skillhub")) => registry.kind = RegistryKind::Skillhub,
        ("kind", _) => {
            return Err(
                "'registry.kind' must be \"catalog\", \"clawhub\" or \"skillhub\"".to_owned(),
            );
        }
        // What the caller set (the CLI's environment variables) wins over the file.
        ("url", Some(url)) => {
            registry.catalog_url.get_or_insert_with(|| url.to_owned());
        }
        ("download_base_url", Some(url)) => {
            registry
                .download_base_url
                .get_or_insert_with(|| url.to_owned());
        }
        ("url" | "download_base_url", None) => {
            return Err(format!("'registry.{key}' must be a string"));
        }
        ("token_env", Some(name)) if is_variable(name) => {
            registry.token_env = Some(name.to_owned());
        }
        ("token_env", _) => {
            return Err(
                "'registry.token_env' must name an environment variable (letters, digits, _)"
                    .to_owned(),
            );
        }
        ("max_catalog_bytes", _) if number.is_some() => registry.max_catalog_bytes = number,
        ("max_catalog_entries", _) if number.is_some() => {
            registry.max_catalog_entries = number.and_then(|n| usize::try_from(n).ok());
        }
        ("max_catalog_bytes" | "max_catalog_entries", _) => {
            return Err(format!("'registry.{key}' must be a positive number"));
        }
        _ => return Err(format!("'registry.{key}' has no reader; this is a bug")),
    }
    Ok(())
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

/// What reading a configuration file found.
#[derive(Debug, PartialEq, Eq)]
enum Read {
    /// No file (nor a link) is there.
    Absent,
    /// Its text.
    Text(String),
    /// Something is there that cannot be read as the file, and why (a clause saying what to do).
    Broken(String),
}

/// Reads a configuration file: never blocking on a FIFO or a device planted under its name,
/// never more than [`MAX_CONFIG_BYTES`]. A link is followed (dotfile managers link this file),
/// but a link to nowhere is a file the user wrote that cannot be read, not an absent one.
fn read_config(path: &Path) -> Read {
    use std::io::Read as _;
    // The type is checked before the open, so no device is opened, and again on the open
    // handle, so nothing swapped in between is read.
    match std::fs::metadata(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return match std::fs::symlink_metadata(path) {
                Ok(link) if link.is_symlink() => Read::Broken(format!(
                    "it is a symbolic link to {}, which does not exist; point it at the file or remove it",
                    std::fs::read_link(path)
                        .map(|target| target.display().to_string())
                        .unwrap_or_else(|_| "nothing".to_owned())
                )),
                _ => Read::Absent,
            };
        }
        // The app directory is a file: no configuration file can be below it.
        Err(error) if is_not_a_directory(&error) => return Read::Absent,
        Err(error) => return Read::Broken(cannot_open(&error)),
        Ok(metadata) if !metadata.is_file() => return Read::Broken(not_a_file(&metadata)),
        Ok(_) => {}
    }
    let file = match open_nonblocking(path) {
        Ok(file) => file,
        Err(error) => return Read::Broken(cannot_open(&error)),
    };
    let metadata = match file.metadata() {
        Ok(metadata) if !metadata.is_file() => return Read::Broken(not_a_file(&metadata)),
        Ok(metadata) => metadata,
        Err(error) => return Read::Broken(cannot_open(&error)),
    };
    if metadata.len() > MAX_CONFIG_BYTES {
        return Read::Broken(format!(
            "it is {} bytes long, more than the {MAX_CONFIG_BYTES} allowed; shorten it",
            metadata.len()
        ));
    }
    let mut bytes = Vec::new();
    if let Err(error) = file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes) {
        return Read::Broken(cannot_open(&error));
    }
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Read::Broken(format!(
            "it is longer than the {MAX_CONFIG_BYTES} bytes allowed; shorten it"
        ));
    }
    match String::from_utf8(bytes) {
        Ok(text) => Read::Text(text),
        Err(error) => Read::Broken(format!(
            "it is not UTF-8 text (an invalid byte at offset {}); save it as UTF-8",
            error.utf8_error().valid_up_to()
        )),
    }
}

fn cannot_open(error: &std::io::Error) -> String {
    format!("it cannot be read ({error}); make it readable by you (chmod u+r) or remove it")
}

fn not_a_file(metadata: &std::fs::Metadata) -> String {
    format!(
        "it is {}, not a regular file; remove it",
        crate::fs::file_kind(metadata)
    )
}

#[cfg(unix)]
fn is_not_a_directory(error: &std::io::Error) -> bool {
    error.raw_os_error() == Some(rustix::io::Errno::NOTDIR.raw_os_error())
}

#[cfg(not(unix))]
fn is_not_a_directory(_error: &std::io::Error) -> bool {
    false
}

/// Opens for reading without blocking on a FIFO and without taking a terminal.
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// The 1-based line of the byte `offset` of `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()
        .iter()
        .take(offset)
        .filter(|&&byte| byte == b'\n')
        .count()
        + 1
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
mod tests;
