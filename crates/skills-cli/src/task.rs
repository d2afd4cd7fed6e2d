//! `skills task NAME --input K=V`: an instruction-only skill as an agent task (07 §Inputs),
//! rendered by the library: the prompt (the body and a block of the checked inputs), then the
//! skill's `[agent]` table and `[github]` preflight when it has them.

use std::io::IsTerminal;

use skills::sanitize;

use crate::Exit;
use crate::cli::{Global, TaskArgs};
use crate::context;
use crate::output;

pub(crate) fn run(global: &Global, args: &TaskArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let inputs = match crate::run::input_values(&skills, &args.name, &args.inputs) {
        Ok(inputs) => inputs,
        Err(message) => return output::usage(global, &message),
    };
    let task = match skills.render_task(&args.name, &inputs) {
        Ok(task) => task,
        Err(error) => return output::fail(global, &error),
    };
    if global.json {
        output::print_json(&task);
        return Exit::Success;
    }
    let mut text = task.prompt.clone();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if let Some(agent) = task.agent.as_ref().filter(|agent| !agent.is_empty()) {
        text.push_str("\n[agent]\n");
        push_table(&mut text, agent);
    }
    if let Some(preflight) = &task.preflight {
        text.push_str("\n[github]\n");
        push_table(&mut text, preflight);
    }
    // The prompt is for an agent: verbatim into a pipe, sanitised onto a terminal.
    if std::io::stdout().is_terminal() {
        output::raw(&sanitize::block(&text));
    } else {
        output::raw(&text);
    }
    Exit::Success
}

/// A table's keys as `key = value` lines, each value as JSON (strings quoted, so a value
/// with a line break stays on its line).
fn push_table(text: &mut String, table: &impl serde::Serialize) {
    if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(table) {
        for (key, value) in fields {
            text.push_str(&format!("{key} = {value}\n"));
        }
    }
}
