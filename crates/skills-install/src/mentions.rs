//! Bundled files a `SKILL.md` mentions but the install did not bring (issue 11 §4).
//!
//! A single `SKILL.md` URL, a GitHub file page, a well-known `skill-md` entry or a registry
//! entry brings the definition file alone; a body that says "run `scripts/recalc.py`" then
//! points the agent at a file that is not there, and nothing said so. [`mentioned_paths`] finds
//! the relative paths a body names, and [`unfetched_warning`] turns those missing from the
//! download into one warning that names them and the source form that brings a whole skill.
//!
//! The detector is deliberately conservative: a false warning teaches people to ignore
//! warnings. A mention counts only when it is a relative path inside the skill (no scheme, no
//! host, not absolute, no `..`, no empty or odd component) and looks like a file in a folder
//! (`scripts/x.py`, `./assets/logo.png`, `./helper.sh`) or a well-known bundle folder
//! (`references/`). Prose such as `and/or` or `input/output`, package names such as
//! `@acme/pdf` and hosts such as `www.example.com/x.html` are not mentions.

use std::collections::BTreeSet;

use skills_types::files::SKILL_MD;

use crate::fetch::Download;
use crate::source::Source;

/// Folders skills conventionally bundle (agentskills.io names `scripts`, `references` and
/// `assets`); a mention inside one counts even without a file extension.
const BUNDLE_FOLDERS: [&str; 6] = [
    "scripts",
    "references",
    "assets",
    "templates",
    "examples",
    "resources",
];

/// Longest mention considered, in bytes: longer tokens are not paths a person typed.
const MAX_MENTION_BYTES: usize = 200;

/// The relative paths inside the skill that `body` (a `SKILL.md` without its frontmatter)
/// mentions, in the order first mentioned, each once, without a leading `./`. A folder keeps
/// its trailing `/`.
pub fn mentioned_paths(body: &str) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut found = Vec::new();
    for token in body.split(is_delimiter) {
        if let Some(path) = as_bundled_path(token)
            && seen.insert(path.clone())
        {
            found.push(path);
        }
    }
    found
}

/// The warning for a download whose body mentions bundled files it does not hold, if any.
pub fn unfetched_warning(download: &Download, source: &Source) -> Option<String> {
    let definition = download
        .files
        .iter()
        .find(|(path, _)| path == SKILL_MD)
        .map(|(_, bytes)| String::from_utf8_lossy(bytes))?;
    let fetched: Vec<&str> = download
        .files
        .iter()
        .map(|(path, _)| path.as_str())
        .collect();
    let missing: Vec<String> = mentioned_paths(body_of(&definition))
        .into_iter()
        .filter(|path| !is_fetched(path, &fetched))
        .map(|path| skills_types::sanitize::line(&path).into_owned())
        .collect();
    if missing.is_empty() {
        return None;
    }
    let how = match source {
        Source::Pack(_) | Source::Vercel(_) | Source::Site(_) => {
            "the pack's index.json does not list them; a pack brings exactly the files its \
             index lists, so list every file of the skill there"
        }
        Source::Github(_) | Source::Archive(_) | Source::Local(_) => {
            "the source does not hold them; a folder or archive brings exactly the files it \
             holds"
        }
        Source::SkillFile(_) | Source::WellKnown(_) => {
            "a SKILL.md URL, a GitHub file page, a well-known skill-md entry or a registry entry \
             brings only the SKILL.md; install the skill from a pack (an index.json that lists \
             every file of the skill) to bring the whole skill"
        }
    };
    Some(format!(
        "SKILL.md mentions {} that {} not installed: {}; {how}",
        if missing.len() == 1 {
            "a bundled file"
        } else {
            "bundled files"
        },
        if missing.len() == 1 { "was" } else { "were" },
        missing.join(", ")
    ))
}

/// The text after the frontmatter (all of it when there is none).
fn body_of(definition: &str) -> &str {
    let text = definition.strip_prefix('\u{feff}').unwrap_or(definition);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return text;
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        offset += line.len();
        if line.trim_end() == "---" {
            return &rest[offset..];
        }
    }
    text
}

/// Whether `path` (a file, or a folder ending in `/`) is among the downloaded files.
fn is_fetched(path: &str, fetched: &[&str]) -> bool {
    if path.ends_with('/') {
        fetched.iter().any(|file| file.starts_with(path))
    } else {
        fetched.contains(&path)
    }
}

/// What separates one candidate from the next: whitespace, and the punctuation that wraps a
/// path in Markdown and prose (code spans, links, quotes, brackets, lists, tables).
fn is_delimiter(character: char) -> bool {
    character.is_whitespace()
        || matches!(
            character,
            '`' | '"' | '\'' | '(' | ')' | '[' | ']' | '<' | '>' | '|' | ',' | ';' | '=' | '*'
        )
}

/// `token` as a path inside the skill, or `None` when it is anything else.
fn as_bundled_path(token: &str) -> Option<String> {
    // Sentence punctuation after a path, and a fragment or query after a link target.
    let token = token.trim_end_matches(['.', ':', '!', '?']);
    let token = token.split(['#', '?']).next().unwrap_or_default();
    if token.is_empty() || token.len() > MAX_MENTION_BYTES || token.contains([':', '\\']) {
        // A scheme (`https:`, `mailto:`), a drive or a Windows path: not inside the skill.
        return None;
    }
    let (explicit, rest) = match token.strip_prefix("./") {
        Some(rest) => (true, rest),
        None => (false, without_base_placeholder(token)?),
    };
    if rest.starts_with(['/', '~', '@', '$', '{', '-']) {
        return None;
    }
    let folder = rest.ends_with('/');
    let components: Vec<&str> = rest.trim_end_matches('/').split('/').collect();
    if components
        .iter()
        .any(|component| !is_plain_component(component))
    {
        return None;
    }
    let first = components[0];
    let in_bundle_folder = BUNDLE_FOLDERS.contains(&first);
    if folder {
        // A folder counts only when it is one of the conventional ones.
        return (components.len() == 1 && in_bundle_folder).then(|| format!("{first}/"));
    }
    let last = components[components.len() - 1];
    if last == SKILL_MD && components.len() == 1 {
        return None;
    }
    // A dotted first folder is a host (`www.example.com/x.html`) unless it is hidden
    // (`.github/...`).
    if components.len() > 1 && first.contains('.') && !first.starts_with('.') {
        return None;
    }
    let looks_like_file = has_extension(last);
    let counts = if components.len() == 1 {
        explicit && looks_like_file
    } else {
        looks_like_file || in_bundle_folder
    };
    counts.then(|| components.join("/"))
}

/// `token` without a leading base-folder placeholder (`{baseDir}/`, `${SKILL_DIR}/`,
/// `$SKILL_DIR/`), which skills use to name their own folder; `None` when a placeholder is not
/// followed by a path.
fn without_base_placeholder(token: &str) -> Option<&str> {
    let is_placeholder = |head: &str| {
        let name = head
            .strip_prefix("${")
            .and_then(|inner| inner.strip_suffix('}'))
            .or_else(|| {
                head.strip_prefix('{')
                    .and_then(|inner| inner.strip_suffix('}'))
            })
            .or_else(|| head.strip_prefix('$'));
        name.is_some_and(|name| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    match token.split_once('/') {
        Some((head, rest)) if is_placeholder(head) => (!rest.is_empty()).then_some(rest),
        _ => Some(token),
    }
}

/// One folder or file name as people write them: letters, digits, `.`, `_`, `-`, `+`; not
/// empty, not `.` or `..`.
fn is_plain_component(component: &str) -> bool {
    !component.is_empty()
        && component != "."
        && component != ".."
        && component
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '+'))
}

/// A file extension with a letter in it (`.py`, `.md`, `.mp3`), so `1.5` or `v2.0` is not one.
fn has_extension(name: &str) -> bool {
    match name.rsplit_once('.') {
        Some((stem, extension)) => {
            !stem.is_empty()
                && (1..=10).contains(&extension.len())
                && extension.chars().all(char::is_alphanumeric)
                && extension.chars().any(char::is_alphabetic)
        }
        None => false,
    }
}

#[cfg(test)]
mod tests;
