//! Creating, updating and uninstalling skills (02 §Create, update, uninstall).
//!
//! Every write is atomic and refuses to overwrite: a new skill is assembled in a staging folder
//! beside its destination (named with a leading `.`, so discovery never sees it half-written)
//! and published with a rename that fails if the name is taken; an update replaces each file
//! with a rename. Uninstall removes only what it was asked to, never follows a symlink inside a
//! skill, and removes a symlinked skill as a link, leaving its target alone.

use std::path::{Path, PathBuf};

use serde::Serialize;
use skills_types::files::{SKILL_MD, SKILL_TOML, STAGING_PREFIX, match_definition};
use skills_types::install::AgentTarget;
use skills_types::limits::{MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, MAX_SKILL_MD_BYTES};
use skills_types::manage::{CreateSkill, Uninstalled, UpdateSkill, Written};
use skills_types::skill::SkillInput;
use skills_types::{Error, Frontmatter, SkillScope, SkillsConfig};

use crate::catalog::resolve;
use crate::discover::{discover, roots_of, scope_roots, settings, user_places};
use crate::load::{self, RawFrontmatter, Source};
use crate::{agents, fs, lock, name, trust, yaml};

mod template;

/// Creates a skill; refuses when its folder exists, and changes nothing then.
pub fn create(config: &SkillsConfig, request: &CreateSkill) -> Result<Written, Error> {
    check_name(&request.name)?;
    check_description(&request.description)?;
    check_inputs(&request.inputs)?;
    let root = write_root(config, request.scope, request.agent)?;
    let chosen = agents::resolve(config, &request.agents)?;
    let agent_folders = agents::folders(config, request.scope, &chosen, &root)?;
    std::fs::create_dir_all(&root).map_err(|source| Error::io("create", &root, source))?;
    // The same lock installs take: their clean-up of stale staging folders must not remove
    // this one, and two writers of one name must not both see it free.
    let _lock = lock::hold(&root)?;
    let destination = root.join(&request.name);
    if std::fs::symlink_metadata(&destination).is_ok() {
        return Err(Error::AlreadyExists { path: destination });
    }
    // Every agent folder's place is checked before the skill is written: a taken one stops
    // `new` with nothing written.
    // `new` has no `--force`: a taken place is said to exist, not to be forced.
    let taken = |error: Error| match error {
        Error::Conflict { path } => Error::AlreadyExists { path },
        other => other,
    };
    agents::check(&agent_folders, &request.name, &destination, false).map_err(taken)?;

    let mut frontmatter = Frontmatter {
        name: request.name.clone(),
        description: request.description.trim().into(),
        license: request.license.clone(),
        allowed_tools: request.allowed_tools.clone(),
        ..Frontmatter::default()
    };
    if let Some(author) = &request.author {
        frontmatter
            .metadata
            .insert("author".to_owned(), author.clone());
    }
    if !request.tags.is_empty() {
        frontmatter
            .metadata
            .insert("tags".to_owned(), request.tags.join(", "));
    }
    let script = request
        .script
        .map(|language| template::scaffold(&request.name, language, &request.inputs));
    let body = request.body.clone().unwrap_or_else(|| {
        scaffold(
            &request.name,
            &request.description,
            script.as_ref().map(|script| script.instructions.as_str()),
        )
    });
    let document = render_document(&frontmatter, &body)?;
    let sidecar = match &script {
        Some(script) => render_sidecar(&Sidecar {
            when_to_use: request.when_to_use.as_deref(),
            entry: Some(&script.entry),
            inputs: &script.inputs,
            tests: std::slice::from_ref(&script.test),
        })?,
        None => render_sidecar(&Sidecar {
            when_to_use: request.when_to_use.as_deref(),
            inputs: &request.inputs,
            ..Sidecar::default()
        })?,
    };

    let staging = root.join(format!(
        "{STAGING_PREFIX}{}-{}",
        request.name,
        fs::unique_suffix()
    ));
    std::fs::create_dir(&staging).map_err(|source| Error::io("create", &staging, source))?;
    let published = (|| {
        fs::write_new(&staging.join(SKILL_MD), document.as_bytes())?;
        if let Some(sidecar) = &sidecar {
            fs::write_new(&staging.join(SKILL_TOML), sidecar.as_bytes())?;
        }
        if let Some(script) = &script {
            let path = staging.join(&script.entry);
            if let Some(folder) = path.parent() {
                std::fs::create_dir_all(folder)?;
            }
            fs::write_new(&path, script.script.as_bytes())?;
        }
        fs::sync_directory(&staging)?;
        fs::rename_noreplace(&staging, &destination)?;
        fs::sync_directory(&root)
    })();
    if let Err(source) = published {
        // Whatever happened, the staging folder goes; the destination was never touched
        // unless the rename succeeded.
        let _ = std::fs::remove_dir_all(&staging);
        return Err(match source.kind() {
            std::io::ErrorKind::AlreadyExists => Error::AlreadyExists { path: destination },
            _ => Error::io("write", &destination, source),
        });
    }
    let links = agents::link(&agent_folders, &request.name, &destination, false).map_err(taken)?;
    Ok(Written {
        name: request.name.clone(),
        scope: request.scope,
        location: destination.join(SKILL_MD),
        dir: destination,
        links,
    })
}

/// Changes a skill's frontmatter (and sidecar); the body is kept unless a new one is given.
/// Refuses a skill whose definition file does not parse: rewriting it would lose what the
/// author wrote.
pub fn update(config: &SkillsConfig, id: &str, changes: &UpdateSkill) -> Result<Written, Error> {
    let catalog = discover(config)?;
    let skill = resolve(&catalog, id)?.clone();
    if skill.scope == SkillScope::Legacy {
        return Err(Error::InvalidInput(
            "legacy skills (<workspace>/skills) are read-only here; move the skill to a project or user root first".to_owned(),
        ));
    }
    if let Some(description) = &changes.description {
        check_description(description)?;
    }
    if let Some(inputs) = &changes.inputs {
        check_inputs(inputs)?;
    }
    let bytes = load::read_definition(&skill.location, MAX_SKILL_MD_BYTES)?;
    let source = Source::parse(&bytes).map_err(|diagnostic| Error::Unloadable {
        path: skill.location.clone(),
        diagnostic: Box::new(diagnostic),
    })?;
    if let RawFrontmatter::Invalid(diagnostic) = source.frontmatter {
        return Err(Error::Unloadable {
            path: skill.location.clone(),
            diagnostic: Box::new(diagnostic),
        });
    }
    let mut frontmatter = skill.frontmatter.clone();
    if let Some(description) = &changes.description {
        frontmatter.description = description.trim().into();
    }
    if let Some(license) = &changes.license {
        frontmatter.license = Some(license.clone());
    }
    if let Some(author) = &changes.author {
        frontmatter
            .metadata
            .insert("author".to_owned(), author.clone());
    }
    if let Some(tags) = &changes.tags {
        frontmatter
            .metadata
            .insert("tags".to_owned(), tags.join(", "));
    }
    if let Some(tools) = &changes.allowed_tools {
        frontmatter.allowed_tools = tools.clone();
    }
    let body = changes.body.as_deref().unwrap_or(source.body);
    let document = render_document(&frontmatter, body)?;
    let when_to_use = changes
        .when_to_use
        .as_deref()
        .or(skill.when_to_use.as_deref());
    let inputs = changes.inputs.as_ref().unwrap_or(&skill.inputs);
    // The definition file is written back under its canonical name; a case variant such as
    // `skill.md` is replaced by `SKILL.md`.
    let location = skill.dir.join(SKILL_MD);
    fs::write_atomic(&location, document.as_bytes())
        .map_err(|source| Error::io("write", &location, source))?;
    if location != skill.location {
        std::fs::remove_file(&skill.location)
            .map_err(|source| Error::io("remove", &skill.location, source))?;
    }
    if changes.when_to_use.is_some() || changes.inputs.is_some() {
        // The sidecar the skill has, or a new `skill.toml`.
        let path =
            crate::discover::sidecar_file(&skill.dir).unwrap_or_else(|| skill.dir.join(SKILL_TOML));
        let existing = match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => return Err(Error::io("read", &path, source)),
        };
        let sidecar = Sidecar {
            when_to_use,
            inputs,
            ..Sidecar::default()
        };
        let text = match &existing {
            Some(existing) => Some(edit_sidecar(existing, &sidecar, &path)?),
            None => render_sidecar(&sidecar)?,
        };
        if let Some(text) = text {
            fs::write_atomic(&path, text.as_bytes())
                .map_err(|source| Error::io("write", &path, source))?;
        }
    }
    Ok(Written {
        links: Vec::new(),
        name: skill.name,
        scope: skill.scope,
        dir: skill.dir,
        location,
    })
}

/// Removes the skill folder `name` from a user root or a trusted project root (`scope` picks
/// one; without it, the one place it is found, or an error when it is in several). `name` is
/// the folder name, or the name `list` shows when that names exactly one skill.
///
/// Nothing is removed until everything has been checked: the folder holds a definition file,
/// the root's `.skills-installed.json` is readable, and the name is in exactly one place. Agent
/// symlinks in the same scope that point at the removed folder (`.claude/skills/NAME ->
/// ../../.agents/skills/NAME`, as other installers make them) go with it; they would dangle.
pub fn uninstall(
    config: &SkillsConfig,
    name: &str,
    scope: Option<SkillScope>,
) -> Result<Uninstalled, Error> {
    let trusted = trust::is_trusted(config);
    let scopes: Vec<SkillScope> = match scope {
        Some(SkillScope::Legacy | SkillScope::Remote | SkillScope::Profile) => {
            return Err(Error::InvalidInput(format!(
                "skills can be uninstalled from the user or project scope, not {}",
                scope.map_or("", SkillScope::as_str)
            )));
        }
        Some(SkillScope::Project) if !trusted => {
            return Err(Error::UntrustedWorkspace {
                workspace: config.workspace.clone(),
            });
        }
        Some(scope) => vec![scope],
        None if trusted => vec![SkillScope::Project, SkillScope::User],
        None => vec![SkillScope::User],
    };
    if scope == Some(SkillScope::Project) {
        refuse_overlapping(config, name)?;
    }
    let (folder, found) = locate(config, name, &scopes, trusted)?;
    let places = places_of(found);
    let mut place = match <[Place; 1]>::try_from(places) {
        Ok([place]) => place,
        Err(places) => return Err(ambiguous(name, &places)),
    };
    let Found {
        scope,
        root,
        path,
        metadata,
        ..
    } = place.primary;
    let was_link = metadata.is_symlink();
    if !was_link && (!metadata.is_dir() || !holds_definition(&path)) {
        return Err(Error::InvalidInput(format!(
            "{} is not a skill folder (no SKILL.md in it); nothing was removed",
            path.display()
        )));
    }
    // Links elsewhere in the scope that lead to the folder (under any name) dangle once it is
    // gone; only symlinks are collected, never a real folder.
    for link in links_to(config, scope, &path, place.real.as_deref(), was_link) {
        if !place.links.contains(&link) {
            place.links.push(link);
        }
    }
    place.links.sort();

    let _lock = lock::hold(&root)?;
    // Read before anything is removed: a broken record stops the uninstall unchanged.
    let mut record = lock::read(&root)?;
    if was_link {
        // Only the link goes; whatever it points to is not ours to delete.
        std::fs::remove_file(&path).map_err(|source| Error::io("remove", &path, source))?;
    } else {
        // std's remove_dir_all opens each level relative to its parent and never follows a
        // symlink inside the tree (the fix for CVE-2022-21658), so a link planted inside the
        // skill cannot make it delete files elsewhere.
        std::fs::remove_dir_all(&path).map_err(|source| Error::io("remove", &path, source))?;
    }
    let mut links = Vec::with_capacity(place.links.len());
    for link in place.links {
        // Checked again just before: a link replaced by a real folder meanwhile stays.
        let still_a_link = std::fs::symlink_metadata(&link).is_ok_and(|meta| meta.is_symlink());
        if still_a_link && std::fs::remove_file(&link).is_ok() {
            if let Some(parent) = link.parent() {
                let _ = fs::sync_directory(parent);
            }
            links.push(link);
        }
    }
    let _ = fs::sync_directory(&root);
    if record.forget(&folder) {
        lock::write(&root, &record)?;
    }
    Ok(Uninstalled {
        name: folder,
        scope,
        path,
        was_link,
        links,
    })
}

/// Refuses `uninstall --scope project NAME` when NAME is not in a project root but is in a
/// "project" root that leads into the user's own places (`<ws>/.agents` a link to
/// `~/.agents`): removing it there would remove the user's own skill. Discovery lists such a
/// skill as the user's, and the error names the link.
fn refuse_overlapping(config: &SkillsConfig, name: &str) -> Result<(), Error> {
    let (roots, overlapping) = scope_roots(config, SkillScope::Project);
    let present = |root: &Path| std::fs::symlink_metadata(root.join(name)).is_ok();
    if check_folder_name(name).is_err() || roots.iter().any(|root| present(root)) {
        return Ok(());
    }
    match overlapping.iter().find(|overlap| present(&overlap.root)) {
        Some(overlap) => Err(overlap.error()),
        None => Ok(()),
    }
}

/// Something at `<root>/<folder>` in one of the searched scopes.
struct Found {
    scope: SkillScope,
    root: PathBuf,
    path: PathBuf,
    metadata: std::fs::Metadata,
}

/// One skill as uninstall sees it: the folder (or the link) to remove, and the links in the
/// same scope under the same name that lead to it.
struct Place {
    primary: Found,
    /// Where the primary really is (symlinks resolved), when that can be said.
    real: Option<PathBuf>,
    links: Vec<PathBuf>,
}

/// The folder name meant by `name` and everything found under it in `scopes`.
fn locate(
    config: &SkillsConfig,
    name: &str,
    scopes: &[SkillScope],
    trusted: bool,
) -> Result<(String, Vec<Found>), Error> {
    let checked = check_folder_name(name);
    if checked.is_ok() {
        let found = found_in(config, scopes, name);
        if !found.is_empty() {
            return Ok((name.to_owned(), found));
        }
    }
    // The name `list` shows (the frontmatter's) may differ from the folder's.
    let folders = listed_folders(config, name, scopes);
    match folders.as_slice() {
        [folder] => Ok((folder.clone(), found_in(config, scopes, folder))),
        [] => {
            checked?;
            Err(not_installed(config, name, trusted))
        }
        _ => Err(Error::AmbiguousSkill {
            name: name.to_owned(),
            others: format!(
                "{} skills have that name ({}); nothing was removed; uninstall the one you mean by its folder name",
                folders.len(),
                folders.join(", ")
            ),
        }),
    }
}

fn found_in(config: &SkillsConfig, scopes: &[SkillScope], folder: &str) -> Vec<Found> {
    let mut found = Vec::new();
    for &scope in scopes {
        for root in roots_of(config, scope) {
            let path = root.join(folder);
            if let Ok(metadata) = std::fs::symlink_metadata(&path) {
                found.push(Found {
                    scope,
                    root,
                    path,
                    metadata,
                });
            }
        }
    }
    found
}

/// The folder names of the skills (active or shadowed) in `scopes` whose listed name is
/// `name`, when their folder sits directly in a root of its scope.
fn listed_folders(config: &SkillsConfig, name: &str, scopes: &[SkillScope]) -> Vec<String> {
    let Ok(catalog) = discover(config) else {
        return Vec::new();
    };
    let mut folders: Vec<String> = catalog
        .skills
        .iter()
        .chain(&catalog.shadowed)
        .filter(|skill| skill.name == name && scopes.contains(&skill.scope))
        .filter(|skill| {
            skill.dir.parent().is_some_and(|parent| {
                roots_of(config, skill.scope)
                    .iter()
                    .any(|root| root == parent)
            })
        })
        .filter_map(|skill| skill.dir.file_name()?.to_str().map(str::to_owned))
        .filter(|folder| check_folder_name(folder).is_ok())
        .collect();
    folders.sort();
    folders.dedup();
    folders
}

/// Groups what was found into places: a symlink in a scope that leads to another entry of
/// the same scope (or to the same target as it) is part of that entry, not another copy.
fn places_of(found: Vec<Found>) -> Vec<Place> {
    let mut places: Vec<Place> = Vec::new();
    // Real folders first, so a link finds the folder it leads to already placed.
    let (folders, links): (Vec<Found>, Vec<Found>) = found
        .into_iter()
        .partition(|entry| !entry.metadata.is_symlink());
    for entry in folders.into_iter().chain(links) {
        let real = std::fs::canonicalize(&entry.path).ok();
        let same = places.iter_mut().find(|place| {
            entry.metadata.is_symlink()
                && place.primary.scope == entry.scope
                && real.is_some()
                && place.real == real
        });
        match same {
            Some(place) => place.links.push(entry.path),
            None => places.push(Place {
                primary: entry,
                real,
                links: Vec::new(),
            }),
        }
    }
    places
}

/// The symlinks in the roots of `scope` that lead to the skill at `path` (whose resolved
/// place is `real`), other than `path` itself. For a real folder, a link into it counts too.
fn links_to(
    config: &SkillsConfig,
    scope: SkillScope,
    path: &Path,
    real: Option<&Path>,
    is_link: bool,
) -> Vec<PathBuf> {
    let Some(real) = real else {
        return Vec::new();
    };
    let mut links = Vec::new();
    // The scope's roots and every agent's folder in it: `--agent NAME` puts links there.
    let mut folders = roots_of(config, scope);
    for folder in agents::all_folders(config, scope) {
        if !folders.contains(&folder) {
            folders.push(folder);
        }
    }
    for root in folders {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let candidate = entry.path();
            if candidate == path || !entry.file_type().is_ok_and(|kind| kind.is_symlink()) {
                continue;
            }
            let Ok(target) = std::fs::canonicalize(&candidate) else {
                continue;
            };
            let leads_here = if is_link {
                target == real
            } else {
                target.starts_with(real)
            };
            if leads_here {
                links.push(candidate);
            }
        }
    }
    links
}

/// The refusal for a name found in more than one place: nothing is removed, and the message
/// lists every place and says how to choose.
fn ambiguous(name: &str, places: &[Place]) -> Error {
    let listed: Vec<String> = places
        .iter()
        .map(|place| format!("{}: {}", place.primary.scope, place.primary.path.display()))
        .collect();
    let first = places.first().map(|place| place.primary.scope);
    let advice = if places
        .iter()
        .all(|place| Some(place.primary.scope) == first)
    {
        "remove the one you mean by hand".to_owned()
    } else {
        "say which with --scope user or --scope project".to_owned()
    };
    Error::AmbiguousSkill {
        name: name.to_owned(),
        others: format!(
            "it is installed in more than one place ({}); nothing was removed; {advice}",
            listed.join("; ")
        ),
    }
}

/// Why nothing was found to uninstall, as precisely as can be said.
fn not_installed(config: &SkillsConfig, name: &str, trusted: bool) -> Error {
    if !trusted
        && roots_of(config, SkillScope::Project)
            .iter()
            .any(|root| std::fs::symlink_metadata(root.join(name)).is_ok())
    {
        return Error::UntrustedWorkspace {
            workspace: config.workspace.clone(),
        };
    }
    if let Ok(catalog) = discover(config)
        && let Some(skill) = catalog
            .skills
            .iter()
            .find(|skill| skill.id == name || skill.name == name)
    {
        return Error::InvalidInput(format!(
            "the skill '{name}' is at {}, which is not directly under a user or project skill root; uninstall removes only those, so remove it by hand",
            skill.dir.display()
        ));
    }
    Error::SkillNotFound {
        name: name.to_owned(),
        suggestion: None,
    }
}

/// The root new skills of `scope` are written to, by `new` and by `install`: the `agent` root
/// asked for, else the home configuration's `[install] root`, else the scope's shared
/// `.agents/skills`, which Codex, Gemini CLI, OpenCode and other installers read too (a skill
/// in `<app_dir>/skills` is seen by this application alone). With `interop` off discovery
/// reads no shared root, so the default is then `<app_dir>/skills`.
///
/// A project root that leads into the user's own places (a link at `<ws>/.agents` to
/// `~/.agents`, or the workspace being the home) is refused before anything is created
/// through it (`root_outside_scope`, naming the link): every project-scope write (`new`,
/// `install`, the registry's installs) takes its root from here.
pub fn write_root(
    config: &SkillsConfig,
    scope: SkillScope,
    agent: Option<AgentTarget>,
) -> Result<PathBuf, Error> {
    let base = match scope {
        SkillScope::Legacy | SkillScope::Remote | SkillScope::Profile => {
            return Err(Error::InvalidInput(format!(
                "new skills are written to the user or project scope, not {scope} (which uninstall could not remove either)"
            )));
        }
        SkillScope::Project if !trust::is_trusted(config) => {
            return Err(Error::UntrustedWorkspace {
                workspace: config.workspace.clone(),
            });
        }
        SkillScope::Project => config.workspace.clone(),
        SkillScope::User => config.home.clone(),
    };
    let base = std::path::absolute(&base).unwrap_or(base);
    // Only the home layer is read: `[install]` is ignored in a workspace's file.
    let home_config = settings::effective(config, false).config;
    let fallback = if config.interop {
        AgentTarget::Agents
    } else {
        AgentTarget::App
    };
    let root = match agent.or(home_config.install_root).unwrap_or(fallback) {
        AgentTarget::App => base.join(&config.app_dir).join("skills"),
        AgentTarget::Agents => base.join(".agents/skills"),
        AgentTarget::Claude => base.join(".claude/skills"),
    };
    if scope == SkillScope::Project {
        user_places(&home_config).check(scope, &root)?;
    }
    Ok(root)
}

fn check_name(name: &str) -> Result<(), Error> {
    let problems = name::problems(name);
    if problems.is_empty() && name.trim() == name {
        return Ok(());
    }
    let reasons: Vec<String> = problems.into_iter().map(|(_, message)| message).collect();
    Err(Error::InvalidInput(if reasons.is_empty() {
        format!("the name '{name}' has surrounding spaces")
    } else {
        format!(
            "'{name}' cannot be a skill name: {} (lowercase letters, digits and single hyphens, at most {MAX_NAME_CHARS} characters)",
            reasons.join("; ")
        )
    }))
}

fn check_description(description: &str) -> Result<(), Error> {
    let length = description.trim().chars().count();
    if length == 0 {
        return Err(Error::InvalidInput(
            "the description is empty; say what the skill does and when to use it".to_owned(),
        ));
    }
    if length > MAX_DESCRIPTION_CHARS {
        return Err(Error::InvalidInput(format!(
            "the description is {length} characters long; at most {MAX_DESCRIPTION_CHARS} are allowed"
        )));
    }
    Ok(())
}

fn check_inputs(inputs: &[SkillInput]) -> Result<(), Error> {
    let mut seen = std::collections::HashSet::new();
    for input in inputs {
        let name = input.name.trim();
        if name.is_empty() {
            return Err(Error::InvalidInput("an input has an empty name".to_owned()));
        }
        if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(Error::InvalidInput(format!(
                "the input name '{}' holds spaces or control characters",
                name.escape_debug()
            )));
        }
        if !seen.insert(name.to_lowercase()) {
            return Err(Error::InvalidInput(format!(
                "the input '{name}' is given twice (names are compared ignoring case)"
            )));
        }
        if let Some(default) = &input.default
            && !input.kind.accepts(default)
        {
            return Err(Error::InvalidInput(format!(
                "the default of the input '{name}' is not a {} value",
                input.kind.as_str()
            )));
        }
    }
    Ok(())
}

/// The lexical check of a name given to `uninstall` (02): one plain folder name.
fn check_folder_name(name: &str) -> Result<(), Error> {
    let refused = name.is_empty()
        || name.chars().count() > MAX_NAME_CHARS
        || name.contains(['/', '\\', '\0'])
        || name.contains("..")
        || name.starts_with('.');
    if refused {
        return Err(Error::InvalidInput(format!(
            "'{}' is not a skill folder name (no separators, no '..', not hidden, at most {MAX_NAME_CHARS} characters)",
            name.escape_debug()
        )));
    }
    Ok(())
}

fn holds_definition(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.filter_map(Result::ok).any(|entry| {
            entry.file_type().is_ok_and(|kind| kind.is_file())
                && entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| match_definition(name).is_some())
        })
    })
}

/// `---`, the frontmatter, `---`, then the body.
fn render_document(frontmatter: &Frontmatter, body: &str) -> Result<String, Error> {
    let yaml = yaml::to_text(frontmatter).map_err(|message| Error::Internal {
        action: "encoding the frontmatter".to_owned(),
        reason: message,
    })?;
    let mut text = format!("---\n{yaml}---\n");
    if !body.starts_with('\n') {
        text.push('\n');
    }
    text.push_str(body);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// What a new skill's `skill.toml` says.
#[derive(Default, Serialize)]
struct Sidecar<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    when_to_use: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entry: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    inputs: &'a [SkillInput],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tests: &'a [skills_types::run::SelfTest],
}

/// The `skill.toml` sidecar, when there is anything to put in it.
fn render_sidecar(sidecar: &Sidecar<'_>) -> Result<Option<String>, Error> {
    if sidecar.when_to_use.is_none()
        && sidecar.entry.is_none()
        && sidecar.inputs.is_empty()
        && sidecar.tests.is_empty()
    {
        return Ok(None);
    }
    toml::to_string(sidecar)
        .map(Some)
        .map_err(|error| Error::Internal {
            action: "encoding the sidecar".to_owned(),
            reason: error.to_string(),
        })
}

/// `existing` with `when_to_use` and `inputs` replaced and every other key, comment and
/// the order kept: the sidecar also holds the entry, tools, tests and agent table, and an
/// update of two keys must not lose the rest. A file that does not parse is refused rather
/// than overwritten.
fn edit_sidecar(existing: &str, sidecar: &Sidecar<'_>, path: &Path) -> Result<String, Error> {
    let mut document: toml_edit::DocumentMut = existing.parse().map_err(|error| {
        Error::InvalidInput(format!(
            "{} does not parse ({error}); fix it by hand before changing the skill's inputs or when_to_use",
            path.display()
        ))
    })?;
    if let Some(text) = sidecar.when_to_use {
        document["when_to_use"] = toml_edit::value(text);
    }
    document.remove("inputs");
    if !sidecar.inputs.is_empty() {
        let rendered = render_sidecar(&Sidecar {
            inputs: sidecar.inputs,
            ..Sidecar::default()
        })?
        .unwrap_or_default();
        let mut fragment: toml_edit::DocumentMut =
            rendered
                .parse()
                .map_err(|error: toml_edit::TomlError| Error::Internal {
                    action: "encoding the inputs".to_owned(),
                    reason: error.to_string(),
                })?;
        if let Some(inputs) = fragment.remove("inputs") {
            document.insert("inputs", inputs);
        }
    }
    Ok(document.to_string())
}

/// The body of a new skill when none is given: the headings a good skill has, and the
/// instructions of its scaffolded script when it has one.
fn scaffold(name: &str, description: &str, instructions: Option<&str>) -> String {
    format!(
        "# {name}\n\n{}\n\n## When to use\n\n- (the situations this skill is for)\n\n{}",
        description.trim(),
        instructions.unwrap_or("## Instructions\n\n1. (the first step)\n")
    )
}

#[cfg(test)]
mod tests;
