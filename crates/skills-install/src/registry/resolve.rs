//! Where a `catalog` entry is installed from (09 §Registries, catalog): per entry, its
//! `sourceUrl` when that is an installable form, else its `installIdentifier`, else (the seed
//! layout of 03) the download base's `<category>/<name>/SKILL.md`.
//!
//! An entry resolves to what `skills install` itself accepts, a URL or the GitHub shorthand
//! `owner/repo/path[@ref]`, so a registry install takes the one install path and gets every
//! file of the skill the way that source kind delivers them (a GitHub folder through the
//! repository tarball, a pack through its index), never only `SKILL.md` of a folder.
//!
//! - `sourceUrl`: a GitHub folder page (`tree/<ref>/<path>`) or repository is the GitHub
//!   form; a GitHub file page, a raw file, a pack index or a well-known index is the URL.
//!   Other pages (the skills.sh, ClawHub or LobeHub detail pages Hermes links to) are not
//!   installable and fall through to `installIdentifier`.
//! - `installIdentifier`: `official/<category>/<slug>` is a folder under the download base.
//!   Hermes serves its official skills from `optional-skills/` of its own repository, so a
//!   base that is a GitHub folder page (and, when none is configured, Hermes's own
//!   `NousResearch/hermes-agent/optional-skills`) gives the GitHub form; any other base gives
//!   the folder `<base>/<category>/<slug>/`: its own index forms (an agent-skills or vercel
//!   index, a pack), then its own `SKILL.md`, and never the origin's root, whose index lists
//!   whatever else that host publishes.
//!   `<owner>/<repo>/<path>` (Hermes's GitHub taps) is the GitHub form. The prefixes of other
//!   hubs (`skills-sh/`, `clawhub/`, `lobehub/`, `browse-sh/`) name skills this kind cannot
//!   reach, and say so with the entry's source page.

use skills_net::policy::{self, Policy};
use skills_types::Error;
use skills_types::files::SKILL_MD;
use skills_types::registry::{Coordinates, Entry};
use url::Url;

use crate::github::{Bases, Page, Repository};
use crate::install;
use crate::source::{self, Source};

/// Where Hermes's `official/<category>/<slug>` skills live when no download base is set: the
/// `optional-skills` folder of its repository (`tools/skills_hub.py`, `OptionalSkillSource`).
pub const OFFICIAL_REPOSITORY: &str = "NousResearch/hermes-agent/optional-skills";
/// Identifier prefixes of hubs a catalog entry cannot be installed through.
const OTHER_HUBS: [&str; 6] = [
    "skills-sh/",
    "skills.sh/",
    "clawhub/",
    "lobehub/",
    "browse-sh/",
    "well-known/",
];
/// The identifier prefix of Hermes's official skills.
const OFFICIAL: &str = "official/";
/// Longest category that may become a folder of a download URL.
const MAX_CATEGORY_CHARS: usize = 128;

/// What an entry is installed from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// A URL of one of the installer's forms (checked by the URL policy).
    Url(Url),
    /// A GitHub folder in the shorthand `owner/repo[/path][@ref]`.
    Github(String),
    /// A download base's folder for the one skill (checked by the URL policy): its indexes,
    /// then its own `SKILL.md`, never the origin's root.
    Folder(Url),
}

impl Resolved {
    /// The source text, as `skills install` takes it.
    pub fn text(&self) -> String {
        match self {
            Self::Url(url) | Self::Folder(url) => url.to_string(),
            Self::Github(shorthand) => shorthand.clone(),
        }
    }
}

/// Resolves `entry` (see the module documentation for the order).
pub(crate) fn resolve(
    entry: &Entry,
    coordinates: &Coordinates,
    download_base: Option<&str>,
    bases: &Bases,
    policy: &Policy,
) -> Result<Resolved, Error> {
    if let Some(text) = non_empty(entry.source_url.as_deref()) {
        let url = parse(text, policy)?;
        if let Some(resolved) = from_url(&url, bases) {
            return Ok(resolved);
        }
    }
    if let Some(identifier) = non_empty(entry.install_identifier.as_deref()) {
        if let Some(rest) = identifier.strip_prefix(OFFICIAL) {
            return official(entry, rest, download_base, bases, policy);
        }
        if let Some(shorthand) = github_identifier(identifier) {
            return Ok(Resolved::Github(shorthand));
        }
    }
    if let Some(base) = download_base {
        // The seed layout (03 §Registry catalog): `<base>/<category>/<name>/SKILL.md`.
        let mut url = parse(base, policy)?;
        let category = plain_category(entry)?;
        push_segments(
            &mut url,
            base,
            category
                .into_iter()
                .chain([coordinates.canonical().as_str(), SKILL_MD]),
        )?;
        return Ok(Resolved::Url(url));
    }
    Err(not_installable(entry))
}

/// The form a `sourceUrl` gives, or `None` for a page that is not installable (a site's
/// page that is not an index: Hermes links the hubs' detail pages).
fn from_url(url: &Url, bases: &Bases) -> Option<Resolved> {
    if bases.is_page(url) {
        return match bases.page(url) {
            Ok(Page::Folder(repository)) => Some(Resolved::Github(repository.display())),
            Ok(Page::File(raw)) => Some(Resolved::Url(raw)),
            Err(_) => None,
        };
    }
    if url.host_str() == Some("raw.githubusercontent.com")
        && url.path().to_ascii_lowercase().ends_with(".md")
    {
        return Some(Resolved::Url(url.clone()));
    }
    match source::classify_with(url, bases) {
        Ok(Source::SkillFile(raw)) => Some(Resolved::Url(raw)),
        Ok(Source::Site(_) | Source::Local(_)) | Err(_) => None,
        Ok(_) => Some(Resolved::Url(url.clone())),
    }
}

/// Hermes's GitHub tap identifiers, `owner/repo/path…`, as the shorthand; `None` for the
/// identifiers of other hubs and anything that is not plain path segments.
fn github_identifier(identifier: &str) -> Option<String> {
    if OTHER_HUBS
        .iter()
        .any(|prefix| identifier.to_ascii_lowercase().starts_with(prefix))
        || identifier.contains("://")
        || identifier.contains('@')
    {
        return None;
    }
    let parts: Vec<&str> = identifier.split('/').collect();
    (parts.len() >= 2 && parts.iter().all(|part| is_plain_segment(part))).then(|| parts.join("/"))
}

/// `official/<category>/<slug>` under the download base.
fn official(
    entry: &Entry,
    rest: &str,
    download_base: Option<&str>,
    bases: &Bases,
    policy: &Policy,
) -> Result<Resolved, Error> {
    let parts: Vec<&str> = rest.split('/').collect();
    if parts.is_empty() || !parts.iter().all(|part| is_plain_segment(part)) {
        return Err(Error::InvalidInput(format!(
            "the registry entry '{}' has the install identifier 'official/{}', which is not \
             <category>/<slug>",
            entry.name,
            rest.chars().take(80).collect::<String>().escape_debug()
        )));
    }
    let Some(base) = download_base else {
        return Ok(Resolved::Github(format!(
            "{OFFICIAL_REPOSITORY}/{}",
            parts.join("/")
        )));
    };
    let mut url = parse(base, policy)?;
    if bases.is_page(&url)
        && let Ok(Page::Folder(repository)) = bases.page(&url)
    {
        // The identifier's folder under the base's, at the base's ref.
        let folder = parts.join("/");
        let path = match &repository.path {
            Some(path) => format!("{path}/{folder}"),
            None => folder,
        };
        let under = Repository {
            path: Some(path),
            ..repository
        };
        return Ok(Resolved::Github(under.display()));
    }
    push_segments(&mut url, base, parts.iter().copied().chain([""]))?;
    Ok(Resolved::Folder(url))
}

fn push_segments<'a>(
    url: &mut Url,
    base: &str,
    parts: impl IntoIterator<Item = &'a str>,
) -> Result<(), Error> {
    let mut segments = url.path_segments_mut().map_err(|()| Error::UrlRefused {
        url: install::shown(base),
        reason: "it cannot be a base URL".to_owned(),
    })?;
    segments.pop_if_empty();
    segments.extend(parts);
    Ok(())
}

fn parse(text: &str, policy: &Policy) -> Result<Url, Error> {
    policy::parse(text, policy).map_err(|refusal| {
        install::refused(install::shown(text), &refusal, refusal.is_local(), policy)
    })
}

/// The entry's category as one URL path segment; `None` when it has none.
fn plain_category(entry: &Entry) -> Result<Option<&str>, Error> {
    let category = entry.category.trim();
    if category.is_empty() {
        return Ok(None);
    }
    if !is_plain_segment(category) {
        return Err(Error::InvalidInput(format!(
            "the registry entry '{}' has the category '{}', which cannot be a folder of a download URL",
            entry.name,
            category.chars().take(80).collect::<String>().escape_debug()
        )));
    }
    Ok(Some(category))
}

/// One harmless path segment: not empty, `.` or `..`, no separator, percent sign or control
/// character (a `%2e%2e` would be decoded into `..` by a server).
pub(crate) fn is_plain_segment(text: &str) -> bool {
    !text.is_empty()
        && text.chars().count() <= MAX_CATEGORY_CHARS
        && text != "."
        && text != ".."
        && !text
            .chars()
            .any(|c| matches!(c, '/' | '\\' | '%') || c.is_control())
}

fn non_empty(text: Option<&str>) -> Option<&str> {
    text.map(str::trim).filter(|text| !text.is_empty())
}

/// An entry nothing installs, with the page a person can go to instead.
fn not_installable(entry: &Entry) -> Error {
    let page = non_empty(entry.source_url.as_deref())
        .or(non_empty(entry.docs_path.as_deref()))
        .unwrap_or(if entry.source.is_empty() {
            "none is listed"
        } else {
            &entry.source
        });
    Error::InvalidInput(format!(
        "the registry entry '{}' cannot be installed: neither its sourceUrl nor its \
         installIdentifier is a form this registry installs from, and no download base URL is \
         configured; see its source page: {page}",
        entry.name
    ))
}

#[cfg(test)]
mod tests;
