//! `skills resource`, `skills new` and `skills uninstall`: reading one bundled file, and
//! creating and removing skills, each a thin call into the library.

use skills::catalog::SkillInput;
use skills::manage::CreateSkill;

use crate::Exit;
use crate::cli::{Global, NewArgs, ResourceArgs, UninstallArgs};
use crate::context;
use crate::output;

pub(crate) fn resource(global: &Global, args: &ResourceArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    match skills.read_resource(&args.name, &args.path) {
        Ok(content) if global.json => {
            output::print_json(&content);
            Exit::Success
        }
        // The file as it is into a pipe (`skills resource x a.json > a.json`); onto a
        // terminal it is text a skill supplies, sanitised like every other.
        Ok(content) if std::io::IsTerminal::is_terminal(&std::io::stdout()) => {
            output::raw(&skills::sanitize::block(&content.content));
            Exit::Success
        }
        Ok(content) => {
            output::raw(&content.content);
            Exit::Success
        }
        Err(error) => output::fail(global, &error),
    }
}

pub(crate) fn new(global: &Global, args: &NewArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let inputs = match args.inputs.iter().map(|text| parse_input(text)).collect() {
        Ok(inputs) => inputs,
        Err(message) => return output::usage(global, &message),
    };
    let description = match (&args.description, args.script) {
        (Some(description), _) => description.clone(),
        (None, Some(script)) => format!(
            "Runs its {} entry script and prints a JSON result. (Replace this with what the skill does and when to use it.)",
            script.language_name()
        ),
        (None, None) => return output::usage(global, "a new skill needs --description"),
    };
    let mut request = CreateSkill::new(&args.name, description);
    request.script = args.script.map(Into::into);
    request.scope = args.scope.into();
    match crate::cli::agent_choice(&args.agent) {
        Ok((agent, agents)) => {
            request.agent = agent;
            request.agents = agents;
        }
        Err(message) => return output::usage(global, &message),
    }
    request.inputs = inputs;
    request.when_to_use = args
        .when_to_use
        .clone()
        .filter(|text| !text.trim().is_empty());
    request.license = args.license.clone();
    match skills.create(&request) {
        Ok(written) => {
            if global.json {
                output::print_json(&written);
            } else if !global.quiet {
                output::line(format_args!(
                    "created {} ({} scope); edit {} to write its instructions",
                    output::shown(&written.name),
                    written.scope,
                    output::shown_path(&written.location)
                ));
                if args.script.is_some() {
                    output::line(format_args!(
                        "  its entry script and self-test are in skill.toml; check it with `skills test {}`",
                        output::shown(&written.name)
                    ));
                }
                for link in &written.links {
                    output::line(format_args!("  linked {}", output::shown_path(link)));
                }
            }
            Exit::Success
        }
        Err(error) => output::fail(global, &error),
    }
}

pub(crate) fn uninstall(global: &Global, args: &UninstallArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    match skills.uninstall(&args.name, args.scope.map(Into::into)) {
        Ok(removed) => {
            if global.json {
                output::print_json(&removed);
            } else if !global.quiet {
                let what = if removed.was_link {
                    "the symlink"
                } else {
                    "the folder"
                };
                output::line(format_args!(
                    "removed {} ({} scope): {what} {}",
                    output::shown(&removed.name),
                    removed.scope,
                    output::shown_path(&removed.path)
                ));
                for link in &removed.links {
                    output::line(format_args!(
                        "removed the link {}, which led to it",
                        output::shown_path(link)
                    ));
                }
            }
            Exit::Success
        }
        Err(error) => output::fail(global, &error),
    }
}

/// `name:description[:required]`; the description may hold colons.
fn parse_input(text: &str) -> Result<SkillInput, String> {
    let (rest, required) = match text.strip_suffix(":required") {
        Some(rest) => (rest, true),
        None => (text, false),
    };
    let (name, description) = rest.split_once(':').unwrap_or((rest, ""));
    let (name, description) = (name.trim(), description.trim());
    if name.is_empty() {
        return Err(format!(
            "--input '{text}' has no name; write NAME:DESCRIPTION[:required]"
        ));
    }
    let mut input = SkillInput::new(name);
    input.description = description.to_owned();
    input.required = required;
    Ok(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_parse() {
        let input = parse_input("version:The version:required").unwrap();
        assert_eq!(
            (
                input.name.as_str(),
                input.description.as_str(),
                input.required
            ),
            ("version", "The version", true)
        );
        let input = parse_input("notes").unwrap();
        assert_eq!((input.name.as_str(), input.required), ("notes", false));
        assert!(parse_input(":x").is_err());
        let input = parse_input("y:has: colons: inside").unwrap();
        assert_eq!(input.description, "has: colons: inside");
        assert!(!input.required);
    }
}
