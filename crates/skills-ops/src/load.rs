//! The lenient loader (01): reads a definition file, splits it, parses the frontmatter and
//! normalises it into a [`SkillDocument`], recording what it had to forgive as diagnostics.
//!
//! Only three things stop a file from parsing at all: it is over the size limit, it is not
//! UTF-8, or its frontmatter never closes. Everything else (bad YAML, missing fields, wrong
//! types) leaves a document and a diagnostic, so one sloppy file never hides the others. A
//! document whose frontmatter did not parse is still made (an editor may show its body), but
//! discovery refuses it (`refusal`): its name and description would be guesses.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use skills_types::files::{match_definition, pick_definition};
use skills_types::frontmatter::LEGACY_TOP_LEVEL_FIELDS;
use skills_types::limits::{
    MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, MAX_SKILL_MD_BYTES,
};
use skills_types::{Diagnostic, DiagnosticCode, Error, Frontmatter, SkillDocument, TriggerPattern};

use crate::split::{self, FRONTMATTER_FIRST_LINE};
use crate::yaml::{self, Node};

/// The definition file of a skill directory, chosen by the table in `skills_types::files`.
pub fn find_definition(dir: &Path) -> Result<PathBuf, Error> {
    let metadata = inspect(dir)?;
    if !metadata.is_dir() {
        return Err(Error::NotADirectory {
            path: dir.to_path_buf(),
        });
    }
    let entries = std::fs::read_dir(dir).map_err(|source| Error::io("list", dir, source))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| Error::io("list", dir, source))?;
        if let Ok(name) = entry.file_name().into_string()
            && match_definition(&name).is_some()
        {
            names.push(name);
        }
    }
    match pick_definition(names.iter().map(String::as_str)) {
        Some((name, _)) => Ok(dir.join(name)),
        None => Err(Error::NoDefinitionFile {
            dir: dir.to_path_buf(),
        }),
    }
}

/// `fs::metadata` (following symlinks) with a missing path as [`Error::NotFound`].
pub(crate) fn inspect(path: &Path) -> Result<std::fs::Metadata, Error> {
    std::fs::metadata(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => Error::NotFound {
            path: path.to_path_buf(),
        },
        _ => Error::io("inspect", path, source),
    })
}

/// Reads and parses one definition file.
pub fn load_document(path: &Path) -> Result<SkillDocument, Error> {
    let bytes = read_definition(path, MAX_SKILL_MD_BYTES)?;
    parse_document(path, &bytes)
}

/// Parses the bytes of a definition file. `path` names the file in messages and supplies the
/// defaults (the directory name, the canonical-name check); nothing is read from it.
pub fn parse_document(path: &Path, bytes: &[u8]) -> Result<SkillDocument, Error> {
    parse_with(path, bytes, &Fallback::default())
}

/// The YAML text of a definition file's frontmatter, by the same line-based split loading
/// uses; `None` when the file has none or never closes it. For readers that need the raw
/// mapping (the audit reads every key, known or not) rather than the loaded [`Frontmatter`].
pub fn frontmatter_text(text: &str) -> Option<&str> {
    split::split(split::strip_bom(text)).ok()?.frontmatter
}

/// Values a skill's older manifest (`skill.json`) offers for fields the frontmatter lacks;
/// they take precedence over the directory name and the body's first paragraph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Fallback {
    pub(crate) name: Option<String>,
    pub(crate) description: Option<String>,
    /// `metadata` entries (`version`, `author`) used when the frontmatter has none.
    pub(crate) metadata: Vec<(String, String)>,
    /// The file the values come from, named in the diagnostics.
    pub(crate) source: &'static str,
}

/// [`parse_document`] with fallbacks for missing fields.
pub(crate) fn parse_with(
    path: &Path,
    bytes: &[u8],
    fallback: &Fallback,
) -> Result<SkillDocument, Error> {
    let (frontmatter, diagnostics, body) = parse_parts(path, bytes, fallback)?;
    Ok(SkillDocument {
        frontmatter,
        body: body.to_owned(),
        diagnostics,
    })
}

/// The frontmatter, the diagnostics and the body borrowed from `bytes`: discovery keeps the
/// first two and never copies the body.
pub(crate) fn parse_parts<'b>(
    path: &Path,
    bytes: &'b [u8],
    fallback: &Fallback,
) -> Result<(Frontmatter, Vec<Diagnostic>, &'b str), Error> {
    let source = Source::parse(bytes).map_err(|diagnostic| Error::Unloadable {
        path: path.to_path_buf(),
        diagnostic: Box::new(diagnostic),
    })?;
    let mut diagnostics = filename_diagnostics(path);
    let entries = match source.frontmatter {
        RawFrontmatter::Absent => {
            diagnostics.push(Diagnostic::warning(
                DiagnosticCode::NoFrontmatter,
                "the file does not start with a '---' line, so it has no frontmatter",
            ));
            Vec::new()
        }
        RawFrontmatter::Invalid(diagnostic) => {
            diagnostics.push(diagnostic);
            Vec::new()
        }
        RawFrontmatter::Mapping(entries) => entries,
    };
    let directory = directory_name(path);
    let frontmatter = normalize(entries, source.body, &directory, fallback, &mut diagnostics);
    Ok((frontmatter, diagnostics, source.body))
}

/// The finding among a parsed document's that keeps the skill out of the catalog
/// ([`DiagnosticCode::refuses_skill`]): its frontmatter did not parse, so the record would be
/// made of guesses. Discovery refuses such a skill; the `lenient` profile errs on it.
pub(crate) fn refusal(diagnostics: &[Diagnostic]) -> Option<&Diagnostic> {
    diagnostics.iter().find(|diagnostic| {
        diagnostic.severity == skills_types::Severity::Error && diagnostic.code.refuses_skill()
    })
}

/// What kind of file system entry `metadata` describes, in words, for messages that must say
/// what a path is instead of what it is not ("`SKILL.md` is a directory").
pub(crate) fn kind_name(metadata: &std::fs::Metadata) -> &'static str {
    let kind = metadata.file_type();
    if kind.is_file() {
        return "regular file";
    }
    if kind.is_dir() {
        return "directory";
    }
    if kind.is_symlink() {
        return "symlink";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "FIFO";
        }
        if kind.is_socket() {
            return "socket";
        }
        if kind.is_char_device() {
            return "character device";
        }
        if kind.is_block_device() {
            return "block device";
        }
    }
    "special file"
}

/// "`SKILL.md` is a directory, not a file": the message for a definition file that is not a
/// regular file, naming what it is.
pub(crate) fn not_a_file_message(path: &Path, kind: &str) -> String {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    let instead = if kind == "directory" {
        "not a file"
    } else {
        "not a regular file"
    };
    format!("`{name}` is a {kind}, {instead}")
}

/// Reads at most `limit` bytes of a regular file; anything else is refused without blocking
/// (a FIFO planted as `SKILL.md` must not hang a listing), and named for what it is.
pub(crate) fn read_definition(path: &Path, limit: u64) -> Result<Vec<u8>, Error> {
    read_opened(path, open_nonblocking(path), limit)
}

/// [`read_definition`] of a file already opened (non-blocking) as `opened`, which may have
/// failed; `path` names it in messages and is looked at only when the open failed.
pub(crate) fn read_opened(
    path: &Path,
    opened: std::io::Result<File>,
    limit: u64,
) -> Result<Vec<u8>, Error> {
    let unloadable = |code, message: String| Error::Unloadable {
        path: path.to_path_buf(),
        diagnostic: Box::new(Diagnostic::error(code, message)),
    };
    let file = opened.map_err(|source| {
        // Only on failure: say what is there when it is not a file that could be opened (a
        // socket refuses `open`; a dangling symlink looks missing though `ls` shows it).
        if let Ok(metadata) = std::fs::symlink_metadata(path)
            && !metadata.is_file()
        {
            let message = if metadata.is_symlink() {
                let name = not_a_file_message(path, "symlink");
                format!("{name} (its target cannot be opened: {source})")
            } else {
                not_a_file_message(path, kind_name(&metadata))
            };
            return unloadable(DiagnosticCode::NotAFile, message);
        }
        match source.kind() {
            std::io::ErrorKind::NotFound => Error::NotFound {
                path: path.to_path_buf(),
            },
            _ => Error::io("open", path, source),
        }
    })?;
    let metadata = file
        .metadata()
        .map_err(|source| Error::io("inspect", path, source))?;
    if !metadata.is_file() {
        return Err(unloadable(
            DiagnosticCode::NotAFile,
            not_a_file_message(path, kind_name(&metadata)),
        ));
    }
    let too_large = |size: u64| {
        unloadable(
            DiagnosticCode::TooLarge,
            format!("the file is {size} bytes; files over {limit} bytes are not loaded"),
        )
    };
    if metadata.len() > limit {
        return Err(too_large(metadata.len()));
    }
    let expected = usize::try_from(metadata.len()).unwrap_or(0);
    let mut bytes = Vec::with_capacity(expected.saturating_add(1));
    let read = |reader: &mut dyn Read, bytes: &mut Vec<u8>| {
        reader
            .read_to_end(bytes)
            .map_err(|source| Error::io("read", path, source))
    };
    if expected > 0 {
        // The bytes fstat promised, and no read after them to see the end: a listing reads
        // thousands of files, and that read is a third of its system calls. A file that grows
        // meanwhile is read as it was (never past the limit, which its size was checked
        // against); one that shrinks, as it is.
        read(&mut (&file).take(metadata.len()), &mut bytes)?;
    } else {
        // No size to trust (a file of `/proc`, or an empty one): read to the end, one byte
        // past the limit to notice a file over it.
        read(&mut (&file).take(limit.saturating_add(1)), &mut bytes)?;
    }
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits() as i32)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// The frontmatter as found, before normalisation.
pub(crate) enum RawFrontmatter {
    /// The file has no opening fence.
    Absent,
    /// The YAML did not parse, or is not a mapping.
    Invalid(Diagnostic),
    /// The top-level mapping, in source order.
    Mapping(Vec<(String, Node)>),
}

/// A decoded, split and parsed definition file.
pub(crate) struct Source<'a> {
    pub(crate) frontmatter: RawFrontmatter,
    /// The YAML text between the fences (empty when there are none).
    pub(crate) yaml: &'a str,
    pub(crate) body: &'a str,
}

impl Source<'_> {
    /// The file line on which the top-level `key` is written, found by scanning for an
    /// unindented `key:` (plain or quoted). Only used to point people at a field, so a miss
    /// (a key written in flow style, say) just leaves the line out.
    pub(crate) fn key_line(&self, key: &str) -> Option<u32> {
        self.yaml.lines().enumerate().find_map(|(index, line)| {
            let rest = line
                .strip_prefix(key)
                .or_else(|| line.strip_prefix(&format!("\"{key}\"")))
                .or_else(|| line.strip_prefix(&format!("'{key}'")))?;
            rest.trim_start_matches([' ', '\t'])
                .starts_with(':')
                .then(|| u32::try_from(index).ok())
                .flatten()
                .map(|index| index + FRONTMATTER_FIRST_LINE)
        })
    }
}

impl<'a> Source<'a> {
    /// Decodes and splits; the error is the reason the file cannot be loaded at all.
    pub(crate) fn parse(bytes: &'a [u8]) -> Result<Self, Diagnostic> {
        let text = std::str::from_utf8(bytes).map_err(|error| {
            Diagnostic::error(
                DiagnosticCode::NotUtf8,
                format!(
                    "the file is not valid UTF-8 (the first invalid byte is at offset {})",
                    error.valid_up_to()
                ),
            )
        })?;
        let parts = split::split(split::strip_bom(text)).map_err(|split::Unterminated| {
            Diagnostic::error(
                DiagnosticCode::UnterminatedFrontmatter,
                "the frontmatter opened with '---' on line 1 is never closed by a '---' line",
            )
            .with_line(1)
        })?;
        let frontmatter = match parts.frontmatter {
            None => RawFrontmatter::Absent,
            Some(yaml_text) => match yaml::parse(yaml_text) {
                Ok(Node::Mapping(entries)) => RawFrontmatter::Mapping(entries),
                Ok(other) => RawFrontmatter::Invalid(
                    Diagnostic::error(
                        DiagnosticCode::YamlError,
                        format!(
                            "the frontmatter is a {}, not a mapping of fields",
                            other.type_name()
                        ),
                    )
                    .with_line(FRONTMATTER_FIRST_LINE),
                ),
                Err(error) => {
                    let code = if error.too_complex {
                        DiagnosticCode::YamlTooComplex
                    } else {
                        DiagnosticCode::YamlError
                    };
                    let mut diagnostic = Diagnostic::error(
                        code,
                        format!("the frontmatter is not valid YAML: {}", error.message),
                    );
                    if let Some(line) = error.line {
                        diagnostic = diagnostic.with_line(line + FRONTMATTER_FIRST_LINE - 1);
                    }
                    RawFrontmatter::Invalid(diagnostic)
                }
            },
        };
        Ok(Self {
            frontmatter,
            yaml: parts.frontmatter.unwrap_or_default(),
            body: parts.body,
        })
    }
}

/// The name of the directory holding the definition file.
pub(crate) fn directory_name(path: &Path) -> String {
    path.parent()
        .and_then(Path::file_name)
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `noncanonical-filename` when the file is a case variant such as `skill.md`.
pub(crate) fn filename_diagnostics(path: &Path) -> Vec<Diagnostic> {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy())
        .unwrap_or_default();
    match match_definition(&name) {
        Some(found) if !found.canonical => vec![Diagnostic::warning(
            DiagnosticCode::NoncanonicalFilename,
            format!(
                "the file is named '{name}'; the canonical name is '{}'",
                found.file.name
            ),
        )],
        _ => Vec::new(),
    }
}

/// Fills a [`Frontmatter`] from the top-level entries, forgiving what it can.
fn normalize(
    entries: Vec<(String, Node)>,
    body: &str,
    directory: &str,
    fallback: &Fallback,
    diagnostics: &mut Vec<Diagnostic>,
) -> Frontmatter {
    let mut frontmatter = Frontmatter::default();
    let mut name = None;
    let mut description = None;
    let mut legacy = Vec::new();
    let mut underscore_tools = None;
    let mut hyphen_tools = false;

    for (key, node) in entries {
        match key.as_str() {
            "name" => name = string_field(&key, &node, diagnostics),
            "description" => description = string_field(&key, &node, diagnostics),
            "license" => frontmatter.license = string_field(&key, &node, diagnostics),
            "compatibility" => frontmatter.compatibility = string_field(&key, &node, diagnostics),
            "metadata" => frontmatter.metadata = metadata_field(&node, diagnostics),
            "allowed-tools" => {
                hyphen_tools = true;
                frontmatter.allowed_tools = tools_field(&node, diagnostics);
            }
            "allowed_tools" => underscore_tools = Some(node),
            "platforms" => frontmatter.platforms = list_field(&key, &node, diagnostics),
            "triggers" => {
                frontmatter.triggers = list_field(&key, &node, diagnostics);
                check_triggers(&frontmatter.triggers, diagnostics);
            }
            key if LEGACY_TOP_LEVEL_FIELDS.contains(&key) => legacy.push((key.to_owned(), node)),
            _ => {
                frontmatter.extra.insert(key, node.to_json());
            }
        }
    }

    if let Some(node) = underscore_tools {
        if hyphen_tools {
            diagnostics.push(Diagnostic::warning(
                DiagnosticCode::ConflictingFields,
                "both 'allowed-tools' and 'allowed_tools' are given; 'allowed_tools' is ignored",
            ));
        } else {
            frontmatter.allowed_tools = tools_field(&node, diagnostics);
        }
    }

    for (key, node) in legacy {
        let kept = if frontmatter.metadata.contains_key(&key) {
            "metadata wins"
        } else {
            frontmatter
                .metadata
                .insert(key.clone(), metadata_text(&node));
            "it was moved there"
        };
        diagnostics.push(Diagnostic::warning(
            DiagnosticCode::DeprecatedTopLevelField,
            format!("the top-level field '{key}' belongs under 'metadata' ({kept})"),
        ));
    }

    for (key, value) in &fallback.metadata {
        frontmatter
            .metadata
            .entry(key.clone())
            .or_insert_with(|| value.clone());
    }

    frontmatter.name = match name.filter(|name| !name.is_empty()) {
        Some(name) => name,
        None if fallback.name.is_some() => {
            diagnostics.push(Diagnostic::warning(
                DiagnosticCode::NameDefaulted,
                format!(
                    "the frontmatter has no name; the name in {} is used",
                    fallback.source
                ),
            ));
            fallback.name.clone().unwrap_or_default()
        }
        None => {
            diagnostics.push(Diagnostic::warning(
                DiagnosticCode::NameDefaulted,
                format!("the frontmatter has no name; the directory name '{directory}' is used"),
            ));
            directory.to_owned()
        }
    };

    frontmatter.description = match description.filter(|text| !text.is_empty()) {
        Some(text) => text,
        None if fallback.description.is_some() => {
            diagnostics.push(Diagnostic::warning(
                DiagnosticCode::DescriptionDefaulted,
                format!(
                    "the frontmatter has no description; the description in {} is used",
                    fallback.source
                ),
            ));
            fallback.description.clone().unwrap_or_default()
        }
        None => match first_paragraph(body) {
            Some(paragraph) => {
                diagnostics.push(Diagnostic::warning(
                    DiagnosticCode::DescriptionDefaulted,
                    "the frontmatter has no description; the first paragraph of the body is used",
                ));
                paragraph
            }
            None => {
                diagnostics.push(Diagnostic::warning(
                    DiagnosticCode::DescriptionMissing,
                    "there is no description, and the body has no paragraph to take one from",
                ));
                String::new()
            }
        },
    }
    .into();

    let lengths = [
        (
            DiagnosticCode::NameTooLong,
            "name",
            Some(frontmatter.name.as_str()),
            MAX_NAME_CHARS,
        ),
        (
            DiagnosticCode::DescriptionTooLong,
            "description",
            Some(frontmatter.description.as_str()),
            MAX_DESCRIPTION_CHARS,
        ),
        (
            DiagnosticCode::CompatibilityTooLong,
            "compatibility",
            frontmatter.compatibility.as_deref(),
            MAX_COMPATIBILITY_CHARS,
        ),
    ];
    for (code, field, value, limit) in lengths {
        let length = value.map_or(0, |text| text.chars().count());
        if length > limit {
            diagnostics.push(Diagnostic::warning(
                code,
                format!("the {field} is {length} characters long; the limit is {limit}"),
            ));
        }
    }
    frontmatter
}

/// A scalar field's trimmed source text; `None` for null. A collection is forgiven with a
/// diagnostic and ignored.
fn string_field(key: &str, node: &Node, diagnostics: &mut Vec<Diagnostic>) -> Option<String> {
    if node.is_null() {
        return None;
    }
    match node.as_text() {
        Some(text) => Some(text.trim().to_owned()),
        None => {
            diagnostics.push(Diagnostic::warning(
                DiagnosticCode::InvalidFieldType,
                format!(
                    "'{key}' should be a string, not a {}; it is ignored",
                    node.type_name()
                ),
            ));
            None
        }
    }
}

/// A `metadata` mapping: scalars keep their source text, collections become compact JSON.
fn metadata_field(node: &Node, diagnostics: &mut Vec<Diagnostic>) -> BTreeMap<String, String> {
    match node {
        Node::Mapping(entries) => entries
            .iter()
            .map(|(key, value)| (key.clone(), metadata_text(value)))
            .collect(),
        _ if node.is_null() => BTreeMap::new(),
        _ => {
            diagnostics.push(Diagnostic::warning(
                DiagnosticCode::MetadataNotMap,
                format!(
                    "'metadata' should be a mapping, not a {}; it is ignored",
                    node.type_name()
                ),
            ));
            BTreeMap::new()
        }
    }
}

fn metadata_text(node: &Node) -> String {
    match node {
        Node::Scalar(scalar) => scalar.text.clone(),
        collection => collection.to_json().to_string(),
    }
}

/// `allowed-tools` in its three shapes: a space-separated string, a comma-separated string,
/// or a list. Separators inside parentheses are kept: `Bash(git status:*)` is one tool.
fn tools_field(node: &Node, diagnostics: &mut Vec<Diagnostic>) -> Vec<String> {
    text_list(
        "allowed-tools",
        node,
        split_tools,
        DiagnosticCode::AllowedToolsInvalid,
        diagnostics,
    )
}

/// An invalid trigger pattern is a warning on the skill, never an error (04 §Triggers).
fn check_triggers(triggers: &[String], diagnostics: &mut Vec<Diagnostic>) {
    for text in triggers {
        if let Err(error) = TriggerPattern::parse(text) {
            diagnostics.push(Diagnostic::warning(
                DiagnosticCode::TriggerInvalid,
                format!(
                    "the trigger '{}' is not a valid pattern: {error}",
                    text.escape_debug()
                ),
            ));
        }
    }
}

/// `platforms` and `triggers`: a list of strings; one string is taken as a list of one.
fn list_field(key: &str, node: &Node, diagnostics: &mut Vec<Diagnostic>) -> Vec<String> {
    let one = |text: &str| vec![text.trim().to_owned()];
    text_list(
        key,
        node,
        one,
        DiagnosticCode::InvalidFieldType,
        diagnostics,
    )
}

/// The texts of a list-valued field: null is empty, a scalar goes through `split`, a sequence
/// gives its scalar items. Anything else (collections where text belongs) is reported with
/// `code` and ignored; blank entries are dropped.
fn text_list(
    key: &str,
    node: &Node,
    split: impl Fn(&str) -> Vec<String>,
    code: DiagnosticCode,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<String> {
    let texts = match node {
        Node::Scalar(_) if node.is_null() => Vec::new(),
        Node::Scalar(scalar) => split(&scalar.text),
        Node::Sequence(items) => {
            if items.iter().any(|item| item.as_text().is_none()) {
                diagnostics.push(Diagnostic::warning(
                    code,
                    format!("'{key}' has entries that are not strings; they are ignored"),
                ));
            }
            items
                .iter()
                .filter_map(Node::as_text)
                .map(|text| text.trim().to_owned())
                .collect()
        }
        Node::Mapping(_) => {
            diagnostics.push(Diagnostic::warning(
                code,
                format!("'{key}' should be a string or a list, not a mapping; it is ignored"),
            ));
            Vec::new()
        }
    };
    texts.into_iter().filter(|text| !text.is_empty()).collect()
}

/// Splits a tool string on commas and whitespace outside parentheses.
pub(crate) fn split_tools(text: &str) -> Vec<String> {
    let mut tools = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            ',' if depth == 0 => flush(&mut current, &mut tools),
            c if c.is_whitespace() && depth == 0 => flush(&mut current, &mut tools),
            c => current.push(c),
        }
    }
    flush(&mut current, &mut tools);
    tools
}

fn flush(current: &mut String, tools: &mut Vec<String>) {
    if !current.is_empty() {
        tools.push(std::mem::take(current));
    }
}

/// The first paragraph of the body that is not a heading, fenced code or an HTML comment,
/// joined into one line and cut to the description limit.
fn first_paragraph(body: &str) -> Option<String> {
    let mut paragraph: Vec<&str> = Vec::new();
    let mut in_fence = false;
    for line in body.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            if !paragraph.is_empty() {
                break;
            }
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let skipped = trimmed.starts_with('#')
            || trimmed.starts_with("<!--")
            || trimmed.chars().all(|c| matches!(c, '-' | '=' | '*' | '_'));
        if trimmed.is_empty() || skipped {
            if !paragraph.is_empty() {
                break;
            }
            continue;
        }
        paragraph.push(trimmed);
    }
    if paragraph.is_empty() {
        return None;
    }
    let joined = paragraph.join(" ");
    Some(joined.chars().take(MAX_DESCRIPTION_CHARS).collect())
}

#[cfg(test)]
mod tests;
