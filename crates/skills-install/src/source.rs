//! What a URL given to `install` is (03 §Sources), decided from the URL alone before anything
//! is fetched.

use url::Url;

/// The well-known index path (03): `https://host/.well-known/agent-skills/index.json`.
pub const WELL_KNOWN_INDEX: &str = "/.well-known/agent-skills/index.json";
/// The file name of a pack index.
pub const PACK_INDEX: &str = "index.json";

/// A source of skills.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// One `SKILL.md` (any path ending in `.md`).
    SkillFile(Url),
    /// A pack: `index.json` listing skills and their files, fetched from beside it.
    Pack(Url),
    /// A site's well-known index of `skill-md` entries with digests.
    WellKnown(Url),
}

impl Source {
    /// The URL fetched first.
    pub fn url(&self) -> &Url {
        match self {
            Self::SkillFile(url) | Self::Pack(url) | Self::WellKnown(url) => url,
        }
    }

    /// A short name of the kind, recorded in provenance.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::SkillFile(_) => "skill-md",
            Self::Pack(_) => "pack",
            Self::WellKnown(_) => "well-known",
        }
    }
}

/// Classifies a URL (already checked by the policy). GitHub file pages are rewritten to the raw
/// file; other GitHub page forms (trees, repository roots, archives) are refused with a message
/// saying what is supported.
pub fn classify(url: &Url) -> Result<Source, String> {
    if url.host_str() == Some("github.com") {
        return github(url).map(Source::SkillFile);
    }
    let path = url.path();
    if path == WELL_KNOWN_INDEX {
        return Ok(Source::WellKnown(url.clone()));
    }
    if path.ends_with(&format!("/{PACK_INDEX}")) {
        return Ok(Source::Pack(url.clone()));
    }
    if path.to_ascii_lowercase().ends_with(".md") {
        return Ok(Source::SkillFile(url.clone()));
    }
    Err(unsupported())
}

fn unsupported() -> String {
    "unsupported URL form: give a SKILL.md URL (or any .md), a GitHub file page \
     (github.com/owner/repo/blob/<ref>/<path>.md), a pack's index.json, or a site's \
     /.well-known/agent-skills/index.json"
        .to_owned()
}

/// `https://github.com/o/r/blob/<ref>/<path>.md` → `https://raw.githubusercontent.com/o/r/<ref>/<path>.md`.
fn github(url: &Url) -> Result<Url, String> {
    let segments: Vec<&str> = url
        .path_segments()
        .map(Iterator::collect)
        .unwrap_or_default();
    match segments.as_slice() {
        [owner, repo, "blob", reference, rest @ ..]
            if !rest.is_empty()
                && !owner.is_empty()
                && !repo.is_empty()
                && !reference.is_empty()
                && rest
                    .last()
                    .is_some_and(|file| file.to_ascii_lowercase().ends_with(".md")) =>
        {
            let raw = format!(
                "https://raw.githubusercontent.com/{owner}/{repo}/{reference}/{}",
                rest.join("/")
            );
            Url::parse(&raw).map_err(|error| error.to_string())
        }
        [_, _, "tree", ..] => Err(format!(
            "GitHub folder pages (tree/) are not installable: {}",
            unsupported()
        )),
        [_, _, "archive", ..]
        | [_, _, "releases", ..]
        | [_, _, "zipball", ..]
        | [_, _, "tarball", ..] => Err(format!("archives are not installable: {}", unsupported())),
        _ => Err(format!("this GitHub page is not a file: {}", unsupported())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn forms() {
        assert_eq!(
            classify(&url("https://example.com/skills/pdf/SKILL.md")).unwrap(),
            Source::SkillFile(url("https://example.com/skills/pdf/SKILL.md"))
        );
        assert_eq!(
            classify(&url("https://example.com/x/README.MD"))
                .unwrap()
                .kind(),
            "skill-md"
        );
        assert_eq!(
            classify(&url("https://example.com/packs/index.json"))
                .unwrap()
                .kind(),
            "pack"
        );
        assert_eq!(
            classify(&url(
                "https://example.com/.well-known/agent-skills/index.json"
            ))
            .unwrap()
            .kind(),
            "well-known"
        );
        assert!(classify(&url("https://example.com/skills/pdf/")).is_err());
        assert!(classify(&url("https://example.com/x.zip")).is_err());
    }

    #[test]
    fn github_pages() {
        assert_eq!(
            classify(&url("https://github.com/o/r/blob/main/skills/pdf/SKILL.md")).unwrap(),
            Source::SkillFile(url(
                "https://raw.githubusercontent.com/o/r/main/skills/pdf/SKILL.md"
            ))
        );
        for page in [
            "https://github.com/o/r/tree/main/skills/pdf",
            "https://github.com/o/r",
            "https://github.com/o/r/archive/refs/heads/main.zip",
            "https://github.com/o/r/blob/main/script.py",
            "https://github.com/o/r/blob/main",
        ] {
            let error = classify(&url(page)).unwrap_err();
            assert!(error.contains("unsupported URL form"), "{page}: {error}");
        }
    }
}
