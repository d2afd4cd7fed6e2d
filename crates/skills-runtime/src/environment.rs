//! A skill's own environment (issue 30 §11): where `skills setup NAME` installs what the
//! skill declares, and what a run of the skill takes from it.
//!
//! Each skill folder gets one place in the home's app folder,
//! `<home>/<app_dir>/runtimes/envs/<name>-<digest of the folder's path>/`: the digest keeps
//! two skills of one name (the user's `pdf` and a project's `pdf`) apart, the name makes the
//! folder recognisable. In it:
//!
//! - `env-<unique>/`: what one setup made, `python/` (a virtual environment made by the
//!   interpreter runs use) and `node/` (`package.json` and npm's `node_modules`). Every setup
//!   fills a new one, so a setup that fails leaves the one in use untouched, and a venv is
//!   never moved after it was made (a venv's files name the folder they were made in);
//! - `setup.json`: the record of which `env-*` folder is in use and what it was made from;
//! - `.setup.lock`: held while a setup runs.
//!
//! All three go through the one state reader and writer (`skills_ops::state`, kinds
//! `skill-env`, `skill-env-record`, `skill-env-lock`). A record that is missing, broken or a
//! trap is a skill that is not set up: runs use the machine's interpreters, and a failed run
//! says how to set it up.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use skills_ops::state::{
    Folder, RUNTIMES_DIR, SETUP_RECORD_FILE, SKILL_ENV_PREFIX, SKILL_ENV_RECORD, SKILL_ENVS_DIR,
};
use skills_types::{Error, SkillsConfig};

/// The version of the record's shape; a record of another version is not read.
const RECORD_VERSION: u32 = 1;
/// The most characters of a skill's name kept in its environment's folder name.
const MAX_NAME_CHARS: usize = 40;
/// The hex digits of the folder digest kept in the folder name.
const DIGEST_CHARS: usize = 12;

/// The place of one skill folder's environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    /// `<home>/<app_dir>`, absolute.
    pub(crate) app: PathBuf,
    /// The folder's name in `runtimes/envs/`.
    pub(crate) key: String,
}

/// What `setup.json` holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record {
    pub(crate) version: u32,
    /// The skill's name when it was set up.
    pub(crate) skill: String,
    /// The `env-*` folder in use.
    pub(crate) env: String,
    /// What the environment was made from (declarations, added packages, interpreters): a
    /// setup with the same digest has nothing to do.
    pub(crate) digest: String,
    /// The Python part, when the skill has Python requirements.
    #[serde(default)]
    pub(crate) python: Option<PythonPart>,
    /// The npm dependencies installed, when the skill has a `package.json` with any.
    #[serde(default)]
    pub(crate) node_dependencies: Vec<String>,
    /// The Python requirements the user added (`--package`), kept for later setups.
    #[serde(default)]
    pub(crate) added: Vec<String>,
    /// Where the dependencies were declared.
    #[serde(default)]
    pub(crate) declared_in: Vec<String>,
    /// When, RFC 3339 UTC.
    pub(crate) set_up_at: String,
}

/// The Python part of a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PythonPart {
    /// The interpreter the virtual environment was made with: runs use the environment only
    /// while this is still the interpreter they would use (the user's choice wins).
    pub(crate) base: PathBuf,
    /// Its version then.
    pub(crate) base_version: Option<String>,
    /// The requirements installed.
    pub(crate) requirements: Vec<String>,
}

/// An environment in use: its folder and its record.
#[derive(Clone, Debug)]
pub(crate) struct InUse {
    pub(crate) dir: PathBuf,
    pub(crate) record: Record,
}

impl Place {
    /// The place of the skill `name` in `skill_dir` (absolute, as the runtime resolved it).
    pub(crate) fn of(config: &SkillsConfig, name: &str, skill_dir: &Path) -> Result<Self, Error> {
        let app = skills_ops::state::app_dir(config);
        let app = std::path::absolute(&app).map_err(|source| Error::io("resolve", &app, source))?;
        Ok(Self {
            app,
            key: key(name, skill_dir),
        })
    }

    /// The folders from the app folder down to this place.
    pub(crate) fn folders(&self) -> [&str; 3] {
        [RUNTIMES_DIR, SKILL_ENVS_DIR, &self.key]
    }

    /// The place's path, for messages.
    pub(crate) fn path(&self) -> PathBuf {
        self.folders()
            .iter()
            .fold(self.app.clone(), |dir, part| dir.join(part))
    }

    /// The place's folder, when it exists and no step to it is a link.
    pub(crate) fn open(&self) -> Option<Folder> {
        Folder::open(&self.app, &self.folders()).ok().flatten()
    }

    /// The environment in use, when the record reads and names an `env-*` folder that is
    /// there (a folder, not a link).
    pub(crate) fn in_use(&self) -> Option<InUse> {
        let folder = self.open()?;
        let record = read_record(&folder)?;
        let env = folder.child(&record.env).ok().flatten()?;
        Some(InUse {
            dir: env.path().to_path_buf(),
            record,
        })
    }
}

/// The record in `folder`, when it reads as one of this version whose folder name is one
/// this module makes.
pub(crate) fn read_record(folder: &Folder) -> Option<Record> {
    let bytes = folder.read_or_miss(&SKILL_ENV_RECORD, SETUP_RECORD_FILE)?;
    let record: Record = serde_json::from_slice(&bytes).ok()?;
    (record.version == RECORD_VERSION && is_env_name(&record.env)).then_some(record)
}

/// Writes `record` into `folder`, replacing the one there in one step.
pub(crate) fn write_record(folder: &Folder, record: &Record) -> Result<(), Error> {
    let bytes = serde_json::to_vec_pretty(record).map_err(|error| Error::StateFileInvalid {
        path: folder.join(SETUP_RECORD_FILE),
        reason: error.to_string(),
    })?;
    folder
        .replace(&SKILL_ENV_RECORD, SETUP_RECORD_FILE, &bytes)
        .map_err(|source| Error::io("write", folder.join(SETUP_RECORD_FILE), source))
}

/// A record for `env`, before its parts are filled.
pub(crate) fn new_record(skill: &str, env: &str, digest: String) -> Record {
    Record {
        version: RECORD_VERSION,
        skill: skill.to_owned(),
        env: env.to_owned(),
        digest,
        python: None,
        node_dependencies: Vec::new(),
        added: Vec::new(),
        declared_in: Vec::new(),
        set_up_at: crate::now(),
    }
}

/// Whether `name` is an `env-*` folder this module makes.
pub(crate) fn is_env_name(name: &str) -> bool {
    name.strip_prefix(SKILL_ENV_PREFIX).is_some_and(|rest| {
        !rest.is_empty() && rest.bytes().all(|byte| byte.is_ascii_alphanumeric())
    })
}

/// A fresh `env-*` name.
pub(crate) fn fresh_env_name() -> String {
    format!("{SKILL_ENV_PREFIX}{}", uuid::Uuid::now_v7().simple())
}

impl InUse {
    /// The environment's Python, for a run whose interpreter would be `base`: there only
    /// while the environment was made with that same interpreter and its `bin/python3`
    /// still resolves to a program (the interpreter it links to may have gone).
    pub(crate) fn python_for(&self, base: &Path) -> Option<PathBuf> {
        let part = self.record.python.as_ref()?;
        if part.base != base {
            return None;
        }
        let python = python_in(&self.dir);
        is_executable(&python).then_some(python)
    }

    /// The environment's `node_modules`, when npm made one.
    pub(crate) fn node_modules(&self) -> Option<PathBuf> {
        if self.record.node_dependencies.is_empty() {
            return None;
        }
        let modules = node_dir(&self.dir).join("node_modules");
        modules.is_dir().then_some(modules)
    }
}

/// The virtual environment's folder in an `env-*` folder.
pub(crate) fn venv_dir(env: &Path) -> PathBuf {
    env.join("python")
}

/// The virtual environment's interpreter in an `env-*` folder.
pub(crate) fn python_in(env: &Path) -> PathBuf {
    venv_dir(env).join("bin").join("python3")
}

/// The npm package's folder in an `env-*` folder.
pub(crate) fn node_dir(env: &Path) -> PathBuf {
    env.join("node")
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path)
        .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

/// The folder name of a skill's environment: its name made one plain lowercase word, then
/// the digest of its folder's path.
fn key(name: &str, skill_dir: &Path) -> String {
    let mut slug: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .take(MAX_NAME_CHARS)
        .collect();
    slug = slug.trim_matches('-').to_owned();
    if slug.is_empty() {
        slug.push_str("skill");
    }
    let digest = skills_net::digest::hex_digest(skill_dir.as_os_str().as_encoded_bytes());
    format!("{slug}-{}", &digest[..DIGEST_CHARS])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_one_plain_name_per_skill_folder() {
        let a = key("pdf", Path::new("/home/me/.agents/skills/pdf"));
        let b = key("pdf", Path::new("/work/repo/.agents/skills/pdf"));
        assert!(a.starts_with("pdf-") && b.starts_with("pdf-"), "{a} {b}");
        assert_ne!(a, b, "two folders, two environments");
        assert_eq!(a, key("pdf", Path::new("/home/me/.agents/skills/pdf")));
        let odd = key("API Fuzzing/../x", Path::new("/s"));
        assert!(odd.starts_with("api-fuzzing----x-"), "{odd}");
        assert!(!odd.contains(['/', '.', ' ']), "{odd}");
        assert!(key("…", Path::new("/s")).starts_with("skill-"));
    }

    #[test]
    fn a_run_takes_the_environment_only_with_the_interpreter_it_was_made_with() {
        use std::os::unix::fs::PermissionsExt as _;

        let dir = tempfile::tempdir().unwrap();
        let python = python_in(dir.path());
        std::fs::create_dir_all(python.parent().unwrap()).unwrap();
        std::fs::write(&python, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut record = new_record("pdf", "env-1", "digest".to_owned());
        record.python = Some(PythonPart {
            base: PathBuf::from("/usr/bin/python3"),
            base_version: Some("3.11.2".to_owned()),
            requirements: vec!["pypdf".to_owned()],
        });
        let in_use = InUse {
            dir: dir.path().to_path_buf(),
            record,
        };
        assert_eq!(
            in_use.python_for(Path::new("/usr/bin/python3")),
            Some(python.clone())
        );
        // The user chose another interpreter since: theirs wins.
        assert_eq!(
            in_use.python_for(Path::new("/opt/python3.12/bin/python3")),
            None
        );
        // No node part: nothing on NODE_PATH.
        assert_eq!(in_use.node_modules(), None);
        // The interpreter the venv links to is gone: not used.
        std::fs::remove_file(&python).unwrap();
        std::os::unix::fs::symlink("/nonexistent/python3", &python).unwrap();
        assert_eq!(in_use.python_for(Path::new("/usr/bin/python3")), None);
    }

    #[test]
    fn only_names_this_module_makes_are_environments() {
        assert!(is_env_name(&fresh_env_name()));
        for name in [
            "env-",
            "env-../x",
            "env-a/b",
            "python",
            ".setup.lock",
            "env-a.b",
        ] {
            assert!(!is_env_name(name), "{name}");
        }
    }
}
