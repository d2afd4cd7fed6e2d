//! A skill's bundled files (02 §Resources): the inventory `show` lists, and
//! [`read_resource`], which an agent calls to load one file on demand through the safe reader.

use std::path::Path;

use skills_types::files::{SKILL_FILES, match_definition};
use skills_types::limits::{MAX_RELATIVE_PATH_COMPONENTS, MAX_RESOURCE_BYTES};
use skills_types::skill::{Resource, ResourceBytes, ResourceContent, ResourceKind};
use skills_types::{Error, Skill, SkillsConfig};

use crate::catalog::resolve;
use crate::discover::discover;
use crate::reader;

/// Files listed before the inventory stops: a skill folder is small, and one that is not
/// must not make `show` read a whole tree.
pub const MAX_LISTED_RESOURCES: usize = 1_000;

/// The files inside `skill_dir`, sorted by path: recursively, without following symlinks,
/// skipping hidden files and folders and the definition file itself.
pub fn inventory(skill_dir: &Path) -> Vec<Resource> {
    let mut found = Vec::new();
    walk(skill_dir, "", 0, &mut found);
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

fn walk(dir: &Path, prefix: &str, depth: usize, found: &mut Vec<Resource>) {
    if depth >= MAX_RELATIVE_PATH_COMPONENTS {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        if found.len() >= MAX_LISTED_RESOURCES {
            return;
        }
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        // The files of the skill format itself (definition, sidecar, manifest) are the skill,
        // not resources bundled with it.
        let format_file = prefix.is_empty()
            && (match_definition(&name).is_some()
                || SKILL_FILES.iter().any(|file| file.name == name));
        if name.starts_with('.') || format_file {
            continue;
        }
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        // `DirEntry::metadata` does not follow symlinks: a link is neither listed nor entered.
        let Ok(metadata) = entry.metadata() else {
            continue;
        };
        if metadata.is_dir() {
            walk(&entry.path(), &relative, depth + 1, found);
        } else if metadata.is_file() {
            found.push(Resource {
                kind: ResourceKind::of(&relative),
                path: relative,
                size: metadata.len(),
            });
        }
    }
}

/// The skill with its resources listed.
pub fn describe(config: &SkillsConfig, name: &str) -> Result<Skill, Error> {
    let catalog = discover(config)?;
    let mut skill = resolve(&catalog, name)?.clone();
    skill.resources = Some(inventory(&real_dir(&skill)?));
    Ok(skill)
}

/// The bundled files of each skill folder of `folders`, in the order given, walked in
/// parallel and without a discovery: for a server listing every file of a page of skills it
/// has just listed (the folders come from that listing, never from a request). A folder
/// reached through a symlink is walked at its target, as [`describe`] does; a folder that is
/// gone has no files.
pub fn inventories(folders: &[&Path]) -> Vec<Vec<Resource>> {
    use rayon::prelude::*;

    folders
        .par_iter()
        .map(|folder| real_folder(folder).map_or_else(|_| Vec::new(), |dir| inventory(&dir)))
        .collect()
}

/// One bundled file of the skill `id_or_name`, through the safe reader (03 §Reading files
/// safely), at most [`MAX_RESOURCE_BYTES`] of UTF-8 text.
pub fn read_resource(
    config: &SkillsConfig,
    id_or_name: &str,
    relative_path: &str,
) -> Result<ResourceContent, Error> {
    let (id, read) = read_with(config, id_or_name, relative_path, reader::read_beneath)?;
    Ok(ResourceContent {
        id,
        relative_path: read.relative_path,
        content: read.content,
        bytes: read.bytes,
    })
}

/// One bundled file's bytes, by every rule of [`read_resource`] but the text check.
pub fn read_resource_bytes(
    config: &SkillsConfig,
    id_or_name: &str,
    relative_path: &str,
) -> Result<ResourceBytes, Error> {
    let (id, read) = read_with(
        config,
        id_or_name,
        relative_path,
        reader::read_bytes_beneath,
    )?;
    Ok(ResourceBytes {
        id,
        relative_path: read.relative_path,
        data: read.data,
    })
}

/// Resolves the skill and reads `relative_path` in its folder with `read`, a refusal becoming
/// the error every caller reports; returns the skill's id with what was read.
fn read_with<T>(
    config: &SkillsConfig,
    id_or_name: &str,
    relative_path: &str,
    read: impl FnOnce(&Path, &str, u64) -> Result<T, reader::Refusal>,
) -> Result<(String, T), Error> {
    let catalog = discover(config)?;
    let skill = resolve(&catalog, id_or_name)?;
    let dir = real_dir(skill)?;
    let read =
        read(&dir, relative_path, MAX_RESOURCE_BYTES).map_err(|refusal| Error::PathRefused {
            path: relative_path.to_owned(),
            reason: refusal.to_string(),
            refusal: refusal.kind(),
        })?;
    Ok((skill.id.clone(), read))
}

/// The folder resources are read from. A skill reached through a symlinked folder (allowed by
/// the symlink policy, its target inside a root) is read from its target: the reader refuses a
/// symlinked root, and discovery has already vetted this one.
fn real_dir(skill: &Skill) -> Result<std::path::PathBuf, Error> {
    real_folder(&skill.dir)
}

fn real_folder(dir: &Path) -> Result<std::path::PathBuf, Error> {
    let metadata =
        std::fs::symlink_metadata(dir).map_err(|source| Error::io("inspect", dir, source))?;
    if metadata.is_symlink() {
        std::fs::canonicalize(dir).map_err(|source| Error::io("resolve", dir, source))
    } else {
        Ok(dir.to_path_buf())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inventory_lists_files_by_kind_and_skips_what_it_must() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (path, text) in [
            ("SKILL.md", "x"),
            ("skill.toml", "when_to_use = 'x'"),
            ("skill.json", "{}"),
            ("notes.md", "12345"),
            ("scripts/run.sh", "echo"),
            ("references/deep/api.md", "api"),
            ("assets/logo.svg", "<svg/>"),
            (".env", "SECRET=1"),
            (".git/config", "x"),
            ("templates/a/.hidden", "x"),
        ] {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        #[cfg(unix)]
        {
            let outside = tempfile::tempdir().unwrap();
            std::fs::write(outside.path().join("secret.md"), "s").unwrap();
            std::os::unix::fs::symlink(outside.path(), root.join("linked")).unwrap();
            std::os::unix::fs::symlink(outside.path().join("secret.md"), root.join("leak.md"))
                .unwrap();
        }
        let listed: Vec<(String, u64, ResourceKind)> = inventory(root)
            .into_iter()
            .map(|resource| (resource.path, resource.size, resource.kind))
            .collect();
        assert_eq!(
            listed,
            [
                ("assets/logo.svg".to_owned(), 6, ResourceKind::Asset),
                ("notes.md".to_owned(), 5, ResourceKind::Other),
                (
                    "references/deep/api.md".to_owned(),
                    3,
                    ResourceKind::Reference
                ),
                ("scripts/run.sh".to_owned(), 4, ResourceKind::Script),
            ]
        );
    }
}
