//! What a source given to `install` is (03 §Sources, 09 §Publishers), decided from the text
//! alone before anything is fetched: a URL of one of the publisher forms, a GitHub shorthand or
//! page, an archive, or a local folder or archive.

use std::path::PathBuf;

use skills_types::install::SourceKind;
use url::Url;

use crate::github::{self, Bases, Page, Repository};

/// The agent-skills index path (03, 09): `https://host/.well-known/agent-skills/index.json`.
pub(crate) const WELL_KNOWN_INDEX: &str = "/.well-known/agent-skills/index.json";
/// The folder of the agent-skills index, where snapshots (`v1.2.0/index.json`) live too.
pub(crate) const WELL_KNOWN_DIR: &str = "/.well-known/agent-skills/";
/// The vercel skills index path (09): `https://host/.well-known/skills/index.json`.
pub(crate) const VERCEL_INDEX: &str = "/.well-known/skills/index.json";
/// The file name of a pack index.
pub(crate) const PACK_INDEX: &str = "index.json";

/// A source of skills.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// One `SKILL.md` (any path ending in `.md`).
    SkillFile(Url),
    /// A pack: `index.json` listing skills and their files, fetched from beside it.
    Pack(Url),
    /// A site's agent-skills index (v0.2 with `$schema`, or the older form without).
    WellKnown(Url),
    /// A site's vercel-style `/.well-known/skills/index.json` (v0.1): names and file lists.
    Vercel(Url),
    /// A bare origin, a docs page or a pack's base: the indexes are looked for (09 order).
    Site(Url),
    /// A registry download base's folder for one skill: its indexes, then its own `SKILL.md`,
    /// never the origin's root.
    Folder(Url),
    /// A GitHub (or GitHub Enterprise) repository or folder, fetched as a tarball.
    Github(Box<(Repository, Url)>),
    /// An archive URL (`.tar.gz`, `.tgz`, `.zip`).
    Archive(Url),
    /// A folder or archive on this machine.
    Local(PathBuf),
}

impl Source {
    /// The URL fetched first (a local source has none).
    pub(crate) fn url(&self) -> Option<&Url> {
        match self {
            Self::SkillFile(url)
            | Self::Pack(url)
            | Self::WellKnown(url)
            | Self::Vercel(url)
            | Self::Site(url)
            | Self::Folder(url)
            | Self::Archive(url) => Some(url),
            Self::Github(github) => Some(&github.1),
            Self::Local(_) => None,
        }
    }

    /// What the source is, for messages and provenance: the URL redacted, the GitHub
    /// shorthand, or the local path.
    pub(crate) fn shown(&self) -> String {
        match self {
            Self::Github(github) => github.0.display(),
            Self::Local(path) => path.display().to_string(),
            other => other
                .url()
                .map(skills_net::policy::redact)
                .unwrap_or_default(),
        }
    }

    /// The kind, recorded in provenance.
    pub(crate) fn kind(&self) -> SourceKind {
        match self {
            Self::SkillFile(_) => SourceKind::SkillMd,
            Self::Pack(_) => SourceKind::Pack,
            Self::WellKnown(_) => SourceKind::WellKnown,
            Self::Vercel(_) => SourceKind::VercelWellKnown,
            Self::Site(_) => SourceKind::Site,
            Self::Folder(_) => SourceKind::Folder,
            Self::Github(_) => SourceKind::Github,
            Self::Archive(_) => SourceKind::Archive,
            Self::Local(_) => SourceKind::Local,
        }
    }
}

/// What `text` names, before any URL is checked: a local path (`./dir`, `../x.zip`, `/abs`,
/// `.`), a URL (anything with `://`), or else the GitHub shorthand `owner/repo[/path][@ref]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Given {
    /// A path on this machine.
    Local(PathBuf),
    /// Text to parse as a URL under the policy.
    Url(String),
    /// The GitHub shorthand.
    Github(Repository),
}

/// Sorts `text` into a local path, a URL or the GitHub shorthand; anything else is an error
/// saying which forms exist.
pub(crate) fn given(text: &str) -> Result<Given, String> {
    let trimmed = text.trim();
    let local = trimmed == "."
        || trimmed == ".."
        || trimmed.starts_with("./")
        || trimmed.starts_with("../")
        || trimmed.starts_with('/');
    if local {
        return Ok(Given::Local(PathBuf::from(trimmed)));
    }
    if trimmed.contains("://") {
        return Ok(Given::Url(trimmed.to_owned()));
    }
    match Repository::shorthand(trimmed) {
        Some(parsed) => parsed.map(Given::Github),
        None => Err(unsupported()),
    }
}

/// Classifies a URL (already checked by the policy) with github.com as the GitHub server; the
/// installer always names its configured server ([`classify_with`]), the tests this one.
#[cfg(test)]
pub(crate) fn classify(url: &Url) -> Result<Source, String> {
    let bases = Bases::new(None)?;
    classify_with(url, &bases)
}

/// Classifies a URL (already checked by the policy); pages of the configured GitHub server
/// are repositories, folders or files of it.
pub(crate) fn classify_with(url: &Url, bases: &Bases) -> Result<Source, String> {
    if bases.is_page(url) {
        return match bases.page(url)? {
            Page::File(raw) => Ok(Source::SkillFile(raw)),
            Page::Folder(repository) => {
                let tarball = bases.tarball(&repository);
                Ok(Source::Github(Box::new((repository, tarball))))
            }
        };
    }
    let path = url.path();
    let lower = path.to_ascii_lowercase();
    if path == WELL_KNOWN_INDEX || path.ends_with(WELL_KNOWN_INDEX) || is_snapshot_index(path) {
        return Ok(Source::WellKnown(url.clone()));
    }
    if path.ends_with(VERCEL_INDEX) {
        return Ok(Source::Vercel(url.clone()));
    }
    if path.ends_with(&format!("/{PACK_INDEX}")) {
        return Ok(Source::Pack(url.clone()));
    }
    if lower.ends_with(".md") {
        return Ok(Source::SkillFile(url.clone()));
    }
    if lower.ends_with(".tar.gz") || lower.ends_with(".tgz") || lower.ends_with(".zip") {
        return Ok(Source::Archive(url.clone()));
    }
    if lower.ends_with(".json") || lower.ends_with(".tar") || lower.ends_with(".gz") {
        return Err(unsupported());
    }
    Ok(Source::Site(url.clone()))
}

/// `…/.well-known/agent-skills/<snapshot>/index.json`.
fn is_snapshot_index(path: &str) -> bool {
    path.split_once(WELL_KNOWN_DIR)
        .and_then(|(_, rest)| rest.strip_suffix("/index.json"))
        .is_some_and(|snapshot| !snapshot.is_empty() && !snapshot.contains('/'))
}

fn unsupported() -> String {
    format!(
        "unsupported source: give an https URL (a SKILL.md, a site or docs page, a \
         /.well-known/agent-skills/index.json or /.well-known/skills/index.json, a pack's \
         index.json or its folder, a .tar.gz or .zip archive, a GitHub repository, tree/ or \
         blob/ page), the GitHub shorthand owner/repo[/path][@ref], or a local folder or \
         archive starting with ./, ../ or / (GitHub web base: {})",
        github::GITHUB_WEB
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    fn kind(text: &str) -> &'static str {
        classify(&url(text)).unwrap().kind().as_str()
    }

    #[test]
    fn url_forms() {
        assert_eq!(
            classify(&url("https://example.com/skills/pdf/SKILL.md")).unwrap(),
            Source::SkillFile(url("https://example.com/skills/pdf/SKILL.md"))
        );
        for (text, expected) in [
            ("https://example.com/x/README.MD", "skill-md"),
            ("https://example.com/packs/index.json", "pack"),
            (
                "https://example.com/.well-known/agent-skills/index.json",
                "well-known",
            ),
            (
                "https://example.com/docs/.well-known/agent-skills/index.json",
                "well-known",
            ),
            (
                "https://example.com/.well-known/agent-skills/v1.2.0/index.json",
                "well-known",
            ),
            (
                "https://example.com/.well-known/skills/index.json",
                "vercel-well-known",
            ),
            ("https://example.com", "site"),
            ("https://example.com/docs", "site"),
            ("https://example.com/packs/", "site"),
            ("https://example.com/x.zip", "archive"),
            ("https://example.com/dl/x.tar.gz", "archive"),
            ("https://example.com/dl/x.TGZ", "archive"),
            ("https://github.com/o/r", "github"),
            ("https://github.com/o/r/tree/main/skills/pdf", "github"),
            (
                "https://github.com/o/r/blob/main/skills/pdf/SKILL.md",
                "skill-md",
            ),
        ] {
            assert_eq!(kind(text), expected, "{text}");
        }
        for refused in [
            "https://example.com/data.json",
            "https://example.com/x.tar",
            "https://github.com/o/r/issues",
        ] {
            assert!(classify(&url(refused)).is_err(), "{refused}");
        }
    }

    #[test]
    fn text_forms() {
        for local in [".", "..", "./dir", "../x.zip", "/abs/dir"] {
            assert!(matches!(given(local), Ok(Given::Local(_))), "{local}");
        }
        assert!(matches!(given("https://x.example/a"), Ok(Given::Url(_))));
        let Ok(Given::Github(repository)) = given("acme/skills/pdf@v1") else {
            panic!()
        };
        assert_eq!(repository.display(), "acme/skills/pdf@v1");
        for refused in ["pdf", "", "c:/x"] {
            let error = given(refused).unwrap_err();
            assert!(error.contains("unsupported source"), "{refused}: {error}");
        }
        assert!(given("ac me/x").is_err());
    }

    #[test]
    fn an_enterprise_base_makes_its_pages_github_sources() {
        let bases = Bases::new(Some("https://ghe.example.com")).unwrap();
        let source =
            classify_with(&url("https://ghe.example.com/o/r/tree/main/a"), &bases).unwrap();
        let Source::Github(github) = source else {
            panic!("{source:?}")
        };
        assert_eq!(
            github.1.as_str(),
            "https://ghe.example.com/api/v3/repos/o/r/tarball/main"
        );
        // github.com is then an ordinary site.
        assert_eq!(
            classify_with(&url("https://github.com/o/r"), &bases)
                .unwrap()
                .kind(),
            SourceKind::Site
        );
    }
}
