//! The twin of `skills_install::restore`: restoring writes skills, so it is disabled (an
//! empty report would claim every recorded skill is installed). It completes at once; no
//! task, no thread.

use skills_types::install::Hooks;
use skills_types::restore::{Report, Request};
use skills_types::{Error, SkillsConfig};

/// Disabled: always `Err(Error::Disabled)`.
pub async fn restore(
    _config: &SkillsConfig,
    _hooks: &Hooks,
    _request: &Request,
) -> Result<Report, Error> {
    Err(Error::Disabled)
}
