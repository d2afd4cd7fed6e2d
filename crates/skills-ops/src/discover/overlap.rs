//! Workspace roots that are the user's own folders in disguise (issue 29 §4;
//! `docs/decisions.md` §A workspace root is never the user's own folder).
//!
//! A workspace's project, profile and legacy roots are found by name below the workspace
//! (`<ws>/.agents/skills`, `<ws>/skills`, ...) or named by its `skills.toml` (`paths`). Any of
//! them can lead somewhere else: `<ws>/.agents` a symlink to `~/.agents`, `<ws>/.claude/skills`
//! one to `~/.claude/skills`, a `paths` entry naming `~/.agents/skills`. Such a root is the
//! user's own folder, not the project's: listed as project scope it shows the user's skills
//! twice, and written as project scope it let `uninstall --scope project` delete the user's own
//! skill and `install --scope project` write into the user's root. So every root of a
//! workspace scope, whatever its source, is resolved once and compared, as a resolved path,
//! with the user's places resolved the same way: the home itself, its app folder and every
//! user root (the app's, the shared `.agents`, `.agent` and `.claude` ones, every agent's user
//! folder of `skills_types::agents::AGENTS`, and the home configuration's `paths`). A root that
//! is one of them, lies inside one, or holds one is not a workspace root: discovery skips it
//! with a diagnostic naming the link, and project-scope writes refuse it with an error naming
//! the link.
//!
//! A root that does not exist yet (an install creates it) is resolved through its nearest
//! existing ancestor, and a dangling link is followed to where it points, so a link at
//! `.agents` is seen before anything is created through it. A workspace that *is* the home
//! (`skills` run in `~`) is the honest case: its project roots are the user roots by name, so
//! they are skipped without a word and their skills listed once, as user skills; a project-scope
//! write there is refused with advice to use `--scope user`.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use skills_types::catalog::Root;
use skills_types::{Diagnostic, DiagnosticCode, Error, Severity, SkillScope, SkillsConfig};

/// How many symlinks one resolution follows before it stops and takes the rest as written
/// (the kernel's own limit, `MAXSYMLINKS`): a loop can neither be followed nor written
/// through, so stopping there hides nothing.
const MAX_LINKS: usize = 40;

/// The user's own places, each resolved once; the measure every workspace root is held to.
pub(crate) struct UserPlaces {
    /// Ordered most specific first: user roots, then the app folder, then the home.
    places: Vec<Place>,
    workspace: PathBuf,
    resolved_workspace: PathBuf,
    /// The workspace resolves to the home itself.
    workspace_is_home: bool,
}

/// One of the user's places.
struct Place {
    kind: Kind,
    /// As configured (absolute, links not resolved): what a message shows.
    path: PathBuf,
    resolved: PathBuf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    UserRoot,
    AppFolder,
    Home,
}

/// How a workspace root lies against a user place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Relation {
    Same,
    Inside,
    /// The root holds the place: a scan of it would find the place's skills.
    Around,
}

/// A workspace root that resolves into one of the user's places.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Overlap {
    /// The root's scope as planned (project, profile or legacy).
    pub(crate) scope: SkillScope,
    /// The root as planned (links not resolved).
    pub(crate) root: PathBuf,
    /// Where it leads.
    resolved: PathBuf,
    /// The symlink that takes it there and what that link says, when one does.
    link: Option<(PathBuf, PathBuf)>,
    /// The user place it meets, as configured.
    place: PathBuf,
    kind: Kind,
    relation: Relation,
    workspace_is_home: bool,
}

impl UserPlaces {
    /// The user's places under `config`: its home, the home's app folder, and `roots`, the
    /// user roots (absolute; `roots::user_places` names them all).
    pub(crate) fn of(config: &SkillsConfig, roots: Vec<PathBuf>) -> Self {
        let home = absolute(&config.home);
        let resolved_home = resolve(&home);
        let mut places: Vec<Place> = roots
            .into_iter()
            .map(|path| {
                let path = absolute(&path);
                // Below the home (most of them), the home is resolved once.
                let resolved = match path.strip_prefix(&home) {
                    Ok(relative) => resolve_from(resolved_home.clone(), relative),
                    Err(_) => resolve(&path),
                };
                Place {
                    kind: Kind::UserRoot,
                    path,
                    resolved,
                }
            })
            .collect();
        let app = home.join(&config.app_dir);
        places.push(Place {
            kind: Kind::AppFolder,
            resolved: resolve_from(resolved_home.clone(), Path::new(&config.app_dir)),
            path: app,
        });
        places.push(Place {
            kind: Kind::Home,
            path: home,
            resolved: resolved_home.clone(),
        });
        let mut seen = std::collections::HashSet::new();
        places.retain(|place| seen.insert((place.kind, place.resolved.clone())));
        let workspace = absolute(&config.workspace);
        let resolved_workspace = resolve(&workspace);
        Self {
            workspace_is_home: resolved_workspace == resolved_home,
            places,
            workspace,
            resolved_workspace,
        }
    }

    /// How `root` (a root of a workspace scope) meets the user's places, if it does.
    pub(crate) fn overlap(&self, scope: SkillScope, root: &Path) -> Option<Overlap> {
        let root = absolute(root);
        let resolved = match root.strip_prefix(&self.workspace) {
            Ok(relative) => resolve_from(self.resolved_workspace.clone(), relative),
            Err(_) => resolve(&root),
        };
        let (place, relation) = self.meets(&resolved)?;
        Some(Overlap {
            scope,
            link: first_link(&root, &self.workspace),
            resolved,
            place: place.path.clone(),
            kind: place.kind,
            relation,
            workspace_is_home: self.workspace_is_home,
            root,
        })
    }

    /// Refuses `root` as a place to write `scope` skills when it overlaps a user place.
    pub(crate) fn check(&self, scope: SkillScope, root: &Path) -> Result<(), Error> {
        match self.overlap(scope, root) {
            Some(overlap) => Err(overlap.error()),
            None => Ok(()),
        }
    }

    /// The most specific place `resolved` is or lies in, else the first it holds. Lying
    /// somewhere below the home is what every workspace in the home does, so only being the
    /// home, or holding it, counts for the home itself.
    fn meets(&self, resolved: &Path) -> Option<(&Place, Relation)> {
        let within = self.places.iter().find_map(|place| {
            if resolved == place.resolved {
                Some((place, Relation::Same))
            } else if place.kind != Kind::Home && resolved.starts_with(&place.resolved) {
                Some((place, Relation::Inside))
            } else {
                None
            }
        });
        within.or_else(|| {
            self.places
                .iter()
                .find(|place| place.resolved.starts_with(resolved))
                .map(|place| (place, Relation::Around))
        })
    }
}

impl Overlap {
    /// Why the root is not a workspace root, as a clause naming the link.
    fn reason(&self) -> String {
        let place = self.place.display();
        let what = match (self.kind, self.relation) {
            (Kind::UserRoot, Relation::Same) => format!("the user root {place}"),
            (Kind::UserRoot, Relation::Inside) => format!("inside the user root {place}"),
            (Kind::UserRoot, Relation::Around) => {
                format!("a folder that holds the user root {place}")
            }
            (Kind::AppFolder, Relation::Same) => format!("the home's app folder {place}"),
            (Kind::AppFolder, Relation::Inside) => {
                format!("inside the home's app folder {place}")
            }
            (Kind::AppFolder, Relation::Around) => {
                format!("a folder that holds the home's app folder {place}")
            }
            (Kind::Home, Relation::Around) => format!("a folder that holds the home {place}"),
            (Kind::Home, _) => format!("the home {place}"),
        };
        if self.workspace_is_home {
            return format!("the workspace is the home, so this root is {what}");
        }
        match &self.link {
            Some((link, target)) => format!(
                "{} is a symbolic link to {}, so the root leads to {}, which is {what}",
                link.display(),
                target.display(),
                self.resolved.display()
            ),
            None => format!("it leads to {}, which is {what}", self.resolved.display()),
        }
    }

    /// The refusal of a write to this root.
    pub(crate) fn error(&self) -> Error {
        let advice = if self.workspace_is_home {
            "use --scope user for the home's own skills"
        } else {
            "remove the link (or make it a real folder) to keep project skills apart, or use --scope user for the user's own skills"
        };
        Error::RootOutsideScope {
            root: self.root.clone(),
            scope: self.scope,
            reason: format!("{}; {advice}", self.reason()),
        }
    }

    /// What discovery says about skipping the root: nothing when the workspace is the home,
    /// where a project root being a user root is how it should be.
    pub(crate) fn diagnostic(&self) -> Option<Diagnostic> {
        if self.workspace_is_home {
            return None;
        }
        Some(
            Diagnostic::new(
                DiagnosticCode::RootOutsideScope,
                Severity::Warning,
                format!(
                    "{} is not used as a {} root: {}; its skills are not listed as the workspace's (remove the link to use it as a {} root)",
                    self.root.display(),
                    self.scope,
                    self.reason(),
                    self.scope
                ),
            )
            .with_path(&self.root),
        )
    }
}

/// Splits `roots` into those that are workspace roots and those that overlap a user place.
pub(crate) fn split(places: &UserPlaces, roots: Vec<Root>) -> (Vec<Root>, Vec<Overlap>) {
    let mut kept = Vec::with_capacity(roots.len());
    let mut overlapping = Vec::new();
    for root in roots {
        match places.overlap(root.scope, &root.path) {
            Some(overlap) => overlapping.push(overlap),
            None => kept.push(root),
        }
    }
    (kept, overlapping)
}

/// Where `path` (absolute) leads: see [`resolve_from`].
fn resolve(path: &Path) -> PathBuf {
    let root: PathBuf = path
        .components()
        .take_while(|component| matches!(component, Component::Prefix(_) | Component::RootDir))
        .collect();
    resolve_from(root, path)
}

/// Where `rest` leads from the resolved folder `start`: every symlink followed as the kernel
/// would follow it, a dangling one included, as long as each step exists; from the first
/// missing step on, the rest as written (that is where `create_dir_all` would make it).
fn resolve_from(start: PathBuf, rest: &Path) -> PathBuf {
    let mut resolved = start;
    // Steps still to take, the next one last; `None` is `..`.
    let mut pending: Vec<Option<OsString>> = Vec::new();
    queue(&mut pending, rest);
    let mut links = 0;
    let mut exists = true;
    while let Some(step) = pending.pop() {
        let Some(name) = step else {
            resolved.pop();
            continue;
        };
        let next = resolved.join(&name);
        if exists {
            match std::fs::symlink_metadata(&next) {
                Ok(metadata) if metadata.is_symlink() && links < MAX_LINKS => {
                    if let Ok(target) = std::fs::read_link(&next) {
                        links += 1;
                        if target.has_root() {
                            resolved = target
                                .components()
                                .take_while(|component| {
                                    matches!(component, Component::Prefix(_) | Component::RootDir)
                                })
                                .collect();
                        }
                        queue(&mut pending, &target);
                        continue;
                    }
                }
                Ok(_) => {}
                Err(_) => exists = false,
            }
        }
        resolved = next;
    }
    resolved
}

/// Puts the steps of `path` on `pending` so that its first step is taken next.
fn queue(pending: &mut Vec<Option<OsString>>, path: &Path) {
    for component in path.components().rev() {
        match component {
            Component::Normal(name) => pending.push(Some(name.to_owned())),
            Component::ParentDir => pending.push(None),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
}

/// The first symlink on `root` below `workspace` (the link a person made or cloned), else
/// the first anywhere on it, with what the link says.
fn first_link(root: &Path, workspace: &Path) -> Option<(PathBuf, PathBuf)> {
    let below = root
        .strip_prefix(workspace)
        .ok()
        .and_then(|relative| first_link_from(workspace, relative));
    below.or_else(|| first_link_from(Path::new(""), root))
}

fn first_link_from(base: &Path, rest: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut path = base.to_path_buf();
    for component in rest.components() {
        path.push(component);
        if !matches!(component, Component::Normal(_)) {
            continue;
        }
        match std::fs::symlink_metadata(&path) {
            Ok(metadata) if metadata.is_symlink() => {
                let target = std::fs::read_link(&path).ok()?;
                return Some((path, target));
            }
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests;
