//! The workspace trust marker (02 §Scopes and roots, **Trust**).
//!
//! Cloning an unknown repository must never put its skills in front of an agent, so a
//! workspace's project and legacy roots are loaded only once the user has said they trust it:
//! `<workspace>/<app_dir>/trust` exists (its content is ignored).

use std::path::PathBuf;

use skills_types::config::TrustPolicy;
use skills_types::{Error, SkillsConfig};

/// The marker file's name inside `<workspace>/<app_dir>`.
pub const TRUST_MARKER: &str = "trust";

/// The marker's path for this configuration.
pub fn marker_path(config: &SkillsConfig) -> PathBuf {
    config.workspace.join(&config.app_dir).join(TRUST_MARKER)
}

/// Whether the workspace's project and legacy roots may be loaded.
pub fn is_trusted(config: &SkillsConfig) -> bool {
    match config.trust {
        TrustPolicy::Always => true,
        TrustPolicy::Never => false,
        TrustPolicy::Marker => std::fs::symlink_metadata(marker_path(config)).is_ok(),
    }
}

/// Creates the trust marker (and its directory); returns its path. Trusting a trusted
/// workspace changes nothing.
pub fn trust(config: &SkillsConfig) -> Result<PathBuf, Error> {
    let marker = marker_path(config);
    if let Some(dir) = marker.parent() {
        std::fs::create_dir_all(dir).map_err(|source| Error::io("create", dir, source))?;
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&marker)
    {
        Ok(mut file) => {
            use std::io::Write as _;
            file.write_all(
                b"This workspace is trusted: its project skills are loaded. Delete this file (or run `skills trust --revoke`) to stop.\n",
            )
            .map_err(|source| Error::io("write", &marker, source))?;
            Ok(marker)
        }
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(marker),
        Err(source) => Err(Error::io("create", &marker, source)),
    }
}

/// Removes the trust marker; returns whether there was one.
pub fn revoke_trust(config: &SkillsConfig) -> Result<bool, Error> {
    let marker = marker_path(config);
    match std::fs::remove_file(&marker) {
        Ok(()) => Ok(true),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(source) => Err(Error::io("remove", &marker, source)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_and_revoke() {
        let workspace = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let mut config = SkillsConfig::new(workspace.path(), home.path());
        assert!(!is_trusted(&config));
        let marker = trust(&config).unwrap();
        assert_eq!(marker, workspace.path().join(".openhuman/trust"));
        assert!(is_trusted(&config));
        assert_eq!(trust(&config).unwrap(), marker);
        assert!(revoke_trust(&config).unwrap());
        assert!(!revoke_trust(&config).unwrap());
        assert!(!is_trusted(&config));
        config.trust = TrustPolicy::Always;
        assert!(is_trusted(&config));
        trust(&config).unwrap();
        config.trust = TrustPolicy::Never;
        assert!(!is_trusted(&config));
    }
}
