//! The twin of `skills_install::remote`: fetching remote packs is disabled in this build (an
//! empty list would claim none is configured). Completes at once; no task, no thread.

use skills_types::install::Hooks;
use skills_types::remote::{Refresh, Refreshed};
use skills_types::{Error, SkillsConfig};

/// Disabled: always `Err(Error::Disabled)`.
pub async fn refresh(
    _config: &SkillsConfig,
    _hooks: &Hooks,
    _request: &Refresh,
) -> Result<Vec<Refreshed>, Error> {
    Err(Error::Disabled)
}
