//! Declared tools (07 §Tools): every `[[tools]]` of every skill in the catalog, offered as
//! `<skill>__<tool>`, and a call of one: the arguments checked against the tool's schema,
//! then its script run like any other run, with the arguments on stdin and in
//! `SKILL_TOOL_ARGS`.

use skills_types::run::RunHooks;
use skills_types::tool::{ToolCall, ToolExecution, ToolInfo};
use skills_types::{Error, SkillsConfig};

use crate::Runtime;

/// Every declared tool of the catalog.
pub(crate) fn list_tools(_config: &SkillsConfig) -> Result<Vec<ToolInfo>, Error> {
    Err(Error::InvalidInput("tools are not built yet".to_owned()))
}

/// Calls one declared tool.
pub(crate) fn execute_tool(
    _runtime: &Runtime,
    _config: &SkillsConfig,
    _call: &ToolCall,
    _hooks: &RunHooks,
) -> Result<ToolExecution, Error> {
    Err(Error::InvalidInput("tools are not built yet".to_owned()))
}
