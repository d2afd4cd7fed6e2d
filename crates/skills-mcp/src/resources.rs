//! The resources: `skill://NAME/SKILL.md` for every skill and `skill://NAME/PATH` for every
//! file it bundles, listed a page at a time so that a catalog of 10,000 skills stays one cheap
//! request per page. Every read goes through the subsystem's safe reader, so
//! `skill://x/../../etc/passwd` is refused there, by the same rule as `read_skill_resource`
//! and `skills read`. A URI is percent-encoded, the skill's name as well as each segment of
//! the path, so every one is a valid URI (RFC 3986) that a WHATWG `URL` parser (a browser,
//! Node, the Rust `url` crate, pydantic) reads back unchanged, whatever the name holds: a
//! skill named `API Fuzzing for Bug Bounty` is `skill://API%20Fuzzing%20for%20Bug%20Bounty/SKILL.md`.
//! A read decodes both before anything is looked up; the name is only ever matched against
//! the catalog and the path only ever goes to the safe reader, so an escape such as `%2F` or
//! `%2e%2e` decodes to what it spells and is judged as that. Text comes back as text; an image, an archive or any file that is not
//! UTF-8 comes back as a base64 blob; a file over the read limit is listed with its size and
//! refused on read.

use std::path::Path;

use base64::Engine as _;
use percent_encoding::{
    AsciiSet, CONTROLS, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode,
};
use rmcp::ErrorData;
use rmcp::model::{
    ListResourcesResult, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};
use skills_types::Error;
use skills_types::catalog::Listing;
use skills_types::limits::MAX_RESOURCE_BYTES;
use skills_types::sanitize;
use skills_types::service::SkillsService;
use skills_types::skill::SkillSummary;

use crate::errors::{self, to_mcp};

/// The scheme of every resource.
const SCHEME: &str = "skill://";

/// The definition file's name in a URI, whatever case the file on disk has.
const DEFINITION: &str = "SKILL.md";

/// Skills per `resources/list` (and `prompts/list`) page.
pub(crate) const PAGE_SIZE: usize = 500;

/// Roughly the most entries one `resources/list` page holds: a page ends after the skill that
/// reaches it (a skill is never split across pages), so skills bundling many files make
/// shorter pages rather than one enormous answer.
const PAGE_ENTRIES: usize = 5_000;

/// What a path segment keeps literal in a URI: everything but controls, space, and the
/// characters a URI reserves for its own syntax (`%` included, so decoding is exact).
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b']')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// What a skill's name keeps literal in a URI, where it stands as the authority: only RFC
/// 3986's unreserved characters, so the URI is what the template's `{name}` expands to
/// (RFC 6570 simple expansion) and no parser reads a character of it as syntax (`:` a port,
/// `@` user information, a space or `|` an invalid host).
const NAME: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A MIME type by extension, and whether files of that type are text (served as text when
/// they are UTF-8) rather than bytes (always served as base64).
struct Mime {
    extension: &'static str,
    mime: &'static str,
    text: bool,
}

const fn text(extension: &'static str, mime: &'static str) -> Mime {
    Mime {
        extension,
        mime,
        text: true,
    }
}

const fn bytes(extension: &'static str, mime: &'static str) -> Mime {
    Mime {
        extension,
        mime,
        text: false,
    }
}

/// The types a skill folder commonly holds. A file of any other extension has no declared
/// type: it is served as `text/plain` when it is UTF-8 and `application/octet-stream` when not.
const MIME_TYPES: &[Mime] = &[
    text("md", "text/markdown"),
    text("markdown", "text/markdown"),
    text("txt", "text/plain"),
    text("py", "text/x-python"),
    text("sh", "text/x-shellscript"),
    text("js", "text/javascript"),
    text("mjs", "text/javascript"),
    text("ts", "text/x-typescript"),
    text("json", "application/json"),
    text("yaml", "application/yaml"),
    text("yml", "application/yaml"),
    text("toml", "application/toml"),
    text("html", "text/html"),
    text("css", "text/css"),
    text("csv", "text/csv"),
    text("xml", "application/xml"),
    text("svg", "image/svg+xml"),
    bytes("png", "image/png"),
    bytes("jpg", "image/jpeg"),
    bytes("jpeg", "image/jpeg"),
    bytes("gif", "image/gif"),
    bytes("webp", "image/webp"),
    bytes("bmp", "image/bmp"),
    bytes("ico", "image/vnd.microsoft.icon"),
    bytes("pdf", "application/pdf"),
    bytes("zip", "application/zip"),
    bytes("gz", "application/gzip"),
    bytes("tgz", "application/gzip"),
    bytes("tar", "application/x-tar"),
    bytes("wasm", "application/wasm"),
    bytes("woff", "font/woff"),
    bytes("woff2", "font/woff2"),
    bytes("ttf", "font/ttf"),
    bytes("otf", "font/otf"),
    bytes("mp3", "audio/mpeg"),
    bytes("wav", "audio/wav"),
    bytes("ogg", "audio/ogg"),
    bytes("mp4", "video/mp4"),
    bytes("webm", "video/webm"),
    bytes(
        "docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    bytes(
        "xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ),
    bytes(
        "pptx",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ),
];

/// The declared type of `path`, by its extension.
fn declared_type(path: &str) -> Option<&'static Mime> {
    let file = path.rsplit('/').next().unwrap_or(path);
    let (_, extension) = file.rsplit_once('.')?;
    MIME_TYPES
        .iter()
        .find(|known| known.extension.eq_ignore_ascii_case(extension))
}

/// The MIME type `resources/list` gives `path`, when its extension declares one.
pub(crate) fn mime_type(path: &str) -> Option<&'static str> {
    declared_type(path).map(|known| known.mime)
}

/// The URI of a skill's file: its name and each segment of its path percent-encoded.
pub(crate) fn uri(skill: &str, path: &str) -> String {
    let encoded: Vec<String> = path
        .split('/')
        .map(|segment| utf8_percent_encode(segment, SEGMENT).to_string())
        .collect();
    format!(
        "{SCHEME}{}/{}",
        utf8_percent_encode(skill, NAME),
        encoded.join("/")
    )
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

/// One page of resources: for each skill of the page, its `SKILL.md` and then its bundled
/// files in path order.
pub(crate) fn list(
    service: &dyn SkillsService,
    listing: &Listing,
    cursor: Option<&str>,
) -> Result<ListResourcesResult, ErrorData> {
    let start = offset(cursor)?;
    let candidates: Vec<&SkillSummary> =
        listing.skills.iter().skip(start).take(PAGE_SIZE).collect();
    let folders: Vec<&Path> = candidates
        .iter()
        .map(|skill| skill.location.parent().unwrap_or(&skill.location))
        .collect();
    let inventories = service.inventories(&folders);
    let mut page = Vec::new();
    let mut taken = 0;
    for (skill, files) in candidates.iter().zip(&inventories) {
        if taken > 0 && page.len() >= PAGE_ENTRIES {
            break;
        }
        taken += 1;
        let description = match skill
            .audit
            .as_ref()
            .and_then(|mark| mark.agent_note(&sanitize::line(&skill.name)))
        {
            Some(note) => format!("[{note}] {}", skill.description),
            None => skill.description.to_string(),
        };
        let mut definition = Resource::new(uri(&skill.name, DEFINITION), skill.name.clone())
            .with_description(sanitize::description(&description))
            .with_mime_type("text/markdown");
        if let Ok(metadata) = std::fs::metadata(&skill.location) {
            definition = definition.with_size(metadata.len());
        }
        page.push(definition);
        page.extend(
            files
                .iter()
                .map(|file| bundled(&skill.name, &file.path, file.size)),
        );
    }
    let end = start + taken;
    let mut result = ListResourcesResult::with_all_items(page);
    if end < listing.skills.len() {
        result.next_cursor = Some(self::cursor(end));
    }
    Ok(result)
}

/// The entry of one bundled file.
fn bundled(skill: &str, path: &str, size: u64) -> Resource {
    let mut resource = Resource::new(uri(skill, path), format!("{skill}/{path}")).with_size(size);
    if let Some(mime) = mime_type(path) {
        resource = resource.with_mime_type(mime);
    }
    if size > MAX_RESOURCE_BYTES {
        resource = resource.with_description(format!(
            "{size} bytes: larger than the {} KiB a read returns, so it is listed but not \
             served; open it from the skill's folder instead.",
            MAX_RESOURCE_BYTES / 1024
        ));
    }
    resource
}

/// The template of every bundled file. Both variables are simple expansions (RFC 6570), which
/// percent-encode everything but the unreserved characters, `/` of the path included: the
/// URI a client makes from it is valid whatever the name and the path hold (a reserved
/// expansion, `{+path}`, would leave a `#` or `?` of a file name to be read as a fragment or
/// a query), and a read decodes it to the same file as the listed URI, whose path keeps its
/// slashes.
pub(crate) fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(format!("{SCHEME}{{name}}/{{path}}"), "skill-file").with_description(
            "A file bundled with a skill (references/..., assets/..., scripts/...), read \
                 through the safe reader: text as text, anything else as base64.",
        ),
    ]
}

/// The decoded skill name and path a `skill://` URI names. A name or path written without
/// escapes (as URIs were before names were encoded) decodes to itself.
fn parse(uri: &str) -> Result<(String, String), ErrorData> {
    let not_ours = || {
        errors::invalid(format!(
            "'{uri}' is not a skill resource: they read skill://NAME/SKILL.md or skill://NAME/PATH"
        ))
    };
    let (skill, path) = uri
        .strip_prefix(SCHEME)
        .and_then(|rest| rest.split_once('/'))
        .filter(|(skill, path)| !skill.is_empty() && !path.is_empty())
        .ok_or_else(not_ours)?;
    let decode = |part: &str, what: &str| {
        percent_decode_str(part)
            .decode_utf8()
            .map(std::borrow::Cow::into_owned)
            .map_err(|_| {
                errors::invalid(format!("the {what} of '{uri}' is not UTF-8 once decoded"))
            })
    };
    Ok((decode(skill, "skill name")?, decode(path, "path")?))
}

/// The skill a `skill://` URI names, if it is one.
pub(crate) fn skill_of(uri: &str) -> Option<String> {
    parse(uri).ok().map(|(skill, _)| skill)
}

/// Refuses a URI that is not a `skill://` one (a subscription to it could never fire).
pub(crate) fn check_uri(uri: &str) -> Result<(), ErrorData> {
    parse(uri).map(|_| ())
}

/// Reads `skill://NAME/PATH`.
pub(crate) fn read(
    service: &dyn SkillsService,
    uri: &str,
) -> Result<ReadResourceResult, ErrorData> {
    let (skill, path) = parse(uri)?;
    let skill = skill.as_str();
    let data = match service.read_resource_bytes(skill, &path) {
        Ok(read) => read.data,
        // A definition file may be spelled in another case on disk (`skill.md`); its URI
        // is always `SKILL.md`.
        Err(Error::PathRefused {
            refusal: "not_found",
            ..
        }) if path == DEFINITION => {
            let found = service.get(skill).map_err(|error| to_mcp(&error))?;
            let file = found
                .location
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or(DEFINITION)
                .to_owned();
            service
                .read_resource_bytes(skill, &file)
                .map_err(|error| to_mcp(&error))?
                .data
        }
        Err(error) => return Err(to_mcp(&error)),
    };
    let declared = declared_type(&path);
    let contents = match String::from_utf8(data) {
        Ok(text) if declared.is_none_or(|known| known.text) => ResourceContents::text(text, uri)
            .with_mime_type(declared.map_or("text/plain", |known| known.mime)),
        Ok(text) => blob(text.as_bytes(), uri, declared),
        Err(not_text) => blob(not_text.as_bytes(), uri, declared),
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

/// Bytes as a base64 blob of their declared type.
fn blob(data: &[u8], uri: &str, declared: Option<&Mime>) -> ResourceContents {
    let encoded = base64::engine::general_purpose::STANDARD.encode(data);
    ResourceContents::blob(encoded, uri)
        .with_mime_type(declared.map_or("application/octet-stream", |known| known.mime))
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
    fn types_follow_the_extension_and_say_whether_they_are_text() {
        assert_eq!(mime_type("SKILL.md"), Some("text/markdown"));
        assert_eq!(mime_type("scripts/run.PY"), Some("text/x-python"));
        assert_eq!(mime_type("assets/logo.png"), Some("image/png"));
        assert_eq!(mime_type("LICENSE"), None);
        assert_eq!(
            mime_type("dir.png/LICENSE"),
            None,
            "only the file name counts"
        );
        assert!(declared_type("a.csv").is_some_and(|known| known.text));
        assert!(declared_type("a.pdf").is_some_and(|known| !known.text));
    }

    #[test]
    fn uris_encode_each_segment_and_parse_back_exactly() {
        for path in [
            "references/guide.md",
            "assets/my logo #1.png",
            "données/100%.txt",
            "a?b/c[d].md",
        ] {
            let uri = uri("demo", path);
            assert!(!uri.contains(' ') && !uri.contains('#'), "{uri}");
            let (skill, decoded) = parse(&uri).unwrap();
            assert_eq!((skill.as_str(), decoded.as_str()), ("demo", path), "{uri}");
        }
        assert_eq!(
            uri("demo", "references/guide.md"),
            "skill://demo/references/guide.md"
        );
        for foreign in [
            "file:///etc/passwd",
            "skill://demo",
            "skill:///SKILL.md",
            "skill://demo/",
        ] {
            assert!(parse(foreign).is_err(), "{foreign}");
        }
        assert!(
            parse("skill://demo/%FF.md").is_err(),
            "not UTF-8 once decoded"
        );
        // A traversal spelled in percent-escapes reaches the safe reader as what it is.
        assert_eq!(
            parse("skill://x/%2e%2e/%2e%2e/etc/passwd").unwrap().1,
            "../../etc/passwd"
        );
        assert_eq!(
            parse("skill://x/..%2F..%2Fetc%2Fpasswd").unwrap().1,
            "../../etc/passwd"
        );
    }

    #[test]
    fn names_are_encoded_to_unreserved_characters_and_decoded_exactly() {
        for name in [
            "API Fuzzing for Bug Bounty",
            "host:8080",
            "user@host",
            "a/b",
            "100%",
            "[v6]",
            "pipes|and^carets",
            "données",
            "emoji 🦀",
            "-._~",
        ] {
            let uri = uri(name, "SKILL.md");
            let authority = uri
                .strip_prefix(SCHEME)
                .and_then(|rest| rest.strip_suffix("/SKILL.md"))
                .unwrap();
            assert!(
                authority
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || b"-._~%".contains(&byte)),
                "{uri}"
            );
            let (skill, path) = parse(&uri).unwrap();
            assert_eq!((skill.as_str(), path.as_str()), (name, "SKILL.md"), "{uri}");
            assert_eq!(skill_of(&uri).as_deref(), Some(name));
        }
        assert_eq!(
            uri("API Fuzzing for Bug Bounty", "SKILL.md"),
            "skill://API%20Fuzzing%20for%20Bug%20Bounty/SKILL.md"
        );
        assert_eq!(uri("pdf-tools", "SKILL.md"), "skill://pdf-tools/SKILL.md");
        // A URI written before names were encoded still names its skill.
        assert_eq!(
            skill_of("skill://API Fuzzing for Bug Bounty/SKILL.md").as_deref(),
            Some("API Fuzzing for Bug Bounty")
        );
        assert!(
            parse("skill://%FF/SKILL.md").is_err(),
            "not UTF-8 once decoded"
        );
    }

    #[test]
    fn the_template_expands_to_uris_that_read_the_same_file() {
        let [template] = &templates()[..] else {
            panic!("one template")
        };
        assert_eq!(template.uri_template, "skill://{name}/{path}");
        // RFC 6570 simple expansion: everything but the unreserved characters encoded.
        let expand = |value: &str| utf8_percent_encode(value, NAME).to_string();
        let expanded = template
            .uri_template
            .replace("{name}", &expand("API Fuzzing"))
            .replace("{path}", &expand("assets/my logo #1.png"));
        assert_eq!(
            expanded,
            "skill://API%20Fuzzing/assets%2Fmy%20logo%20%231.png"
        );
        assert_eq!(
            parse(&expanded).unwrap(),
            parse(&uri("API Fuzzing", "assets/my logo #1.png")).unwrap()
        );
    }
}
