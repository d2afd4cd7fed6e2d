//! The twin of `skills-install`: installing is a mutation, so it is disabled. The function
//! is `async` like its real counterpart and completes at once; no task, no thread.

pub mod publish;
pub mod registry;
pub mod remote;
pub mod restore;
pub mod update;

use skills_types::install::{Hooks, InstallOutcome, InstallRequest};
use skills_types::{Error, SkillsConfig};

/// Disabled: always `Err(Error::Disabled)`.
pub async fn install(
    _config: &SkillsConfig,
    _hooks: &Hooks,
    _request: &InstallRequest,
) -> Result<Vec<InstallOutcome>, Error> {
    Err(Error::Disabled)
}
