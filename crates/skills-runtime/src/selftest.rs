//! Self-tests (07 §Self-tests): the `[[tests]]` of a skill's `skill.toml`, each a run through
//! the same runtime (and sandbox) with what it must give.

use skills_types::run::{RunHooks, TestOutcome, TestRequest};
use skills_types::{Error, SkillsConfig};

use crate::Runtime;

/// Runs the self-tests `request` selects.
pub(crate) fn run_tests(
    _runtime: &Runtime,
    _config: &SkillsConfig,
    _request: &TestRequest,
    _hooks: &RunHooks,
) -> Result<Vec<TestOutcome>, Error> {
    Err(Error::InvalidInput(
        "self-tests are not built yet".to_owned(),
    ))
}
