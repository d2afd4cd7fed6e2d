//! `skills show NAME`: one skill's frontmatter, sidecar inputs, shadowed copies, diagnostics
//! and location, and its last audit verdict when it has one; `--json` prints the `Skill`
//! record (its `audit` object).

use skills::{Diagnostic, Skill};

use crate::Exit;
use crate::cli::{Global, NameArgs};
use crate::context;
use crate::output::{self, DIM, ERROR, OK, WARNING};

pub(crate) fn run(global: &Global, args: &NameArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let skill = match skills.get(&args.name) {
        Ok(skill) => skill,
        Err(error) => return output::fail(global, &error),
    };
    if global.json {
        output::print_json(&skill);
    } else {
        print(&skill);
    }
    Exit::Success
}

/// Every value shown is the skill's text, so each goes through the sanitiser.
fn print(skill: &Skill) {
    output::line(format_args!(
        "{OK}{}{OK:#}  {DIM}({}){DIM:#}",
        output::shown(&skill.name),
        skill.scope
    ));
    output::line(format_args!("  {}", output::shown(&skill.description)));
    output::line("");
    let frontmatter = &skill.frontmatter;
    let mut fields: Vec<(&str, String)> = vec![
        ("location", skill.location.display().to_string()),
        ("directory", skill.dir.display().to_string()),
        (
            "permission",
            format!("{:?}", skill.permission).to_lowercase(),
        ),
    ];
    if !skill.offered_to_model() {
        fields.push((
            "invocation",
            "manual only: never offered to a model; read or run it by name".to_owned(),
        ));
    }
    if let Some(mark) = &skill.audit {
        let verdict = mark
            .note(&skill.name)
            .unwrap_or_else(|| match mark.max_severity {
                Some(worst) => format!(
                    "worst finding {worst} ({} in all), rules {}",
                    mark.findings_count, mark.rules_version
                ),
                None => format!("no finding, rules {}", mark.rules_version),
            });
        fields.push(("audit", verdict));
    }
    if skill.id != skill.name {
        fields.push(("id", skill.id.clone()));
    }
    if let Some(license) = &frontmatter.license {
        fields.push(("license", license.clone()));
    }
    if let Some(compatibility) = &frontmatter.compatibility {
        fields.push(("compatibility", compatibility.clone()));
    }
    if !frontmatter.allowed_tools.is_empty() {
        fields.push(("allowed-tools", frontmatter.allowed_tools.join(", ")));
    }
    if !frontmatter.platforms.is_empty() {
        fields.push(("platforms", frontmatter.platforms.join(", ")));
    }
    if !frontmatter.triggers.is_empty() {
        fields.push(("triggers", frontmatter.triggers.join(", ")));
    }
    for (key, value) in &frontmatter.metadata {
        fields.push(("metadata", format!("{key} = {value}")));
    }
    for (key, value) in &frontmatter.extra {
        fields.push(("extra", format!("{key} = {value}")));
    }
    if let Some(when) = &skill.when_to_use {
        fields.push(("when to use", when.clone()));
    }
    let labels: Vec<String> = skill
        .inputs
        .iter()
        .map(|input| {
            // `string` is what an input is unless it says otherwise; only the others are shown.
            let kind = match input.kind.as_str() {
                "string" => String::new(),
                other => format!(" [{other}]"),
            };
            let required = if input.required { " (required)" } else { "" };
            format!("{}{kind}{required}", output::shown(&input.name))
        })
        .collect();
    let label_width = labels
        .iter()
        .map(|label| label.chars().count())
        .max()
        .unwrap_or(0);
    for (input, label) in skill.inputs.iter().zip(&labels) {
        fields.push((
            "input",
            format!("{label:<label_width$}  {}", input.description),
        ));
    }
    for copy in &skill.shadowed {
        fields.push((
            "shadows",
            format!(
                "{} {} ({})",
                copy.scope,
                copy.location.display(),
                copy.reason
            ),
        ));
    }
    let width = fields.iter().map(|(key, _)| key.len()).max().unwrap_or(0);
    for (key, value) in fields {
        output::line(format_args!(
            "  {DIM}{key:<width$}{DIM:#}  {}",
            output::shown(&value)
        ));
    }
    if let Some(resources) = skill.resources.as_ref().filter(|list| !list.is_empty()) {
        output::line("");
        output::line(format_args!("  {DIM}resources{DIM:#}"));
        let width = resources
            .iter()
            .map(|resource| output::shown(&resource.path).chars().count())
            .max()
            .unwrap_or(0);
        for resource in resources {
            output::line(format_args!(
                "    {:<width$}  {DIM}{:>9}  {}{DIM:#}",
                output::shown(&resource.path),
                format!("{} B", resource.size),
                format!("{:?}", resource.kind).to_lowercase()
            ));
        }
    }
    if !skill.diagnostics.is_empty() {
        output::line("");
        for diagnostic in &skill.diagnostics {
            output::line(format_args!("  {}", describe(diagnostic)));
        }
    }
}

fn describe(diagnostic: &Diagnostic) -> String {
    let style = match diagnostic.severity {
        skills::Severity::Error => ERROR,
        skills::Severity::Warning => WARNING,
        skills::Severity::Info => DIM,
    };
    let line = diagnostic
        .line
        .map(|line| format!(" line {line}"))
        .unwrap_or_default();
    format!(
        "{style}{}{style:#}{DIM}[{}]{DIM:#}{line}: {}",
        diagnostic.severity,
        diagnostic.code,
        output::shown(&diagnostic.message)
    )
}
