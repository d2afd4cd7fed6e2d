//! The resources: `skill://NAME/SKILL.md` for every skill, listed a page at a time so that a
//! catalog of 10,000 skills stays one cheap request per page, and `skill://NAME/PATH` for the
//! files a skill bundles (the `skill://{name}/{path}` template). Every read goes through the
//! subsystem's safe reader, so `skill://x/../../etc/passwd` is refused there, by the same rule
//! as `read_skill_resource` and `skills read`.

use rmcp::ErrorData;
use rmcp::model::{
    ListResourcesResult, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};
use skills_types::catalog::ListOptions;
use skills_types::service::SkillsService;

use crate::errors::{self, to_mcp};

/// The scheme of every resource.
const SCHEME: &str = "skill://";

/// The definition file's name in a URI.
const DEFINITION: &str = "SKILL.md";

/// Skills per `resources/list` (and `prompts/list`) page.
pub(crate) const PAGE_SIZE: usize = 500;

/// The MIME type of a bundled file, by extension; anything else is `text/plain`, which is
/// what the safe reader returns (UTF-8 text).
const MIME_TYPES: &[(&str, &str)] = &[
    ("md", "text/markdown"),
    ("markdown", "text/markdown"),
    ("txt", "text/plain"),
    ("py", "text/x-python"),
    ("sh", "text/x-shellscript"),
    ("js", "text/javascript"),
    ("mjs", "text/javascript"),
    ("ts", "text/x-typescript"),
    ("json", "application/json"),
    ("yaml", "application/yaml"),
    ("yml", "application/yaml"),
    ("toml", "application/toml"),
    ("html", "text/html"),
    ("css", "text/css"),
    ("csv", "text/csv"),
    ("xml", "application/xml"),
    ("svg", "image/svg+xml"),
];

/// The MIME type of `path`.
pub(crate) fn mime_type(path: &str) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase())
        .unwrap_or_default();
    MIME_TYPES
        .iter()
        .find(|(known, _)| *known == extension)
        .map_or("text/plain", |(_, mime)| mime)
}

/// The URI of a skill's file.
fn uri(skill: &str, path: &str) -> String {
    format!("{SCHEME}{skill}/{path}")
}

/// An opaque page cursor: the offset of the page's first skill, tagged so that a cursor from
/// elsewhere is refused rather than misread.
pub(crate) fn cursor(offset: usize) -> String {
    format!("skills-{offset}")
}

/// The offset a cursor names (none: the first page).
pub(crate) fn offset(cursor: Option<&str>) -> Result<usize, ErrorData> {
    let Some(cursor) = cursor else { return Ok(0) };
    cursor
        .strip_prefix("skills-")
        .and_then(|offset| offset.parse().ok())
        .ok_or_else(|| {
            errors::invalid(format!(
                "the cursor '{cursor}' is not one this server gave; start again without a cursor"
            ))
        })
}

/// One page of `SKILL.md` resources.
pub(crate) fn list(
    service: &dyn SkillsService,
    cursor: Option<&str>,
) -> Result<ListResourcesResult, ErrorData> {
    let start = offset(cursor)?;
    let listing = service
        .list(&ListOptions::default())
        .map_err(|error| to_mcp(&error))?;
    let page: Vec<Resource> = listing
        .skills
        .iter()
        .skip(start)
        .take(PAGE_SIZE)
        .map(|skill| {
            Resource::new(uri(&skill.name, DEFINITION), skill.name.clone())
                .with_description(skill.description.clone())
                .with_mime_type(mime_type(DEFINITION))
        })
        .collect();
    let end = start + page.len();
    let mut result = ListResourcesResult::with_all_items(page);
    if end < listing.skills.len() {
        result.next_cursor = Some(self::cursor(end));
    }
    Ok(result)
}

/// The template of every bundled file.
pub(crate) fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(format!("{SCHEME}{{name}}/{{path}}"), "skill-file").with_description(
            "A file bundled with a skill (references/..., assets/..., scripts/...), read \
                 through the safe reader.",
        ),
    ]
}

/// Reads `skill://NAME/PATH`.
pub(crate) fn read(
    service: &dyn SkillsService,
    uri: &str,
) -> Result<ReadResourceResult, ErrorData> {
    let (skill, path) = uri
        .strip_prefix(SCHEME)
        .and_then(|rest| rest.split_once('/'))
        .filter(|(skill, path)| !skill.is_empty() && !path.is_empty())
        .ok_or_else(|| {
            errors::invalid(format!(
                "'{uri}' is not a skill resource: they read skill://NAME/SKILL.md or skill://NAME/PATH"
            ))
        })?;
    let read = service
        .read_resource(skill, path)
        .map_err(|error| to_mcp(&error))?;
    let contents =
        ResourceContents::text(read.content, uri.to_owned()).with_mime_type(mime_type(path));
    Ok(ReadResourceResult::new(vec![contents]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_foreign_ones_are_refused() {
        assert_eq!(offset(None).ok(), Some(0));
        assert_eq!(offset(Some(&cursor(1500))).ok(), Some(1500));
        for foreign in ["", "1500", "skills-", "skills--1", "other-3"] {
            assert!(
                offset(Some(foreign)).is_err(),
                "{foreign:?} should be refused"
            );
        }
    }

    #[test]
    fn mime_types_follow_the_extension() {
        assert_eq!(mime_type("SKILL.md"), "text/markdown");
        assert_eq!(mime_type("scripts/run.PY"), "text/x-python");
        assert_eq!(mime_type("data/table.csv"), "text/csv");
        assert_eq!(mime_type("LICENSE"), "text/plain");
    }
}
