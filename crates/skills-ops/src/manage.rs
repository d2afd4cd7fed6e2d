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
use skills_types::limits::{MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, MAX_SKILL_MD_BYTES};
use skills_types::manage::{CreateSkill, Uninstalled, UpdateSkill, Written};
use skills_types::skill::SkillInput;
use skills_types::{Error, Frontmatter, SkillScope, SkillsConfig};

use crate::catalog::resolve;
use crate::discover::{discover, roots_of};
use crate::load::{self, RawFrontmatter, Source};
use crate::{fs, lock, name, trust, yaml};

/// Creates a skill; refuses when its folder exists, and changes nothing then.
pub fn create(config: &SkillsConfig, request: &CreateSkill) -> Result<Written, Error> {
    check_name(&request.name)?;
    check_description(&request.description)?;
    check_inputs(&request.inputs)?;
    let root = write_root(config, request.scope)?;
    std::fs::create_dir_all(&root).map_err(|source| Error::io("create", &root, source))?;
    // The same lock installs take: their clean-up of stale staging folders must not remove
    // this one, and two writers of one name must not both see it free.
    let _lock = fs::lock_root(&root).map_err(|source| Error::io("lock", &root, source))?;
    let destination = root.join(&request.name);
    if std::fs::symlink_metadata(&destination).is_ok() {
        return Err(Error::AlreadyExists { path: destination });
    }

    let mut frontmatter = Frontmatter {
        name: request.name.clone(),
        description: request.description.trim().to_owned(),
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
    let body = request
        .body
        .clone()
        .unwrap_or_else(|| scaffold(&request.name, &request.description));
    let document = render_document(&frontmatter, &body)?;
    let sidecar = render_sidecar(request.when_to_use.as_deref(), &request.inputs)?;

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
    Ok(Written {
        name: request.name.clone(),
        scope: request.scope,
        location: destination.join(SKILL_MD),
        dir: destination,
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
        frontmatter.description = description.trim().to_owned();
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
    if (changes.when_to_use.is_some() || changes.inputs.is_some())
        && let Some(sidecar) = render_sidecar(when_to_use, inputs)?
    {
        let path = skill.dir.join(SKILL_TOML);
        fs::write_atomic(&path, sidecar.as_bytes())
            .map_err(|source| Error::io("write", &path, source))?;
    }
    Ok(Written {
        name: skill.name,
        scope: skill.scope,
        dir: skill.dir,
        location,
    })
}

/// Removes the skill folder `name` from a user root or a trusted project root (`scope` picks
/// one; without it, the one place it is found, or an error when it is in both).
pub fn uninstall(
    config: &SkillsConfig,
    name: &str,
    scope: Option<SkillScope>,
) -> Result<Uninstalled, Error> {
    check_folder_name(name)?;
    let trusted = trust::is_trusted(config);
    let scopes: Vec<SkillScope> = match scope {
        Some(SkillScope::Legacy) | Some(SkillScope::Profile) => {
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
    let mut candidates = Vec::new();
    for scope in scopes {
        for root in roots_of(config, scope) {
            let path = root.join(name);
            if let Ok(metadata) = std::fs::symlink_metadata(&path) {
                candidates.push((scope, root, path, metadata));
            }
        }
    }
    if candidates.len() > 1 {
        // Several copies of one folder name: the one an agent uses now (the discovery winner)
        // is the one meant; failing that, the caller must remove the others by hand.
        let catalog = discover(config)?;
        let active: Vec<&Path> = catalog
            .skills
            .iter()
            .map(|skill| skill.dir.as_path())
            .collect();
        candidates.retain(|(_, _, path, _)| active.contains(&path.as_path()));
    }
    let (scope, root, path, metadata) = match candidates.len() {
        0 => return Err(not_installed(config, name, trusted)),
        1 => candidates.remove(0),
        _ => {
            let places: Vec<String> = candidates
                .iter()
                .map(|(scope, _, path, _)| format!("{scope}: {}", path.display()))
                .collect();
            return Err(Error::AmbiguousSkill {
                name: name.to_owned(),
                others: format!(
                    "it is installed in more than one place ({}); remove the one you mean by hand",
                    places.join("; ")
                ),
            });
        }
    };
    let was_link = metadata.is_symlink();
    if was_link {
        // Only the link goes; whatever it points to is not ours to delete.
        std::fs::remove_file(&path).map_err(|source| Error::io("remove", &path, source))?;
    } else {
        if !metadata.is_dir() || !holds_definition(&path) {
            return Err(Error::InvalidInput(format!(
                "{} is not a skill folder (no SKILL.md in it); nothing was removed",
                path.display()
            )));
        }
        // std's remove_dir_all opens each level relative to its parent and never follows a
        // symlink inside the tree (the fix for CVE-2022-21658), so a link planted inside the
        // skill cannot make it delete files elsewhere.
        std::fs::remove_dir_all(&path).map_err(|source| Error::io("remove", &path, source))?;
    }
    let _ = fs::sync_directory(&root);
    lock::forget(&root, name)?;
    Ok(Uninstalled {
        name: name.to_owned(),
        scope,
        path,
        was_link,
    })
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

/// The root a new skill of `scope` is written to: the first root of the scope.
fn write_root(config: &SkillsConfig, scope: SkillScope) -> Result<PathBuf, Error> {
    match scope {
        SkillScope::Legacy | SkillScope::Profile => Err(Error::InvalidInput(format!(
            "new skills are written to the user or project scope, not {scope} (which uninstall could not remove either)"
        ))),
        SkillScope::Project if !trust::is_trusted(config) => {
            Err(Error::UntrustedWorkspace {
                workspace: config.workspace.clone(),
            })
        }
        scope => roots_of(config, scope).into_iter().next().ok_or_else(|| {
            Error::InvalidInput(format!(
                "the {scope} scope has no root in this configuration (a profile scope needs a profile)"
            ))
        }),
    }
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
    let yaml = yaml::to_text(frontmatter).map_err(|message| {
        Error::InvalidInput(format!("the frontmatter cannot be written: {message}"))
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

/// The `skill.toml` sidecar, when there is anything to put in it.
fn render_sidecar(
    when_to_use: Option<&str>,
    inputs: &[SkillInput],
) -> Result<Option<String>, Error> {
    #[derive(Serialize)]
    struct Sidecar<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        when_to_use: Option<&'a str>,
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        inputs: &'a [SkillInput],
    }
    if when_to_use.is_none() && inputs.is_empty() {
        return Ok(None);
    }
    toml::to_string(&Sidecar {
        when_to_use,
        inputs,
    })
    .map(Some)
    .map_err(|error| Error::InvalidInput(format!("the sidecar cannot be written: {error}")))
}

/// The body of a new skill when none is given: the headings a good skill has.
fn scaffold(name: &str, description: &str) -> String {
    format!(
        "# {name}\n\n{}\n\n## When to use\n\n- (the situations this skill is for)\n\n## Instructions\n\n1. (the first step)\n",
        description.trim()
    )
}

#[cfg(test)]
mod tests;
