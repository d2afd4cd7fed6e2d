//! Every key of `skills.toml`, in one table: where it may be set, which way a workspace's file
//! may move it, and what an invalid value does (issue 29 §2, "the home decides, a workspace can
//! only tighten").
//!
//! The home `skills.toml` is the user's; a trusted workspace's ships with a repository, and a
//! cloned repository can carry anything. So each key says what a workspace's value may do:
//! nothing (`never`: only the home sets it), make the policy stricter (`tighten only`), add to a
//! list (`add only`), or anything (`free`, for keys that grant nothing). The parser in
//! `skills-ops` (`discover/settings.rs`) looks every key up here before it reads its value: a key
//! without a row is an unknown key, so a new key cannot be read without a row, and the rule
//! that applies to it is the row's, never a check written beside the parser. `docs/decisions.md`
//! holds [`markdown`]'s rendering of this table, and a test compares the two.

/// Where a key may be set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Place {
    /// Only in the home `skills.toml` (and by the caller's `SkillsConfig`); a workspace's value
    /// is ignored with a diagnostic.
    Home,
    /// In the home file and in a trusted workspace's, combined by the key's [`Direction`].
    HomeAndWorkspace,
}

/// Which way a trusted workspace's file may move a key from what the home set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Direction {
    /// Not at all: the key is the home's alone.
    Never,
    /// Only towards the stricter value; a looser one is ignored with a diagnostic.
    Tighten,
    /// Only by adding entries to the home's (never removing one, never granting more).
    Add,
    /// Either way: the key grants nothing a repository could use against the user.
    Free,
}

/// What an invalid value of the key (or a file that cannot be read at all) does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum OnInvalid {
    /// A diagnostic; the key keeps the value it had (the key guards nothing a default would
    /// loosen).
    Warn,
    /// The key is policy the user wrote: runs, declared tools and self-tests are refused with
    /// `config_invalid` until the file is fixed; listing goes on with the diagnostic. A default
    /// is never put in place of a rule that could not be read.
    Refuse,
}

/// One key of `skills.toml`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Key {
    /// The table it sits in (`runtime` for `[runtime]`), `None` at the top of the file.
    pub table: Option<&'static str>,
    /// Its name; [`ANY`] stands for every key of its table (the patterns of `[permissions]`).
    pub name: &'static str,
    /// Where it may be set.
    pub place: Place,
    /// Which way a workspace may move it.
    pub direction: Direction,
    /// What an invalid value does.
    pub invalid: OnInvalid,
    /// What a workspace's value does, and why, in words (the table's last column).
    pub rule: &'static str,
}

/// The name of a row that stands for every key of its table.
pub const ANY: &str = "<pattern>";

/// A key of the home file only.
const fn home(
    table: Option<&'static str>,
    name: &'static str,
    invalid: OnInvalid,
    rule: &'static str,
) -> Key {
    Key {
        place: Place::Home,
        ..both(table, name, Direction::Never, invalid, rule)
    }
}

/// A key of both files.
const fn both(
    table: Option<&'static str>,
    name: &'static str,
    direction: Direction,
    invalid: OnInvalid,
    rule: &'static str,
) -> Key {
    Key {
        table,
        name,
        place: Place::HomeAndWorkspace,
        direction,
        invalid,
        rule,
    }
}

const RUNTIME: Option<&str> = Some("runtime");
const AUDIT: Option<&str> = Some("audit");
const REGISTRY: Option<&str> = Some("registry");
const INTERPRETER: &str = "which program runs a skill's code is the user's choice; a repository that set it would run its own program unconfined";

/// Every key of `skills.toml`, in the order the documentation lists them.
pub const KEYS: &[Key] = &[
    both(
        None,
        "paths",
        Direction::Add,
        OnInvalid::Warn,
        "its folders are added as project-scope roots: trust-gated, shown as `project`, and every run from them needs confirmation (the home's stay user scope)",
    ),
    both(
        None,
        "urls",
        Direction::Add,
        OnInvalid::Warn,
        "its remote packs are added as project-scope roots, like its `paths` (a URL the home also lists stays the home's `remote` pack)",
    ),
    both(
        None,
        "disabled",
        Direction::Add,
        OnInvalid::Refuse,
        "its names are added to the home's; it cannot enable a skill the home turned off",
    ),
    both(
        Some("permissions"),
        ANY,
        Direction::Tighten,
        OnInvalid::Refuse,
        "each file's verdict is its own last matching rule, and the stricter of the two applies (deny > ask > allow): a workspace's `\"*\" = \"allow\"` leaves the home's `deny` and `ask` in force",
    ),
    both(
        Some("catalog"),
        "budget_chars",
        Direction::Free,
        OnInvalid::Warn,
        "replaces the home's: how long the rendered catalog may be grants nothing",
    ),
    home(
        Some("sync"),
        "read_command",
        OnInvalid::Warn,
        "what `AGENTS.md` tells the agent to run is the user's choice; a repository that set it would have the agent run its script",
    ),
    home(
        Some("install"),
        "root",
        OnInvalid::Warn,
        "where the user's skills are written is the user's choice; a repository that set it could steer installs into a root it ships",
    ),
    home(
        REGISTRY,
        "kind",
        OnInvalid::Warn,
        "which server skills are fetched from is the user's choice; a repository that set it could point installs at its own server",
    ),
    home(
        REGISTRY,
        "url",
        OnInvalid::Warn,
        "as `kind`; the caller's value (the command line's environment) wins over the home's",
    ),
    home(
        REGISTRY,
        "download_base_url",
        OnInvalid::Warn,
        "as `kind`; the caller's value wins over the home's",
    ),
    home(
        REGISTRY,
        "token_env",
        OnInvalid::Warn,
        "which variable holds the registry token is the user's choice; a repository that set it could send another secret to a server",
    ),
    home(
        REGISTRY,
        "max_catalog_bytes",
        OnInvalid::Warn,
        "a limit of the user's downloads",
    ),
    home(
        REGISTRY,
        "max_catalog_entries",
        OnInvalid::Warn,
        "a limit of the user's downloads",
    ),
    home(
        Some("github"),
        "url",
        OnInvalid::Warn,
        "where GitHub lives is the user's choice; a repository that set it could point installs, and the user's GitHub token, at its own server",
    ),
    home(
        Some("github"),
        "token_env",
        OnInvalid::Warn,
        "which variable holds the GitHub token is the user's choice; a repository that set it could send another secret to GitHub, or read it back through a repository it owns",
    ),
    both(
        RUNTIME,
        "pass_env",
        Direction::Tighten,
        OnInvalid::Refuse,
        "only the names the home also passes are kept (fewer variables); a name the home does not pass is ignored with a diagnostic",
    ),
    both(
        RUNTIME,
        "sandbox",
        Direction::Tighten,
        OnInvalid::Refuse,
        "taken only when stricter (`off` < `workspace-write` < `read-only`)",
    ),
    both(
        RUNTIME,
        "network",
        Direction::Tighten,
        OnInvalid::Refuse,
        "taken only when stricter (`allow` < `deny`)",
    ),
    both(
        RUNTIME,
        "confirm",
        Direction::Tighten,
        OnInvalid::Refuse,
        "taken only when stricter (`never` < `ask` < `always`)",
    ),
    both(
        RUNTIME,
        "allow_inline",
        Direction::Tighten,
        OnInvalid::Refuse,
        "taken only as `false`",
    ),
    both(
        RUNTIME,
        "allow_install_scripts",
        Direction::Tighten,
        OnInvalid::Refuse,
        "taken only as `false`",
    ),
    both(
        RUNTIME,
        "max_concurrent_runs",
        Direction::Tighten,
        OnInvalid::Refuse,
        "taken only when lower",
    ),
    both(
        RUNTIME,
        "max_runs_per_minute",
        Direction::Tighten,
        OnInvalid::Refuse,
        "taken only when lower",
    ),
    both(
        RUNTIME,
        "writable",
        Direction::Tighten,
        OnInvalid::Refuse,
        "only the folders the home also lists are kept (fewer folders a run may write); a folder the home does not list is ignored with a diagnostic",
    ),
    home(
        RUNTIME,
        "setup_network",
        OnInvalid::Refuse,
        "whether installing a skill's dependencies may reach the network is the user's choice; a repository that set it would choose for the user when its packages are fetched",
    ),
    home(RUNTIME, "node", OnInvalid::Refuse, INTERPRETER),
    home(RUNTIME, "npm", OnInvalid::Refuse, INTERPRETER),
    home(RUNTIME, "python", OnInvalid::Refuse, INTERPRETER),
    home(RUNTIME, "sh", OnInvalid::Refuse, INTERPRETER),
    home(
        RUNTIME,
        "managed_node",
        OnInvalid::Refuse,
        "whether a Node is downloaded and run is the user's choice",
    ),
    home(
        RUNTIME,
        "node_dist",
        OnInvalid::Refuse,
        "where managed Node is downloaded from is the user's choice; a repository that set it would serve the interpreter",
    ),
    home(
        RUNTIME,
        "sandbox_helper",
        OnInvalid::Refuse,
        "the helper runs unconfined before it confines anything; a repository that set it would run its own program outside the sandbox",
    ),
    both(
        AUDIT,
        "fail_on",
        Direction::Tighten,
        OnInvalid::Refuse,
        "taken only when lower (`critical` > `high` > `medium` > `low` > `info`): a repository may have `skills audit` fail on more, never on less",
    ),
    both(
        AUDIT,
        "ask_on",
        Direction::Tighten,
        OnInvalid::Refuse,
        "taken only when lower: an install may ask about more findings, never fewer",
    ),
    both(
        AUDIT,
        "refuse_on",
        Direction::Tighten,
        OnInvalid::Refuse,
        "taken only when lower: more findings may refuse an install or a run, never fewer",
    ),
    both(
        AUDIT,
        "rules",
        Direction::Add,
        OnInvalid::Refuse,
        "its rule folders are added to the home's: more rules can only find more",
    ),
    home(
        AUDIT,
        "accepted",
        OnInvalid::Refuse,
        "which findings stop blocking is the user's choice; a repository that accepted a rule would wave its own skills through",
    ),
];

/// The row of `name` in `table` (`None`: the top of the file), or `None` for an unknown key.
pub fn key(table: Option<&str>, name: &str) -> Option<&'static Key> {
    KEYS.iter()
        .find(|row| row.table == table && (row.name == name || row.name == ANY))
}

/// Whether a top-level key names one of the tables ([`Key::table`]).
pub fn is_table(name: &str) -> bool {
    KEYS.iter().any(|row| row.table == Some(name))
}

/// What a key that has no row in `table` does, and a table key whose value is not a table: as
/// the strictest key of that table, since a misspelt key may have been one of them (a
/// `disable = [...]`, a `[runtime] sanbox`), and a rule the user meant is not dropped silently.
pub fn unknown_in(table: Option<&str>) -> OnInvalid {
    KEYS.iter()
        .filter(|row| row.table == table)
        .map(|row| row.invalid)
        .max()
        .unwrap_or(OnInvalid::Warn)
}

impl Key {
    /// How a message names it: `paths`, `[runtime] sandbox`, `[permissions] "pdf"` (with the
    /// pattern written in place of [`ANY`] by the caller).
    pub fn shown(&self, name: &str) -> String {
        match self.table {
            Some(table) => format!("[{table}] {name}"),
            None => name.to_owned(),
        }
    }
}

impl Place {
    /// The word of the documentation's table.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Home => "home only",
            Self::HomeAndWorkspace => "home and workspace",
        }
    }
}

impl Direction {
    /// The word of the documentation's table.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Never => "never",
            Self::Tighten => "tighten only",
            Self::Add => "add only",
            Self::Free => "free",
        }
    }
}

impl OnInvalid {
    /// The word of the documentation's table.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Warn => "warn, keep the value",
            Self::Refuse => "refuse runs (`config_invalid`)",
        }
    }
}

/// [`KEYS`] as the Markdown table `docs/decisions.md` holds.
pub fn markdown() -> String {
    let mut text = String::from(
        "| key | set in | a workspace may | an invalid value | a workspace's value |\n|---|---|---|---|---|\n",
    );
    for row in KEYS {
        let key = match row.table {
            Some(table) => format!("`[{table}] {}`", row.name),
            None => format!("`{}`", row.name),
        };
        text.push_str(&format!(
            "| {key} | {} | {} | {} | {} |\n",
            row.place.as_str(),
            row.direction.as_str(),
            row.invalid.as_str(),
            row.rule
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_has_one_row_and_home_only_is_never() {
        for (index, row) in KEYS.iter().enumerate() {
            assert_eq!(
                row.place == Place::Home,
                row.direction == Direction::Never,
                "{row:?}"
            );
            assert!(
                KEYS[..index]
                    .iter()
                    .all(|other| (other.table, other.name) != (row.table, row.name)),
                "{row:?} twice"
            );
            assert!(!row.rule.is_empty() && !row.rule.contains('|'), "{row:?}");
        }
    }

    #[test]
    fn lookups() {
        assert_eq!(key(None, "paths").map(|row| row.name), Some("paths"));
        assert_eq!(
            key(Some("permissions"), "pdf-*").map(|row| row.direction),
            Some(Direction::Tighten)
        );
        assert_eq!(
            key(Some("runtime"), "sandbox").map(|row| row.invalid),
            Some(OnInvalid::Refuse)
        );
        assert!(key(Some("runtime"), "sanbox").is_none());
        assert!(key(None, "runtime").is_none());
        assert!(is_table("runtime") && is_table("permissions") && !is_table("paths"));
        assert_eq!(unknown_in(None), OnInvalid::Refuse);
        assert_eq!(unknown_in(Some("runtime")), OnInvalid::Refuse);
        assert_eq!(unknown_in(Some("catalog")), OnInvalid::Warn);
        assert_eq!(unknown_in(Some("registry")), OnInvalid::Warn);
        assert_eq!(unknown_in(Some("audit")), OnInvalid::Refuse);
        assert_eq!(
            key(Some("audit"), "accepted").map(|row| row.place),
            Some(Place::Home)
        );
        assert_eq!(
            key(Some("audit"), "fail_on").map(|row| row.direction),
            Some(Direction::Tighten)
        );
    }

    #[test]
    fn the_table_renders_one_line_per_key() {
        let text = markdown();
        assert_eq!(text.lines().count(), KEYS.len() + 2);
        assert!(text.contains(
            "| `[runtime] sandbox` | home and workspace | tighten only | refuse runs (`config_invalid`) |"
        ));
    }
}
