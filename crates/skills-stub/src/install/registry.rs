//! The twin of `skills_install::registry`. There is no catalog to answer from in this build,
//! and an empty listing would claim the registry is empty, so every call is
//! `Err(Error::Disabled)`. The `async` functions complete at once; no task, no thread.

use skills_types::install::{Hooks, InstallOutcome};
use skills_types::manage::Uninstalled;
use skills_types::registry::{Counts, Details, InstallRequest, Listing, Query, Status};
use skills_types::{Error, SkillScope, SkillsConfig};

/// Disabled: always `Err(Error::Disabled)`.
pub async fn browse(
    _config: &SkillsConfig,
    _hooks: &Hooks,
    _category: Option<&str>,
) -> Result<Listing, Error> {
    Err(Error::Disabled)
}

/// Disabled: always `Err(Error::Disabled)`.
pub async fn search(
    _config: &SkillsConfig,
    _hooks: &Hooks,
    _query: &Query,
) -> Result<Listing, Error> {
    Err(Error::Disabled)
}

/// Disabled: always `Err(Error::Disabled)`.
pub async fn categories(_config: &SkillsConfig, _hooks: &Hooks) -> Result<Counts, Error> {
    Err(Error::Disabled)
}

/// Disabled: always `Err(Error::Disabled)`.
pub async fn sources(_config: &SkillsConfig, _hooks: &Hooks) -> Result<Counts, Error> {
    Err(Error::Disabled)
}

/// Disabled: always `Err(Error::Disabled)`.
pub async fn refresh(_config: &SkillsConfig, _hooks: &Hooks) -> Result<Status, Error> {
    Err(Error::Disabled)
}

/// Disabled: always `Err(Error::Disabled)`.
pub async fn show(_config: &SkillsConfig, _hooks: &Hooks, _id: &str) -> Result<Details, Error> {
    Err(Error::Disabled)
}

/// Disabled: always `Err(Error::Disabled)`.
pub async fn install(
    _config: &SkillsConfig,
    _hooks: &Hooks,
    _request: &InstallRequest,
) -> Result<InstallOutcome, Error> {
    Err(Error::Disabled)
}

/// Disabled: always `Err(Error::Disabled)`.
pub fn uninstall(
    _config: &SkillsConfig,
    _name: &str,
    _scope: Option<SkillScope>,
) -> Result<Uninstalled, Error> {
    Err(Error::Disabled)
}
