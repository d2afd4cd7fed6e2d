//! A skill's `agents/openai.yaml`, Codex's configuration of the skill, as discovery reads it:
//! only `policy.allow_implicit_invocation`, which when `false` keeps the skill from the model
//! (Codex: "the skill is not injected into the model context by default, but can still be
//! invoked explicitly"), the same as Claude Code's `disable-model-invocation: true`.
//!
//! Codex reads the file with a strict schema and ignores the whole file when it does not fit
//! ("fail open"), so does this: a file that is not YAML, not a mapping, or whose policy flag
//! is not a boolean leaves the skill offered, with a warning saying why. The file is read
//! through the definition file's reader (a regular file, non-blocking, size-bounded), and an
//! `agents` folder that is a symbolic link is not followed, like every other path inside a
//! skill.

use std::path::{Path, PathBuf};

use skills_types::files::{AGENTS_METADATA_DIR, OPENAI_METADATA_FILE};
use skills_types::limits::MAX_AGENT_METADATA_BYTES;
use skills_types::skill::Invocation;
use skills_types::{Diagnostic, DiagnosticCode, Error};

use crate::load;
use crate::yaml::{self, Node, ScalarKind};

/// The table holding the flag, and the flag.
const POLICY: &str = "policy";
const ALLOW_IMPLICIT_INVOCATION: &str = "allow_implicit_invocation";

/// What a skill folder's `agents/openai.yaml` says of its invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentPolicy {
    /// There is no such file.
    Absent,
    /// The file was read; its policy (the model's, unless it says otherwise).
    Read(Invocation),
    /// The file is there but was not used, and why.
    Ignored {
        /// The file.
        path: PathBuf,
        /// A sentence saying why.
        reason: String,
    },
}

impl AgentPolicy {
    /// The invocation the file gives the skill: manual only when it was read and says so.
    pub fn invocation(&self) -> Invocation {
        match self {
            Self::Read(invocation) => *invocation,
            Self::Absent | Self::Ignored { .. } => Invocation::Model,
        }
    }

    /// The warning an ignored file earns its skill.
    pub(crate) fn diagnostic(&self) -> Option<Diagnostic> {
        match self {
            Self::Ignored { path, reason } => Some(
                Diagnostic::warning(
                    DiagnosticCode::InvalidSidecar,
                    format!("{reason}; its policy is not applied"),
                )
                .with_path(path),
            ),
            Self::Absent | Self::Read(_) => None,
        }
    }
}

/// The path of the file inside a skill folder, relative to it.
pub(crate) fn relative_path() -> String {
    format!("{AGENTS_METADATA_DIR}/{OPENAI_METADATA_FILE}")
}

/// Reads the policy of the skill folder `skill_dir` by path.
pub fn agent_policy(skill_dir: &Path) -> AgentPolicy {
    let folder = skill_dir.join(AGENTS_METADATA_DIR);
    let path = folder.join(OPENAI_METADATA_FILE);
    match std::fs::symlink_metadata(&folder) {
        Err(_) => return AgentPolicy::Absent,
        Ok(metadata) if metadata.is_symlink() => {
            return AgentPolicy::Ignored {
                path,
                reason: format!(
                    "the folder {} is a symbolic link, which is not followed",
                    folder.display()
                ),
            };
        }
        Ok(metadata) if !metadata.is_dir() => return AgentPolicy::Absent,
        Ok(_) => {}
    }
    if std::fs::symlink_metadata(&path).is_err() {
        return AgentPolicy::Absent;
    }
    decode(
        &path,
        load::read_definition(&path, MAX_AGENT_METADATA_BYTES),
    )
}

/// The policy of the file at `path`, given what reading it gave.
pub(crate) fn decode(path: &Path, read: Result<Vec<u8>, Error>) -> AgentPolicy {
    let ignored = |reason: String| AgentPolicy::Ignored {
        path: path.to_path_buf(),
        reason,
    };
    let bytes = match read {
        Ok(bytes) => bytes,
        Err(Error::NotFound { .. }) => return AgentPolicy::Absent,
        Err(Error::Unloadable { diagnostic, .. }) => {
            return ignored(format!("{}: {}", path.display(), diagnostic.message));
        }
        Err(error) => return ignored(error.to_string()),
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return ignored(format!("{} is not valid UTF-8", path.display()));
    };
    match parse(text) {
        Ok(invocation) => AgentPolicy::Read(invocation),
        Err(reason) => ignored(format!("{}: {reason}", path.display())),
    }
}

/// The invocation a file's text gives, or why Codex would not read it.
fn parse(text: &str) -> Result<Invocation, String> {
    let entries = match yaml::parse(text) {
        Ok(Node::Mapping(entries)) => entries,
        // An empty file is an empty configuration.
        Ok(node) if node.is_null() => return Ok(Invocation::Model),
        Ok(node) => return Err(format!("it is a {}, not a mapping", node.type_name())),
        Err(error) => return Err(format!("it is not valid YAML: {}", error.message)),
    };
    let Some((_, policy)) = entries.iter().find(|(key, _)| key == POLICY) else {
        return Ok(Invocation::Model);
    };
    let flags = match policy {
        Node::Mapping(flags) => flags,
        node if node.is_null() => return Ok(Invocation::Model),
        node => {
            return Err(format!(
                "'{POLICY}' is a {}, not a mapping",
                node.type_name()
            ));
        }
    };
    match flags
        .iter()
        .find(|(key, _)| key == ALLOW_IMPLICIT_INVOCATION)
        .map(|(_, value)| value)
    {
        None => Ok(Invocation::Model),
        Some(node) if node.is_null() => Ok(Invocation::Model),
        Some(Node::Scalar(scalar)) if scalar.kind == ScalarKind::Bool(false) => {
            Ok(Invocation::Manual)
        }
        Some(Node::Scalar(scalar)) if scalar.kind == ScalarKind::Bool(true) => {
            Ok(Invocation::Model)
        }
        Some(node) => Err(format!(
            "'{POLICY}.{ALLOW_IMPLICIT_INVOCATION}' must be true or false, not {}",
            match node.as_text() {
                Some(text) => format!("'{}'", text.escape_debug()),
                None => format!("a {}", node.type_name()),
            }
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_flag_decides_and_everything_else_is_ignored() {
        let manual =
            "interface:\n  display_name: \"Deploy\"\npolicy:\n  allow_implicit_invocation: false\n";
        assert_eq!(parse(manual), Ok(Invocation::Manual));
        for offered in [
            "",
            "interface:\n  short_description: \"x\"\n",
            "policy:\n  allow_implicit_invocation: true\n",
            "policy: ~\n",
            "policy:\n  other: 1\n",
        ] {
            assert_eq!(parse(offered), Ok(Invocation::Model), "{offered:?}");
        }
        for refused in [
            "policy:\n  allow_implicit_invocation: \"false\"\n",
            "policy:\n  allow_implicit_invocation: no\n",
            "policy: [a]\n",
            "- a\n",
            "policy: {\n",
        ] {
            assert!(parse(refused).is_err(), "{refused:?}");
        }
    }

    #[test]
    fn files_are_read_safely_and_ignored_with_a_reason() {
        let root = tempfile::tempdir().unwrap();
        let skill = root.path().join("deploy");
        std::fs::create_dir_all(skill.join("agents")).unwrap();
        assert_eq!(agent_policy(&skill), AgentPolicy::Absent);
        let file = skill.join("agents/openai.yaml");
        std::fs::write(&file, "policy:\n  allow_implicit_invocation: false\n").unwrap();
        assert_eq!(agent_policy(&skill), AgentPolicy::Read(Invocation::Manual));
        std::fs::write(&file, "policy:\n  allow_implicit_invocation: 0\n").unwrap();
        let ignored = agent_policy(&skill);
        assert_eq!(ignored.invocation(), Invocation::Model);
        assert!(ignored.diagnostic().is_some(), "{ignored:?}");
        std::fs::write(&file, vec![b'#'; 70_000]).unwrap();
        assert!(matches!(agent_policy(&skill), AgentPolicy::Ignored { .. }));
        #[cfg(unix)]
        {
            let elsewhere = root.path().join("elsewhere");
            std::fs::create_dir_all(&elsewhere).unwrap();
            std::fs::write(
                elsewhere.join("openai.yaml"),
                "policy:\n  allow_implicit_invocation: false\n",
            )
            .unwrap();
            let linked = root.path().join("linked");
            std::fs::create_dir_all(&linked).unwrap();
            std::os::unix::fs::symlink(&elsewhere, linked.join("agents")).unwrap();
            let policy = agent_policy(&linked);
            assert!(matches!(policy, AgentPolicy::Ignored { .. }), "{policy:?}");
            assert_eq!(policy.invocation(), Invocation::Model);
        }
    }
}
