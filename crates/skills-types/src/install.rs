//! Installing from the network (03): the request, the outcome, the network settings a core
//! may configure, and the resolver hook.

use core::net::{IpAddr, SocketAddr};
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::SkillScope;

/// Which root of a scope new skills are written to (`install --agent`, `new --agent`, the
/// home configuration's `[install] root`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AgentTarget {
    /// `<app_dir>/skills`, the application's own root.
    App,
    /// `.agents/skills`, the shared root Codex, Gemini CLI, OpenCode and other tools read:
    /// the default.
    Agents,
    /// `.claude/skills`.
    Claude,
}

/// What to install.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct InstallRequest {
    /// The source: an https URL (a `SKILL.md`, a site or docs page, a
    /// `/.well-known/agent-skills/index.json` or `/.well-known/skills/index.json`, a pack's
    /// `index.json` or its folder, a `.tar.gz` or `.zip`, a GitHub repository, `tree/` or
    /// `blob/` page), the GitHub shorthand `owner/repo[/path][@ref]`, or a local folder or
    /// archive (`./dir`, `../x.zip`, `/abs/dir`).
    pub url: String,
    /// `user` (default) or `project` (trusted workspaces only).
    #[serde(default = "crate::scope::user_scope")]
    pub scope: SkillScope,
    /// The root of the scope to install into: `app` (`<app_dir>/skills`), `agents`
    /// (`.agents/skills`) or `claude` (`.claude/skills`); without it, the home
    /// configuration's `[install] root`, else `agents`.
    #[serde(default)]
    pub agent: Option<AgentTarget>,
    /// Agents (names or aliases from the agent table, or `detected`) whose skill folders
    /// should see the skill too: the copy goes to the root above, and each named agent that
    /// does not read that root gets a relative symlink in its own folder.
    #[serde(default)]
    pub agents: Vec<String>,
    /// The deadline in seconds (default 60, clamped to 1–600).
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// Replace a different skill already installed under the same name (atomically).
    #[serde(default)]
    pub force: bool,
    /// Only these skills of a multi-skill source (by index entry, folder or skill name); all
    /// when empty. A name the source does not offer is an error listing what it offers.
    #[serde(default)]
    pub skills: Vec<String>,
    /// Show what the source offers and install nothing: the outcomes say where each skill
    /// would go and whether it is already there; nothing is written.
    #[serde(default)]
    pub list: bool,
    /// A published version of an agent-skills index (a snapshot `versions.json` lists).
    #[serde(default)]
    pub version: Option<String>,
    /// Only the skills of these plugins of a Claude Code plugin marketplace
    /// (`.claude-plugin/marketplace.json`, a plugin's `plugin.json`); all when empty. A name
    /// the source does not declare is an error listing the plugins it does.
    #[serde(default)]
    pub plugins: Vec<String>,
    /// What a person agreed to about the audit's findings (`none`, `yes`, `force`): a skill
    /// with an unaccepted finding at or above `[audit] ask_on` is written only with `yes`,
    /// one at or above `refuse_on` only with `force`; otherwise nothing at all is written.
    #[serde(default)]
    pub audit: crate::audit::AuditConsent,
}

impl InstallRequest {
    /// A user-scope install of `url` with the defaults.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            scope: SkillScope::User,
            agent: None,
            agents: Vec::new(),
            timeout_secs: None,
            force: false,
            skills: Vec::new(),
            list: false,
            version: None,
            plugins: Vec::new(),
            audit: crate::audit::AuditConsent::None,
        }
    }
}

/// What installing one skill did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InstallOutcome {
    /// The folder name it was installed under.
    pub slug: String,
    /// The skill folder.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub path: PathBuf,
    /// The scope of the root it went into.
    pub scope: SkillScope,
    /// How many files it holds.
    pub files: usize,
    /// Their total size.
    pub bytes: u64,
    /// `sha256:<hex>` over the sorted files and their digests: two installs of the same
    /// content have the same digest.
    pub sha256: String,
    /// Names discovery lists after the install that it did not list before.
    pub new_skills: Vec<String>,
    /// The same content was already there; nothing was written.
    pub already_installed: bool,
    /// A different skill was replaced (`force`).
    pub replaced: bool,
    /// Things worth knowing that did not stop the install.
    pub warnings: Vec<String>,
    /// Where it came from, with no user info or query string.
    pub source: String,
    /// The source's kind: `skill-md`, `pack`, `well-known`, `vercel-well-known`, `github`,
    /// `archive`, `local`, `registry`.
    pub kind: String,
    /// The skill's description, from its `SKILL.md`.
    pub description: String,
    /// The version the source declared, if any.
    pub version: Option<String>,
    /// The symlinks made in other agents' skill folders (`--agent NAME`), each leading to
    /// `path`.
    #[serde(default, with = "crate::path_text::list")]
    #[schemars(with = "Vec<String>")]
    pub links: Vec<PathBuf>,
    /// The plugin of the source's plugin marketplace it belongs to (the one it was installed
    /// as part of, with `plugins`), recorded with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// What the audit's gate decided (recorded with the install as `audit`); `None` from a
    /// build without the gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<crate::audit::Verdict>,
}

/// The environment variable the command line maps to [`NetworkConfig::allow_loopback_http`]
/// (the library itself reads no environment; it names the switch so its refusals can).
pub const ALLOW_LOCAL_HTTP_VAR: &str = "SKILLS_INSTALL_ALLOW_LOCAL_HTTP";

/// What a refusal of a URL aimed at this machine, a private network, plain http or another port
/// than 443 adds, while the fixture switch is off: a person testing a local server needs to hear
/// of the switch, and of how little it opens.
pub fn local_http_advice() -> String {
    format!(
        "for a test fixture on this machine, {ALLOW_LOCAL_HTTP_VAR}=1 (`allow_loopback_http`) \
         allows http and any port on 127.0.0.1, [::1] and localhost, and nothing else"
    )
}

/// Network settings a core or the command line sets (the library reads no environment).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct NetworkConfig {
    /// For test fixtures only: allow `http` to `127.0.0.1`, `[::1]` and `localhost` (the CLI
    /// maps [`ALLOW_LOCAL_HTTP_VAR`]`=1`). Never widens anything else.
    pub allow_loopback_http: bool,
    /// Extra address ranges to refuse, in CIDR form (such as `168.63.129.16/32`).
    pub denied: Vec<String>,
}

/// What kind of registry `[registry] url` is (09 §Registries).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RegistryKind {
    /// A catalog file: a JSON array of entries (the seed's `skills.json`).
    #[default]
    Catalog,
    /// A ClawHub server (`/.well-known/clawhub.json`, `/api/v1/...`).
    Clawhub,
    /// A skillhub server (`{code, msg, data}` envelopes, `/api/v1/skills/{ns}/{slug}`).
    Skillhub,
}

impl RegistryKind {
    /// The name used in `skills.toml` and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Catalog => "catalog",
            Self::Clawhub => "clawhub",
            Self::Skillhub => "skillhub",
        }
    }
}

/// Where the registry lives and how to talk to it: the home `skills.toml`'s `[registry]`
/// (`kind`, `url`, `download_base_url`, `token_env`, `max_catalog_bytes`,
/// `max_catalog_entries`); the CLI maps `SKILLS_REGISTRY_CATALOG_URL`,
/// `SKILLS_REGISTRY_DOWNLOAD_BASE_URL` and `SKILLS_REGISTRY_TOKEN` over it.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct RegistryConfig {
    /// What kind of registry `catalog_url` is.
    #[serde(default)]
    pub kind: RegistryKind,
    /// The registry's URL: the catalog file for `catalog`, the server's base for `clawhub`
    /// and `skillhub`.
    pub catalog_url: Option<String>,
    /// Where catalog entries without a URL of their own are downloaded from.
    pub download_base_url: Option<String>,
    /// The name of the environment variable holding the registry's token (`token_env`); the
    /// library reads no environment, the CLI resolves it into `token`.
    #[serde(default)]
    pub token_env: Option<String>,
    /// The bearer token, sent only to the registry's own origin; never logged or serialised.
    #[serde(skip)]
    #[schemars(skip)]
    pub token: Option<String>,
    /// Largest catalog accepted, in bytes (default 64 MiB).
    #[serde(default)]
    pub max_catalog_bytes: Option<u64>,
    /// Most catalog entries accepted (default 200,000).
    #[serde(default)]
    pub max_catalog_entries: Option<usize>,
}

impl std::fmt::Debug for RegistryConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token never reaches a log, even through `{:?}`.
        f.debug_struct("RegistryConfig")
            .field("kind", &self.kind)
            .field("catalog_url", &self.catalog_url)
            .field("download_base_url", &self.download_base_url)
            .field("token_env", &self.token_env)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("max_catalog_bytes", &self.max_catalog_bytes)
            .field("max_catalog_entries", &self.max_catalog_entries)
            .finish()
    }
}

/// Where GitHub lives (09 §Publishers): the home `skills.toml`'s `[github] url`, or
/// `SKILLS_GITHUB_URL` on the command line. `None` is `https://github.com` (API at
/// `api.github.com`, archives at `codeload.github.com`); any other base is a GitHub
/// Enterprise server (API under `<url>/api/v3`), or a loopback fixture in tests.
///
/// A token for private repositories (`token`) is sent to that server's API and archive
/// origins only ([`GITHUB_TOKEN_VARS`], or the variable `[github] token_env` names).
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct GithubConfig {
    /// The web base, such as `https://github.example.com`.
    #[serde(default)]
    pub url: Option<String>,
    /// The name of the environment variable holding the GitHub token (`[github] token_env`,
    /// home only); the library reads no environment, the CLI resolves it into `token`.
    #[serde(default)]
    pub token_env: Option<String>,
    /// The token, sent only to the configured GitHub's API and archive origins (never across
    /// a redirect to another origin); never logged, recorded or serialised.
    #[serde(skip)]
    #[schemars(skip)]
    pub token: Option<String>,
}

impl std::fmt::Debug for GithubConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token never reaches a log, even through `{:?}`.
        f.debug_struct("GithubConfig")
            .field("url", &self.url)
            .field("token_env", &self.token_env)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// The environment variables the command line takes a GitHub token from, in this order,
/// when the home configuration's `[github] token_env` names none (the library reads no
/// environment; it names them so its messages can).
pub const GITHUB_TOKEN_VARS: [&str; 2] = ["GITHUB_TOKEN", "GH_TOKEN"];

/// What a 401, 403 or 404 from GitHub for `repository` adds: a private repository answers
/// exactly like a missing one, so the person needs to hear how to give a token, or that the
/// one given cannot read it.
pub fn github_access_advice(repository: &str, status: u16, token_sent: bool) -> String {
    let [first, second] = GITHUB_TOKEN_VARS;
    let limit = if status == 403 {
        " (or the API's rate limit for requests without a token is spent)"
    } else {
        ""
    };
    if token_sent {
        format!(
            "GitHub answered {status} for {repository} with the configured token: the repository does not exist, or the token cannot read it{limit}; give a token with read access to its contents"
        )
    } else {
        format!(
            "GitHub answered {status} for {repository}{limit}: if it is private, set {first} or {second} (or `[github] token_env` in the home skills.toml) to a token that can read it"
        )
    }
}

/// Resolves host names; the system resolver by default. A core may supply its own (a DNS
/// over HTTPS client, a test's fixed answers); every answer still goes through the address
/// check.
pub trait Resolver: Send + Sync {
    /// The addresses of `host`.
    fn lookup<'a>(
        &'a self,
        host: &'a str,
    ) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send + 'a>>;
}

/// Called on every address the client is about to connect to, after the address check: for
/// tests and sandboxes that must prove nothing leaves the machine.
pub type ConnectGuard = Arc<dyn Fn(SocketAddr) -> Result<(), String> + Send + Sync>;

/// How far an install has got, for a progress display. Reports arrive in order from the task
/// running the install; a display should be cheap (it runs inline).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InstallProgress {
    /// A request starts (the URL without user info or query string).
    Request {
        /// The URL being fetched.
        url: String,
    },
    /// Bytes of the current request received so far, and the announced length if any.
    Received {
        /// Bytes so far.
        bytes: u64,
        /// The announced `Content-Length`.
        expected: Option<u64>,
    },
    /// An index was read: this many files will be fetched.
    Planned {
        /// Files still to fetch.
        files: usize,
    },
    /// A skill is being written to disk.
    Writing {
        /// Its folder name (several, comma-separated, when a pack writes several).
        slug: String,
    },
}

/// Receives [`InstallProgress`] reports.
pub type ProgressSink = Arc<dyn Fn(&InstallProgress) + Send + Sync>;

/// Run-time hooks of the network client, set on the `Skills` handle.
#[derive(Clone, Default)]
pub struct Hooks {
    /// Resolves names instead of the system resolver.
    pub resolver: Option<Arc<dyn Resolver>>,
    /// Vets every address before it is connected to.
    pub connect_guard: Option<ConnectGuard>,
    /// Told how an install is going.
    pub progress: Option<ProgressSink>,
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("resolver", &self.resolver.is_some())
            .field("connect_guard", &self.connect_guard.is_some())
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// What an install came from, as its record names it (`kind` in `.skill-source.json` and the
/// lock entry). A record another version or tool wrote with a kind this one does not know
/// reads as [`SourceKind::Other`]: it is kept, never guessed at.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum SourceKind {
    /// A `SKILL.md` URL.
    SkillMd,
    /// A pack's `index.json`.
    Pack,
    /// An agent-skills well-known index.
    WellKnown,
    /// The vercel tool's well-known index.
    VercelWellKnown,
    /// A site that leads to an index.
    Site,
    /// A folder URL.
    Folder,
    /// A GitHub repository, folder or file.
    Github,
    /// An archive URL.
    Archive,
    /// A local folder or archive.
    Local,
    /// An entry of a registry catalog.
    Registry,
    /// A ClawHub registry's entry.
    Clawhub,
    /// A skillhub registry's entry.
    Skillhub,
    /// A kind this version does not know (or not yet known while a source is read).
    #[default]
    #[serde(other)]
    Other,
}

impl SourceKind {
    /// The word the record holds.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SkillMd => "skill-md",
            Self::Pack => "pack",
            Self::WellKnown => "well-known",
            Self::VercelWellKnown => "vercel-well-known",
            Self::Site => "site",
            Self::Folder => "folder",
            Self::Github => "github",
            Self::Archive => "archive",
            Self::Local => "local",
            Self::Registry => "registry",
            Self::Clawhub => "clawhub",
            Self::Skillhub => "skillhub",
            Self::Other => "other",
        }
    }
}

/// The content digest an install record holds: each file's SHA-256 by path in the skill's
/// own record, the one summary digest (`sha256:<hex>`) in the lock entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RecordDigest {
    /// Each file's lowercase hex SHA-256, by relative path.
    Files(std::collections::BTreeMap<String, String>),
    /// `sha256:<hex>` over the files' paths and digests.
    Summary(String),
}

/// The registry entry an install came from, as its record holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistryRecord {
    /// The entry's id as the catalog spells it.
    pub id: String,
    /// `namespace/slug`, without a pin.
    pub coordinates: String,
    /// The coordinates' namespace (none: the global one).
    pub namespace: Option<String>,
    /// The coordinates' slug.
    pub slug: String,
    /// The version the catalog offered, if it named one.
    pub version: Option<String>,
    /// The catalog's URL, redacted.
    #[serde(default)]
    pub catalog: String,
}

/// What an install records of a skill: the provenance record in its folder
/// (`.skill-source.json`, with `installed_at` and each file's digest) and its entry in the
/// root's lock file (the summary digest) are this one shape. Fields a newer version wrote are
/// kept as they were.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstallRecord {
    /// The source as given: the URL redacted, the GitHub shorthand, or the local path.
    pub source_url: String,
    /// What the source was.
    pub kind: SourceKind,
    /// When it was written (RFC 3339, seconds); the provenance record only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installed_at: Option<String>,
    /// The content's digest.
    pub sha256: RecordDigest,
    /// The version the source declared.
    pub version: Option<String>,
    /// The URL that answered (an index a site led to, a repository's tarball), redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_url: Option<String>,
    /// The ref asked for (GitHub) or the snapshot version chosen (an agent-skills index).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The commit a GitHub tarball held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The digest the source gave (an index entry's `sha256:…`) or of the archive it came in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The plugin of the source's manifests it was installed as part of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// What the audit's gate decided about these files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<crate::audit::Verdict>,
    /// The registry entry it was installed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry: Option<RegistryRecord>,
    /// Fields this version does not know, kept.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_keeps_what_it_does_not_know_and_writes_the_kind_as_a_word() {
        let text = r#"{"source_url":"https://x.example/SKILL.md","kind":"gitlab","sha256":"sha256:00","version":null,"ref":"v1","mirror":{"at":"y"}}"#;
        let record: InstallRecord = serde_json::from_str(text).unwrap();
        assert_eq!(record.kind, SourceKind::Other);
        assert_eq!(record.sha256, RecordDigest::Summary("sha256:00".to_owned()));
        assert_eq!(record.reference.as_deref(), Some("v1"));
        assert_eq!(record.other["mirror"]["at"], "y");
        let written = serde_json::to_value(&record).unwrap();
        assert_eq!(written["mirror"]["at"], "y");
        assert_eq!(written["ref"], "v1");
        assert!(written.get("installed_at").is_none());

        for kind in [
            SourceKind::SkillMd,
            SourceKind::VercelWellKnown,
            SourceKind::Clawhub,
        ] {
            let word = serde_json::to_value(kind).unwrap();
            assert_eq!(word, kind.as_str());
            assert_eq!(serde_json::from_value::<SourceKind>(word).unwrap(), kind);
        }
        let files: InstallRecord = serde_json::from_str(
            r#"{"source_url":"o/r","kind":"github","sha256":{"SKILL.md":"ab"},"version":"1"}"#,
        )
        .unwrap();
        assert_eq!(files.kind, SourceKind::Github);
        assert!(matches!(files.sha256, RecordDigest::Files(ref map) if map["SKILL.md"] == "ab"));
    }
}
