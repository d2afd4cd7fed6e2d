//! The twin of `skills_install::update`: there are no installed skills to compare in this
//! build, and an empty list would claim everything is current, so both calls are
//! `Err(Error::Disabled)`. They complete at once; no task, no thread.

use skills_types::install::Hooks;
use skills_types::update::{Check, Outcome, Request};
use skills_types::{Error, SkillsConfig};

/// Disabled: always `Err(Error::Disabled)`.
pub async fn check(
    _config: &SkillsConfig,
    _hooks: &Hooks,
    _request: &Request,
) -> Result<Vec<Check>, Error> {
    Err(Error::Disabled)
}

/// Disabled: always `Err(Error::Disabled)`.
pub async fn update(
    _config: &SkillsConfig,
    _hooks: &Hooks,
    _request: &Request,
) -> Result<Vec<Outcome>, Error> {
    Err(Error::Disabled)
}
