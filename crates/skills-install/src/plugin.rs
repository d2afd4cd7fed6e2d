//! Claude Code plugin manifests in a source (a repository, an archive, a local folder): which
//! plugin each skill belongs to, so `install SOURCE --list` can group the skills and
//! `--plugin NAME` can install one plugin's.
//!
//! Most large skill repositories are plugin marketplaces: `.claude-plugin/marketplace.json`
//! lists plugins (`{name, source, skills?}`), each a folder of the repository (`"./plugins/x"`,
//! or `"./"` for the repository itself, below `metadata.pluginRoot` when that is set) whose
//! skills are under its `skills/` folder, or exactly the skill folders its `skills` list names
//! (anthropics/skills has three plugins on `"./"`, told apart only by that list). A plugin's own
//! `.claude-plugin/plugin.json` gives its name and may add skill folders (`skills`, a path or a
//! list, added to `skills/` as Claude Code documents). A repository that is one plugin has
//! only the `plugin.json`. A plugin whose `source` is an object (`{"source": "github", "repo":
//! ...}`) lives in another repository: it is named in a warning that says where, never fetched
//! from here.
//!
//! Every path a manifest gives is a relative path checked like one a person names
//! ([`skills_types::path::check_named`]): a manifest cannot point outside the source. A manifest
//! that cannot be read is a warning, never a refusal: the skills are found without it, as in a
//! repository that has none. Nothing here does I/O; the files come from the tree already read.

use serde_json::Value;
use skills_types::sanitize;

/// The marketplace manifest, relative to a source's root.
pub(crate) const MARKETPLACE: &str = ".claude-plugin/marketplace.json";
/// A plugin's manifest, relative to the plugin's folder.
pub(crate) const PLUGIN_MANIFEST: &str = ".claude-plugin/plugin.json";
/// The folder of a plugin whose skills are found without a list.
const SKILLS_FOLDER: &str = "skills";
/// Longest plugin name accepted, in characters.
const MAX_NAME_CHARS: usize = 128;

/// One plugin of a source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plugin {
    /// Its name, as `--plugin` takes it and the install record keeps it.
    pub(crate) name: String,
    /// Its folder, relative to the source's root (`""` for the root itself).
    pub(crate) base: String,
    /// Skill folders (or folders of skills) named by a list, relative to the source's root.
    pub(crate) listed: Vec<String>,
    /// Whether the skills below `<base>/skills/` belong to it too (every plugin but one whose
    /// marketplace entry lists its skills).
    pub(crate) conventional: bool,
}

impl Plugin {
    /// Whether the skill in `folder` (relative to the source's root) belongs to this plugin.
    pub(crate) fn holds(&self, folder: &str) -> bool {
        let below = |parent: &str| {
            parent.is_empty()
                || folder == parent
                || folder
                    .strip_prefix(parent)
                    .is_some_and(|rest| rest.starts_with('/'))
        };
        if self.listed.iter().any(|listed| below(listed)) {
            return true;
        }
        self.conventional && {
            let skills = join(&self.base, SKILLS_FOLDER);
            folder
                .strip_prefix(skills.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
        }
    }
}

/// The plugins a source declares, and what could not be read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Manifests {
    /// In the order the manifests give them.
    pub(crate) plugins: Vec<Plugin>,
    /// Plugins hosted elsewhere, manifests that could not be read, entries left out.
    pub(crate) warnings: Vec<String>,
}

impl Manifests {
    /// Reads the manifests among `files` (`(path relative to the source's root, bytes)`):
    /// the marketplace at the root, else the root's `plugin.json`; and, when the user named a
    /// folder (`under`), that folder's `plugin.json` if no plugin of the marketplace is there.
    pub(crate) fn read(files: &[(String, Vec<u8>)], under: Option<&str>) -> Self {
        let file = |path: &str| {
            files
                .iter()
                .find(|(have, _)| have == path)
                .map(|(_, bytes)| bytes.as_slice())
        };
        let mut manifests = Self::default();
        if let Some(bytes) = file(MARKETPLACE) {
            manifests.marketplace(bytes, &file);
        } else if let Some(bytes) = file(PLUGIN_MANIFEST) {
            manifests.single("", bytes, PLUGIN_MANIFEST);
        }
        if let Some(under) = under.filter(|under| !under.is_empty())
            && !manifests.plugins.iter().any(|plugin| plugin.base == under)
        {
            let path = join(under, PLUGIN_MANIFEST);
            if let Some(bytes) = file(&path) {
                manifests.single(under, bytes, &path);
            }
        }
        manifests
    }

    /// The names of the plugins the skill in `folder` belongs to, in manifest order.
    pub(crate) fn of(&self, folder: &str) -> Vec<String> {
        self.plugins
            .iter()
            .filter(|plugin| plugin.holds(folder))
            .map(|plugin| plugin.name.clone())
            .collect()
    }

    /// Every plugin name, in manifest order.
    pub(crate) fn names(&self) -> Vec<String> {
        self.plugins
            .iter()
            .map(|plugin| plugin.name.clone())
            .collect()
    }

    fn marketplace<'a>(&mut self, bytes: &[u8], file: &dyn Fn(&str) -> Option<&'a [u8]>) {
        let Some(document) = self.parse(bytes, MARKETPLACE) else {
            return;
        };
        let root = match document.pointer("/metadata/pluginRoot") {
            None => String::new(),
            Some(Value::String(root)) => match relative(root) {
                Ok(root) => root,
                Err(why) => {
                    self.warn(format!(
                        "{MARKETPLACE} is not used: its metadata.pluginRoot {why}"
                    ));
                    return;
                }
            },
            Some(_) => {
                self.warn(format!(
                    "{MARKETPLACE} is not used: its metadata.pluginRoot is not a string"
                ));
                return;
            }
        };
        let Some(entries) = document.get("plugins").and_then(Value::as_array) else {
            self.warn(format!("{MARKETPLACE} is not used: it has no plugins list"));
            return;
        };
        for (index, entry) in entries.iter().enumerate() {
            let Some(name) = self.name(entry, &format!("entry {} of {MARKETPLACE}", index + 1))
            else {
                continue;
            };
            let base = match entry.get("source") {
                None => Ok(root.clone()),
                Some(Value::String(source)) => relative(source).map(|source| join(&root, &source)),
                Some(Value::Object(remote)) => {
                    self.warn(elsewhere(&name, remote));
                    continue;
                }
                Some(_) => Err("is neither a path nor a source object".to_owned()),
            };
            let base = match base {
                Ok(base) => base,
                Err(why) => {
                    self.warn(format!(
                        "the plugin '{name}' of {MARKETPLACE} is left out: its source {why}"
                    ));
                    continue;
                }
            };
            let Some(listed) = self.paths(&name, &base, entry.get("skills"), MARKETPLACE) else {
                continue;
            };
            let conventional = listed.is_empty();
            let mut plugin = Plugin {
                name,
                base,
                listed,
                conventional,
            };
            // The plugin's own manifest may add skill folders.
            let own = join(&plugin.base, PLUGIN_MANIFEST);
            if let Some(bytes) = file(&own)
                && let Some(document) = self.parse(bytes, &own)
                && let Some(more) =
                    self.paths(&plugin.name, &plugin.base, document.get("skills"), &own)
            {
                plugin.listed.extend(more);
            }
            self.add(plugin);
        }
    }

    /// A folder that is one plugin: its `plugin.json` at `base`.
    fn single(&mut self, base: &str, bytes: &[u8], shown: &str) {
        let Some(document) = self.parse(bytes, shown) else {
            return;
        };
        let Some(name) = self.name(&document, shown) else {
            return;
        };
        let Some(listed) = self.paths(&name, base, document.get("skills"), shown) else {
            return;
        };
        self.add(Plugin {
            name,
            base: base.to_owned(),
            listed,
            conventional: true,
        });
    }

    fn add(&mut self, plugin: Plugin) {
        if self.plugins.iter().any(|other| other.name == plugin.name) {
            self.warn(format!(
                "a second plugin named '{}' is left out; the first one keeps the name",
                plugin.name
            ));
            return;
        }
        self.plugins.push(plugin);
    }

    fn parse(&mut self, bytes: &[u8], shown: &str) -> Option<Value> {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(document) if document.is_object() => Some(document),
            Ok(_) => {
                self.warn(format!("{shown} is not used: it is not a JSON object"));
                None
            }
            Err(error) => {
                self.warn(format!(
                    "{shown} is not used: it is not valid JSON ({error})"
                ));
                None
            }
        }
    }

    /// An entry's `name`, when it is one a person can type back (`--plugin NAME`).
    fn name(&mut self, entry: &Value, shown: &str) -> Option<String> {
        let name = entry.get("name").and_then(Value::as_str).map(str::trim);
        match name {
            Some(name)
                if !name.is_empty()
                    && name.chars().count() <= MAX_NAME_CHARS
                    && sanitize::line(name) == name =>
            {
                Some(name.to_owned())
            }
            Some(name) => {
                self.warn(format!(
                    "{shown} is left out: its name '{}' is not a plain name",
                    sanitize::line(name)
                ));
                None
            }
            None => {
                self.warn(format!("{shown} is left out: it has no name"));
                None
            }
        }
    }

    /// A `skills` field (one path or a list) as folders relative to the source's root; `None`
    /// (with a warning) when it is neither, or a path in it is refused.
    fn paths(
        &mut self,
        name: &str,
        base: &str,
        field: Option<&Value>,
        shown: &str,
    ) -> Option<Vec<String>> {
        let texts: Vec<&Value> = match field {
            None => return Some(Vec::new()),
            Some(Value::Array(items)) => items.iter().collect(),
            Some(single) => vec![single],
        };
        let mut paths = Vec::with_capacity(texts.len());
        for text in texts {
            let checked = match text.as_str() {
                Some(text) => relative(text).map(|path| join(base, &path)),
                None => Err("is not a string".to_owned()),
            };
            match checked {
                Ok(path) => paths.push(path),
                Err(why) => {
                    self.warn(format!(
                        "the plugin '{name}' of {shown} is left out: a path of its skills {why}"
                    ));
                    return None;
                }
            }
        }
        Some(paths)
    }

    fn warn(&mut self, warning: String) {
        self.warnings.push(sanitize::line(&warning).into_owned());
    }
}

/// What a plugin hosted in another repository is, for the warning that names it.
fn elsewhere(name: &str, source: &serde_json::Map<String, Value>) -> String {
    let text = |key: &str| source.get(key).and_then(Value::as_str).map(str::trim);
    let place = match (text("source"), text("repo"), text("url")) {
        (Some("github"), Some(repo), _) => {
            format!("the GitHub repository {repo} (install it with `skills install {repo}`)")
        }
        (_, _, Some(url)) => format!("the git repository {url}"),
        (Some(kind), _, _) => format!("a '{kind}' source"),
        _ => "another source".to_owned(),
    };
    format!(
        "the plugin '{name}' is published in {place}, not in this source; its skills are not listed here"
    )
}

/// A manifest's relative path (`"./plugins/x"`, `"plugins/x/"`, `"./"`) as a checked path
/// below the source's root (`""` for the root).
fn relative(text: &str) -> Result<String, String> {
    let trimmed = skills_types::path::strip_current_dir_prefix(text.trim()).trim_end_matches('/');
    if matches!(trimmed, "" | "." | "./") {
        return Ok(String::new());
    }
    skills_types::path::check_named(trimmed)
        .map(|components| components.join("/"))
        .map_err(|refusal| format!("'{}' is refused: {refusal}", text.escape_debug()))
}

fn join(base: &str, path: &str) -> String {
    match (base.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (_, true) => base.to_owned(),
        _ => format!("{base}/{path}"),
    }
}

#[cfg(test)]
mod tests;
