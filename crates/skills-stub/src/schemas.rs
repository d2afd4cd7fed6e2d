//! The twin of `skills-schemas`: no controllers, so every method is unknown (`-32601`).

use std::sync::Arc;

use skills_types::rpc::{ControllerSchema, RegisteredController};
use skills_types::service::SkillsService;

/// Always empty.
pub fn all_skills_controller_schemas() -> Vec<ControllerSchema> {
    Vec::new()
}

/// Always empty.
pub fn all_skills_registered_controllers(
    _service: Arc<dyn SkillsService>,
) -> Vec<RegisteredController> {
    Vec::new()
}
