//! `skills tools`: every tool the catalog's skills declare, as an agent is offered them. A
//! table (name, permission, description) by default; `--json` prints the `ToolInfo` list,
//! schemas included. Names and descriptions come from skill folders, so they are sanitised
//! like every other skill text a terminal shows.

use anstream::eprintln;
use skills::catalog::Permission;
use skills::run::ToolInfo;

use crate::Exit;
use crate::cli::{Global, ToolsArgs};
use crate::context;
use crate::output;

pub(crate) fn run(global: &Global, args: &ToolsArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    output::print_settings_problems(&skills);
    let tools = match skills.list_tools() {
        Ok(tools) => tools,
        Err(error) => return output::fail(global, &error),
    };
    if global.json {
        output::print_json(&tools);
    } else if tools.is_empty() {
        if !global.quiet {
            eprintln!(
                "no tools: a skill declares one with [[tools]] (name, description, script, parameters) in its skill.toml"
            );
        }
    } else {
        print_table(&tools);
    }
    Exit::Success
}

fn print_table(tools: &[ToolInfo]) {
    let rows: Vec<[String; 3]> = tools
        .iter()
        .map(|tool| {
            [
                output::shown(&tool.name).into_owned(),
                permission(tool.permission_level).to_owned(),
                output::shown_description(&tool.description).into_owned(),
            ]
        })
        .collect();
    let width = output::width();
    let widest = rows
        .iter()
        .map(|row| row[0].chars().count())
        .max()
        .unwrap_or(0);
    // Names are at most 64 characters; only a terminal cuts them.
    let name_width = output::column(widest, 48, width);
    let permission_width = "allow".len();
    let mut table = String::new();
    for [name, permission, description] in rows {
        let used = name_width + permission_width + 4;
        let (name, description) = match width {
            Some(width) => (
                output::fit(&name, name_width),
                output::fit(&description, width.saturating_sub(used).max(20)),
            ),
            None => (name, description),
        };
        table.push_str(&format!(
            "{name:<name_width$}  {permission:<permission_width$}  {description}\n"
        ));
    }
    output::block(&table);
}

fn permission(level: Permission) -> &'static str {
    match level {
        Permission::Allow => "allow",
        Permission::Ask => "ask",
        // Denied skills offer no tools; listed for completeness.
        Permission::Deny => "deny",
    }
}
