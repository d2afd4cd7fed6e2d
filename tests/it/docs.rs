//! Documentation that must not drift from the code it describes.

use std::path::Path;

use skills_types::DiagnosticCode;

fn read_doc(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[test]
fn diagnostics_page_lists_every_code_with_its_summary() {
    let page = read_doc("diagnostics.md");
    let missing: Vec<&str> = DiagnosticCode::ALL
        .iter()
        .filter(|code| !page.contains(&format!("| `{}` | {} |", code.as_str(), code.summary())))
        .map(|code| code.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "docs/diagnostics.md lacks (or words differently) the rows for: {}",
        missing.join(", ")
    );
}

#[test]
fn cli_page_documents_every_command() {
    let page = read_doc("cli.md");
    let output = skills_tests::skills().arg("--help").output().unwrap();
    let help = String::from_utf8(output.stdout).unwrap();
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        // A command's own line; wrapped descriptions are indented further.
        .filter(|line| !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|command| *command != "help")
        .collect();
    assert!(
        commands.len() > 10,
        "could not read the commands from:\n{help}"
    );
    let missing: Vec<&&str> = commands
        .iter()
        .filter(|command| !page.contains(&format!("## `skills {command}")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/cli.md has no section for: {missing:?}"
    );
}

#[test]
fn cli_page_lists_every_agent_of_the_table_as_it_is() {
    let page = read_doc("cli.md");
    let missing: Vec<&str> = skills_types::agents::AGENTS
        .iter()
        .filter(|agent| {
            let names: Vec<String> = std::iter::once(agent.name)
                .chain(agent.aliases.iter().copied())
                .map(|name| format!("`{name}`"))
                .collect();
            let detected: Vec<String> = agent
                .home_markers
                .iter()
                .map(|marker| format!("`~/{marker}`"))
                .chain(
                    agent
                        .workspace_markers
                        .iter()
                        .map(|marker| format!("`{marker}` (workspace)")),
                )
                .collect();
            let row = format!(
                "| {} | {} | `{}` | `~/{}` | {} | <{}>",
                agent.display_name,
                names.join(", "),
                agent.project_dir,
                agent.user_dir,
                detected.join(", "),
                agent.source
            );
            !page.contains(&row)
        })
        .map(|agent| agent.name)
        .collect();
    assert!(
        missing.is_empty(),
        "docs/cli.md lacks (or words differently) the agent rows for: {}",
        missing.join(", ")
    );
}

/// The table of `skills.toml` keys in `docs/decisions.md` is the code's own table, rendered:
/// a key added, moved or loosened in code without the page (or the other way round) fails.
#[test]
fn decisions_page_holds_the_table_of_configuration_keys() {
    let page = read_doc("decisions.md");
    let (start, end) = (
        "<!-- settings-keys:start -->\n",
        "<!-- settings-keys:end -->",
    );
    let table = page
        .split_once(start)
        .and_then(|(_, rest)| rest.split_once(end))
        .map(|(table, _)| table)
        .expect("docs/decisions.md marks the table of configuration keys");
    let expected = skills_types::settings::markdown();
    assert!(
        table == expected,
        "docs/decisions.md's table of configuration keys differs from skills_types::settings::KEYS; \
         put this between the markers:\n{expected}"
    );
}
