//! The twin of `skills_install::publish`: publishing writes a site, so it is disabled (an
//! empty outcome would claim a site was written).

use skills_types::Error;
use skills_types::publish::{Outcome, Request};

/// Disabled: always `Err(Error::Disabled)`.
pub fn publish(_request: &Request) -> Result<Outcome, Error> {
    Err(Error::Disabled)
}
