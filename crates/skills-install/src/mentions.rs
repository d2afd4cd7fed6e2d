//! Bundled files a `SKILL.md` mentions but the install did not bring (issue 11 §4, issue 30
//! §5).
//!
//! A single `SKILL.md` URL, a GitHub file page, a well-known `skill-md` entry or a registry
//! entry brings the definition file alone; a body that says "run `scripts/recalc.py`" then
//! points the agent at a file that is not there, and nothing said so. [`mentioned_paths`] finds
//! the bundled files a body names, and [`unfetched_warning`] turns those missing from the
//! download into one warning that names them and the source forms that bring a whole skill.
//!
//! The warning is only ever given for such a definition-only download (the installer asks only
//! for those, [`crate::fetch::Offer::definition_only`]): a folder, an archive, a GitHub
//! repository or a pack brings every file the skill has, so a path its body names and it does
//! not hold is an example in the prose (`path/to/test.test.ts`, `word/_rels/document.xml.rels`
//! in a skill about `.docx` files), not a file the install left behind. Measured on real
//! repositories, nearly every path flagged on whole sources existed nowhere.
//!
//! The detector is deliberately conservative: a false warning teaches people to ignore
//! warnings. A mention counts only when it is a relative path inside the skill (no scheme, no
//! host, not absolute, no `..`, no empty or odd component) below one of the folders skills
//! bundle their files in (`scripts/x.py`, `./assets/logo.png`, `references/`). Other paths
//! (`src/app/page.tsx`, `./helper.sh`), prose such as `and/or` or `input/output`, package
//! names such as `@acme/pdf` and hosts such as `www.example.com/x.html` are not mentions.

use std::collections::BTreeSet;

use skills_types::files::SKILL_MD;

use crate::fetch::Download;

/// Folders skills conventionally bundle their files in (agentskills.io names `scripts`,
/// `references` and `assets`; the others are the most common in real repositories): only a
/// mention inside one counts, with or without a file extension.
const BUNDLE_FOLDERS: [&str; 8] = [
    "scripts",
    "references",
    "reference",
    "assets",
    "templates",
    "examples",
    "resources",
    "rules",
];

/// Longest mention considered, in bytes: longer tokens are not paths a person typed.
const MAX_MENTION_BYTES: usize = 200;

/// The bundled files and folders (paths below `BUNDLE_FOLDERS`) that `body` (a `SKILL.md`
/// without its frontmatter) mentions, in the order first mentioned, each once, without a
/// leading `./`. A folder keeps its trailing `/`.
pub(crate) fn mentioned_paths(body: &str) -> Vec<String> {
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

/// The warning for a definition-only download whose body mentions bundled files it does not
/// hold, if any. The caller asks only for downloads that brought the `SKILL.md` alone.
pub(crate) fn unfetched_warning(download: &Download) -> Option<String> {
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
    let how = "a SKILL.md URL, a GitHub file page, a well-known skill-md entry, a registry entry \
               or a folder without an index brings only the SKILL.md; install the skill from a \
               pack (an index.json that lists every file of the skill), a GitHub folder or an \
               archive to bring the whole skill";
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
    let rest = match token.strip_prefix("./") {
        Some(rest) => rest,
        None => without_base_placeholder(token)?,
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
    // Only a path in a bundle folder looks like one of the skill's own files; any other is
    // as likely an example in the prose (`path/to/file.ts`) as a file of the skill.
    if !BUNDLE_FOLDERS.contains(&first) {
        return None;
    }
    if folder {
        return (components.len() == 1).then(|| format!("{first}/"));
    }
    // `scripts` alone is a word (and `./scripts` a folder named without its `/`).
    (components.len() > 1).then(|| components.join("/"))
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

#[cfg(test)]
mod tests;
