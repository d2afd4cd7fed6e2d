//! What a request's targets name: skill folders, found by path or by catalog name, and the
//! options and checks every scan of one request shares. Both [`crate::audit`] and
//! [`crate::accept`] read targets this way.

use std::path::{Path, PathBuf};

use skills_types::audit::{AuditConfig, Skipped, Target};
use skills_types::{Catalog, Error};

use crate::report::Options;

/// One folder to scan: where it is, and how the report names it.
pub(crate) struct Folder {
    /// The folder itself (a link resolved), read by the scan and keyed by acceptances.
    pub(crate) real: PathBuf,
    /// The folder as given or as discovered: the report's `skill_path`.
    pub(crate) shown: PathBuf,
}

/// The options every scan of one request shares. The neighbours are every name of the
/// catalog, shared rather than narrowed per skill (a skill's own name among them is no
/// imitation). The `[audit] rules` folders are compiled once here: a folder that is missing
/// or a rule file that does not compile fails the request, since a scan without the user's
/// rules would say "clean" where their rules would not.
pub(crate) fn options(catalog: &Catalog, settings: &AuditConfig) -> Result<Options, Error> {
    check_rule_folders(settings)?;
    Options::new()
        .with_neighbours(
            catalog
                .skills
                .iter()
                .map(|skill| skill.name.clone())
                .collect(),
        )
        .with_rule_dirs(&settings.rules)
}

/// Every `[audit] rules` folder must be a folder: a scan without the user's rules would say
/// "clean" where their rules would not.
pub(crate) fn check_rule_folders(settings: &AuditConfig) -> Result<(), Error> {
    for folder in &settings.rules {
        match std::fs::metadata(folder) {
            Ok(metadata) if metadata.is_dir() => {}
            Ok(_) => {
                return Err(Error::NotADirectory {
                    path: folder.clone(),
                });
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::AuditRulesInvalid {
                    path: folder.clone(),
                    reason: "the [audit] rules folder does not exist (create it, or remove it \
                             from skills.toml)"
                        .to_owned(),
                });
            }
            Err(source) => return Err(Error::io("inspect", folder, source)),
        }
    }
    Ok(())
}

/// The folders `targets` name (every skill of the catalog when there is none), each with the
/// target as written, and the targets that name nothing scannable. A folder named twice is
/// scanned once.
pub(crate) fn folders(
    catalog: &Catalog,
    targets: &[String],
) -> (Vec<(String, Folder)>, Vec<Skipped>) {
    let mut found: Vec<(String, Folder)> = Vec::new();
    let mut skipped = Vec::new();
    if targets.is_empty() {
        for skill in &catalog.skills {
            match real_folder(&skill.dir) {
                Ok(real) => found.push((
                    skill.name.clone(),
                    Folder {
                        real,
                        shown: skill.dir.clone(),
                    },
                )),
                Err(error) => skipped.push(Skipped {
                    file: skill.name.clone(),
                    reason: error.to_string(),
                }),
            }
        }
        return (found, skipped);
    }
    for target in targets {
        match folder_of(catalog, target) {
            Ok(folder) if found.iter().any(|(_, known)| known.real == folder.real) => {}
            Ok(folder) => found.push((target.clone(), folder)),
            Err(error) => skipped.push(Skipped {
                file: target.clone(),
                reason: error.to_string(),
            }),
        }
    }
    (found, skipped)
}

/// The skill folder one target names: a folder holding a definition file (or the definition
/// file itself), a folder holding an MCP configuration or a plugin manifest but no skill,
/// or a skill of the catalog by name or folder name.
pub(crate) fn folder_of(catalog: &Catalog, target: &str) -> Result<Folder, Error> {
    match Target::of(target) {
        Target::Path(path) => {
            let dir = match skills_ops::load::find_definition(path) {
                Ok(_) => path.to_path_buf(),
                // A definition file named directly stands for its folder.
                Err(Error::NotADirectory { .. })
                    if path
                        .file_name()
                        .and_then(|name| name.to_str())
                        .is_some_and(|name| {
                            skills_types::files::match_definition(name).is_some()
                        }) =>
                {
                    path.parent()
                        .filter(|parent| !parent.as_os_str().is_empty())
                        .unwrap_or(Path::new("."))
                        .to_path_buf()
                }
                // An MCP configuration or a plugin without a skill is scanned too: a
                // host starts its servers by itself (docs/decisions.md).
                Err(Error::NoDefinitionFile { .. }) if crate::analyzers::holds_mcp_config(path) => {
                    path.to_path_buf()
                }
                Err(error) => return Err(error),
            };
            Ok(Folder {
                real: real_folder(&dir)?,
                shown: dir,
            })
        }
        Target::Name(name) => {
            let skill = skills_ops::catalog::resolve(catalog, name).map_err(|error| {
                // A word that is also a folder here is most likely meant as the folder.
                match error {
                    Error::SkillNotFound { .. } if Path::new(name).is_dir() => {
                        Error::InvalidInput(format!(
                            "{error}; to scan the folder '{name}', write it as a path: ./{name}"
                        ))
                    }
                    other => other,
                }
            })?;
            Ok(Folder {
                real: real_folder(&skill.dir)?,
                shown: skill.dir.clone(),
            })
        }
    }
}

/// The folder itself: resolved (links followed, `..` gone), as acceptances are keyed and as
/// the scan, which follows no link, must be given it.
fn real_folder(dir: &Path) -> Result<PathBuf, Error> {
    std::fs::canonicalize(dir).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => Error::NotFound {
            path: dir.to_path_buf(),
        },
        _ => Error::io("resolve", dir, source),
    })
}

#[cfg(test)]
mod tests;
