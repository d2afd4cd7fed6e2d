//! The registry catalog (03 §Registry catalog, §Coordinates): its entries, the coordinates
//! that name one, the questions asked of it and their answers.
//!
//! Coordinates are parsed here, purely, so the command line, the RPC layer and the installer
//! agree on what `@acme/pdf@1.2.0` means before anything touches the network. The parsed slug
//! becomes a folder name, so the grammar admits nothing that could climb out of a skill root:
//! no `/`, `\`, `.`, `@`, control characters, and no `--` (which separates namespace and slug
//! in the canonical form `namespace--slug`, so a slug holding it would be read two ways).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::SkillScope;
use crate::install::AgentTarget;
use crate::limits::MAX_NAME_CHARS;

/// The folder under `<home>/<app_dir>` holding the registry's cache.
pub const CACHE_DIR: &str = "skill-registry";
/// The cached catalog, in [`CACHE_DIR`].
pub const CACHE_FILE: &str = "cache.json";
/// The lock refreshes of the cache take across processes, in [`CACHE_DIR`].
pub const REFRESH_LOCK: &str = ".refresh.lock";
/// Longest version or tag after `@`, in characters.
pub const MAX_PIN_CHARS: usize = 64;
/// Longest coordinates accepted, in bytes after trimming: a namespace, a slug and a pin.
pub const MAX_COORDINATES_BYTES: usize = 3 * 4 * MAX_NAME_CHARS + 4;
/// The namespace that is no namespace: `@global/x`, `global/x` and `global--x` all mean `x`.
pub const GLOBAL_NAMESPACE: &str = "global";
/// What separates namespace and slug in the canonical form.
pub const CANONICAL_SEPARATOR: &str = "--";

/// One entry of a catalog. Its id is its `name`; unknown fields of the catalog are ignored.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Entry {
    /// The id: `slug`, `namespace/slug`, `@namespace/slug` or `namespace--slug`.
    pub name: String,
    /// What the skill does.
    #[serde(default)]
    pub description: String,
    /// Who publishes it (a grouping of the catalog, see `sources`).
    #[serde(default)]
    pub source: String,
    /// Its category (a grouping of the catalog, and a folder of the download base URL).
    #[serde(default)]
    pub category: String,
    /// Its author.
    #[serde(default)]
    pub author: String,
    /// The version the catalog offers.
    #[serde(default)]
    pub version: String,
    /// Its license.
    #[serde(default)]
    pub license: String,
    /// Words it is found by.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Platforms it works on.
    #[serde(default)]
    pub platforms: Vec<String>,
    /// A documentation page or path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs_path: Option<String>,
    /// Where its `SKILL.md` lives (a GitHub file or folder page is installable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
    /// How the catalog's own tool installs it (Hermes `installIdentifier`):
    /// `<owner>/<repo>/<path>` is a GitHub folder, `official/<category>/<slug>` a folder under
    /// the configured download base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install_identifier: Option<String>,
}

impl Entry {
    /// An entry with this name and nothing else.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// The entry's id: its name.
    pub fn id(&self) -> &str {
        &self.name
    }

    /// The coordinates its name spells (never with a version: that is `version`). A name the
    /// catalog's own tool accepts but coordinates do not (upper case, dots, spaces:
    /// `PDF.Tools`) is shown as it is and mapped to a global slug by
    /// [`Coordinates::from_display_name`] (`pdf-tools`).
    pub fn coordinates(&self) -> Result<Coordinates, CoordinatesError> {
        let coordinates = Coordinates::parse(&self.name).or_else(|error| {
            let meant_as_coordinates = self.name.contains('@')
                || self.name.contains('/')
                || self.name.contains("..")
                || self.name.contains(CANONICAL_SEPARATOR);
            if meant_as_coordinates {
                // A pin, a namespace or a path is meant as coordinates: no second reading.
                return Err(error);
            }
            Coordinates::from_display_name(&self.name).ok_or(error)
        })?;
        if coordinates.pin.is_some() {
            return Err(CoordinatesError::new(
                &self.name,
                "an entry's name holds no version (the catalog gives it in 'version')",
            ));
        }
        Ok(coordinates)
    }
}

/// A version or a tag asked for after `@`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", content = "value", rename_all = "lowercase")]
pub enum Pin {
    /// Starts with a digit, or `v` and a digit: `1.2.0`, `v2`.
    Version(String),
    /// Anything else: `latest`, `beta`.
    Tag(String),
}

impl Pin {
    /// The text after `@`.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Version(text) | Self::Tag(text) => text,
        }
    }
}

/// Registry coordinates: an optional namespace (none is the global namespace), a slug (the
/// installed folder's name) and an optional version or tag.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Coordinates {
    /// The namespace; `None` is the global one, which has no prefix.
    pub namespace: Option<String>,
    /// The slug: the folder name a skill is installed under.
    pub slug: String,
    /// A version or tag asked for.
    pub pin: Option<Pin>,
}

impl Coordinates {
    /// Parses `@namespace/slug@version`, `@namespace/slug@tag`, `namespace/slug`, `slug` and
    /// `namespace--slug`, each optionally followed by `@version` or `@tag`.
    pub fn parse(text: &str) -> Result<Self, CoordinatesError> {
        let trimmed = text.trim();
        let fail = |reason: &str| CoordinatesError::new(text, reason);
        if trimmed.is_empty() {
            return Err(fail("it is empty"));
        }
        if trimmed.len() > MAX_COORDINATES_BYTES {
            return Err(fail(&format!(
                "it is longer than {MAX_COORDINATES_BYTES} bytes"
            )));
        }
        let (body, pin) = match trimmed.strip_prefix('@') {
            Some(rest) => {
                let (body, pin) = split_pin(rest);
                if !body.contains('/') {
                    return Err(fail(
                        "a name starting with '@' is scoped: write @namespace/slug",
                    ));
                }
                (body, pin)
            }
            None => split_pin(trimmed),
        };
        let (namespace, slug) = if let Some((namespace, slug)) = body.split_once('/') {
            (Some(namespace), slug)
        } else if let Some((namespace, slug)) = body.split_once(CANONICAL_SEPARATOR) {
            (Some(namespace), slug)
        } else {
            (None, body)
        };
        if let Some(namespace) = namespace {
            check_segment("namespace", namespace).map_err(|reason| fail(&reason))?;
        }
        if slug.contains(CANONICAL_SEPARATOR) {
            return Err(fail(
                "'--' is not allowed inside a slug (it separates namespace and slug in the form namespace--slug)",
            ));
        }
        check_segment("slug", slug).map_err(|reason| fail(&reason))?;
        let pin = pin
            .map(|pin| check_pin(pin).map_err(|reason| fail(&reason)))
            .transpose()?;
        Ok(Self {
            // `@global/x` is the same skill as `x` (skillhub's global namespace has no
            // prefix): one spelling, so no false namespace conflict between the two.
            namespace: namespace
                .filter(|namespace| *namespace != GLOBAL_NAMESPACE)
                .map(str::to_owned),
            slug: slug.to_owned(),
            pin,
        })
    }

    /// The global slug a display name maps to: lower case, every run of characters that are
    /// not letters or digits (dots, spaces, `_`) becomes one `-`, leading and trailing `-`
    /// dropped, cut to the name limit. `PDF.Tools` → `pdf-tools`. `None` when nothing
    /// remains or the result is still not a slug.
    pub fn from_display_name(text: &str) -> Option<Self> {
        let mut slug = String::new();
        for c in text.trim().chars().flat_map(char::to_lowercase) {
            if c.is_alphanumeric() && !c.is_uppercase() {
                slug.push(c);
            } else if !slug.is_empty() && !slug.ends_with('-') {
                slug.push('-');
            }
        }
        let mut slug: String = slug.chars().take(MAX_NAME_CHARS).collect();
        while slug.ends_with('-') {
            slug.pop();
        }
        check_segment("slug", &slug).ok()?;
        Some(Self::global(slug))
    }

    /// Coordinates in the global namespace, without a pin (the slug is not checked).
    pub fn global(slug: impl Into<String>) -> Self {
        Self {
            namespace: None,
            slug: slug.into(),
            pin: None,
        }
    }

    /// The canonical form without the pin: `namespace--slug`, or the bare slug.
    pub fn canonical(&self) -> String {
        match &self.namespace {
            Some(namespace) => format!("{namespace}{CANONICAL_SEPARATOR}{}", self.slug),
            None => self.slug.clone(),
        }
    }

    /// Whether both name the same skill (namespace and slug), whatever their pins.
    pub fn same_skill(&self, other: &Self) -> bool {
        self.namespace == other.namespace && self.slug == other.slug
    }

    /// The same coordinates without a pin.
    #[must_use]
    pub fn unpinned(&self) -> Self {
        Self {
            pin: None,
            ..self.clone()
        }
    }
}

/// `@namespace/slug@pin`, or `slug@pin` in the global namespace; what [`Coordinates::parse`]
/// reads back.
impl fmt::Display for Coordinates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(namespace) = &self.namespace {
            write!(f, "@{namespace}/")?;
        }
        f.write_str(&self.slug)?;
        if let Some(pin) = &self.pin {
            write!(f, "@{}", pin.as_str())?;
        }
        Ok(())
    }
}

impl FromStr for Coordinates {
    type Err = CoordinatesError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

/// Text that is not registry coordinates, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{input}' is not a registry name: {reason}")]
pub struct CoordinatesError {
    /// The text, cut to 80 characters and with control characters escaped.
    pub input: String,
    /// Why, in words.
    pub reason: String,
}

impl CoordinatesError {
    fn new(input: &str, reason: &str) -> Self {
        let cut: String = input.trim().chars().take(80).collect();
        Self {
            input: cut.escape_debug().to_string(),
            reason: reason.to_owned(),
        }
    }
}

/// Splits off the text after the first `@` (the pin).
fn split_pin(text: &str) -> (&str, Option<&str>) {
    match text.split_once('@') {
        Some((body, pin)) => (body, Some(pin)),
        None => (text, None),
    }
}

/// A namespace or slug: lowercase letters and digits (any script) and single `-` inside, at
/// most 64 characters; the name rule of agentskills.io, so a slug is a valid skill name.
fn check_segment(what: &str, text: &str) -> Result<(), String> {
    if text.is_empty() {
        return Err(format!("the {what} is empty"));
    }
    if text.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "the {what} is longer than {MAX_NAME_CHARS} characters"
        ));
    }
    if let Some(bad) = text.chars().find(|c| *c != '-' && !c.is_alphanumeric()) {
        return Err(format!(
            "the {what} may hold only lowercase letters, digits and '-', not '{}'",
            bad.escape_debug()
        ));
    }
    if text.chars().any(char::is_uppercase) {
        return Err(format!(
            "the {what} must be lowercase ('{}')",
            text.to_lowercase()
        ));
    }
    if text.starts_with('-') || text.ends_with('-') {
        return Err(format!("the {what} cannot start or end with '-'"));
    }
    if text.contains(CANONICAL_SEPARATOR) {
        return Err(format!("the {what} cannot hold '--'"));
    }
    Ok(())
}

/// A version (`1.2.0`, `v2`) or a tag (`latest`): ASCII letters, digits, `.`, `-`, `_`, `+`,
/// starting with a letter or digit.
fn check_pin(text: &str) -> Result<Pin, String> {
    if text.is_empty() {
        return Err("nothing follows '@': give a version or a tag".to_owned());
    }
    if text.chars().count() > MAX_PIN_CHARS {
        return Err(format!(
            "the version is longer than {MAX_PIN_CHARS} characters"
        ));
    }
    if let Some(bad) = text
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+')))
    {
        return Err(format!(
            "a version or tag may hold only ASCII letters, digits, '.', '-', '_' and '+', not '{}'",
            bad.escape_debug()
        ));
    }
    let mut chars = text.chars();
    let first = chars.next().unwrap_or('.');
    if !first.is_ascii_alphanumeric() {
        return Err("a version or tag starts with a letter or a digit".to_owned());
    }
    let version = first.is_ascii_digit()
        || (first == 'v' && chars.next().is_some_and(|c| c.is_ascii_digit()));
    Ok(if version {
        Pin::Version(text.to_owned())
    } else {
        Pin::Tag(text.to_owned())
    })
}

/// A search of the catalog: every word of `text` must appear, ignoring case, in the entry's
/// name, description or tags; `category` and `source` must equal the entry's, ignoring case.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Query {
    /// The words; empty matches every entry. `query` on the wire.
    #[serde(default, rename = "query")]
    pub text: String,
    /// Only entries of this category.
    #[serde(default)]
    pub category: Option<String>,
    /// Only entries of this source.
    #[serde(default)]
    pub source: Option<String>,
}

impl Query {
    /// A search for `text` in every category and source.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            category: None,
            source: None,
        }
    }
}

/// How fresh the catalog an answer came from is.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Status {
    /// The catalog's URL, without user info or query string.
    pub url: String,
    /// Entries in the whole catalog.
    pub total: usize,
    /// When it was fetched, in seconds since 1970-01-01 UTC.
    pub fetched_at: u64,
    /// Its age in seconds when the answer was made.
    pub age_secs: u64,
    /// Older than the time to live (an hour): the answer came from a stale cache.
    pub stale: bool,
    /// A refresh was started in the background (the next call sees its result).
    pub refreshing: bool,
    /// Entries of the catalog that were skipped, and why (the publisher's mistakes: they stay
    /// until the catalog changes).
    pub skipped: Vec<String>,
    /// What went wrong this time: a refresh that failed, a cache that could not be written.
    pub warnings: Vec<String>,
}

/// Entries of the catalog with the state of the catalog they came from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Listing {
    /// The entries, sorted by name (`browse`) or best match first (`search`).
    pub entries: Vec<Entry>,
    /// The catalog.
    pub catalog: Status,
}

/// One entry as the registry describes it (`registry show`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Details {
    /// The entry; `docs_path` is its page on the registry when the registry has one.
    pub entry: Entry,
    /// What the registry says about it beyond the entry's fields: a moderation flag with its
    /// reason codes, and whether that stops an install.
    pub notes: Vec<String>,
    /// The registry it came from.
    pub catalog: Status,
}

/// One category or source and how many entries it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Count {
    /// The category or source, as the catalog spells it.
    pub name: String,
    /// Entries in it.
    pub count: usize,
}

impl Count {
    /// `count` entries under `name`.
    pub fn new(name: impl Into<String>, count: usize) -> Self {
        Self {
            name: name.into(),
            count,
        }
    }
}

/// The categories or the sources of the catalog, sorted by name; entries without one are
/// not counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Counts {
    /// Each name with its count.
    pub counts: Vec<Count>,
    /// The catalog.
    pub catalog: Status,
}

/// What to install from the registry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct InstallRequest {
    /// The entry: its name, or any coordinates naming it (`@acme/pdf@1.2.0`, `acme--pdf`).
    /// `entry_id` on the wire.
    #[serde(rename = "entry_id")]
    pub id: String,
    /// `user` (default) or `project` (trusted workspaces only).
    #[serde(default = "crate::scope::user_scope")]
    pub scope: SkillScope,
    /// Install into the scope's `.agents/skills` or `.claude/skills` instead of its own root.
    #[serde(default)]
    pub agent: Option<AgentTarget>,
    /// Agents (names or aliases from the agent table, or `detected`) whose skill folders
    /// should see the skill too: each one not reading the root gets a relative symlink.
    #[serde(default)]
    pub agents: Vec<String>,
    /// The deadline in seconds (default 60, clamped to 1–600).
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// Replace a different skill installed under the same slug, even one from another
    /// namespace (atomically).
    #[serde(default)]
    pub force: bool,
    /// What a person agreed to about the audit's findings, as an install's
    /// ([`crate::install::InstallRequest::audit`]).
    #[serde(default)]
    pub audit: crate::audit::AuditConsent,
}

impl InstallRequest {
    /// A user-scope install of entry `id` with the defaults.
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            scope: SkillScope::User,
            agent: None,
            agents: Vec::new(),
            timeout_secs: None,
            force: false,
            audit: crate::audit::AuditConsent::None,
        }
    }
}

#[cfg(test)]
mod tests;
