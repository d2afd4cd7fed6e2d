//! The mention detector, table-driven: what a body mentions (paths in the folders skills
//! bundle files in), what it must not count (URLs, absolute paths, `..`, prose with slashes,
//! package names, hosts, example paths outside the bundle folders), and the warning built
//! from a definition-only download.

use super::*;

#[test]
fn finds_relative_paths_in_prose_code_and_links() {
    let body = "\
# Recalc

Run `python3 scripts/recalc.py --input data.csv` after editing.
See references/formulas.md. Then open [the guide](./assets/guide.pdf \"Guide\").
Use ./helper.sh, or {baseDir}/scripts/check.sh, or ${SKILL_DIR}/templates/report.docx.
The scripts/ folder holds more; see also **references/formulas.md** again.
Link with a fragment: [x](references/api.md#errors).

```bash
bash scripts/recalc.py
python3 scripts/lib/util.py
```
";
    assert_eq!(
        mentioned_paths(body),
        [
            "scripts/recalc.py",
            "references/formulas.md",
            "assets/guide.pdf",
            "scripts/check.sh",
            "templates/report.docx",
            "scripts/",
            "references/api.md",
            "scripts/lib/util.py",
        ]
    );
}

#[test]
fn ignores_what_is_not_a_path_inside_the_skill() {
    for text in [
        "https://example.com/scripts/x.py",
        "[x](https://example.com/a/b.md)",
        "mailto:someone@example.com",
        "/etc/passwd and /usr/bin/python3",
        "~/notes/todo.md",
        "../outside/secret.md",
        "scripts/../../x.py",
        "scripts//x.py",
        "and/or, input/output, yes/no, TCP/IP, client/server",
        "@acme/pdf and npm i @scope/pkg",
        "www.example.com/page.html",
        "version 1.5/2.0 and 12/05/2024",
        "C:\\Users\\x\\file.md or scripts\\x.py",
        "README.md, SKILL.md and package.json (no folder, no ./)",
        "./SKILL.md",
        "$HOME/x.py and ${HOME}",
        "-v/--verbose",
        // Example paths in the prose of real skills: nothing the skill bundles.
        "./helper.sh and ./build.sh",
        "path/to/test.test.ts",
        "word/_rels/document.xml.rels and ppt/slides/slide1.xml",
        "src/app/page.tsx, lib/utils.ts",
        "scripts and references without a slash, ./scripts",
        "docs/scripts/x.py",
    ] {
        assert_eq!(mentioned_paths(text), Vec::<String>::new(), "{text}");
    }
}

#[test]
fn each_path_is_named_once_in_order_of_first_mention() {
    assert_eq!(
        mentioned_paths("scripts/x.md references/y.md ./scripts/x.md `scripts/x.md`"),
        ["scripts/x.md", "references/y.md"]
    );
}

fn download(files: &[(&str, &str)]) -> Download {
    Download {
        name: None,
        files: files
            .iter()
            .map(|(path, text)| ((*path).to_owned(), text.as_bytes().to_vec()))
            .collect(),
        version: None,
        url: url::Url::parse("https://example.com/x/SKILL.md").unwrap(),
    }
}

#[test]
fn the_warning_names_what_was_not_fetched_and_how_to_bring_it() {
    let definition = "---\nname: x\ndescription: \"See scripts/in-frontmatter.py\"\n---\n\
                      Run scripts/recalc.py with references/a.md.\n";
    let warning = unfetched_warning(&download(&[("SKILL.md", definition)])).unwrap();
    assert!(
        warning.starts_with(
            "SKILL.md mentions bundled files that were not installed: scripts/recalc.py, \
             references/a.md; "
        ),
        "{warning}"
    );
    assert!(
        warning.contains("install the skill from a pack"),
        "{warning}"
    );
    assert!(!warning.contains("in-frontmatter"), "{warning}");

    let partial = download(&[("SKILL.md", definition), ("scripts/recalc.py", "print()")]);
    let warning = unfetched_warning(&partial).unwrap();
    assert!(
        warning.starts_with(
            "SKILL.md mentions a bundled file that was not installed: references/a.md; "
        ),
        "{warning}"
    );
    let whole = download(&[
        ("SKILL.md", definition),
        ("scripts/recalc.py", "print()"),
        ("references/a.md", "# A"),
    ]);
    assert_eq!(unfetched_warning(&whole), None);
    assert_eq!(
        unfetched_warning(&download(&[("SKILL.md", "---\nname: x\n---\nNo files.\n")])),
        None
    );
}

#[test]
fn a_mentioned_folder_is_fetched_when_any_file_in_it_is() {
    let definition = "See the scripts/ folder.";
    assert!(unfetched_warning(&download(&[("SKILL.md", definition)])).is_some());
    assert_eq!(
        unfetched_warning(&download(&[("SKILL.md", definition), ("scripts/a.py", "")])),
        None
    );
}
