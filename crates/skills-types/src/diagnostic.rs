//! Diagnostics: what the loader, the validator and (later) discovery say about a skill.
//!
//! Every diagnostic carries a stable kebab-case code from the single table below. Codes are a
//! public contract (scripts match on them, `skills validate --json` prints them, RPC clients
//! branch on them), so a code is never renamed or reused; new ones are added at the end of
//! their group.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! diagnostic_codes {
    ($( $variant:ident = $code:literal : $summary:literal, )*) => {
        /// The stable code of a [`Diagnostic`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum DiagnosticCode {
            $( #[doc = $summary] $variant, )*
        }

        impl DiagnosticCode {
            /// Every code, in table order.
            pub const ALL: &'static [DiagnosticCode] = &[$( Self::$variant, )*];

            /// The kebab-case code as printed and serialized.
            pub const fn as_str(self) -> &'static str {
                match self { $( Self::$variant => $code, )* }
            }

            /// One sentence saying what the code means (the table of `docs/diagnostics.md`).
            pub const fn summary(self) -> &'static str {
                match self { $( Self::$variant => $summary, )* }
            }
        }
    };
}

diagnostic_codes! {
    // Reading and splitting the definition file (01 §Splitting frontmatter from body).
    TooLarge = "too-large": "The definition file is larger than the size limit and was not loaded.",
    NotUtf8 = "not-utf8": "The definition file is not valid UTF-8 and was not loaded.",
    NoFrontmatter = "no-frontmatter": "The file does not open with a `---` line, so it has no frontmatter; the whole file is the body.",
    UnterminatedFrontmatter = "unterminated-frontmatter": "The frontmatter opens with `---` but no closing `---` line follows; the skill was not loaded.",
    YamlError = "yaml-error": "The frontmatter is not valid YAML, or is not a mapping; the skill is not loaded (its name and description would be guesses), and a running watch keeps its last valid version.",
    YamlTooComplex = "yaml-too-complex": "The frontmatter nests too deeply or expands aliases beyond the limits (a YAML bomb); the skill is not loaded.",
    NoncanonicalFilename = "noncanonical-filename": "The definition file is a case variant of `SKILL.md` (such as `skill.md`); it is read, and written back as `SKILL.md`.",
    NotAFile = "not-a-file": "The definition file is not a regular file (a FIFO, a device or a directory) and was not read.",
    ConflictingFields = "conflicting-fields": "Two spellings of one field are both given (`allowed-tools` and `allowed_tools`); the first is used.",
    // The loader's normalisation (01 §Frontmatter fields).
    NameDefaulted = "name-defaulted": "The frontmatter has no `name`; the directory name is used.",
    DescriptionDefaulted = "description-defaulted": "The frontmatter has no `description`; the first paragraph of the body is used.",
    DescriptionMissing = "description-missing": "There is no `description`, and none could be taken from the body.",
    DeprecatedTopLevelField = "deprecated-top-level-field": "A top-level `version`, `author` or `tags` field belongs under `metadata`.",
    InvalidFieldType = "invalid-field-type": "A field holds a value of the wrong type (for example a list where a string belongs).",
    NameUnshowable = "name-unshowable": "The name holds a control, format or line-break character, which no agent or terminal is shown, so no one could call the skill by it: the folder's name is used (and when that holds one too, the skill is not listed).",
    // The validator's field rules (01 §The validator and its profiles).
    UnexpectedField = "unexpected-field": "The frontmatter has fields the profile does not allow.",
    NameMissing = "name-missing": "The required `name` field is missing.",
    NameEmpty = "name-empty": "The `name` field is empty.",
    NameTooLong = "name-too-long": "The name is longer than 64 characters.",
    NameNotLowercase = "name-not-lowercase": "The name has uppercase characters.",
    NameInvalidCharacters = "name-invalid-characters": "The name has characters other than letters, digits and `-`.",
    NameLeadingTrailingHyphen = "name-leading-trailing-hyphen": "The name starts or ends with `-`.",
    NameConsecutiveHyphens = "name-consecutive-hyphens": "The name contains `--`.",
    NameDirectoryMismatch = "name-directory-mismatch": "The name differs from the name of the directory holding the definition file.",
    DescriptionEmpty = "description-empty": "The `description` field is empty.",
    DescriptionTooLong = "description-too-long": "The description is longer than 1,024 characters.",
    CompatibilityEmpty = "compatibility-empty": "The `compatibility` field is present but empty.",
    CompatibilityTooLong = "compatibility-too-long": "The compatibility note is longer than 500 characters.",
    MetadataNotMap = "metadata-not-map": "The `metadata` field is not a mapping.",
    AllowedToolsInvalid = "allowed-tools-invalid": "The `allowed-tools` field is neither a string nor a list of strings.",
    InvalidFieldValue = "invalid-field-value": "A field holds a value its host does not document (an `effort` level, a `context` or `shell` other than the documented ones, `agent` without `context: fork`); the host may ignore it.",
    // Discovery (02 §Scopes and roots, §Scanning a root, §Identity, collisions and order).
    Shadowed = "shadowed": "Another skill of the same name in a higher-precedence place wins; this copy is not used.",
    UntrustedWorkspace = "untrusted-workspace": "The workspace is not trusted, so its project and legacy skills were not loaded (run `skills trust`).",
    TrustMarkerIgnored = "trust-marker-ignored": "The workspace carries an old in-tree trust marker, which no longer trusts it: trust is recorded per user (run `skills trust PATH`).",
    TrustRecordInvalid = "trust-record-invalid": "The per-user record of trusted workspaces could not be read (not a regular file, too large, or not valid JSON), so no workspace is trusted.",
    SymlinkOutsideRoots = "symlink-outside-roots": "A symlinked directory was not followed: a workspace's link points outside the workspace's roots, or a link met below a followed one points outside every root.",
    SymlinkSkipped = "symlink-skipped": "A symlink was not followed because the symlink policy forbids it.",
    DuplicateDirectory = "duplicate-directory": "A directory was reached a second time (through a symlink, or overlapping roots) and was loaded once.",
    DepthLimit = "depth-limit": "A folder lies deeper below its root than the depth limit and was not scanned.",
    DirectoryLimit = "directory-limit": "A root holds more folders, or folder entries, than the scan limits allow; the rest were not scanned.",
    LastGoodKept = "last-good-kept": "The definition file no longer loads; a running watch keeps the skill's last valid version until the file is fixed or removed.",
    WatchPolling = "watch-polling": "A running watch could not have the kernel report changes under a path (the inotify watch limit, the cap on watches per root, or another refusal), so it looks at that path every poll interval instead.",
    Unreadable = "unreadable": "A file or folder could not be read (permission denied, vanished during the scan, or a name that is not UTF-8).",
    InvalidConfig = "invalid-config": "A `skills.toml` configuration file has a key that was ignored (unknown, malformed, or one a workspace may not set or loosen); as an error, the file or a policy key in it cannot be honoured, so runs are refused (`config_invalid`) until it is fixed.",
    InvalidSidecar = "invalid-sidecar": "A `skill.toml`, `workflow.toml` or `skill.json` beside the definition file could not be read or is malformed.",
    InvalidToolName = "invalid-tool-name": "A tool declared in `skill.toml` would be offered under a name (`<skill>__<tool>`) that model APIs refuse: it must match `^[a-zA-Z0-9_-]{1,64}$`; the tool is not offered.",
    NestedSkill = "nested-skill": "A skill folder lies inside another skill's folder; discovery never looks inside a skill, so agents will not find it (reported by `validate --recursive`).",
    RemoteNotFetched = "remote-not-fetched": "A remote pack listed in `urls` has never been fetched, so none of its skills are listed (run `skills update --remote`).",
    RemoteFailed = "remote-failed": "The last fetch of a remote pack failed; the last good copy is listed.",
    RemoteStale = "remote-stale": "The cached copy of a remote pack is older than its refresh interval; it is listed as it is (run `skills update --remote`, or a long-running `skills serve` refreshes it).",
    InvalidToolSchema = "invalid-tool-schema": "A tool declared in `skill.toml` has a `parameters` schema holding a control, format or line-break character where validation reads the text as written (a property name, `enum`, `const`, `pattern`, `default`, …): an agent is shown the schema without it and would be checked against another, so the tool is not offered. Descriptions and titles may hold anything; they are cleaned for the agent.",
    TrustReplaced = "trust-replaced": "The workspace was trusted, but the folder at its path now is not the one trusted (it was deleted and made again, as a new clone is, or replaced), or the record was made by an older version that cannot tell; it is not trusted until `skills trust` is run again.",
    TrustUnverifiable = "trust-unverifiable": "The workspace's file system reports no birth time, so a folder made again at its path could not be told from the trusted one; it cannot be trusted by record (`--trust-workspace` trusts it for one command).",
    RootOutsideScope = "root-outside-scope": "A project, profile or legacy root leads (through a symlink, or as named in `paths`) into the home, its app folder or a user root; it is the user's own folder, not the workspace's, so it is not scanned as a workspace root.",
    NoSkillWithinLimits = "no-skill-within-limits": "A root (or a folder a link in it leads to) holds no skill as far as discovery's depth and folder limits let it look, and the limits cut the walk short: it is not a folder of skills (a link to `/usr`, a home folder). The rest was not scanned, and a running watch follows only its top folder.",
    // The audit's verdicts (issue 31: `skills check` re-scans when the rules change).
    AuditFlagged = "audit-flagged": "The skill's last audit (`skills audit`, re-run by `skills check` when the rules or the skill's files changed) found a high or critical finding; read it with `skills audit NAME`.",
    AuditUnscanned = "audit-unscanned": "`skills check` could not scan the skill again after the rules or its files changed (its folder is gone or cannot be read), so its audit verdict is unknown.",
    PseudoFileSystem = "pseudo-file-system": "A root, or a folder below one, lies on a kernel pseudo file system (`/proc`, `/sys`, cgroups, debugfs), where no skill can be and whose walk may never end; it is neither scanned nor watched.",
    // Package rules (01 §Package rules).
    PackageInvalidPath = "package-invalid-path": "A file path in the package is not a plain relative path (traversal, absolute, hidden, reserved or over-long).",
    PackageDuplicatePath = "package-duplicate-path": "Two files in the package have the same path.",
    PackageCaseCollision = "package-case-collision": "Two file paths in the package differ only in letter case.",
    PackageExtensionNotAllowed = "package-extension-not-allowed": "A file in the package has an extension outside the allowed list.",
    PackageSpecialFile = "package-special-file": "The package holds a symlink, a hard link, or a special file such as a FIFO or device.",
    PackageFileTooLarge = "package-file-too-large": "A file in the package is larger than the per-file limit.",
    PackageTooLarge = "package-too-large": "The files of the package together exceed the total size limit.",
    PackageTooManyFiles = "package-too-many-files": "The package holds more files than the limit.",
    // `x-astron-compliance` (01 §x-astron-compliance).
    ComplianceInvalid = "compliance-invalid": "`x-astron-compliance` is not a list of entries with `standard`, `version` and `controlId`.",
    ComplianceEvidenceInvalid = "compliance-evidence-invalid": "A compliance evidence item is malformed, points outside the package, names a missing file, or is not an https URL.",
    ComplianceDuplicate = "compliance-duplicate": "Two compliance entries share `standard`, `version` and `controlId`.",
    // Triggers (04 §Triggers).
    TriggerInvalid = "trigger-invalid": "An entry of `triggers` is not a valid pattern (`domain`, `domain/slug`, `domain/*`); it never matches.",
}

impl DiagnosticCode {
    /// The findings that keep a definition file out of the catalog: its bytes cannot be read as
    /// a skill (too large, not UTF-8, not a regular file, frontmatter never closed), or its
    /// frontmatter cannot be parsed, so its name and description would be guesses an agent must
    /// never be offered. Discovery refuses a skill on exactly these, and the `lenient`
    /// validation profile errs on exactly these: a skill `list` loads is never an error there.
    pub const REFUSING: &'static [DiagnosticCode] = &[
        Self::TooLarge,
        Self::NotUtf8,
        Self::UnterminatedFrontmatter,
        Self::NotAFile,
        Self::YamlError,
        Self::YamlTooComplex,
    ];

    /// Whether a finding with this code keeps the skill out of the catalog ([`Self::REFUSING`]).
    pub fn refuses_skill(self) -> bool {
        Self::REFUSING.contains(&self)
    }
}

impl fmt::Display for DiagnosticCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for DiagnosticCode {
    type Err = UnknownCode;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .copied()
            .find(|code| code.as_str() == text)
            .ok_or_else(|| UnknownCode(text.to_owned()))
    }
}

/// The error of parsing an unknown diagnostic code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown diagnostic code '{0}'")]
pub struct UnknownCode(pub String);

impl Serialize for DiagnosticCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for DiagnosticCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The schema of a code: one of the strings of the table.
impl schemars::JsonSchema for DiagnosticCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "DiagnosticCode".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let codes: Vec<&str> = Self::ALL.iter().map(|code| code.as_str()).collect();
        schemars::json_schema!({
            "description": "The stable kebab-case code of a diagnostic (docs/diagnostics.md).",
            "type": "string",
            "enum": codes,
        })
    }
}

/// How serious a diagnostic is.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; never fails anything.
    Info,
    /// Tolerated; `--strict` turns it into an error.
    Warning,
    /// Makes a skill invalid (validator) or unusable (loader).
    Error,
}

impl Severity {
    /// The lowercase name as printed.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding about one skill or file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Diagnostic {
    /// The stable code.
    pub code: DiagnosticCode,
    /// How serious it is.
    pub severity: Severity,
    /// A sentence a person understands, naming the offending value.
    pub message: String,
    /// The file concerned, when it is not the one the surrounding report is about.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::path_text::option"
    )]
    #[schemars(with = "Option<String>")]
    pub path: Option<PathBuf>,
    /// The 1-based line in the definition file, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl Diagnostic {
    /// A diagnostic with the given code, severity and message.
    pub fn new(code: DiagnosticCode, severity: Severity, message: impl Into<String>) -> Self {
        Self {
            code,
            severity,
            message: message.into(),
            path: None,
            line: None,
        }
    }

    /// An error-severity diagnostic.
    pub fn error(code: DiagnosticCode, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Error, message)
    }

    /// A warning-severity diagnostic.
    pub fn warning(code: DiagnosticCode, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Warning, message)
    }

    /// The same diagnostic about another file.
    #[must_use]
    pub fn with_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// The same diagnostic at a line of the definition file.
    #[must_use]
    pub fn with_line(mut self, line: u32) -> Self {
        self.line = Some(line);
        self
    }

    /// Whether this diagnostic makes its subject invalid.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]: {}", self.severity, self.code, self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_are_unique_kebab_case_and_round_trip() {
        let mut seen = HashSet::new();
        for &code in DiagnosticCode::ALL {
            let text = code.as_str();
            assert!(seen.insert(text), "duplicate code {text}");
            assert!(
                !text.is_empty()
                    && !text.starts_with('-')
                    && !text.ends_with('-')
                    && !text.contains("--")
                    && text
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{text} is not kebab-case"
            );
            assert!(
                code.summary().ends_with('.'),
                "{text}: summary must be a sentence"
            );
            assert_eq!(text.parse::<DiagnosticCode>().unwrap(), code);
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(serde_json::from_str::<DiagnosticCode>(&json).unwrap(), code);
        }
        assert!("no-such-code".parse::<DiagnosticCode>().is_err());
    }

    #[test]
    fn diagnostic_serializes_without_empty_fields() {
        let diagnostic = Diagnostic::error(DiagnosticCode::NameEmpty, "name is empty").with_line(2);
        let json = serde_json::to_value(&diagnostic).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"code": "name-empty", "severity": "error", "message": "name is empty", "line": 2})
        );
        assert_eq!(diagnostic.to_string(), "error[name-empty]: name is empty");
    }
}
