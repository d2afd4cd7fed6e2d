//! The skill finder: which skills an extracted archive or a locally read folder holds.
//!
//! Trees come from the one extractor (`skills_net::archive`) or the local-folder reader
//! (`local.rs`), already checked entry by entry; here they become one [`Download`] per skill.
//! A single wrapping folder (GitHub's `owner-repo-sha/`) is unwrapped, plugin manifests are
//! read (`plugin.rs`), and every entry the extractor kept aside
//! ([`Withheld`](skills_net::archive::Withheld): a link, a device, a file over the per-file
//! limit) refuses only the skill it lies in, so one bad entry in one skill of a repository
//! never blocks installing (or listing) the others.

#[cfg(test)]
mod tests;

use skills_net::archive::{Tree, is_hidden_path};
use skills_types::files::{SKILL_MD, is_excluded_source_path, match_definition};
use skills_types::path;
use url::Url;

use crate::download::Download;

/// The skills in an extracted (or locally read) tree of files; see [`skills_in`].
pub fn skills(
    files: Vec<(String, Vec<u8>)>,
    under: Option<&str>,
    url: &Url,
) -> Result<Vec<Download>, String> {
    skills_in(
        Tree {
            files,
            withheld: Vec::new(),
        },
        under,
        url,
    )
}

/// The skills in an extracted (or locally read) tree, each refused as a whole by the first
/// entry of it that is withheld (a link, a device, a file over the limit): see
/// [`skills_found`] for how they are found, and for the form that refuses only that skill.
pub fn skills_in(tree: Tree, under: Option<&str>, url: &Url) -> Result<Vec<Download>, String> {
    skills_found(tree, under, url)?
        .found
        .into_iter()
        .map(|found| match found.refusal {
            Some(refusal) => Err(refusal),
            None => Ok(found.download),
        })
        .collect()
}

/// A skill found in a tree, and why it may not be installed, if it may not.
#[derive(Debug)]
pub struct Found {
    /// Its files (without the entries withheld, and without anything hidden inside it).
    pub download: Download,
    /// Its folder, relative to the tree's root once a single top folder is unwrapped
    /// (`skills/.curated/pdf`; `""` for a skill at the root), for messages.
    pub folder: String,
    /// Set when an entry inside it is withheld (a link, a device, a file over the per-file
    /// limit): installing it is refused with this message. Other skills of the tree are not
    /// affected, so a caller refuses only the skills it would install that have a refusal.
    pub refusal: Option<String>,
    /// The plugins of the tree's manifests that hold it (`plugin.rs`), in their order.
    pub plugins: Vec<String>,
}

/// What a tree offers: its skills, the plugins its manifests declare, and what the manifests
/// made worth saying.
#[derive(Debug, Default)]
pub struct Search {
    /// The skills, by folder.
    pub found: Vec<Found>,
    /// Every plugin the manifests declare, skills or not, in their order.
    pub plugins: Vec<String>,
    /// Plugins hosted elsewhere, manifests that could not be read.
    pub warnings: Vec<String>,
}

/// The skills of a tree, each with its own refusal instead of one refusal for the whole tree.
///
/// When every entry sits under one top folder (GitHub's `owner-repo-sha/`), that folder is
/// unwrapped; plugin manifests are read from the root (`plugin.rs`); then only what is
/// below `under` (a path the user named, checked, hidden folders allowed) is considered; then
/// every folder holding a `SKILL.md` at its top, and not inside another such folder, yields
/// one download of the files below it, as the peers find skills: hidden folders on the way are
/// searched (`skills/.curated/<skill>`), the excluded ones (`.git`, `node_modules`, `target`,
/// virtual environments) are not, and nothing hidden inside a skill is part of it. A withheld
/// entry inside a skill refuses that skill; elsewhere (a repository's `CLAUDE.md -> AGENTS.md`
/// beside its skills, a large file outside every skill) it is left out like any file outside
/// the skills.
pub fn skills_found(tree: Tree, under: Option<&str>, url: &Url) -> Result<Search, String> {
    skills_found_in(tree, under, url, true)
}

/// [`skills_found`] for a tree that has no wrapping folder to unwrap (a local folder: the
/// folder the user named is the root, so its `skills/big` is named so, never `big`).
pub fn skills_found_in_folder(
    tree: Tree,
    under: Option<&str>,
    url: &Url,
) -> Result<Search, String> {
    skills_found_in(tree, under, url, false)
}

fn skills_found_in(
    tree: Tree,
    under: Option<&str>,
    url: &Url,
    unwrap: bool,
) -> Result<Search, String> {
    let Tree {
        mut files,
        mut withheld,
    } = tree;
    let top = unwrap
        .then(|| {
            single_top_folder(
                files
                    .iter()
                    .map(|(path, _)| path.as_str())
                    .chain(withheld.iter().map(|entry| entry.path.as_str())),
            )
        })
        .flatten()
        .map(|top| format!("{top}/"));
    if let Some(prefix) = top {
        for (path, _) in &mut files {
            *path = path[prefix.len()..].to_owned();
        }
        for entry in &mut withheld {
            entry.path = entry.path[prefix.len()..].to_owned();
        }
    }
    let under = under
        .map(|under| path::strip_current_dir_prefix(under.trim_matches('/')))
        .filter(|under| !under.is_empty());
    if let Some(under) = under {
        path::check_named(under).map_err(|refusal| {
            format!("the path '{}' is refused: {refusal}", under.escape_debug())
        })?;
    }
    let manifests = crate::plugin::Manifests::read(&files, under);
    // From here on, paths are below `under`; `prefix` puts it back for the folder names.
    let prefix = under.map(|under| format!("{under}/")).unwrap_or_default();
    if let Some(under) = under {
        files = files
            .into_iter()
            .filter_map(|(path, bytes)| {
                path.strip_prefix(&prefix)
                    .map(|rest| (rest.to_owned(), bytes))
            })
            .collect();
        withheld = withheld
            .into_iter()
            .filter_map(|mut entry| {
                let rest = entry.path.strip_prefix(&prefix)?.to_owned();
                entry.path = rest;
                Some(entry)
            })
            .collect();
        if files.is_empty() && withheld.is_empty() {
            return Err(format!("the archive holds nothing under '{under}'"));
        }
    }
    let mut folders: Vec<String> = files
        .iter()
        .map(|(path, _)| path.as_str())
        .chain(withheld.iter().map(|entry| entry.path.as_str()))
        .filter_map(|path| {
            let (folder, file) = path.rsplit_once('/').unwrap_or(("", path));
            let searched = !is_excluded_source_path(&folder.split('/').collect::<Vec<_>>());
            (is_skill_md(file) && (folder.is_empty() || searched)).then(|| folder.to_owned())
        })
        .collect();
    folders.sort();
    folders.dedup();
    // A skill's own subfolders may hold a SKILL.md (an example, a template): it belongs to
    // the outer skill.
    let mut outer: Vec<String> = Vec::new();
    for folder in folders {
        if !outer.iter().any(|skill| inside(&folder, skill)) {
            outer.push(folder);
        }
    }
    if outer.is_empty() {
        return Err(match under {
            Some(under) => format!("no folder under '{under}' holds a SKILL.md"),
            None => "no folder in the archive holds a SKILL.md".to_owned(),
        });
    }
    let name_of = |folder: &str| {
        if folder.is_empty() {
            under
                .and_then(|under| under.rsplit('/').next())
                .map(str::to_owned)
        } else {
            folder.rsplit('/').next().map(str::to_owned)
        }
    };
    // Where a path lies: the skill holding it and the path inside that skill, or `None` for
    // a path outside every skill or hidden inside one (never part of it).
    let place = |path: &str| -> Option<(usize, String)> {
        let index = outer.iter().position(|skill| inside(path, skill))?;
        let relative = if outer[index].is_empty() {
            path
        } else {
            // A file named like the skill's folder is not in it (an extraction refuses one).
            path.strip_prefix(outer[index].as_str())?
                .strip_prefix('/')?
        };
        (!is_hidden_path(relative)).then(|| (index, relative.to_owned()))
    };
    let mut refusals: Vec<Option<String>> = vec![None; outer.len()];
    for entry in &withheld {
        if let Some((index, _)) = place(&entry.path) {
            let named = name_of(&outer[index])
                .map(|name| format!(" '{name}'"))
                .unwrap_or_default();
            refusals[index].get_or_insert_with(|| {
                format!("{}; it is part of the skill{named}", entry.refusal)
            });
        }
    }
    let mut downloads: Vec<Download> = outer
        .iter()
        .map(|folder| Download {
            name: name_of(folder),
            files: Vec::new(),
            version: None,
            url: url.clone(),
        })
        .collect();
    for (path, bytes) in files {
        let Some((index, relative)) = place(&path) else {
            continue;
        };
        let relative = if is_skill_md(&relative) {
            SKILL_MD.to_owned()
        } else {
            relative
        };
        downloads[index].files.push((relative, bytes));
    }
    for download in &mut downloads {
        download.files.sort_by(|a, b| a.0.cmp(&b.0));
    }
    let found = downloads
        .into_iter()
        .zip(refusals)
        .zip(&outer)
        .map(|((download, refusal), folder)| {
            let folder = if folder.is_empty() {
                prefix.trim_end_matches('/').to_owned()
            } else {
                format!("{prefix}{folder}")
            };
            Found {
                plugins: manifests.of(&folder),
                download,
                folder,
                refusal,
            }
        })
        .collect();
    Ok(Search {
        found,
        plugins: manifests.names(),
        warnings: manifests.warnings,
    })
}

/// Whether a file name is the definition file `SKILL.md` or one of its case variants.
fn is_skill_md(file: &str) -> bool {
    match_definition(file).is_some_and(|found| found.file.name == SKILL_MD)
}

/// Whether `path` is `folder` itself or below it (`""` holds everything).
fn inside(path: &str, folder: &str) -> bool {
    folder.is_empty()
        || path
            .strip_prefix(folder)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The one folder every entry sits under, if there is one.
fn single_top_folder<'a>(paths: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut top: Option<&str> = None;
    for path in paths {
        let (first, _) = path.split_once('/')?;
        match top {
            None => top = Some(first),
            Some(seen) if seen == first => {}
            Some(_) => return None,
        }
    }
    top
}
