//! How one install reaches several agents (`--agent NAME`, `--agent detected`): the skill is
//! written once, into the root `install` and `new` always write to, and each named agent whose
//! folder ([`skills_types::agents::AGENTS`]) is another place gets a relative symlink there,
//! `<agent folder>/<name> -> <relative path to the copy>`.
//!
//! A relative link keeps working when the workspace is moved or cloned elsewhere, and uninstall
//! finds and removes it with the copy (`manage::uninstall` looks in every agent folder of the
//! scope for links into the folder it removes). A link is published like a skill: made under a
//! staging name beside its place and renamed without replacing, so a taken name is never
//! overwritten without `force`, and with `force` swapped in one exchange.

use std::path::{Component, Path, PathBuf};

use skills_types::agents::{self, AGENTS, Agent, DETECTED};
use skills_types::files::STAGING_PREFIX;
use skills_types::{Error, SkillScope, SkillsConfig};

use crate::fs;

/// The agents `names` mean, each once, in the order first named; `detected` stands for
/// [`detected`]. An unknown name is refused with the list of known ones; `detected` finding
/// nothing is refused too, rather than silently reaching no agent.
pub fn resolve(config: &SkillsConfig, names: &[String]) -> Result<Vec<&'static Agent>, Error> {
    let mut chosen: Vec<&'static Agent> = Vec::new();
    for name in names {
        let found = if name.trim().eq_ignore_ascii_case(DETECTED) {
            let found = detected(config);
            if found.is_empty() {
                return Err(Error::InvalidInput(format!(
                    "--agent detected found no agent: none of their config folders ({}) exists in the home {} (or, for a project's, in the workspace {}); name the agents with --agent NAME",
                    markers(),
                    config.home.display(),
                    config.workspace.display()
                )));
            }
            found
        } else {
            vec![agents::find(name.trim()).ok_or_else(|| {
                Error::InvalidInput(format!(
                    "'{}' is not an agent this program knows; use app, agents or claude for a root, detected, or one of: {}",
                    name.escape_debug(),
                    agents::names().join(", ")
                ))
            })?]
        };
        for agent in found {
            if !chosen.iter().any(|known| known.name == agent.name) {
                chosen.push(agent);
            }
        }
    }
    Ok(chosen)
}

/// The agents whose config folder exists in the home, or (for a workspace marker) in the
/// workspace, in table order. Only folders count: a file named `.cursor` shows nothing.
pub fn detected(config: &SkillsConfig) -> Vec<&'static Agent> {
    let present = |base: &Path, relative: &str| {
        std::fs::metadata(base.join(relative)).is_ok_and(|meta| meta.is_dir())
    };
    AGENTS
        .iter()
        .filter(|agent| {
            agent
                .home_markers
                .iter()
                .any(|marker| present(&config.home, marker))
                || agent
                    .workspace_markers
                    .iter()
                    .any(|marker| present(&config.workspace, marker))
        })
        .collect()
}

fn markers() -> String {
    let mut all: Vec<String> = AGENTS
        .iter()
        .flat_map(|agent| agent.home_markers.iter().map(|marker| (*marker).to_owned()))
        .collect();
    all.dedup();
    all.join(", ")
}

/// The skill folders of `agents` in `scope` other than `root` (where the copy goes), each
/// once, as absolute paths. Refuses a folder reached through a symlink below the scope's
/// base: a link planted as `.windsurf` must not send a write elsewhere; and a project folder
/// that leads into the user's own places (the workspace being the home) by the same check as
/// the project root (`discover::overlap`).
pub fn folders(
    config: &SkillsConfig,
    scope: SkillScope,
    agents: &[&Agent],
    root: &Path,
) -> Result<Vec<PathBuf>, Error> {
    let Some(base) = base_of(config, scope) else {
        return Ok(Vec::new());
    };
    let places = (scope == SkillScope::Project)
        .then(|| crate::discover::user_places(&crate::discover::home_settings(config)));
    let mut folders: Vec<PathBuf> = Vec::new();
    for agent in agents {
        let Some(relative) = agent.dir(scope) else {
            continue;
        };
        let folder = base.join(relative);
        if folder == root || folders.contains(&folder) {
            continue;
        }
        if let Some(link) = symlinked_component(&base, relative) {
            return Err(Error::InvalidInput(format!(
                "{} is a symbolic link, so {}'s skill folder {} would be somewhere else; nothing was written (replace the link with a folder, or leave out --agent {})",
                link.display(),
                agent.display_name,
                folder.display(),
                agent.name
            )));
        }
        if let Some(places) = &places {
            places.check(scope, &folder)?;
        }
        folders.push(folder);
    }
    Ok(folders)
}

/// Every agent skill folder of `scope` (for uninstall's search for links), absolute.
pub fn all_folders(config: &SkillsConfig, scope: SkillScope) -> Vec<PathBuf> {
    let Some(base) = base_of(config, scope) else {
        return Vec::new();
    };
    let mut folders: Vec<PathBuf> = AGENTS
        .iter()
        .filter_map(|agent| agent.dir(scope))
        .map(|relative| base.join(relative))
        .collect();
    folders.sort();
    folders.dedup();
    folders
}

fn base_of(config: &SkillsConfig, scope: SkillScope) -> Option<PathBuf> {
    let base = match scope {
        SkillScope::Project => &config.workspace,
        SkillScope::User => &config.home,
        SkillScope::Legacy | SkillScope::Profile | SkillScope::Remote => return None,
    };
    Some(std::path::absolute(base).unwrap_or_else(|_| base.clone()))
}

/// The first existing component of `base/relative` (below `base`) that is a symlink.
fn symlinked_component(base: &Path, relative: &str) -> Option<PathBuf> {
    let mut path = base.to_path_buf();
    for part in relative.split('/') {
        path.push(part);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_symlink() => return Some(path),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

/// Checks, before anything is written, that `<folder>/<name>` is free in every folder, or
/// already a link to `copy`; anything else is a conflict unless `force`.
pub fn check(folders: &[PathBuf], name: &str, copy: &Path, force: bool) -> Result<(), Error> {
    for folder in folders {
        let place = folder.join(name);
        if !force && matches!(state(&place, copy), State::Taken) {
            return Err(Error::Conflict { path: place });
        }
    }
    Ok(())
}

/// What is at a link's place.
enum State {
    Free,
    /// A symlink that already leads to the copy.
    Linked,
    Taken,
}

fn state(place: &Path, copy: &Path) -> State {
    let Ok(meta) = std::fs::symlink_metadata(place) else {
        return State::Free;
    };
    if meta.is_symlink()
        && let (Ok(target), Ok(copy)) = (std::fs::canonicalize(place), std::fs::canonicalize(copy))
        && target == copy
    {
        return State::Linked;
    }
    State::Taken
}

/// Makes `<folder>/<name>` a relative symlink to `copy` in every folder (creating the folder),
/// and returns the links that lead to `copy` afterwards. A place that is taken is replaced only
/// with `force`, in one exchange; a link already there is kept as it is.
pub fn link(
    folders: &[PathBuf],
    name: &str,
    copy: &Path,
    force: bool,
) -> Result<Vec<PathBuf>, Error> {
    let mut links = Vec::with_capacity(folders.len());
    for folder in folders {
        let place = folder.join(name);
        match state(&place, copy) {
            State::Linked => {
                links.push(place);
                continue;
            }
            State::Taken if !force => return Err(Error::Conflict { path: place }),
            State::Free | State::Taken => {}
        }
        std::fs::create_dir_all(folder).map_err(|source| Error::io("create", folder, source))?;
        let target = relative_to(folder, copy);
        let staging = folder.join(format!("{STAGING_PREFIX}{name}-{}", fs::unique_suffix()));
        symlink(&target, &staging).map_err(|source| Error::io("link", &place, source))?;
        let published = if std::fs::symlink_metadata(&place).is_ok() {
            // `force`: the old entry goes to the staging name in the same step, then away.
            fs::exchange(&staging, &place).and_then(|()| remove_entry(&staging))
        } else {
            fs::rename_noreplace(&staging, &place)
        };
        if let Err(source) = published {
            let _ = remove_entry(&staging);
            return Err(match source.kind() {
                std::io::ErrorKind::AlreadyExists => Error::Conflict { path: place },
                _ => Error::io("link", &place, source),
            });
        }
        let _ = fs::sync_directory(folder);
        links.push(place);
    }
    Ok(links)
}

/// Removes a file, a symlink or a folder (never following a link inside it).
fn remove_entry(path: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(path)?;
    if meta.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(windows)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_dir(target, link)
}

#[cfg(not(any(unix, windows)))]
fn symlink(_target: &Path, _link: &Path) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "symbolic links are not supported on this platform",
    ))
}

/// The path from the folder `from` to `to`, both absolute and lexical (no `..`): the common
/// prefix is dropped and each remaining component of `from` becomes a `..`.
fn relative_to(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component<'_>> = from.components().collect();
    let to: Vec<Component<'_>> = to.components().collect();
    let common = from
        .iter()
        .zip(&to)
        .take_while(|(left, right)| left == right)
        .count();
    let mut relative = PathBuf::new();
    for _ in common..from.len() {
        relative.push("..");
    }
    for component in &to[common..] {
        relative.push(component.as_os_str());
    }
    relative
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &Path) -> SkillsConfig {
        SkillsConfig::new(dir.join("ws"), dir.join("home"))
    }

    #[test]
    fn relative_paths_climb_to_the_common_folder() {
        assert_eq!(
            relative_to(
                Path::new("/h/.windsurf/skills"),
                Path::new("/h/.agents/skills/x")
            ),
            Path::new("../../.agents/skills/x")
        );
        assert_eq!(
            relative_to(
                Path::new("/h/.codeium/windsurf/skills"),
                Path::new("/h/.agents/skills/x")
            ),
            Path::new("../../../.agents/skills/x")
        );
    }

    #[test]
    fn detection_reads_config_folders_in_the_home_and_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path());
        assert!(detected(&config).is_empty());
        std::fs::create_dir_all(config.home.join(".cursor")).unwrap();
        std::fs::create_dir_all(config.home.join(".codeium/windsurf")).unwrap();
        std::fs::create_dir_all(config.workspace.join(".roo")).unwrap();
        // A file is no config folder, and `.github` shows no Copilot.
        std::fs::write(config.home.join(".cline"), "").unwrap();
        std::fs::create_dir_all(config.workspace.join(".github")).unwrap();
        let names: Vec<&str> = detected(&config).iter().map(|agent| agent.name).collect();
        assert_eq!(names, ["cursor", "roo", "windsurf"]);
        let resolved = resolve(&config, &["detected".into(), "Cursor".into()]).unwrap();
        assert_eq!(resolved.len(), 3, "each agent once");
    }

    #[test]
    fn resolve_refuses_unknown_names_and_an_empty_detection() {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path());
        let message = resolve(&config, &["vim".into()]).unwrap_err().to_string();
        assert!(
            message.contains("'vim'") && message.contains("windsurf"),
            "{message}"
        );
        let message = resolve(&config, &["detected".into()])
            .unwrap_err()
            .to_string();
        assert!(message.contains("found no agent"), "{message}");
        assert!(resolve(&config, &[]).unwrap().is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn links_are_relative_refuse_taken_places_and_are_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path());
        let root = std::path::absolute(config.home.join(".agents/skills")).unwrap();
        let copy = root.join("x");
        std::fs::create_dir_all(&copy).unwrap();
        std::fs::write(copy.join("SKILL.md"), "---\nname: x\ndescription: d\n---\n").unwrap();
        let chosen = resolve(
            &config,
            &["cursor".into(), "windsurf".into(), "claude-code".into()],
        )
        .unwrap();
        let folders = folders(&config, SkillScope::User, &chosen, &root).unwrap();
        // Cursor reads the shared root: only Windsurf and Claude Code need a link.
        assert_eq!(folders.len(), 2, "{folders:?}");
        check(&folders, "x", &copy, false).unwrap();
        let links = link(&folders, "x", &copy, false).unwrap();
        let windsurf = config.home.join(".codeium/windsurf/skills/x");
        assert_eq!(
            std::fs::read_link(&windsurf).unwrap(),
            Path::new("../../../.agents/skills/x")
        );
        assert!(windsurf.join("SKILL.md").is_file());
        assert_eq!(links.len(), 2);
        // Again: nothing changes, nothing is refused.
        assert_eq!(link(&folders, "x", &copy, false).unwrap(), links);

        // Someone's own folder under the name is never replaced without force.
        let claude = config.home.join(".claude/skills/x");
        std::fs::remove_file(&claude).unwrap();
        std::fs::create_dir_all(&claude).unwrap();
        std::fs::write(claude.join("mine.md"), "mine").unwrap();
        assert!(matches!(
            check(&folders, "x", &copy, false),
            Err(Error::Conflict { .. })
        ));
        assert!(matches!(
            link(&folders, "x", &copy, false),
            Err(Error::Conflict { .. })
        ));
        assert!(claude.join("mine.md").is_file());
        link(&folders, "x", &copy, true).unwrap();
        assert!(std::fs::symlink_metadata(&claude).unwrap().is_symlink());
        let leftovers: Vec<_> = std::fs::read_dir(config.home.join(".claude/skills"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, ["x"], "no staging entry is left");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_agent_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path());
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::create_dir_all(&config.home).unwrap();
        std::os::unix::fs::symlink(&elsewhere, config.home.join(".roo")).unwrap();
        let chosen = resolve(&config, &["roo".into()]).unwrap();
        let root = config.home.join(".agents/skills");
        let message = folders(&config, SkillScope::User, &chosen, &root)
            .unwrap_err()
            .to_string();
        assert!(message.contains("symbolic link"), "{message}");
    }
}
