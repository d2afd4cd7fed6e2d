//! GitHub and GitHub Enterprise as a source (09 §Publishers): the `owner/repo[/path][@ref]`
//! shorthand and the web pages (`github.com/o/r`, `…/tree/<ref>/<path>`, `…/blob/<ref>/<file>`)
//! turned into the one request that fetches them.
//!
//! A repository (or a folder of one) is fetched as the repository's tarball at the ref, through
//! the REST API (`<api>/repos/O/R/tarball[/REF]`, which answers with a redirect to the archive
//! host); without a ref the API serves the default branch. A file page stays a single file
//! (the raw file). The bases are configuration (`[github] url`): `https://github.com` by
//! default (API `https://api.github.com`, raw files `https://raw.githubusercontent.com`), any
//! other base a GitHub Enterprise server (API `<base>/api/v3`, raw files
//! `<base>/<o>/<r>/raw/<ref>/<path>`), which is how tests point it at a loopback fixture.
//!
//! A `tree/` URL cannot say where a ref with a slash ends and the path begins (`tree/a/b/c` is
//! ref `a` and path `b/c`, or ref `a/b` and path `c`); like the peers, the first segment is the
//! ref. A ref with a slash is given with the shorthand: `owner/repo/path@feature/x`.
//!
//! A path the user names (in the shorthand, a `tree/` or a `blob/` page) may pass through
//! hidden folders, as OpenAI's instructions do (`openai/skills/skills/.curated/<skill>`); it is
//! checked with every other rule of the relative-path check ([`skills_types::path::check_named`]).

use url::Url;

/// The default web base.
pub(crate) const GITHUB_WEB: &str = "https://github.com";
const GITHUB_API: &str = "https://api.github.com";
const GITHUB_RAW: &str = "https://raw.githubusercontent.com";
/// Where github.com's API sends a tarball request (with a short-lived token of its own in the
/// URL).
const GITHUB_CODELOAD: &str = "https://codeload.github.com";

/// Where one GitHub (or GitHub Enterprise) server lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bases {
    /// The web base (`https://github.com`).
    pub(crate) web: Url,
    /// The REST API base (`https://api.github.com`, `<base>/api/v3`).
    pub(crate) api: Url,
    /// Whether this is github.com (raw files from `raw.githubusercontent.com`).
    pub(crate) public: bool,
}

impl Bases {
    /// The bases of `[github] url` (`None`: github.com). The URL is only parsed here; every
    /// request made from it still passes the URL policy.
    pub(crate) fn new(configured: Option<&str>) -> Result<Self, String> {
        let text = configured.map(str::trim).filter(|text| !text.is_empty());
        let web = Url::parse(text.unwrap_or(GITHUB_WEB)).map_err(|error| {
            format!(
                "the GitHub base '{}' is not a URL: {error}",
                text.unwrap_or_default()
            )
        })?;
        if web.cannot_be_a_base() || !matches!(web.scheme(), "https" | "http") {
            return Err(format!(
                "the GitHub base '{}' must be an https URL such as https://github.example.com",
                web.as_str()
            ));
        }
        let public = web.host_str() == Some("github.com");
        let api = if public {
            Url::parse(GITHUB_API).map_err(|error| error.to_string())?
        } else {
            join(&web, &["api", "v3"])
        };
        Ok(Self { web, api, public })
    }

    /// The URLs whose origins a GitHub token is sent to: the API's and the archives' (and
    /// the raw files'). For github.com, `api.github.com`, `codeload.github.com` and
    /// `raw.githubusercontent.com`, never `github.com` itself (no request of an install goes
    /// there); for GitHub Enterprise, the server's own origin, which serves all three.
    pub(crate) fn token_origins(&self) -> Vec<Url> {
        if !self.public {
            return vec![self.api.clone()];
        }
        let mut origins = vec![self.api.clone()];
        origins.extend(
            [GITHUB_CODELOAD, GITHUB_RAW]
                .into_iter()
                .filter_map(|text| Url::parse(text).ok()),
        );
        origins
    }

    /// Whether `url` is a page of this server's web interface.
    pub(crate) fn is_page(&self, url: &Url) -> bool {
        url.origin() == self.web.origin()
            && (self.public
                || url
                    .path()
                    .starts_with(self.web.path().trim_end_matches('/')))
    }

    /// The tarball of `repository` at its ref (the default branch without one).
    pub(crate) fn tarball(&self, repository: &Repository) -> Url {
        let mut segments = vec![
            "repos",
            repository.owner.as_str(),
            repository.name.as_str(),
            "tarball",
        ];
        if let Some(reference) = &repository.reference {
            segments.extend(reference.split('/'));
        }
        join(&self.api, &segments)
    }

    /// The raw bytes of `path` in `repository` at `reference`.
    pub(crate) fn raw(&self, owner: &str, name: &str, reference: &str, path: &str) -> Url {
        let mut segments = Vec::new();
        let base = if self.public {
            segments.extend([owner, name]);
            Url::parse(GITHUB_RAW).unwrap_or_else(|_| self.web.clone())
        } else {
            segments.extend([owner, name, "raw"]);
            self.web.clone()
        };
        segments.extend(reference.split('/'));
        segments.extend(path.split('/'));
        join(&base, &segments)
    }

    /// What a page of this server is: a repository folder (tarball) or a file (raw).
    pub(crate) fn page(&self, url: &Url) -> Result<Page, String> {
        let prefix = self.web.path().trim_end_matches('/');
        let rest = url.path().strip_prefix(prefix).unwrap_or(url.path());
        let segments: Vec<String> = rest
            .split('/')
            .filter(|segment| !segment.is_empty())
            .map(decode)
            .collect::<Result<_, _>>()?;
        let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
        match segments.as_slice() {
            [owner, name] => Ok(Page::Folder(Repository::new(owner, name, None, None)?)),
            [owner, name, "tree", reference, path @ ..] => Ok(Page::Folder(Repository::new(
                owner,
                name,
                Some(reference),
                Some(path.join("/").as_str()).filter(|path| !path.is_empty()),
            )?)),
            [owner, name, "blob", reference, path @ ..] if !path.is_empty() => {
                let repository = Repository::new(owner, name, Some(reference), None)?;
                let path = path.join("/");
                // A path the user names may pass through hidden folders
                // (`skills/.curated/...`); every other rule holds.
                skills_types::path::check_named(&path)
                    .map_err(|refusal| format!("the file '{path}': {refusal}"))?;
                // A file page is one skill's definition; any other file is not a skill.
                if !path.to_ascii_lowercase().ends_with(".md") {
                    return Err(format!(
                        "the file page '{path}' is not a SKILL.md (or other .md); give the \
                         folder (tree/<ref>/<path>) to install the skill it belongs to"
                    ));
                }
                Ok(Page::File(self.raw(
                    &repository.owner,
                    &repository.name,
                    reference,
                    &path,
                )))
            }
            _ => Err(format!(
                "this GitHub page is neither a repository, a folder (tree/<ref>/<path>) nor a \
                 file (blob/<ref>/<path>): {}",
                skills_net::policy::redact(url)
            )),
        }
    }
}

/// A GitHub page, as a source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Page {
    /// A repository or a folder of it: the tarball, then the skills under the path.
    Folder(Repository),
    /// One file, fetched raw.
    File(Url),
}

/// A repository, a ref and a folder in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Repository {
    /// The owner (user or organisation).
    pub(crate) owner: String,
    /// The repository's name.
    pub(crate) name: String,
    /// A branch, tag or commit; `None` is the default branch.
    pub(crate) reference: Option<String>,
    /// The folder whose skills are wanted; `None` is the whole repository.
    pub(crate) path: Option<String>,
}

impl Repository {
    fn new(
        owner: &str,
        name: &str,
        reference: Option<&str>,
        path: Option<&str>,
    ) -> Result<Self, String> {
        let name = name.strip_suffix(".git").unwrap_or(name);
        if owner.is_empty()
            || !owner
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
        {
            return Err(format!("'{}' is not a GitHub owner", owner.escape_debug()));
        }
        if name.is_empty()
            || name == "."
            || name == ".."
            || !name
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || b"-_.".contains(&byte))
        {
            return Err(format!(
                "'{}' is not a GitHub repository name",
                name.escape_debug()
            ));
        }
        if let Some(reference) = reference {
            check_reference(reference)?;
        }
        let path = match path.map(|path| path.trim_matches('/')) {
            Some("") | None => None,
            Some(path) => {
                // Hidden folders are places skills are kept (`skills/.curated/<skill>` in
                // OpenAI's catalog); every other rule of the path check holds.
                let components = skills_types::path::check_named(path)
                    .map_err(|refusal| format!("the path '{}': {refusal}", path.escape_debug()))?;
                // Nothing below `.git` or `node_modules` is ever taken from a tarball: said
                // before the download rather than after it.
                if skills_types::files::is_excluded_source_path(&components) {
                    let excluded = components
                        .iter()
                        .find(|component| skills_types::files::is_excluded_source_dir(component))
                        .copied()
                        .unwrap_or_default();
                    return Err(format!(
                        "the path '{}' goes through '{excluded}', a folder no source is \
                         searched in",
                        path.escape_debug()
                    ));
                }
                Some(path.to_owned())
            }
        };
        Ok(Self {
            owner: owner.to_owned(),
            name: name.to_owned(),
            reference: reference.map(str::to_owned),
            path,
        })
    }

    /// `owner/repo[/path][@ref]`: the first `@` after `owner/repo` starts the ref, which may
    /// hold slashes. `None` when `text` does not have that shape at all.
    pub(crate) fn shorthand(text: &str) -> Option<Result<Self, String>> {
        let text = text.trim();
        if text.contains("://") || text.contains(':') || text.starts_with(['.', '/', '~']) {
            return None;
        }
        let (location, reference) = match text.split_once('@') {
            Some((location, reference)) => (location, Some(reference)),
            None => (text, None),
        };
        let mut parts = location.splitn(3, '/');
        let (Some(owner), Some(name)) = (parts.next(), parts.next()) else {
            return None;
        };
        Some(Self::new(owner, name, reference, parts.next()))
    }

    /// `owner/repo[/path][@ref]`, as recorded.
    pub(crate) fn display(&self) -> String {
        let mut text = format!("{}/{}", self.owner, self.name);
        if let Some(path) = &self.path {
            text.push('/');
            text.push_str(path);
        }
        if let Some(reference) = &self.reference {
            text.push('@');
            text.push_str(reference);
        }
        text
    }
}

/// A ref as git allows it, and nothing a URL would read differently.
fn check_reference(reference: &str) -> Result<(), String> {
    let bad = reference.is_empty()
        || reference.len() > 255
        || reference.starts_with(['-', '/'])
        || reference.ends_with(['/', '.'])
        || reference.contains("..")
        || reference.contains("//")
        || reference.contains("@{")
        || reference
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || "~^:?*[\\#%".contains(c));
    if bad {
        return Err(format!(
            "'{}' is not a git ref (branch, tag or commit)",
            reference.escape_debug()
        ));
    }
    Ok(())
}

/// A path segment with its `%XX` escapes decoded: `%2e%2e` is `..` to the server, so it is
/// `..` to the checks too.
fn decode(segment: &str) -> Result<String, String> {
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let escaped = (bytes[index] == b'%')
            .then(|| bytes.get(index + 1..index + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                index += 3;
            }
            None => {
                decoded.push(bytes[index]);
                index += 1;
            }
        }
    }
    String::from_utf8(decoded).map_err(|_| "a path segment is not UTF-8".to_owned())
}

/// `base` with `segments` appended, each escaped as one segment (a ref or path can never add
/// a query, a fragment or a `..` to the URL).
fn join(base: &Url, segments: &[&str]) -> Url {
    let mut url = base.clone();
    if let Ok(mut path) = url.path_segments_mut() {
        path.pop_if_empty().extend(segments);
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn shorthand_forms() {
        let parsed = |text| Repository::shorthand(text).unwrap().unwrap();
        assert_eq!(
            parsed("acme/skills"),
            Repository::new("acme", "skills", None, None).unwrap()
        );
        let deep = parsed("acme/skills/tools/pdf@feature/x");
        assert_eq!(deep.path.as_deref(), Some("tools/pdf"));
        assert_eq!(deep.reference.as_deref(), Some("feature/x"));
        assert_eq!(deep.display(), "acme/skills/tools/pdf@feature/x");
        assert_eq!(parsed("acme/skills.git").name, "skills");
        assert_eq!(
            parsed("openai/skills/skills/.curated/gh-fix-ci")
                .path
                .as_deref(),
            Some("skills/.curated/gh-fix-ci")
        );
        for not_github in ["./x", "/abs", "~/x", "https://x/y", "single", "c:/x"] {
            assert!(Repository::shorthand(not_github).is_none(), "{not_github}");
        }
        for bad in [
            "ac me/x",
            "acme/../x",
            "acme/x/../../etc",
            "acme/x@",
            "acme/x@a..b",
            "acme/x@-rf",
            "acme/x/.git/config",
            "acme/x/node_modules/dep",
            "acme/x/.curated/../../etc",
        ] {
            assert!(Repository::shorthand(bad).unwrap().is_err(), "{bad}");
        }
    }

    #[test]
    fn github_com_pages_and_urls() {
        let bases = Bases::new(None).unwrap();
        assert!(bases.is_page(&url("https://github.com/o/r")));
        assert!(!bases.is_page(&url("https://gitlab.com/o/r")));
        let Page::Folder(repository) = bases.page(&url("https://github.com/o/r")).unwrap() else {
            panic!()
        };
        assert_eq!(
            bases.tarball(&repository).as_str(),
            "https://api.github.com/repos/o/r/tarball"
        );
        let Page::Folder(folder) = bases
            .page(&url("https://github.com/o/r/tree/v1.2/skills/pdf"))
            .unwrap()
        else {
            panic!()
        };
        assert_eq!(folder.reference.as_deref(), Some("v1.2"));
        assert_eq!(folder.path.as_deref(), Some("skills/pdf"));
        assert_eq!(
            bases.tarball(&folder).as_str(),
            "https://api.github.com/repos/o/r/tarball/v1.2"
        );
        assert_eq!(
            bases
                .page(&url("https://github.com/o/r/blob/main/skills/pdf/SKILL.md"))
                .unwrap(),
            Page::File(url(
                "https://raw.githubusercontent.com/o/r/main/skills/pdf/SKILL.md"
            ))
        );
        for refused in [
            "https://github.com/o",
            "https://github.com/o/r/blob/main",
            "https://github.com/o/r/blob/main/script.py",
            "https://github.com/o/r/tree/main/a%2F..%2Fb",
            "https://github.com/o/r/issues/1",
        ] {
            assert!(bases.page(&url(refused)).is_err(), "{refused}");
        }
    }

    #[test]
    fn a_token_goes_to_the_api_and_archive_origins_only() {
        let origins = |bases: &Bases| -> Vec<String> {
            bases
                .token_origins()
                .iter()
                .map(|url| url.origin().ascii_serialization())
                .collect()
        };
        assert_eq!(
            origins(&Bases::new(None).unwrap()),
            [
                "https://api.github.com",
                "https://codeload.github.com",
                "https://raw.githubusercontent.com"
            ]
        );
        assert_eq!(
            origins(&Bases::new(Some("https://ghe.example.com/git")).unwrap()),
            ["https://ghe.example.com"]
        );
    }

    #[test]
    fn enterprise_bases() {
        let bases = Bases::new(Some("http://127.0.0.1:8080/")).unwrap();
        assert!(!bases.public);
        let repository = Repository::shorthand("o/r/skills@release/2")
            .unwrap()
            .unwrap();
        assert_eq!(
            bases.tarball(&repository).as_str(),
            "http://127.0.0.1:8080/api/v3/repos/o/r/tarball/release/2"
        );
        assert_eq!(
            bases.raw("o", "r", "main", "a/SKILL.md").as_str(),
            "http://127.0.0.1:8080/o/r/raw/main/a/SKILL.md"
        );
        assert!(Bases::new(Some("ftp://x")).is_err());
        assert!(Bases::new(Some("not a url")).is_err());
    }
}
