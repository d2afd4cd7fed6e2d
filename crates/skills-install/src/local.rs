//! Reading a local source (09 §Publishers, "a local folder or archive") into memory, under
//! the same rules as an extraction, with no network.
//!
//! A folder is walked without following any link: each folder is opened relative to its
//! parent with `O_NOFOLLOW | O_DIRECTORY`, each file with `O_NOFOLLOW | O_NONBLOCK` and then
//! checked on the open descriptor, so nothing can be swapped for a link between a check and
//! an open. A symbolic link is never followed and its target never read: the peers copy what
//! a link points at, which is how a link to `~/.ssh/id_rsa` committed to a repository ends up
//! inside an agent's skill folder. [`read`] refuses the whole folder for one, naming it;
//! [`read_tree`] records it, and [`finder::skills_in`] refuses it when it lies inside a skill
//! being installed. Links that stay inside the folder are treated the same: telling the two
//! apart means resolving the link, which is the step that goes wrong, and a skill that needs
//! the file can hold the file. A file with more than one hard link is treated so for the
//! reason the safe reader refuses it (it may be a file from elsewhere), and so are FIFOs,
//! sockets and devices (never opened: a FIFO would hang the read). Hidden files (`.env`,
//! `.DS_Store`) and the folders no source is searched in (`.git`, `node_modules`, `target`,
//! virtual environments, caches: [`is_excluded_source_path`]) are skipped, never read; other
//! hidden folders are read like the extractor keeps them (`skills/.curated/<skill>`,
//! `.claude-plugin/`), and the skill finder leaves out whatever is hidden inside a skill. A
//! file over the per-file limit is not read past the limit and refuses only the skill that
//! holds it, as in an archive.
//!
//! The folder the user names is resolved as given (it may itself be a link the user made);
//! only what is below it is read without following links. A `.zip` or `.tar.gz` file is read
//! (at most the archive total) and goes through the one extractor.

#[cfg(test)]
mod tests;

use std::path::Path;

use skills_types::files::{is_excluded_source_path, may_enter_source_dir};

use skills_net::archive::{self, Format, Limits, Names, Tree, Withheld};

/// Reads the folder (or `.zip` / `.tar.gz` file) at `path`: `('/'-separated relative path,
/// bytes)`, sorted by path, without anything below a hidden folder. A symlink, a special file,
/// a file with several hard links or a file over the limit anywhere else below refuses the
/// whole read; [`read_tree`] with [`finder::skills_found`] refuses one only for the skill it
/// lies in. The installer itself always reads the tree form; this strict form is the tests'.
#[cfg(test)]
pub(crate) fn read(path: &Path, limits: &Limits) -> Result<Vec<(String, Vec<u8>)>, String> {
    let shown = path.display();
    read_tree(path, limits)?
        .into_files()
        .map_err(|why| format!("'{shown}' is refused: {why}"))
}

/// Reads the folder (or archive) at `path`, keeping what is not a regular file as
/// [`archive::Withheld`]s, never opened or followed.
pub(crate) fn read_tree(path: &Path, limits: &Limits) -> Result<Tree, String> {
    let shown = path.display();
    let metadata =
        std::fs::metadata(path).map_err(|error| format!("'{shown}' cannot be read: {error}"))?;
    if metadata.is_file() {
        return read_archive(path, limits);
    }
    if !metadata.is_dir() {
        return Err(format!(
            "'{shown}' is {}, not a folder or an archive",
            skills_ops::fs::file_kind(&metadata)
        ));
    }
    let mut walk = Walk {
        limits,
        entries: 0,
        total: 0,
        names: Names::default(),
        tree: Tree::default(),
    };
    imp::walk_root(path, &mut walk).map_err(|why| format!("'{shown}' is refused: {why}"))?;
    let mut tree = walk.tree;
    tree.files.sort_by(|a, b| a.0.cmp(&b.0));
    tree.withheld.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(tree)
}

fn read_archive(path: &Path, limits: &Limits) -> Result<Tree, String> {
    let shown = path.display();
    let bytes = skills_ops::fs::read_no_follow(path, limits.total)
        .map_err(|why| format!("'{shown}' cannot be read: {why}"))?
        .ok_or_else(|| format!("'{shown}' does not exist"))?;
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy())
        .unwrap_or_default();
    let format = Format::of_name(&name)
        .or_else(|| Format::sniff(&bytes))
        .ok_or_else(|| format!("'{shown}' is neither a folder nor a .zip or .tar.gz archive"))?;
    archive::extract_tree(&bytes, format, limits).map_err(|why| format!("'{shown}': {why}"))
}

/// The running totals of one folder read.
struct Walk<'a> {
    limits: &'a Limits,
    entries: usize,
    total: u64,
    names: Names,
    tree: Tree,
}

/// What the walk does with one name, decided before anything is opened.
enum Step {
    Skip,
    Visit(String),
}

impl Walk<'_> {
    /// Counts an entry and turns its name into the relative path below the root, or a skip.
    fn step(&mut self, parent: &str, name: &str, is_folder: bool) -> Result<Step, String> {
        let parents: Vec<&str> = parent.split('/').filter(|part| !part.is_empty()).collect();
        let skipped = if is_folder {
            !may_enter_source_dir(&parents, name)
        } else {
            // A file directly in a folder entered only on the way to a place inside it
            // (`.github/CODEOWNERS`) is not a skill's.
            name.starts_with('.') || is_excluded_source_path(&parents)
        };
        if skipped {
            return Ok(Step::Skip);
        }
        self.entries += 1;
        if self.entries > self.limits.entries {
            return Err(format!(
                "it holds more than {} files and folders",
                self.limits.entries
            ));
        }
        let relative = if parent.is_empty() {
            name.to_owned()
        } else {
            format!("{parent}/{name}")
        };
        let components = skills_types::path::check_named(&relative)
            .map_err(|refusal| format!("'{}' is refused: {refusal}", relative.escape_debug()))?;
        if is_folder {
            self.names.add_folder(&components)?;
        } else {
            self.names.add_file(&components)?;
        }
        Ok(Step::Visit(relative))
    }

    /// Reads an opened regular file through a counter, at most the file limit plus one byte.
    fn read_file(&mut self, relative: String, file: impl std::io::Read) -> Result<(), String> {
        use std::io::Read as _;
        let mut bytes = Vec::new();
        file.take(self.limits.file.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|error| format!("'{relative}' cannot be read: {error}"))?;
        let size = bytes.len() as u64;
        if size > self.limits.file {
            // Refuses the skill that holds it, not the folder (see [`finder::skills_found`]).
            let refusal = archive::too_large(&relative, self.limits.file);
            self.not_a_file(relative, refusal);
            return Ok(());
        }
        self.total += size;
        if self.total > self.limits.total {
            return Err(format!(
                "its files exceed {} bytes in total (at '{relative}')",
                self.limits.total
            ));
        }
        self.tree.files.push((relative, bytes));
        Ok(())
    }

    /// Records an entry that is not copied (a link, a special file, a hard-linked file, a file
    /// over the limit).
    fn not_a_file(&mut self, relative: String, refusal: String) {
        self.tree.withheld.push(Withheld {
            path: relative,
            refusal,
        });
    }
}

fn link_refusal(relative: &str, target: Option<String>) -> String {
    let target = target
        .map(|target| format!(" (to '{}')", target.escape_debug()))
        .unwrap_or_default();
    format!(
        "'{}' is a symbolic link{target}; links are never followed or copied from a local \
         folder, so put the file itself there",
        relative.escape_debug()
    )
}

#[cfg(unix)]
mod imp {
    use std::path::Path;

    use rustix::fd::{AsFd, OwnedFd};
    use rustix::fs::{AtFlags, FileType, Mode, OFlags};

    use super::{Step, Walk, link_refusal};

    fn base_flags() -> OFlags {
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC
    }

    pub(super) fn walk_root(path: &Path, walk: &mut Walk<'_>) -> Result<(), String> {
        // The root is the user's to name and may be a link; only what is below is read
        // without following links.
        let root = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|errno| format!("it cannot be opened ({errno})"))?;
        walk_folder(&root, "", walk)
    }

    fn walk_folder(folder: &OwnedFd, relative: &str, walk: &mut Walk<'_>) -> Result<(), String> {
        let shown = if relative.is_empty() { "." } else { relative };
        let mut names = Vec::new();
        for entry in rustix::fs::Dir::read_from(folder)
            .map_err(|errno| format!("'{shown}' cannot be listed ({errno})"))?
        {
            let entry = entry.map_err(|errno| format!("'{shown}' cannot be listed ({errno})"))?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            names.push(name.to_vec());
        }
        names.sort();
        for raw in names {
            let name = String::from_utf8(raw).map_err(|error| {
                format!(
                    "a name in '{shown}' is not UTF-8 ('{}')",
                    String::from_utf8_lossy(error.as_bytes()).escape_debug()
                )
            })?;
            let stat = rustix::fs::statat(folder, name.as_str(), AtFlags::SYMLINK_NOFOLLOW)
                .map_err(|errno| format!("'{shown}/{name}' cannot be examined ({errno})"))?;
            let kind = FileType::from_raw_mode(stat.st_mode);
            let Step::Visit(path) = walk.step(relative, &name, kind == FileType::Directory)? else {
                continue;
            };
            match kind {
                FileType::Directory => {
                    let child = rustix::fs::openat(
                        folder,
                        name.as_str(),
                        base_flags() | OFlags::DIRECTORY,
                        Mode::empty(),
                    )
                    .map_err(|errno| opened(&path, folder, &name, errno))?;
                    walk_folder(&child, &path, walk)?;
                }
                FileType::RegularFile if stat.st_nlink > 1 => {
                    walk.not_a_file(path.clone(), hard_links(&path, stat.st_nlink));
                }
                FileType::RegularFile => {
                    let file =
                        rustix::fs::openat(folder, name.as_str(), base_flags(), Mode::empty())
                            .map_err(|errno| opened(&path, folder, &name, errno))?;
                    // Checked on the open descriptor: what was examined above may have been
                    // replaced since.
                    let stat = rustix::fs::fstat(&file)
                        .map_err(|errno| format!("'{path}' cannot be examined ({errno})"))?;
                    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
                        return Err(format!("'{path}' changed while it was being read"));
                    }
                    if stat.st_nlink > 1 {
                        return Err(hard_links(&path, stat.st_nlink));
                    }
                    walk.read_file(path, std::fs::File::from(file))?;
                }
                FileType::Symlink => {
                    let target = rustix::fs::readlinkat(folder, name.as_str(), Vec::new())
                        .ok()
                        .map(|target| target.to_string_lossy().into_owned());
                    walk.not_a_file(path.clone(), link_refusal(&path, target));
                }
                FileType::Fifo => {
                    walk.not_a_file(path.clone(), special(&path, "a FIFO (named pipe)"))
                }
                FileType::Socket => walk.not_a_file(path.clone(), special(&path, "a socket")),
                FileType::CharacterDevice | FileType::BlockDevice => {
                    walk.not_a_file(path.clone(), special(&path, "a device"));
                }
                FileType::Unknown => {
                    walk.not_a_file(path.clone(), special(&path, "a special file"))
                }
            }
        }
        Ok(())
    }

    fn special(path: &str, kind: &str) -> String {
        format!("'{path}' is {kind}; only regular files and folders are read")
    }

    fn hard_links(path: &str, links: impl std::fmt::Display) -> String {
        format!(
            "'{path}' has {links} hard links; a file linked from elsewhere is not copied, so \
             put a copy of it there"
        )
    }

    /// An open refused by `O_NOFOLLOW` means the name became a link after it was examined.
    fn opened(path: &str, folder: &impl AsFd, name: &str, errno: rustix::io::Errno) -> String {
        if matches!(errno, rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) {
            let target = rustix::fs::readlinkat(folder, name, Vec::new())
                .ok()
                .map(|target| target.to_string_lossy().into_owned());
            return link_refusal(path, target);
        }
        format!("'{path}' cannot be opened ({errno})")
    }
}

#[cfg(not(unix))]
mod imp {
    use std::path::Path;

    use super::{Step, Walk, link_refusal};

    pub(super) fn walk_root(path: &Path, walk: &mut Walk<'_>) -> Result<(), String> {
        walk_folder(path, "", walk)
    }

    fn walk_folder(folder: &Path, relative: &str, walk: &mut Walk<'_>) -> Result<(), String> {
        let shown = if relative.is_empty() { "." } else { relative };
        let mut entries: Vec<_> = std::fs::read_dir(folder)
            .and_then(|entries| entries.collect::<Result<Vec<_>, _>>())
            .map_err(|error| format!("'{shown}' cannot be listed ({error})"))?;
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let name = entry.file_name().into_string().map_err(|name| {
                format!(
                    "a name in '{shown}' is not Unicode ('{}')",
                    name.to_string_lossy()
                )
            })?;
            let metadata = std::fs::symlink_metadata(entry.path())
                .map_err(|error| format!("'{shown}/{name}' cannot be examined ({error})"))?;
            let Step::Visit(path) = walk.step(relative, &name, metadata.is_dir())? else {
                continue;
            };
            if metadata.is_symlink() {
                let target = std::fs::read_link(entry.path())
                    .ok()
                    .map(|target| target.display().to_string());
                walk.not_a_file(path.clone(), link_refusal(&path, target));
            } else if metadata.is_dir() {
                walk_folder(&entry.path(), &path, walk)?;
            } else if metadata.is_file() {
                let bytes = skills_ops::fs::read_no_follow(
                    &entry.path(),
                    walk.limits.file.saturating_add(1),
                )
                .map_err(|why| format!("'{path}' cannot be read: {why}"))?
                .ok_or_else(|| format!("'{path}' disappeared while it was being read"))?;
                walk.read_file(path, bytes.as_slice())?;
            } else {
                let refusal = format!(
                    "'{path}' is {}; only regular files and folders are read",
                    skills_ops::fs::file_kind(&metadata)
                );
                walk.not_a_file(path.clone(), refusal);
            }
        }
        Ok(())
    }
}
