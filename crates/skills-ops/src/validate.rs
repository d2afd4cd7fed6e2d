//! The strict validator (01 §The validator and its profiles).
//!
//! It works on the frontmatter as written (the raw YAML mapping), not on the loader's
//! normalised view, so that nothing the loader forgives slips past it, and it reports every
//! violation, each with its stable code. A definition file that cannot be loaded at all (too
//! large, not UTF-8, unterminated) is a finding in the report, not an error of the call: the
//! call fails only when there is nothing to validate (a missing path, no `SKILL.md`) or the
//! system refuses to read it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use skills_types::files::{EXCLUDED_DIR_NAMES, match_definition, pick_definition};
use skills_types::frontmatter::LEGACY_TOP_LEVEL_FIELDS;
use skills_types::limits::{
    MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, MAX_RELATIVE_PATH_COMPONENTS,
    MAX_SKILL_MD_BYTES,
};
use skills_types::validate::{ComplianceSnapshot, Options, Profile, Report};
use skills_types::{Diagnostic, DiagnosticCode, Error, Severity};

use crate::load::{self, RawFrontmatter, Source};
use crate::yaml::Node;
use crate::{compliance, name, package};

mod hosts;

/// The fields of the agentskills.io specification, allowed in every profile.
const SPEC_FIELDS: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// `one` or `many`, after the number of `items`.
fn plural<'a>(items: &[&str], one: &'a str, many: &'a str) -> &'a str {
    if items.len() == 1 { one } else { many }
}

/// The key holding compliance claims (profile `skillhub`).
const COMPLIANCE_FIELD: &str = "x-astron-compliance";

/// Validates one skill: `path` is its directory or its definition file.
pub fn validate_path(path: &Path, options: &Options) -> Result<Report, Error> {
    validate_with(path, options, None)
}

/// [`validate_path`], with what the tree walk found out about the skill's place: the skill
/// it is nested in, if any.
fn validate_with(path: &Path, options: &Options, inside: Option<&Path>) -> Result<Report, Error> {
    let (dir, file) = resolve(path)?;
    let sidecar = crate::discover::sidecar_file(&dir);
    validate_resolved(dir, file, sidecar, options, inside)
}

/// [`validate_with`] for a skill directory and definition file already found, and its sidecar
/// (`skill.toml` or `workflow.toml`) when it has one.
fn validate_resolved(
    dir: PathBuf,
    file: PathBuf,
    sidecar: Option<PathBuf>,
    options: &Options,
    inside: Option<&Path>,
) -> Result<Report, Error> {
    let directory = directory_name(&dir)?;
    let (name, mut diagnostics, compliance) = match load::read_definition(&file, MAX_SKILL_MD_BYTES)
    {
        Ok(bytes) => check(&dir, &directory, &file, &bytes, options),
        Err(Error::Unloadable { diagnostic, .. }) => (None, vec![*diagnostic], None),
        Err(error) => return Err(error),
    };
    // The sidecar's problems (and declared tools' names) are the skill's too.
    diagnostics.extend(crate::discover::sidecar_diagnostics_of(
        &dir,
        sidecar.as_deref(),
        name.as_deref().unwrap_or(&directory),
    ));
    if let Some(outer) = inside {
        // Discovery never loads a nested skill, so `lenient` (what discovery loads) errs on it.
        let severity = if options.strict || options.profile == Profile::Lenient {
            Severity::Error
        } else {
            Severity::Warning
        };
        diagnostics.push(Diagnostic::new(
            DiagnosticCode::NestedSkill,
            severity,
            format!(
                "this skill lies inside the skill folder {}; discovery never looks inside a skill, so agents will not find it (move it out, or make it a folder of its own)",
                outer.display()
            ),
        ));
    }
    Ok(Report::new(
        dir,
        file,
        name,
        options,
        diagnostics,
        compliance,
    ))
}

/// Validates the bytes of a definition file that is (or will be) at `file`, without reading
/// it: for an editor checking unsaved text, or an installer checking a download. The name is
/// checked against the directory `file` sits in; the package rules of profile `skillhub` look
/// at that directory on disk when it exists.
/// The call itself cannot fail; the `Result` is the facade's uniform shape (the disabled stub
/// returns `Err(Error::Disabled)`).
pub fn validate_bytes(file: &Path, bytes: &[u8], options: &Options) -> Result<Report, Error> {
    let dir = match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let directory = load::directory_name(file);
    let (name, diagnostics, compliance) = check(&dir, &directory, file, bytes, options);
    Ok(Report::new(
        dir,
        file.to_path_buf(),
        name,
        options,
        diagnostics,
        compliance,
    ))
}

/// Validates every skill below `path` (a skill directory, a definition file, or a folder of
/// skills), in path order. Excluded directories (`.git`, `node_modules`, caches, build output)
/// are skipped; other hidden folders (`.agents/skills`) are walked.
///
/// Nothing below `path` is passed over in silence. A skill nested inside another skill's
/// folder is validated too, with a `nested-skill` finding (discovery would never find it). A
/// symlinked folder is followed and validated through the link; a folder reached twice (a
/// link to a folder also reached directly, a loop) is validated once. What cannot be walked
/// is an `Err` entry of its own in the result, in path order: a folder whose name is not UTF-8
/// ([`Error::NotValidated`], discovery skips those too), a symlink whose target cannot be
/// reached, a folder that cannot be listed, folders deeper than the depth limit.
pub fn validate_tree(path: &Path, options: &Options) -> Result<Vec<Result<Report, Error>>, Error> {
    let metadata = load::inspect(path)?;
    if !metadata.is_dir() {
        return Ok(vec![validate_path(path, options)]);
    }
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    // The walk and the checks overlap: the walk lists folders on a thread of its own (it
    // mostly waits on the file system) and hands each skill it meets to the thread pool at
    // once, so every core checks skills from the first one found rather than after the last
    // folder is listed. Each report keeps the walk's position: sorted by it, the result is in
    // path order whatever the threads did.
    let (sender, receiver) = std::sync::mpsc::channel::<Vec<(usize, Found)>>();
    let (walked, mut reports) = std::thread::scope(|scope| {
        let walker = scope.spawn(move || {
            let mut walk = TreeWalk::new(sender);
            walk.visited.insert(canonical.clone().into_os_string());
            let walked = walk.collect(path, &canonical, 0, None);
            walk.flush();
            walked.map(|()| walk.count)
        });
        let reports: Vec<(usize, Result<Report, Error>)> = receiver
            .into_iter()
            .par_bridge()
            .flat_map_iter(|batch| {
                batch
                    .into_iter()
                    .map(|(position, found)| (position, check_found(found, options)))
            })
            .collect();
        (walker.join(), reports)
    });
    let found = match walked {
        Ok(walked) => walked?,
        Err(_) => {
            return Err(Error::NotValidated {
                path: path.to_path_buf(),
                reason: "the walk of the folder stopped before it was done".to_owned(),
            });
        }
    };
    if found == 0 {
        return Err(Error::NoDefinitionFile {
            dir: path.to_path_buf(),
        });
    }
    reports.sort_unstable_by_key(|(position, _)| *position);
    Ok(reports.into_iter().map(|(_, report)| report).collect())
}

/// The report of one thing the tree walk met.
fn check_found(found: Found, options: &Options) -> Result<Report, Error> {
    match found {
        Found::Skill {
            dir,
            file,
            sidecar,
            inside,
        } => validate_resolved(dir, file, sidecar, options, inside.as_deref()),
        Found::Skipped(error) => Err(error),
    }
}

/// What the tree walk met, in path order.
enum Found {
    /// A skill folder, its definition file (picked from the folder's listing as
    /// [`load::find_definition`] picks it, so the folder is not listed twice), its sidecar
    /// (picked from the same listing as `discover::sidecar_file` picks it: the first of
    /// `skill.toml`, `workflow.toml` that is a regular file), and the skill folder it lies in
    /// when it is nested.
    Skill {
        dir: PathBuf,
        file: PathBuf,
        sidecar: Option<PathBuf>,
        inside: Option<PathBuf>,
    },
    /// Something that could not be walked, and why.
    Skipped(Error),
}

/// Skills the tree walk sends to the checks at a time.
const SENT_AT_ONCE: usize = 16;

/// The walk of `validate_tree`: one `read_dir` per folder (entry kinds from the listing, no
/// `stat`), a `canonicalize` per symlink met; each folder is known by its canonical path, which
/// a real subfolder extends from its parent's without a system call. What it meets is sent,
/// with its position in path order, to the checks as it is met.
struct TreeWalk {
    sender: std::sync::mpsc::Sender<Vec<(usize, Found)>>,
    /// Met and not sent yet: skills go in batches of [`SENT_AT_ONCE`], since a send that
    /// wakes a waiting thread is a system call (one per skill was 38,000 at 10,000 skills).
    batch: Vec<(usize, Found)>,
    /// How many were met.
    count: usize,
    /// The canonical paths of the folders walked, as their bytes: every path here is
    /// canonical, so equal bytes are the same folder, and hashing the bytes costs under a third
    /// of hashing a `Path` component by component (which was a quarter of the walk's
    /// instructions at 10,000 skills).
    visited: std::collections::HashSet<std::ffi::OsString>,
}

impl TreeWalk {
    fn new(sender: std::sync::mpsc::Sender<Vec<(usize, Found)>>) -> Self {
        Self {
            sender,
            batch: Vec::with_capacity(SENT_AT_ONCE),
            count: 0,
            visited: std::collections::HashSet::new(),
        }
    }

    fn push(&mut self, found: Found) {
        self.batch.push((self.count, found));
        self.count += 1;
        if self.batch.len() == SENT_AT_ONCE {
            self.flush();
        }
    }

    /// Sends what was met and not sent yet.
    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(SENT_AT_ONCE));
        // The receiver lives until the walk ends; a send cannot fail before then.
        let _ = self.sender.send(batch);
    }

    fn collect(
        &mut self,
        dir: &Path,
        canonical: &Path,
        depth: usize,
        inside: Option<&Path>,
    ) -> Result<(), Error> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            // The path given is the caller's error; a folder below it is one finding.
            Err(source) if depth == 0 => return Err(Error::io("list", dir, source)),
            Err(source) => {
                self.push(Found::Skipped(Error::io("list", dir, source)));
                return Ok(());
            }
        };
        let mut definitions: Vec<String> = Vec::new();
        // The sidecars present as regular files, by their place in `SIDECARS`.
        let mut sidecars = [false; crate::discover::SIDECARS.len()];
        // (name, (path, canonical path, through a symlink)), or a finding about the entry.
        type Subdir = Result<(PathBuf, PathBuf, bool), Error>;
        let mut subdirs: Vec<(std::ffi::OsString, Subdir)> = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| Error::io("list", dir, source))?;
            let name = entry.file_name();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let Some(text) = name.to_str() else {
                // Inside a skill, a folder is part of its package (the `skillhub` package rules
                // judge its name); elsewhere it could hold skills discovery will never load.
                if inside.is_none()
                    && definitions.is_empty()
                    && (kind.is_dir() || kind.is_symlink())
                {
                    let reason =
                        "its name is not valid UTF-8, and discovery skips such folders (rename it)"
                            .to_owned();
                    subdirs.push((
                        name,
                        Err(Error::NotValidated {
                            path: entry.path(),
                            reason,
                        }),
                    ));
                }
                continue;
            };
            if match_definition(text).is_some() {
                definitions.push(text.to_owned());
            }
            if kind.is_file()
                && let Some(at) = crate::discover::SIDECARS
                    .iter()
                    .position(|sidecar| *sidecar == text)
            {
                sidecars[at] = true;
            }
            // Unlike discovery, an explicit lint walks hidden folders too (`.agents/skills`,
            // `.claude/skills` are where skills live), but not version control, caches or builds.
            if EXCLUDED_DIR_NAMES.contains(&text) {
                continue;
            }
            if kind.is_dir() {
                let real = canonical.join(&name);
                subdirs.push((name, Ok((entry.path(), real, false))));
            } else if kind.is_symlink() {
                let link = entry.path();
                match std::fs::canonicalize(&link) {
                    Ok(target) if target.is_dir() => {
                        subdirs.push((name, Ok((link, target, true))));
                    }
                    // A link to a file (a symlinked `SKILL.md` is read through the link).
                    Ok(_) => {}
                    Err(source) => {
                        subdirs.push((name, Err(Error::io("follow the symlink", link, source))))
                    }
                }
            }
        }
        // A non-UTF-8 name noted before the definition file was seen is inside this skill.
        let definition = pick_definition(definitions.iter().map(String::as_str));
        let is_skill = definition.is_some();
        if let Some((name, _)) = definition {
            subdirs.retain(|(_, entry)| !matches!(entry, Err(Error::NotValidated { .. })));
            self.push(Found::Skill {
                dir: dir.to_path_buf(),
                file: dir.join(name),
                sidecar: crate::discover::SIDECARS
                    .iter()
                    .zip(sidecars)
                    .find(|(_, present)| *present)
                    .map(|(sidecar, _)| dir.join(sidecar)),
                inside: inside.map(Path::to_path_buf),
            });
        }
        let inside = if is_skill { Some(dir) } else { inside };
        if subdirs.is_empty() {
            return Ok(());
        }
        if depth >= MAX_RELATIVE_PATH_COMPONENTS {
            if inside.is_none() {
                self.push(Found::Skipped(Error::NotValidated {
                    path: dir.to_path_buf(),
                    reason: format!(
                        "the folders below it are more than {MAX_RELATIVE_PATH_COMPONENTS} levels deep"
                    ),
                }));
            }
            return Ok(());
        }
        subdirs.sort_by(|(a, _), (b, _)| a.cmp(b));
        for (_, subdir) in subdirs {
            match subdir {
                Err(error) => {
                    // Findings inside a skill are its package's business, not the walk's.
                    if inside.is_none() {
                        self.push(Found::Skipped(error));
                    }
                }
                // Inside a skill only its own folders are searched for nested skills: a link
                // there belongs to the package, which the `skillhub` rules judge.
                Ok((_, _, true)) if inside.is_some() => {}
                // Reached before (a link to a folder also reached directly, or to an
                // ancestor): validated once, and a loop ends here.
                Ok((path, real, _)) => {
                    if self.visited.insert(real.clone().into_os_string()) {
                        self.collect(&path, &real, depth + 1, inside)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The skill directory and its definition file for a path naming either.
fn resolve(path: &Path) -> Result<(PathBuf, PathBuf), Error> {
    let metadata = load::inspect(path)?;
    if metadata.is_dir() {
        match load::find_definition(path) {
            Ok(file) => return Ok((path.to_path_buf(), file)),
            // `validate x/SKILL.md` where `SKILL.md` is a directory: the path names a
            // definition file that is not a file, which the report says, rather than "x/SKILL.md
            // holds no SKILL.md".
            Err(Error::NoDefinitionFile { .. })
                if path
                    .file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| match_definition(name).is_some()) => {}
            Err(error) => return Err(error),
        }
    }
    let is_definition = path
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| match_definition(name).is_some());
    if !is_definition {
        return Err(Error::NotADirectory {
            path: path.to_path_buf(),
        });
    }
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((dir, path.to_path_buf()))
}

/// The name the skill's `name` must equal: the directory's own name, resolved through the
/// filesystem when the path has none of its own (`.`, `..`, `/`).
fn directory_name(dir: &Path) -> Result<String, Error> {
    let lexical = dir
        .file_name()
        .filter(|_| !dir.ends_with(".."))
        .map(|name| name.to_string_lossy().into_owned());
    if let Some(name) = lexical {
        return Ok(name);
    }
    let real = std::fs::canonicalize(dir).map_err(|source| Error::io("resolve", dir, source))?;
    Ok(real
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default())
}

type Findings = (Option<String>, Vec<Diagnostic>, Option<ComplianceSnapshot>);

fn check(dir: &Path, directory: &str, file: &Path, bytes: &[u8], options: &Options) -> Findings {
    let mut diagnostics = load::filename_diagnostics(file);
    let mut name = None;
    let mut snapshot = None;
    match Source::parse(bytes) {
        Err(diagnostic) => diagnostics.push(diagnostic),
        Ok(source) => match source.frontmatter {
            RawFrontmatter::Absent => diagnostics.push(Diagnostic::error(
                DiagnosticCode::NoFrontmatter,
                "the file must start with YAML frontmatter between '---' lines",
            )),
            RawFrontmatter::Invalid(diagnostic) => diagnostics.push(diagnostic),
            RawFrontmatter::Mapping(ref entries) => {
                let mut rules = Rules {
                    profile: options.profile,
                    source: &source,
                    diagnostics: &mut diagnostics,
                };
                name = rules.fields(entries, directory);
                if options.profile == Profile::Skillhub {
                    rules
                        .diagnostics
                        .extend(package::check(dir, &options.package_limits));
                    if let Some((_, node)) = entries.iter().find(|(key, _)| key == COMPLIANCE_FIELD)
                    {
                        let (found, valid) = compliance::check(node, dir);
                        rules.diagnostics.extend(found);
                        snapshot = valid;
                    }
                }
                if options.profile == Profile::Codex {
                    rules.diagnostics.extend(hosts::openai_metadata(dir));
                }
            }
        },
    }
    if options.profile == Profile::Lenient {
        forgive(&mut diagnostics, name.as_deref(), directory);
    }
    if options.strict {
        for diagnostic in &mut diagnostics {
            if diagnostic.severity == Severity::Warning {
                diagnostic.severity = Severity::Error;
            }
        }
    }
    (name, diagnostics, snapshot)
}

/// Profile `lenient` is what discovery loads: every error but those that keep a skill out of
/// the catalog ([`DiagnosticCode::refuses_skill`]) is a warning, and a skill whose name and
/// folder name can neither be shown to an agent (discovery does not list it) is an error.
fn forgive(diagnostics: &mut Vec<Diagnostic>, name: Option<&str>, directory: &str) {
    for diagnostic in diagnostics.iter_mut() {
        if diagnostic.severity == Severity::Error && !diagnostic.code.refuses_skill() {
            diagnostic.severity = Severity::Warning;
        }
    }
    let shown = name.map(str::trim).filter(|name| !name.is_empty());
    let refused = diagnostics
        .iter()
        .any(|diagnostic| diagnostic.code.refuses_skill());
    if !refused
        && !skills_types::sanitize::is_clean_line(shown.unwrap_or(directory))
        && !skills_types::sanitize::is_clean_line(directory)
    {
        diagnostics.push(Diagnostic::error(
            DiagnosticCode::NameUnshowable,
            "neither the name nor the folder's name holds only characters an agent can be shown, so the skill is not listed: rename the folder",
        ));
    }
}

/// How a profile treats a top-level key.
enum Key {
    Allowed,
    Deprecated,
    Unexpected,
}

struct Rules<'d> {
    profile: Profile,
    source: &'d Source<'d>,
    diagnostics: &'d mut Vec<Diagnostic>,
}

impl Rules<'_> {
    /// Records a finding about the top-level field `key`, at its line when it can be found.
    fn push(&mut self, severity: Severity, code: DiagnosticCode, key: &str, message: String) {
        let mut diagnostic = Diagnostic::new(code, severity, message);
        diagnostic.line = self.source.key_line(key);
        self.diagnostics.push(diagnostic);
    }

    fn error(&mut self, code: DiagnosticCode, key: &str, message: impl Into<String>) {
        self.push(Severity::Error, code, key, message.into());
    }

    fn warning(&mut self, code: DiagnosticCode, key: &str, message: impl Into<String>) {
        self.push(Severity::Warning, code, key, message.into());
    }

    /// The fields the profile allows besides its extras ([`Self::classify`]).
    fn allowed_fields(&self) -> Vec<&'static str> {
        let mut fields: Vec<&'static str> = match self.profile {
            Profile::Opencode => hosts::OPENCODE_FIELDS.to_vec(),
            Profile::ClaudeCode | Profile::Lenient => SPEC_FIELDS
                .iter()
                .chain(&hosts::CLAUDE_CODE_FIELDS)
                .copied()
                .collect(),
            _ => SPEC_FIELDS.to_vec(),
        };
        fields.sort_unstable();
        fields
    }

    fn classify(&self, key: &str) -> Key {
        if self.allowed_fields().contains(&key) {
            return Key::Allowed;
        }
        match self.profile {
            Profile::Openhuman if matches!(key, "platforms" | "triggers") => Key::Allowed,
            Profile::Openhuman if LEGACY_TOP_LEVEL_FIELDS.contains(&key) => Key::Deprecated,
            Profile::Openhuman if key.starts_with("x-") => Key::Allowed,
            Profile::Skillhub if key.starts_with("x-astron-") => Key::Allowed,
            // What the loader itself reads: its own fields, and the legacy spellings it moves.
            Profile::Lenient if matches!(key, "platforms" | "triggers" | "allowed_tools") => {
                Key::Allowed
            }
            Profile::Lenient if LEGACY_TOP_LEVEL_FIELDS.contains(&key) => Key::Deprecated,
            _ => Key::Unexpected,
        }
    }

    /// Runs every field rule; returns the name as written.
    fn fields(&mut self, entries: &[(String, Node)], directory: &str) -> Option<String> {
        self.unexpected(entries);
        let field = |key: &str| {
            entries
                .iter()
                .find(|(name, _)| name == key)
                .map(|(_, node)| node)
        };
        let name = match self.profile {
            Profile::ClaudeCode => self.claude_code_name(field("name")),
            Profile::Codex => self.codex_text("name", field("name"), MAX_NAME_CHARS),
            Profile::Opencode => self.opencode_name(field("name"), directory),
            _ => self.name(field("name"), directory),
        };
        match self.profile {
            Profile::ClaudeCode => {
                self.claude_code_description(field("description"), field("when_to_use"));
            }
            Profile::Codex => {
                self.codex_text("description", field("description"), MAX_DESCRIPTION_CHARS);
            }
            _ => self.description(field("description")),
        }
        if let Some(node) = field("compatibility") {
            self.compatibility(node);
        }
        if let Some(node) = field("license")
            && node.as_text().is_none()
        {
            self.warning(
                DiagnosticCode::InvalidFieldType,
                "license",
                format!("'license' should be a string, not a {}", node.type_name()),
            );
        }
        if let Some(node) = field("metadata") {
            match self.profile {
                Profile::Codex => self.codex_metadata(node),
                Profile::Opencode => self.opencode_metadata(node),
                _ => self.metadata(node),
            }
        }
        if self.profile != Profile::Opencode
            && let Some(node) = field("allowed-tools")
        {
            self.allowed_tools(node);
        }
        if matches!(self.profile, Profile::ClaudeCode | Profile::Lenient) {
            self.claude_code_fields(&field);
        }
        if self.profile == Profile::Openhuman {
            for key in ["platforms", "triggers"] {
                if let Some(node) = field(key) {
                    self.string_list(key, node);
                }
            }
        }
        name
    }

    /// One finding naming every field the profile does not allow (legacy fields it tolerates
    /// are each a deprecation warning instead).
    fn unexpected(&mut self, entries: &[(String, Node)]) {
        let mut unexpected = BTreeSet::new();
        for (key, _) in entries {
            match self.classify(key) {
                Key::Allowed => {}
                Key::Deprecated => self.warning(
                    DiagnosticCode::DeprecatedTopLevelField,
                    key,
                    format!("the top-level field '{key}' is deprecated; move it under 'metadata'"),
                ),
                Key::Unexpected => {
                    unexpected.insert(key.as_str());
                }
            }
        }
        if unexpected.is_empty() {
            return;
        }
        let names: Vec<&str> = unexpected.into_iter().collect();
        // Point at the first unexpected field as written.
        let first = entries
            .iter()
            .map(|(key, _)| key.as_str())
            .find(|key| names.contains(key))
            .unwrap_or_default();
        let mut message = format!(
            "unexpected fields in frontmatter: {}; the {} profile allows {}",
            names.join(", "),
            self.profile,
            self.allowed_description()
        );
        // A field Claude Code documents is not a typo: say which profile accepts it.
        let claude_code: Vec<&str> = names
            .iter()
            .copied()
            .filter(|key| hosts::is_claude_code_field(key))
            .collect();
        if !claude_code.is_empty() && self.profile != Profile::ClaudeCode {
            let ignored = match self.profile.host() {
                Some(host) => format!("{host} ignores {}", plural(&claude_code, "it", "them")),
                None => {
                    "validate with --profile claude-code to check a skill written for Claude Code"
                        .to_owned()
                }
            };
            message.push_str(&format!(
                " ({} {} Claude Code's; {ignored})",
                claude_code.join(", "),
                plural(&claude_code, "is", "are"),
            ));
        }
        // An unexpected field is an error everywhere but in `lenient`, where `forgive` makes it
        // a warning with every other error the loader forgives.
        self.error(DiagnosticCode::UnexpectedField, first, message);
    }

    fn allowed_description(&self) -> String {
        let spec = self.allowed_fields().join(", ");
        let extra = match self.profile {
            Profile::Openhuman => ", platforms, triggers, version, author, tags and any x-* key",
            Profile::Skillhub => " and any x-astron-* key",
            Profile::Lenient => ", platforms, triggers, allowed_tools, version, author and tags",
            Profile::Agentskills | Profile::ClaudeCode | Profile::Codex | Profile::Opencode => "",
        };
        if extra.is_empty() {
            format!("only {spec}")
        } else {
            format!("{spec}{extra}")
        }
    }

    fn name(&mut self, node: Option<&Node>, directory: &str) -> Option<String> {
        let Some(node) = node else {
            self.error(
                DiagnosticCode::NameMissing,
                "name",
                "the required field 'name' is missing",
            );
            return None;
        };
        if node.is_null() {
            self.error(
                DiagnosticCode::NameEmpty,
                "name",
                "the field 'name' is empty",
            );
            return None;
        }
        let Some(text) = node.as_text() else {
            self.error(
                DiagnosticCode::InvalidFieldType,
                "name",
                format!("'name' must be a string, not a {}", node.type_name()),
            );
            return None;
        };
        let problems = name::problems(text);
        let empty = problems
            .iter()
            .any(|(code, _)| *code == DiagnosticCode::NameEmpty);
        for (code, message) in problems {
            self.error(code, "name", message);
        }
        if !empty && !name::matches_directory(text, directory) {
            self.error(
                DiagnosticCode::NameDirectoryMismatch,
                "name",
                format!(
                    "the name '{}' differs from its directory '{directory}'",
                    name::normalize(text)
                ),
            );
        }
        Some(text.to_owned())
    }

    fn description(&mut self, node: Option<&Node>) {
        let Some(node) = node else {
            self.error(
                DiagnosticCode::DescriptionMissing,
                "description",
                "the required field 'description' is missing",
            );
            return;
        };
        match node.as_text() {
            None => self.error(
                DiagnosticCode::InvalidFieldType,
                "description",
                format!("'description' must be a string, not a {}", node.type_name()),
            ),
            Some(_) if node.is_null() => self.error(
                DiagnosticCode::DescriptionEmpty,
                "description",
                "the field 'description' is empty",
            ),
            Some(text) if text.trim().is_empty() => self.error(
                DiagnosticCode::DescriptionEmpty,
                "description",
                "the field 'description' is empty",
            ),
            Some(text) => {
                let length = text.trim().chars().count();
                if length > MAX_DESCRIPTION_CHARS {
                    self.error(DiagnosticCode::DescriptionTooLong, "description",
                        format!(
                            "the description is {length} characters long; at most {MAX_DESCRIPTION_CHARS} are allowed"
                        ),
                    );
                }
            }
        }
    }

    fn compatibility(&mut self, node: &Node) {
        match node.as_text() {
            None => self.error(DiagnosticCode::InvalidFieldType, "compatibility",
                format!("'compatibility' must be a string, not a {}", node.type_name()),
            ),
            Some(text) if node.is_null() || text.trim().is_empty() => self.error(DiagnosticCode::CompatibilityEmpty, "compatibility",
                "the field 'compatibility' is present but empty; remove it or say what the skill needs",
            ),
            Some(text) => {
                let length = text.trim().chars().count();
                if length > MAX_COMPATIBILITY_CHARS {
                    self.error(DiagnosticCode::CompatibilityTooLong, "compatibility",
                        format!(
                            "the compatibility note is {length} characters long; at most {MAX_COMPATIBILITY_CHARS} are allowed"
                        ),
                    );
                }
            }
        }
    }

    fn metadata(&mut self, node: &Node) {
        match node {
            Node::Mapping(entries) => {
                let nested: Vec<&str> = entries
                    .iter()
                    .filter(|(_, value)| value.as_text().is_none())
                    .map(|(key, _)| key.as_str())
                    .collect();
                if !nested.is_empty() {
                    self.warning(DiagnosticCode::InvalidFieldType, "metadata",
                        format!(
                            "metadata values should be strings; {} hold collections (kept as JSON text)",
                            nested.join(", ")
                        ),
                    );
                }
            }
            _ if node.is_null() => {}
            _ => self.error(
                DiagnosticCode::MetadataNotMap,
                "metadata",
                format!("'metadata' must be a mapping, not a {}", node.type_name()),
            ),
        }
    }

    fn allowed_tools(&mut self, node: &Node) {
        let valid = match node {
            Node::Scalar(_) => true,
            Node::Sequence(items) => items.iter().all(|item| item.as_text().is_some()),
            Node::Mapping(_) => false,
        };
        if !valid {
            self.error(
                DiagnosticCode::AllowedToolsInvalid,
                "allowed-tools",
                "'allowed-tools' must be a string of tool names or a list of them",
            );
        }
    }

    fn string_list(&mut self, key: &str, node: &Node) {
        let valid = match node {
            Node::Scalar(_) => !node.is_null(),
            Node::Sequence(items) => items.iter().all(|item| item.as_text().is_some()),
            Node::Mapping(_) => false,
        };
        if !valid {
            self.error(
                DiagnosticCode::InvalidFieldType,
                key,
                format!("'{key}' must be a list of strings"),
            );
        }
    }
}

#[cfg(test)]
mod tests;
