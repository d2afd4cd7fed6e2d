//! What a skill declares it needs (issue 30 §11): the Python requirements of its
//! `requirements.txt` (at its top or in `scripts/`) and of its scripts' inline metadata
//! (PEP 723, `# /// script` … `dependencies = [...]`), and the npm dependencies of its
//! `package.json`. `skills setup` installs them into the skill's own environment.
//!
//! A skill comes from a repository, and what it declares is fetched by the user's package
//! managers with the user's configuration. So a declaration may name *what* to install, never
//! *where from* or *how*: a requirement is a name with extras, version specifiers and
//! environment markers (PEP 508 without a direct reference), and every pip option
//! (`-i`/`--index-url`, `--extra-index-url`, `--find-links`, `--trusted-host`, `-e`, `-r`,
//! `-c`), URL, path or VCS address is refused, naming the file and line. An npm dependency is
//! a registry range, tag or `npm:` alias, or a `file:` tarball inside the skill folder; a git,
//! URL, GitHub shorthand or local-folder specifier is refused. Where packages come from is
//! what the user's pip configuration (`pip.conf`, `PIP_*`) and npm configuration (`~/.npmrc`,
//! `npm_config_*`) say. A skill that ships a `.npmrc` is refused, as for its npm runs.

use std::path::Path;

use serde_json::{Map, Value};
use skills_types::Error;
use skills_types::skill::Resource;

use crate::npm::{PACKAGE_JSON, PROJECT_NPMRC};

/// Where requirements files are looked for, relative to the skill folder.
const REQUIREMENTS_FILES: [&str; 2] = ["requirements.txt", "scripts/requirements.txt"];
/// The most bytes of a requirements file, a script or `package.json` read.
const MAX_DECLARATION_BYTES: u64 = 1024 * 1024;
/// The most Python scripts read for inline metadata.
const MAX_SCRIPTS: usize = 200;
/// The most requirements (or npm dependencies) one skill may declare.
const MAX_DEPENDENCIES: usize = 500;
/// The longest requirement or specifier.
const MAX_REQUIREMENT_CHARS: usize = 256;
/// The npm dependency tables a skill's environment installs (development dependencies are a
/// package's own tooling, not what its scripts import).
const NPM_TABLES: [&str; 2] = ["dependencies", "optionalDependencies"];
/// The tarball endings a `file:` dependency may have.
const TARBALLS: [&str; 3] = [".tgz", ".tar.gz", ".tar"];

/// What a skill declares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Declared {
    /// Python requirements, each once, in the order met.
    pub(crate) requirements: Vec<String>,
    /// The npm package the environment installs, when `package.json` has dependencies.
    pub(crate) node: Option<NodePackage>,
    /// Where each kind was declared (`requirements.txt`, `scripts/x.py`, `package.json`).
    pub(crate) declared_in: Vec<String>,
}

/// The `package.json` a skill's environment installs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NodePackage {
    /// Written into the environment's `node/` folder: the checked dependencies only (no
    /// scripts, no other configuration), `file:` tarballs as absolute paths.
    pub(crate) manifest: Vec<u8>,
    /// `name@spec`, for the record and messages.
    pub(crate) dependencies: Vec<String>,
}

/// Reads what the skill in `skill_dir` declares; `files` is its inventory (no links, no
/// hidden files). A declaration that cannot be honoured is an `invalid_input` naming it.
pub(crate) fn read(skill_dir: &Path, files: &[Resource]) -> Result<Declared, Error> {
    let mut declared = Declared::default();
    for name in REQUIREMENTS_FILES {
        if !files.iter().any(|file| file.path == name) {
            continue;
        }
        let text = read_text(skill_dir, name)?;
        let found = requirements_file(&text).map_err(|why| invalid(skill_dir, name, &why))?;
        add(&mut declared, name, found)?;
    }
    let scripts = files
        .iter()
        .filter(|file| file.path.ends_with(".py"))
        .take(MAX_SCRIPTS);
    for script in scripts {
        let Ok(text) = read_text(skill_dir, &script.path) else {
            // A script that cannot be read as text declares nothing; running it says why.
            continue;
        };
        let found =
            inline_dependencies(&text).map_err(|why| invalid(skill_dir, &script.path, &why))?;
        if let Some(found) = found {
            add(&mut declared, &script.path, found)?;
        }
    }
    if files.iter().any(|file| file.path == PACKAGE_JSON) {
        let text = read_text(skill_dir, PACKAGE_JSON)?;
        if let Some(node) = node_package(skill_dir, &text)? {
            declared.declared_in.push(PACKAGE_JSON.to_owned());
            declared.node = Some(node);
        }
    }
    Ok(declared)
}

fn add(declared: &mut Declared, source: &str, found: Vec<String>) -> Result<(), Error> {
    if found.is_empty() {
        return Ok(());
    }
    declared.declared_in.push(source.to_owned());
    for requirement in found {
        if !declared.requirements.contains(&requirement) {
            declared.requirements.push(requirement);
        }
    }
    if declared.requirements.len() > MAX_DEPENDENCIES {
        return Err(Error::InvalidInput(format!(
            "the skill declares more than {MAX_DEPENDENCIES} Python requirements"
        )));
    }
    Ok(())
}

fn read_text(skill_dir: &Path, relative: &str) -> Result<String, Error> {
    skills_ops::reader::read_beneath(skill_dir, relative, MAX_DECLARATION_BYTES)
        .map(|read| read.content)
        .map_err(|refusal| Error::PathRefused {
            path: relative.to_owned(),
            reason: refusal.to_string(),
            refusal: refusal.kind(),
        })
}

fn invalid(skill_dir: &Path, relative: &str, why: &str) -> Error {
    Error::InvalidInput(format!(
        "{} cannot be installed as declared: {why}",
        skill_dir.join(relative).display()
    ))
}

/// The requirements of a `requirements.txt`: one per line, `#` comments and blank lines
/// skipped, `\` continuations joined; an option line is refused with its line number.
pub(crate) fn requirements_file(text: &str) -> Result<Vec<String>, String> {
    let mut found = Vec::new();
    let mut pending = String::new();
    let mut first_line = 0;
    for (index, raw) in text.lines().enumerate() {
        if pending.is_empty() {
            first_line = index + 1;
        }
        let line = strip_comment(raw);
        if let Some(joined) = line.strip_suffix('\\') {
            pending.push_str(joined);
            continue;
        }
        pending.push_str(line);
        let entry = std::mem::take(&mut pending);
        let entry = entry.trim();
        if entry.is_empty() {
            continue;
        }
        let checked =
            check_requirement(entry).map_err(|why| format!("line {first_line}: {why}"))?;
        found.push(checked);
    }
    if !pending.trim().is_empty() {
        let checked =
            check_requirement(pending.trim()).map_err(|why| format!("line {first_line}: {why}"))?;
        found.push(checked);
    }
    Ok(found)
}

/// A line without its comment: `#` at its start or after whitespace starts one (pip's rule).
fn strip_comment(line: &str) -> &str {
    if line.trim_start().starts_with('#') {
        return "";
    }
    match line.find(" #").or_else(|| line.find("\t#")) {
        Some(at) => &line[..at],
        None => line,
    }
}

/// The `dependencies` of a script's inline metadata block (PEP 723): `None` when it has no
/// `# /// script` block; a second block, or one whose TOML does not read, is refused.
pub(crate) fn inline_dependencies(text: &str) -> Result<Option<Vec<String>>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found: Option<Vec<String>> = None;
    let mut index = 0;
    while index < lines.len() {
        if lines[index].trim_end() != "# /// script" {
            index += 1;
            continue;
        }
        // The block's content: every following line that is `#` or starts with `# `, up to a
        // line that is exactly `# ///`. Without that closing line there is no block (PEP 723's
        // own regular expression does not match).
        let mut content = String::new();
        let mut end = None;
        for (offset, line) in lines[index + 1..].iter().enumerate() {
            let line = line.trim_end_matches('\r');
            if line == "# ///" {
                end = Some(index + 1 + offset);
                break;
            }
            match line
                .strip_prefix("# ")
                .or_else(|| (line == "#").then_some(""))
            {
                Some(text) => {
                    content.push_str(text);
                    content.push('\n');
                }
                None => break,
            }
        }
        let Some(end) = end else {
            index += 1;
            continue;
        };
        if found.is_some() {
            return Err("it holds two `# /// script` blocks (PEP 723 allows one)".to_owned());
        }
        let table: toml::Table = content.parse().map_err(|error: toml::de::Error| {
            format!(
                "its `# /// script` block is not valid TOML ({})",
                error.message().trim()
            )
        })?;
        let dependencies = match table.get("dependencies") {
            None => Vec::new(),
            Some(value) => value
                .as_array()
                .and_then(|items| {
                    items
                        .iter()
                        .map(|item| item.as_str().map(str::to_owned))
                        .collect::<Option<Vec<_>>>()
                })
                .ok_or("its `# /// script` block's `dependencies` is not a list of strings")?,
        };
        let mut checked = Vec::new();
        for dependency in dependencies {
            checked.push(check_requirement(dependency.trim())?);
        }
        found = Some(checked);
        index = end + 1;
    }
    Ok(found)
}

/// A Python requirement as a skill (or the user's `--package`) may give it: a distribution
/// name, optional extras, version specifiers and an environment marker. Anything that would
/// choose where the package comes from or how pip runs is refused, saying why.
pub(crate) fn check_requirement(text: &str) -> Result<String, String> {
    let shown = text.escape_debug();
    if text.starts_with('-') {
        return Err(format!(
            "'{shown}' is a pip option; a skill names what it needs, and where packages come \
             from is your pip configuration's to say (pip.conf, PIP_INDEX_URL, PIP_FIND_LINKS)"
        ));
    }
    if text.len() > MAX_REQUIREMENT_CHARS {
        return Err(format!(
            "a requirement of more than {MAX_REQUIREMENT_CHARS} characters"
        ));
    }
    let (spec, marker) = match text.split_once(';') {
        Some((spec, marker)) => (spec.trim(), Some(marker.trim())),
        None => (text.trim(), None),
    };
    if spec.contains("://") || spec.contains('@') || spec.contains(['/', '\\']) {
        return Err(format!(
            "'{shown}' names a URL, a path or a repository; only a package name with version \
             specifiers is installed (from the index your pip configuration names)"
        ));
    }
    let name_end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .unwrap_or(spec.len());
    let (name, rest) = spec.split_at(name_end);
    if name.is_empty()
        || !name.starts_with(|c: char| c.is_ascii_alphanumeric())
        || !name.ends_with(|c: char| c.is_ascii_alphanumeric())
    {
        return Err(format!("'{shown}' does not start with a package name"));
    }
    let specifier_chars = |c: char| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '[' | ']'
                    | ','
                    | '.'
                    | '_'
                    | '-'
                    | '<'
                    | '>'
                    | '='
                    | '!'
                    | '~'
                    | '*'
                    | '+'
                    | ' '
                    | '('
                    | ')'
            )
    };
    if !rest.chars().all(specifier_chars) {
        return Err(format!(
            "'{shown}' has characters a version specifier does not use"
        ));
    }
    if let Some(marker) = marker {
        let marker_chars = |c: char| specifier_chars(c) || matches!(c, '"' | '\'' | ':');
        if marker.is_empty() || !marker.chars().all(marker_chars) {
            return Err(format!(
                "'{shown}' has an environment marker this reader does not take"
            ));
        }
    }
    Ok(text.trim().to_owned())
}

/// The package a skill's environment installs from its `package.json`: `None` when it has no
/// dependencies to install.
fn node_package(skill_dir: &Path, text: &str) -> Result<Option<NodePackage>, Error> {
    let refuse = |why: String| invalid(skill_dir, PACKAGE_JSON, &why);
    let package: Value = serde_json::from_str(text)
        .map_err(|error| refuse(format!("it is not valid JSON ({error})")))?;
    let mut tables = Map::new();
    let mut dependencies = Vec::new();
    for table in NPM_TABLES {
        let Some(entries) = package.get(table) else {
            continue;
        };
        let entries = entries
            .as_object()
            .ok_or_else(|| refuse(format!("its `{table}` is not an object")))?;
        let mut checked = Map::new();
        for (name, spec) in entries {
            let spec = spec.as_str().ok_or_else(|| {
                refuse(format!(
                    "the {table} entry '{}' is not a string",
                    name.escape_debug()
                ))
            })?;
            let spec = check_npm_dependency(skill_dir, name, spec).map_err(refuse)?;
            dependencies.push(format!("{name}@{spec}"));
            checked.insert(name.clone(), Value::String(spec));
        }
        if !checked.is_empty() {
            tables.insert(table.to_owned(), Value::Object(checked));
        }
    }
    if dependencies.is_empty() {
        return Ok(None);
    }
    if dependencies.len() > MAX_DEPENDENCIES {
        return Err(refuse(format!(
            "it declares more than {MAX_DEPENDENCIES} dependencies"
        )));
    }
    if std::fs::symlink_metadata(skill_dir.join(PROJECT_NPMRC)).is_ok() {
        return Err(Error::InvalidInput(format!(
            "the skill ships {}, which npm would read and which can change where packages come \
             from or turn install scripts back on; its dependencies are installed only without \
             one (your own settings belong in ~/.npmrc)",
            skill_dir.join(PROJECT_NPMRC).display()
        )));
    }
    let mut manifest = Map::new();
    manifest.insert(
        "name".to_owned(),
        Value::String("skill-environment".to_owned()),
    );
    manifest.insert("private".to_owned(), Value::Bool(true));
    manifest.extend(tables);
    let manifest = serde_json::to_vec_pretty(&Value::Object(manifest))
        .map_err(|error| refuse(error.to_string()))?;
    Ok(Some(NodePackage {
        manifest,
        dependencies,
    }))
}

/// An npm dependency as a skill's environment installs it: a registry range, tag or `npm:`
/// alias as written, or a `file:` tarball inside the skill folder as an absolute `file:` path.
fn check_npm_dependency(skill_dir: &Path, name: &str, spec: &str) -> Result<String, String> {
    check_npm_name(name)?;
    let shown = spec.escape_debug();
    if let Some(path) = spec.strip_prefix("file:") {
        let relative = skills_types::path::strip_current_dir_prefix(path);
        skills_types::path::check_relative(relative).map_err(|refusal| {
            format!("the dependency '{name}' is '{shown}', which is not inside the skill folder ({refusal})")
        })?;
        if !TARBALLS.iter().any(|ending| relative.ends_with(ending)) {
            return Err(format!(
                "the dependency '{name}' is the local folder '{shown}', which npm would link and \
                 install into the skill folder itself; a skill's environment takes a packed \
                 tarball (`npm pack`), or `skills run SKILL --npm install` installs into the \
                 skill folder"
            ));
        }
        let tarball = skill_dir.join(relative);
        let metadata = std::fs::symlink_metadata(&tarball).map_err(|error| {
            format!("the dependency '{name}' is '{shown}', which cannot be read ({error})")
        })?;
        if !metadata.is_file() {
            return Err(format!(
                "the dependency '{name}' is '{shown}', which is not a regular file"
            ));
        }
        return Ok(format!("file:{}", tarball.display()));
    }
    let range = match spec.strip_prefix("npm:") {
        Some(alias) => {
            let (aliased, range) = match alias.rsplit_once('@').filter(|(head, _)| !head.is_empty())
            {
                Some((aliased, range)) => (aliased, range),
                None => (alias, ""),
            };
            check_npm_name(aliased)?;
            range
        }
        None => spec,
    };
    let range_chars = |c: char| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '.' | '^' | '~' | '<' | '>' | '=' | '|' | '*' | '+' | '-' | ' '
            )
    };
    if range.len() > MAX_REQUIREMENT_CHARS || !range.chars().all(range_chars) {
        return Err(format!(
            "the dependency '{name}' is '{shown}', a git, URL, GitHub or folder address; a \
             skill's environment installs version ranges and tags from your npm registry, and \
             `file:` tarballs inside the skill folder"
        ));
    }
    Ok(spec.to_owned())
}

fn check_npm_name(name: &str) -> Result<(), String> {
    let bare = match name.strip_prefix('@') {
        Some(scoped) => match scoped.split_once('/') {
            Some((scope, bare)) if is_npm_word(scope) => bare,
            _ => "",
        },
        None => name,
    };
    if is_npm_word(bare) && !bare.starts_with(['.', '_']) && name.len() <= 214 {
        Ok(())
    } else {
        Err(format!(
            "'{}' is not an npm package name",
            name.escape_debug()
        ))
    }
}

fn is_npm_word(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_files_take_names_with_specifiers_and_refuse_options_and_addresses() {
        let text = "# the PDF tools\npypdf>=4.0  # reading\n\nreportlab==4.*\nrequests[socks] >= 2.31 ; python_version >= \"3.8\"\nnumpy\\\n>=1.24\n";
        assert_eq!(
            requirements_file(text).unwrap(),
            [
                "pypdf>=4.0",
                "reportlab==4.*",
                "requests[socks] >= 2.31 ; python_version >= \"3.8\"",
                "numpy>=1.24"
            ]
        );
        for (text, said) in [
            ("pypdf\n-i https://evil.example/simple\n", "line 2"),
            ("--extra-index-url https://evil.example\n", "pip option"),
            ("-e git+https://example.com/x.git#egg=x\n", "pip option"),
            ("-r other.txt\n", "pip option"),
            ("pypdf @ https://evil.example/pypdf.whl\n", "URL"),
            ("./vendor/pkg\n", "a path"),
            ("git+https://github.com/x/y\n", "URL"),
            ("pkg>=1;os_name==`x`\n", "marker"),
            ("pkg>=${VERSION}\n", "specifier"),
        ] {
            let why = requirements_file(text).unwrap_err();
            assert!(why.contains(said), "{text:?}: {why}");
        }
    }

    #[test]
    fn inline_metadata_is_read_as_pep_723_says() {
        let script = "#!/usr/bin/env python3\n# /// script\n# requires-python = \">=3.9\"\n# dependencies = [\n#   \"pypdf>=4\",\n#   \"rich\",\n# ]\n# ///\nimport pypdf\n";
        assert_eq!(
            inline_dependencies(script).unwrap(),
            Some(vec!["pypdf>=4".to_owned(), "rich".to_owned()])
        );
        assert_eq!(inline_dependencies("import sys\n").unwrap(), None);
        // No closing line: no block.
        assert_eq!(
            inline_dependencies("# /// script\n# dependencies = ['x']\nimport x\n").unwrap(),
            None
        );
        // Another kind of block is not a script block.
        assert_eq!(
            inline_dependencies("# /// pyproject\n# x = 1\n# ///\n").unwrap(),
            None
        );
        let twice =
            "# /// script\n# dependencies = []\n# ///\n# /// script\n# dependencies = []\n# ///\n";
        assert!(inline_dependencies(twice).unwrap_err().contains("two"));
        let broken = "# /// script\n# dependencies = [\n# ///\n";
        assert!(inline_dependencies(broken).unwrap_err().contains("TOML"));
        let option = "# /// script\n# dependencies = ['--index-url=https://evil.example']\n# ///\n";
        assert!(
            inline_dependencies(option)
                .unwrap_err()
                .contains("pip option")
        );
    }

    #[test]
    fn npm_dependencies_are_ranges_aliases_and_tarballs_inside_the_skill() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("vendor")).unwrap();
        std::fs::write(dir.path().join("vendor/greet-1.0.0.tgz"), b"x").unwrap();
        for (name, spec) in [
            ("pdf-lib", "^1.17.1"),
            ("@scope/pkg", ">=1 <3 || 4.x"),
            ("left", "latest"),
            ("alias", "npm:real-name@^2"),
            ("any", ""),
        ] {
            assert_eq!(
                check_npm_dependency(dir.path(), name, spec).as_deref(),
                Ok(spec),
                "{name} {spec}"
            );
        }
        assert_eq!(
            check_npm_dependency(dir.path(), "greet", "file:vendor/greet-1.0.0.tgz").unwrap(),
            format!(
                "file:{}",
                dir.path().join("vendor/greet-1.0.0.tgz").display()
            )
        );
        for (name, spec, said) in [
            ("greet", "file:vendor", "local folder"),
            ("greet", "file:../outside.tgz", "not inside"),
            ("greet", "file:/etc/x.tgz", "not inside"),
            ("greet", "file:vendor/missing.tgz", "cannot be read"),
            ("x", "git+https://example.com/x.git", "git, URL"),
            ("x", "https://example.com/x.tgz", "git, URL"),
            ("x", "user/repo", "git, URL"),
            ("x", "github:user/repo", "git, URL"),
            ("../x", "1.0.0", "package name"),
            ("x", "npm:../y@1", "package name"),
        ] {
            let why = check_npm_dependency(dir.path(), name, spec).unwrap_err();
            assert!(why.contains(said), "{name} {spec}: {why}");
        }
    }

    #[test]
    fn a_package_without_dependencies_installs_nothing_and_a_project_npmrc_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let none = node_package(
            dir.path(),
            r#"{"name": "x", "devDependencies": {"jest": "^29"}}"#,
        );
        assert_eq!(none.unwrap(), None);
        let package = node_package(
            dir.path(),
            r#"{"name": "x", "scripts": {"postinstall": "evil"}, "dependencies": {"pdf-lib": "^1"}}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(package.dependencies, ["pdf-lib@^1"]);
        let written: Value = serde_json::from_slice(&package.manifest).unwrap();
        assert_eq!(written["dependencies"]["pdf-lib"], "^1");
        assert!(written.get("scripts").is_none(), "{written}");
        std::fs::write(
            dir.path().join(PROJECT_NPMRC),
            "registry=https://evil.example\n",
        )
        .unwrap();
        let refused = node_package(dir.path(), r#"{"dependencies": {"pdf-lib": "^1"}}"#);
        assert!(refused.unwrap_err().to_string().contains(".npmrc"));
    }
}
