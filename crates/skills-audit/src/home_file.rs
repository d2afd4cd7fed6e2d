//! The audit's files in the user's home (the acceptances, the verdicts): each one versioned
//! record of entries, one per skill folder, read and written through `skills_ops::state`
//! alone (no link followed, bounded, replaced atomically), never in a workspace.

use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use skills_ops::state::{self, Kind};
use skills_types::{Error, SkillsConfig};

/// The version of both files this build writes and reads.
const VERSION: u32 = 1;

/// A file as written.
#[derive(Debug, Serialize, Deserialize)]
struct Record<E> {
    version: u32,
    skills: Vec<E>,
}

/// One of the audit's files in the home.
pub(crate) struct HomeFile {
    pub(crate) kind: &'static Kind,
    pub(crate) name: &'static str,
    /// What the file holds, for messages ("acceptances", "audit verdicts").
    pub(crate) holds: &'static str,
    /// Written for a person to read (the acceptances), or compact (the verdicts: many).
    pub(crate) pretty: bool,
}

impl HomeFile {
    /// Where the file of `config` is.
    pub(crate) fn path(&self, config: &SkillsConfig) -> PathBuf {
        state::app_dir(config).join(self.name)
    }

    /// The entries on file (none when there is no file), or why the file cannot be used.
    pub(crate) fn load<E: DeserializeOwned>(
        &self,
        config: &SkillsConfig,
    ) -> Result<Vec<E>, String> {
        let bytes = match state::Folder::open(&state::app_dir(config), &[]) {
            Ok(Some(folder)) => folder
                .read(self.kind, self.name)
                .map_err(|refusal| refusal.to_string())?,
            Ok(None) => None,
            Err(refusal) => return Err(refusal.to_string()),
        };
        let Some(bytes) = bytes else {
            return Ok(Vec::new());
        };
        let record: Record<E> = serde_json::from_slice(&bytes)
            .map_err(|error| format!("it is not a valid record of {} ({error})", self.holds))?;
        if record.version != VERSION {
            return Err(format!(
                "it has version {}, and this build reads version {VERSION}",
                record.version
            ));
        }
        Ok(record.skills)
    }

    /// Replaces the file atomically with `skills`, creating `<home>/<app_dir>` when needed.
    pub(crate) fn store<E: Serialize>(
        &self,
        config: &SkillsConfig,
        skills: Vec<E>,
    ) -> Result<(), Error> {
        let record = Record {
            version: VERSION,
            skills,
        };
        let encoded = if self.pretty {
            serde_json::to_vec_pretty(&record)
        } else {
            serde_json::to_vec(&record)
        };
        let mut bytes = encoded.map_err(|error| Error::Internal {
            action: format!("encoding the {}", self.holds),
            reason: error.to_string(),
        })?;
        bytes.push(b'\n');
        state::Folder::create(&state::app_dir(config), &[])
            .map_err(std::io::Error::from)
            .and_then(|folder| folder.replace(self.kind, self.name, &bytes))
            .map_err(|source| Error::io("write", self.path(config), source))
    }
}
