//! `Error`: the one error type of the facade's public signatures.
//!
//! Each variant's message is a sentence a person can act on and names the path that failed.
//! [`Error::kind`] is a stable snake_case name for programs (the RPC `data.kind`).

use std::io;
use std::path::PathBuf;

use crate::Diagnostic;

/// What went wrong in a call of the skills subsystem.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The subsystem is not compiled in: the `skills` feature of the `skills` crate is off.
    #[error(
        "the skills subsystem is disabled in this build (the `skills` feature of the `skills` crate is off)"
    )]
    Disabled,
    /// A path given by the caller does not exist.
    #[error("{} does not exist", path.display())]
    NotFound {
        /// The missing path.
        path: PathBuf,
    },
    /// A path that must be a directory is something else.
    #[error("{} is not a directory", path.display())]
    NotADirectory {
        /// The offending path.
        path: PathBuf,
    },
    /// A directory that must be a skill holds no definition file.
    #[error("{} holds no SKILL.md", dir.display())]
    NoDefinitionFile {
        /// The directory.
        dir: PathBuf,
    },
    /// A definition file exists but cannot be loaded at all (too large, not UTF-8, unterminated
    /// frontmatter).
    #[error("{}: {}", path.display(), diagnostic.message)]
    Unloadable {
        /// The definition file.
        path: PathBuf,
        /// Why it cannot be loaded.
        diagnostic: Box<Diagnostic>,
    },
    /// The operating system refused an operation.
    #[error("could not {action} {}: {source}", path.display())]
    Io {
        /// What was being done, as a verb phrase ("read", "list the directory").
        action: &'static str,
        /// The path it was done to.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// No skill has this name (or id).
    #[error("no skill named '{name}'{}", suggestion.as_ref().map(|s| format!("; did you mean '{s}'?")).unwrap_or_default())]
    SkillNotFound {
        /// The name asked for.
        name: String,
        /// The closest known name, when one is close.
        suggestion: Option<String>,
    },
    /// No declared tool is offered under this name.
    #[error("no tool named '{name}' is offered; {}", suggestion.as_ref().map_or_else(|| "`skills tools` lists the tools offered".to_owned(), |s| format!("did you mean '{s}'?")))]
    ToolNotFound {
        /// The name asked for.
        name: String,
        /// The closest offered name, when one is close.
        suggestion: Option<String>,
    },
    /// A permission rule denies the skill.
    #[error("the skill '{name}' is denied by the permission rule '{pattern}'")]
    SkillDenied {
        /// The skill.
        name: String,
        /// The rule's pattern.
        pattern: String,
    },
    /// The skill is listed in `disabled`.
    #[error("the skill '{name}' is disabled in the configuration")]
    SkillDisabled {
        /// The skill.
        name: String,
    },
    /// A word that could mean more than one skill: the caller must say which.
    #[error("'{name}' could mean more than one skill: {others}")]
    AmbiguousSkill {
        /// The word asked for.
        name: String,
        /// What it could mean and how to ask for each.
        others: String,
    },
    /// A path from outside was refused by the safe reader.
    #[error("refused '{path}': {reason}")]
    PathRefused {
        /// The path as given.
        path: String,
        /// Why, in words.
        reason: String,
        /// The reader's stable name for the reason (`symlink`, `too_large`, `not_found`, ...).
        refusal: &'static str,
    },
    /// The thing to create is already there; nothing was changed.
    #[error("{} already exists; nothing was changed", path.display())]
    AlreadyExists {
        /// Where.
        path: PathBuf,
    },
    /// The workspace must be trusted for this.
    #[error("the workspace {} is not trusted, so its project skills cannot be changed", workspace.display())]
    UntrustedWorkspace {
        /// The workspace.
        workspace: PathBuf,
    },
    /// A workspace root (project, profile, legacy) leads into the user's own places (the
    /// home, its app folder, a user root), through a symlink or as named; writing it as a
    /// workspace scope would change the user's own skills, so nothing was changed.
    #[error("{} is not a {scope} root: {reason}; nothing was changed", root.display())]
    RootOutsideScope {
        /// The root, as the workspace names it (links not resolved).
        root: PathBuf,
        /// The scope it was asked for as.
        scope: crate::SkillScope,
        /// Where it leads and through which link, with what to do, as clauses.
        reason: String,
    },
    /// A URL was refused by the install policy (scheme, host, address, redirect).
    #[error("refused {url}: {reason}")]
    UrlRefused {
        /// The URL, redacted (no user info, no query).
        url: String,
        /// Why, naming the rule or the address range.
        reason: String,
    },
    /// A download failed (status, size, timeout, encoding, connection).
    #[error("could not download {url}: {reason}")]
    Download {
        /// The URL, redacted.
        url: String,
        /// Why.
        reason: String,
        /// A stable name of the failure (`too_large`, `timeout`, `http_status`, ...).
        kind: &'static str,
    },
    /// A downloaded skill or pack is not acceptable (paths, digests, missing `SKILL.md`).
    #[error("the download from {source_url} is not a valid skill: {reason}")]
    InvalidPackage {
        /// Where it came from, redacted.
        source_url: String,
        /// Why.
        reason: String,
    },
    /// A different skill is installed under the same name; nothing was changed.
    #[error("{} holds a different skill; nothing was changed (use --force to replace it)", path.display())]
    Conflict {
        /// The installed skill's folder.
        path: PathBuf,
    },
    /// A skill of another registry namespace is installed under the same folder name;
    /// nothing was changed.
    #[error("{} holds {installed} from the registry, not {requested}; nothing was changed (use --force to replace it)", path.display())]
    NamespaceConflict {
        /// The installed skill's folder.
        path: PathBuf,
        /// The coordinates of the skill there (`@globex/pdf`, or `pdf` in the global namespace).
        installed: String,
        /// The coordinates asked for.
        requested: String,
    },
    /// An argument is malformed; the message says which and why.
    #[error("{0}")]
    InvalidInput(String),
    /// A step of the call ran on a worker that stopped before it finished (it panicked, or
    /// its runtime was shut down): not the caller's input, and the call may be tried again.
    #[error("{action} was interrupted: {reason}")]
    Interrupted {
        /// What was under way, as a sentence's subject ("the install").
        action: String,
        /// What stopped the worker.
        reason: String,
    },
    /// Something the call needs was never configured (a registry's catalog URL, the event
    /// bus a trigger listens on): nothing was done. Configure it, then call again; sending
    /// the same request unchanged fails the same way.
    #[error("{what} is not configured: {how}")]
    NotConfigured {
        /// What is missing, as a sentence's subject ("no registry catalog").
        what: String,
        /// Where to configure it, as a clause.
        how: String,
    },
    /// What was asked for is not a thing this kind of source, registry or target offers (a
    /// ClawHub registry has no categories): nothing was done. Ask in a form it offers.
    #[error("{reason}")]
    Unsupported {
        /// What is not offered and what to ask instead, as a sentence.
        reason: String,
    },
    /// The user's configuration forbids what was asked (inline code, a run's network, writes
    /// under a read-only sandbox, files a skill ships that would turn a guard back off):
    /// nothing was started. The message names the key that would allow it, which only the
    /// user may change.
    #[error("{reason}")]
    Forbidden {
        /// What was refused, by which key, and how to allow it, as a sentence.
        reason: String,
    },
    /// A folder or file of the user's own audit rules (`[audit] rules`) cannot be used: it
    /// is missing, not a folder, unreadable, too many, or a rule does not compile. The scan
    /// did not run: a rule the user wrote is never dropped in silence.
    #[error("the audit rules at {} cannot be used: {reason}; the scan did not run", path.display())]
    AuditRulesInvalid {
        /// The folder or file (with the line, for a rule that does not compile).
        path: PathBuf,
        /// What is wrong, as a clause.
        reason: String,
    },
    /// The program failed in a way no input explains (a record that would not encode, a
    /// step that left no result): a bug to report, not the caller's to fix.
    #[error("{action} failed inside this program: {reason} (a bug: please report it)")]
    Internal {
        /// What was under way, as a sentence's subject ("encoding the install record").
        action: String,
        /// What went wrong.
        reason: String,
    },
    /// The skill is a profile's, and this handle was opened for another profile (or none):
    /// open a handle for that profile to run it.
    #[error(
        "the skill '{skill}' belongs to another profile than the one this handle was opened for"
    )]
    OtherProfile {
        /// The skill's name.
        skill: String,
    },
    /// The per-user record of trusted workspaces cannot be used, so nothing is trusted.
    #[error("the trust record {} cannot be used: {reason}; no workspace is trusted until it is fixed or removed", path.display())]
    TrustRecordInvalid {
        /// The record file.
        path: PathBuf,
        /// What is wrong with it, as a clause.
        reason: String,
    },
    /// A file this subsystem keeps beside the skills (a root's `.skills-installed.json`, its
    /// install lock) cannot be used; it is checked before anything is written, so nothing was
    /// changed.
    #[error("{} cannot be used: {reason}; nothing was changed", path.display())]
    StateFileInvalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it and what to do, as clauses ("it is a FIFO ...; remove it ...").
        reason: String,
    },
    /// A folder below a tree being validated that was not validated (`validate --recursive`
    /// reports what it skips instead of passing over it).
    #[error("{} was not validated: {reason}", path.display())]
    NotValidated {
        /// The folder.
        path: PathBuf,
        /// Why, as a clause ("its name is not valid UTF-8 ...").
        reason: String,
    },
    /// Skills given to `publish` fail the strict validation; nothing was written.
    #[error("{} of the skills to publish {} not valid under the strict agentskills profile; nothing was written", reports.len(), if reports.len() == 1 { "is" } else { "are" })]
    NotPublishable {
        /// The report of each invalid skill, with every diagnostic.
        reports: Vec<crate::validate::Report>,
    },
    /// A run needs the user's confirmation (an `ask` or project skill, or `confirm =
    /// "always"`); nothing was started. Ask, then send the request again with `confirmed`.
    #[error("running '{skill}' needs confirmation: {reason}; nothing was started")]
    NeedsConfirmation {
        /// The skill.
        skill: String,
        /// Why, as a clause ("it is a project skill").
        reason: String,
    },
    /// Too many runs at once or in the last minute; nothing was started. Retry later.
    #[error("busy: {reason}; nothing was started, try again shortly")]
    Busy {
        /// Which limit, with its value.
        reason: String,
    },
    /// The interpreter a run needs is missing or too old; nothing was started.
    #[error("no usable {runtime}: {reason}; nothing was started")]
    RuntimeUnavailable {
        /// Which interpreter (`node`, `python`, `sh`, ...).
        runtime: String,
        /// What was looked for and what was found.
        reason: String,
    },
    /// The handle is read-only (`SkillsConfig::read_only`, `skills --read-only`).
    #[error("the skills handle is read-only, so it cannot {action}")]
    ReadOnly {
        /// What was refused, as a verb phrase ("run code").
        action: String,
    },
    /// A configuration file (`skills.toml`) exists but cannot be honoured: it cannot be read
    /// (no permission, a FIFO, a folder, a link to nowhere, too large, not UTF-8), it is not
    /// valid TOML, or a key that is policy (`[permissions]`, `disabled`, `[runtime]`) has a
    /// value that means nothing. A rule the user wrote is never replaced by a default, so runs,
    /// declared tools and self-tests are refused until the file is fixed; nothing was started.
    #[error(
        "the configuration file {} cannot be honoured: {reason}; runs, tools and self-tests are refused until it is fixed or removed (a rule it holds would otherwise be dropped), and listing still works",
        path.display()
    )]
    ConfigInvalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it, as a clause naming the key when one key is at fault.
        reason: String,
    },
    /// The sandbox the configuration asks for cannot be enforced here; nothing was started.
    #[error(
        "the sandbox cannot be enforced: {missing}; nothing was started (set `[runtime] sandbox = \"off\"` in the home skills.toml to run unsandboxed)"
    )]
    SandboxUnavailable {
        /// What the kernel or platform lacks.
        missing: String,
    },
    /// The audit found what the user has not accepted at or above a gate's refusing threshold
    /// (`[audit] refuse_on`, critical by default): nothing was written or started.
    #[error("{action} '{skill}' was refused by the audit: {}; {advice}", findings.join("; "))]
    AuditRefused {
        /// What was refused, in the gerund ("installing", "running").
        action: String,
        /// The skill (or skills, comma-separated).
        skill: String,
        /// Each finding that decided, sanitised: `RULE_ID (severity) file:line: message`.
        findings: Vec<String>,
        /// What to do, as a clause naming the command.
        advice: String,
    },
    /// The audit found what needs a person's agreement (`[audit] ask_on`, high by default)
    /// and none was given: nothing was written. Ask, then send the request again with the
    /// consent set (`--yes`).
    #[error(
        "installing '{skill}' needs your agreement: the audit found {}; nothing was written (read the findings with `skills audit`, then install again with --yes)",
        findings.join("; ")
    )]
    AuditUnconfirmed {
        /// The skill (or skills, comma-separated).
        skill: String,
        /// Each finding that asks, sanitised: `RULE_ID (severity) file:line: message`.
        findings: Vec<String>,
    },
}

impl Error {
    /// A stable snake_case name of the variant, for programs.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Disabled => "disabled",
            Self::NotFound { .. } => "not_found",
            Self::NotADirectory { .. } => "not_a_directory",
            Self::NoDefinitionFile { .. } => "no_definition_file",
            Self::Unloadable { .. } => "unloadable",
            Self::Io { .. } => "io",
            Self::SkillNotFound { .. } | Self::ToolNotFound { .. } => "not_found",
            Self::SkillDenied { .. } => "denied",
            Self::SkillDisabled { .. } => "skill_disabled",
            Self::AmbiguousSkill { .. } => "ambiguous",
            Self::PathRefused {
                refusal: "not_found",
                ..
            } => "not_found",
            Self::PathRefused { .. } => "refused_path",
            Self::AlreadyExists { .. } => "already_exists",
            Self::UntrustedWorkspace { .. } => "untrusted_workspace",
            Self::RootOutsideScope { .. } => "root_outside_scope",
            Self::UrlRefused { .. } => "refused_url",
            Self::Download { kind, .. } => kind,
            Self::InvalidPackage { .. } => "invalid_package",
            Self::Conflict { .. } | Self::NamespaceConflict { .. } => "conflict",
            Self::InvalidInput(_) => "invalid_input",
            Self::Interrupted { .. } => "interrupted",
            Self::OtherProfile { .. } => "other_profile",
            Self::NotConfigured { .. } => "not_configured",
            Self::Unsupported { .. } => "unsupported",
            Self::Forbidden { .. } => "forbidden",
            Self::AuditRulesInvalid { .. } => "audit_rules_invalid",
            Self::Internal { .. } => "internal",
            Self::NotValidated { .. } => "not_validated",
            Self::TrustRecordInvalid { .. } => "trust_record_invalid",
            Self::StateFileInvalid { .. } => "state_file_invalid",
            Self::NotPublishable { .. } => "not_publishable",
            Self::NeedsConfirmation { .. } => "needs_confirmation",
            Self::Busy { .. } => "busy",
            Self::RuntimeUnavailable { .. } => "runtime_unavailable",
            Self::ReadOnly { .. } => "read_only",
            Self::SandboxUnavailable { .. } => "sandbox_unavailable",
            Self::ConfigInvalid { .. } => "config_invalid",
            Self::AuditRefused { .. } => "audit_refused",
            Self::AuditUnconfirmed { .. } => "audit_unconfirmed",
        }
    }

    /// An I/O error with the action and path that failed.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        Self::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DiagnosticCode;

    #[test]
    fn kinds_are_stable_snake_case() {
        let samples = [
            (Error::Disabled, "disabled"),
            (Error::NotFound { path: "/x".into() }, "not_found"),
            (
                Error::NotADirectory { path: "/x".into() },
                "not_a_directory",
            ),
            (
                Error::NoDefinitionFile { dir: "/x".into() },
                "no_definition_file",
            ),
            (
                Error::Unloadable {
                    path: "/x/SKILL.md".into(),
                    diagnostic: Box::new(Diagnostic::error(DiagnosticCode::NotUtf8, "not UTF-8")),
                },
                "unloadable",
            ),
            (Error::io("read", "/x", io::Error::other("boom")), "io"),
            (Error::InvalidInput("bad".into()), "invalid_input"),
            (
                Error::Interrupted {
                    action: "the install".into(),
                    reason: "the task panicked".into(),
                },
                "interrupted",
            ),
            (
                Error::OtherProfile {
                    skill: "pdf".into(),
                },
                "other_profile",
            ),
            (
                Error::NotConfigured {
                    what: "no registry catalog".into(),
                    how: "set [registry] url".into(),
                },
                "not_configured",
            ),
            (
                Error::Unsupported {
                    reason: "a ClawHub registry has no categories".into(),
                },
                "unsupported",
            ),
            (
                Error::Forbidden {
                    reason: "inline code is refused".into(),
                },
                "forbidden",
            ),
            (
                Error::AuditRulesInvalid {
                    path: "/r".into(),
                    reason: "it is missing".into(),
                },
                "audit_rules_invalid",
            ),
            (
                Error::Internal {
                    action: "encoding the record".into(),
                    reason: "a map key is not a string".into(),
                },
                "internal",
            ),
            (
                Error::NotValidated {
                    path: "/x".into(),
                    reason: "why".into(),
                },
                "not_validated",
            ),
            (
                Error::SkillNotFound {
                    name: "pdf".into(),
                    suggestion: Some("pdf-tools".into()),
                },
                "not_found",
            ),
            (
                Error::SkillDenied {
                    name: "pdf".into(),
                    pattern: "*".into(),
                },
                "denied",
            ),
            (
                Error::SkillDisabled { name: "pdf".into() },
                "skill_disabled",
            ),
            (
                Error::NotPublishable {
                    reports: Vec::new(),
                },
                "not_publishable",
            ),
            (
                Error::NamespaceConflict {
                    path: "/s/pdf".into(),
                    installed: "@globex/pdf".into(),
                    requested: "@acme/pdf".into(),
                },
                "conflict",
            ),
            (
                Error::NeedsConfirmation {
                    skill: "pdf".into(),
                    reason: "it is a project skill".into(),
                },
                "needs_confirmation",
            ),
            (
                Error::Busy {
                    reason: "4 runs".into(),
                },
                "busy",
            ),
            (
                Error::AuditRefused {
                    action: "running".into(),
                    skill: "pdf".into(),
                    findings: vec!["SCRIPT_REVERSE_SHELL (critical) run.sh:3: a shell".into()],
                    advice: "nothing was started".into(),
                },
                "audit_refused",
            ),
            (
                Error::AuditUnconfirmed {
                    skill: "pdf".into(),
                    findings: vec!["SCRIPT_EGRESS (high) run.sh:3: sends".into()],
                },
                "audit_unconfirmed",
            ),
            (
                Error::RuntimeUnavailable {
                    runtime: "node".into(),
                    reason: "not on PATH".into(),
                },
                "runtime_unavailable",
            ),
            (
                Error::ReadOnly {
                    action: "run code".into(),
                },
                "read_only",
            ),
            (
                Error::SandboxUnavailable {
                    missing: "Landlock".into(),
                },
                "sandbox_unavailable",
            ),
            (
                Error::ConfigInvalid {
                    path: "/home/u/.openhuman/skills.toml".into(),
                    reason: "it cannot be read (permission denied)".into(),
                },
                "config_invalid",
            ),
            (
                Error::RootOutsideScope {
                    root: "/w/.agents/skills".into(),
                    scope: crate::SkillScope::Project,
                    reason: "/w/.agents is a symbolic link to /h/.agents".into(),
                },
                "root_outside_scope",
            ),
        ];
        for (error, kind) in samples {
            assert_eq!(error.kind(), kind);
            assert!(!error.to_string().is_empty());
        }
    }

    #[test]
    fn unknown_skill_suggests_the_closest_name() {
        let error = Error::SkillNotFound {
            name: "pdf".into(),
            suggestion: Some("pdf-tools".into()),
        };
        assert_eq!(
            error.to_string(),
            "no skill named 'pdf'; did you mean 'pdf-tools'?"
        );
    }

    #[test]
    fn unknown_tool_suggests_the_closest_name() {
        let error = Error::ToolNotFound {
            name: "pdf__fil".into(),
            suggestion: Some("pdf__fill".into()),
        };
        assert_eq!(error.kind(), "not_found");
        assert_eq!(
            error.to_string(),
            "no tool named 'pdf__fil' is offered; did you mean 'pdf__fill'?"
        );
        let far = Error::ToolNotFound {
            name: "zzz".into(),
            suggestion: None,
        };
        assert_eq!(
            far.to_string(),
            "no tool named 'zzz' is offered; `skills tools` lists the tools offered"
        );
    }

    #[test]
    fn messages_name_the_path() {
        let error = Error::io("read", "/a/SKILL.md", io::Error::other("denied"));
        assert_eq!(error.to_string(), "could not read /a/SKILL.md: denied");
        assert_eq!(
            Error::NoDefinitionFile { dir: "/a".into() }.to_string(),
            "/a holds no SKILL.md"
        );
    }
}
