//! Plugin manifests in the shapes real marketplaces use: plugins in their own folders with a
//! `plugin.json` each, several plugins on the repository's root told apart by their `skills`
//! lists, a repository that is one plugin, `metadata.pluginRoot`, remote sources, and
//! manifests that cannot be used.

use serde_json::json;

use super::*;

fn files(entries: &[(&str, Value)]) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = entries
        .iter()
        .map(|(path, value)| ((*path).to_owned(), value.to_string().into_bytes()))
        .collect();
    files.sort();
    files
}

#[test]
fn plugins_in_their_own_folders_hold_the_skills_below_their_skills_folder() {
    let manifests = Manifests::read(
        &files(&[
            (
                MARKETPLACE,
                json!({"name": "acme", "plugins": [
                    {"name": "contracts", "source": "./plugins/contracts"},
                    {"name": "commands-only", "source": "./plugins/commands-only/"},
                    {"name": "review", "source": "plugins/review", "version": "1.0.0"},
                ]}),
            ),
            (
                "plugins/contracts/.claude-plugin/plugin.json",
                json!({"name": "contracts", "skills": ["./extra/guide"]}),
            ),
        ]),
        None,
    );
    assert_eq!(manifests.warnings, Vec::<String>::new());
    assert_eq!(manifests.names(), ["contracts", "commands-only", "review"]);
    assert_eq!(
        manifests.of("plugins/contracts/skills/scanner"),
        ["contracts"]
    );
    // The plugin's own manifest adds a folder to its skills/.
    assert_eq!(manifests.of("plugins/contracts/extra/guide"), ["contracts"]);
    assert_eq!(manifests.of("plugins/review/skills/rust"), ["review"]);
    for outside in [
        "plugins/contracts/other/x",
        "plugins/contracts/skills",
        "plugins/contractsx/skills/y",
        "skills/loose",
    ] {
        assert_eq!(manifests.of(outside), Vec::<String>::new(), "{outside}");
    }
}

#[test]
fn plugins_on_the_root_are_told_apart_by_their_skills_lists() {
    let manifests = Manifests::read(
        &files(&[(
            MARKETPLACE,
            json!({"name": "examples", "plugins": [
                {"name": "documents", "source": "./", "strict": false,
                 "skills": ["./skills/xlsx", "./skills/pdf"]},
                {"name": "examples", "source": "./", "strict": false,
                 "skills": ["./skills/art"]},
            ]}),
        )]),
        None,
    );
    assert_eq!(manifests.of("skills/pdf"), ["documents"]);
    assert_eq!(manifests.of("skills/art"), ["examples"]);
    // Not listed by either, so in neither (a list replaces the skills/ folder).
    assert_eq!(manifests.of("skills/other"), Vec::<String>::new());
    assert_eq!(manifests.of("template"), Vec::<String>::new());
}

#[test]
fn a_repository_that_is_one_plugin_holds_its_skills_folder() {
    let single = files(&[(
        PLUGIN_MANIFEST,
        json!({"name": "powers", "version": "6.2.0"}),
    )]);
    let manifests = Manifests::read(&single, None);
    assert_eq!(manifests.of("skills/debugging"), ["powers"]);
    // The same through a marketplace naming the root.
    let both = files(&[
        (
            MARKETPLACE,
            json!({"name": "dev", "plugins": [{"name": "powers", "source": "./"}]}),
        ),
        (PLUGIN_MANIFEST, json!({"name": "powers"})),
    ]);
    assert_eq!(
        Manifests::read(&both, None).of("skills/debugging"),
        ["powers"]
    );
    // A named folder that is a plugin of its own.
    let nested = files(&[(
        "plugins/c-review/.claude-plugin/plugin.json",
        json!({"name": "c-review"}),
    )]);
    assert_eq!(
        Manifests::read(&nested, Some("plugins/c-review")).of("plugins/c-review/skills/c"),
        ["c-review"]
    );
    assert_eq!(Manifests::read(&nested, None).names(), Vec::<String>::new());
}

#[test]
fn the_plugin_root_prefixes_every_source() {
    let manifests = Manifests::read(
        &files(&[(
            MARKETPLACE,
            json!({"name": "m", "metadata": {"pluginRoot": "./plugins"},
                   "plugins": [{"name": "one", "source": "./one"}]}),
        )]),
        None,
    );
    assert_eq!(manifests.of("plugins/one/skills/a"), ["one"]);
}

#[test]
fn remote_plugins_are_named_and_bad_entries_left_out() {
    let manifests = Manifests::read(
        &files(&[(
            MARKETPLACE,
            json!({"name": "m", "plugins": [
                {"name": "remote", "source": {"source": "github", "repo": "acme/remote"}},
                {"name": "git", "source": {"source": "url", "url": "https://git.example.com/p.git"}},
                {"name": "climber", "source": "./../outside"},
                {"name": "absolute", "source": "/etc"},
                {"name": "hostile", "source": "./ok", "skills": ["../../x"]},
                {"source": "./nameless"},
                {"name": "bad\u{1b}[31mname", "source": "./x"},
                {"name": "kept", "source": "./kept"},
                {"name": "kept", "source": "./again"},
            ]}),
        )]),
        None,
    );
    assert_eq!(manifests.names(), ["kept"]);
    let all = manifests.warnings.join("\n");
    for needle in [
        "'remote' is published in the GitHub repository acme/remote",
        "skills install acme/remote",
        "https://git.example.com/p.git",
        "'climber'",
        "'..' component",
        "'absolute'",
        "absolute",
        "'hostile'",
        "has no name",
        "not a plain name",
        "a second plugin named 'kept'",
    ] {
        assert!(all.contains(needle), "{needle}: {all}");
    }
    assert!(!all.contains('\u{1b}'), "{all}");
    assert_eq!(manifests.of("kept/skills/a"), ["kept"]);
    assert_eq!(manifests.of("again/skills/a"), Vec::<String>::new());
}

#[test]
fn manifests_that_cannot_be_read_are_warnings() {
    for (bytes, needle) in [
        (b"{not json".to_vec(), "not valid JSON"),
        (b"[1, 2]".to_vec(), "not a JSON object"),
        (br#"{"name": "m"}"#.to_vec(), "no plugins list"),
        (
            br#"{"name": "m", "metadata": {"pluginRoot": "../x"}, "plugins": []}"#.to_vec(),
            "pluginRoot",
        ),
    ] {
        let manifests = Manifests::read(&[(MARKETPLACE.to_owned(), bytes)], None);
        assert_eq!(manifests.names(), Vec::<String>::new());
        assert!(
            manifests
                .warnings
                .iter()
                .any(|warning| warning.contains(needle)),
            "{needle}: {:?}",
            manifests.warnings
        );
    }
    assert_eq!(Manifests::read(&[], None), Manifests::default());
}
