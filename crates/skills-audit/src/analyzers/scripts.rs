//! The `scripts` analyzer: see the crate's header. (Skeleton: its rules arrive with issue 31.)

use crate::files::Skill;
use crate::findings::{Collector, Rule};

/// This analyzer's rules.
pub(crate) const RULES: &[Rule] = &[];

/// Adds this analyzer's findings about `skill` to `out`.
pub(crate) fn analyze(_skill: &Skill, _out: &mut Collector) {}
