//! The prompts: one per skill, named like it, whose arguments are the skill's declared
//! inputs. MCP prompt arguments are strings, so each is parsed by its input's declared type
//! (the same parser and errors as `skills task --input`), and the message is the skill's
//! `render_task`: its body with a block of the checked inputs.

use rmcp::ErrorData;
use rmcp::model::{
    GetPromptResult, ListPromptsResult, Prompt, PromptArgument, PromptMessage, Role,
};
use serde_json::{Map, Value};
use skills_types::SkillSummary;
use skills_types::catalog::Listing;
use skills_types::run::parse_input_text;
use skills_types::sanitize;
use skills_types::service::SkillsService;

use crate::errors::{self, to_mcp};
use crate::resources::{PAGE_SIZE, cursor, offset};

/// One page of prompts: the page's skills are read in one call, for their inputs.
pub(crate) fn list(
    service: &dyn SkillsService,
    listing: &Listing,
    cursor_text: Option<&str>,
) -> Result<ListPromptsResult, ErrorData> {
    let start = offset(cursor_text)?;
    // A skill started by name only is no prompt: the list is offered to the model's host to
    // choose from. `prompts/get` by its name still works, as `load_skill` does.
    let offered: Vec<&SkillSummary> = listing
        .skills
        .iter()
        .filter(|skill| skill.offered_to_model())
        .collect();
    let names: Vec<&str> = offered
        .iter()
        .skip(start)
        .take(PAGE_SIZE)
        .map(|skill| skill.name.as_str())
        .collect();
    let bodies = if names.is_empty() {
        Vec::new()
    } else {
        service.read(&names).map_err(|error| to_mcp(&error))?
    };
    let prompts = offered
        .iter()
        .skip(start)
        .zip(&bodies)
        .map(|(summary, body)| {
            let arguments = body
                .inputs
                .iter()
                .map(|input| {
                    PromptArgument::new(input.name.clone())
                        .with_description(sanitize::description(&input.description))
                        .with_required(input.required && input.default.is_none())
                })
                .collect::<Vec<_>>();
            Prompt::new(
                summary.name.clone(),
                Some(sanitize::description(&summary.description).into_owned()),
                (!arguments.is_empty()).then_some(arguments),
            )
        })
        .collect();
    let end = start + names.len();
    let mut result = ListPromptsResult::with_all_items(prompts);
    if end < offered.len() {
        result.next_cursor = Some(cursor(end));
    }
    Ok(result)
}

/// The prompt of skill `name` with `arguments` (strings, or values already typed).
pub(crate) fn get(
    service: &dyn SkillsService,
    name: &str,
    arguments: &Map<String, Value>,
) -> Result<GetPromptResult, ErrorData> {
    let bodies = service.read(&[name]).map_err(|error| to_mcp(&error))?;
    let Some(body) = bodies.first() else {
        return Err(errors::invalid(format!("no skill named '{name}'")));
    };
    let mut inputs = Map::new();
    for (key, value) in arguments {
        let typed = match (value, body.inputs.iter().find(|input| &input.name == key)) {
            (Value::String(text), Some(input)) => parse_input_text(input.kind, text)
                .map_err(|reason| errors::invalid(format!("the argument `{key}`: {reason}")))?,
            // An undeclared argument is passed on as it came, so render_task's own check
            // names it with the same error as every other caller gets.
            (value, _) => value.clone(),
        };
        inputs.insert(key.clone(), typed);
    }
    let task = service
        .render_task(name, &inputs)
        .map_err(|error| to_mcp(&error))?;
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, task.prompt)])
            .with_description(format!("Follow the skill '{}'", sanitize::line(&body.name))),
    )
}
