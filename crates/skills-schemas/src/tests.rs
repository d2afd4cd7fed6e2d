//! Every schema is snapshot-tested, and the list itself is checked for what 04 asks.

use std::collections::BTreeSet;

use super::*;

#[test]
fn every_method_of_04_is_listed_once_with_its_aliases() {
    let schemas = all_skills_controller_schemas();
    let methods: Vec<&str> = schemas
        .iter()
        .map(|schema| schema.method.as_str())
        .collect();
    for expected in [
        "skills.list",
        "skills.describe",
        "skills.read",
        "skills.read_resource",
        "skills.explain",
        "skills.search",
        "skills.validate",
        "skills.audit",
        "skills.render_catalog",
        "skills.create",
        "skills.update",
        "skills.uninstall",
        "skills.install_from_url",
        "skills.subscribe",
        "skill_registry.browse",
        "skill_registry.search",
        "skill_registry.categories",
        "skill_registry.sources",
        "skill_registry.install",
        "skill_registry.uninstall",
        "skill_runtime.resolve_runtimes",
        "skill_runtime.run",
        "skill_runtime.cancel",
        "skill_runtime.recent_runs",
        "skill_runtime.read_run_log",
        "skill_runtime.render_task",
        "skill_runtime.list_tools",
        "skill_runtime.execute_tool",
    ] {
        assert!(methods.contains(&expected), "{expected} is missing");
    }
    let mut names = BTreeSet::new();
    for schema in &schemas {
        for name in std::iter::once(&schema.method).chain(&schema.aliases) {
            assert!(names.insert(name.clone()), "{name} is registered twice");
        }
    }
    for alias in [
        "skills.skills_list",
        "skills.skills_read_resource",
        "skills.skills_create",
        "skills.skills_install_from_url",
        "skills.skills_uninstall",
        "skills.run",
        "skills.cancel",
        "workflows.run",
        "workflows.cancel",
    ] {
        assert!(names.contains(alias), "the alias {alias} is missing");
    }
}

#[test]
fn params_are_strict_objects_and_examples_fit_them() {
    for schema in all_skills_controller_schemas() {
        assert_eq!(schema.params["type"], "object", "{}", schema.method);
        assert_eq!(
            schema.params["additionalProperties"], false,
            "{}: unknown params must be refused",
            schema.method
        );
        let properties = schema.params["properties"].as_object();
        for key in schema
            .example
            .as_object()
            .into_iter()
            .flatten()
            .map(|(key, _)| key)
        {
            assert!(
                properties.is_some_and(|properties| properties.contains_key(key)),
                "{}: the example's '{key}' is not a param",
                schema.method
            );
        }
        assert!(!schema.description.is_empty());
    }
}

#[test]
fn schemas_match_their_snapshots() {
    for schema in all_skills_controller_schemas() {
        insta::assert_json_snapshot!(schema.method.clone(), schema);
    }
}
