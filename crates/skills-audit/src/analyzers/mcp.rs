//! MCP server configurations shipped in a skill or a plugin (`.mcp.json`, `mcp.json`, a
//! plugin's `plugin.json`, an editor's project file): a host that loads the skill's plugin
//! starts each server's `command` with its `args` and `env` by itself, without a person
//! running anything — so the command line is code that runs, and is read as such by the
//! `scripts` analyzer, while the `manifest` analyzer checks what the entry claims to be (a
//! server, a package, a remote address) against what it is.
//!
//! A folder that holds one of [`FOLDER_CONFIGS`] but no `SKILL.md` (an MCP configuration
//! shared on its own, a Claude Code plugin's root) is scanned as well: `targets.rs` asks
//! [`holds_config`].

use std::path::Path;

use serde_json::Value;

use crate::files::ScannedFile;

/// File names of MCP configurations, wherever they are in the folder: Claude Code's project
/// and plugin file (`.mcp.json`), the bare and the VS Code / Cursor name (`mcp.json`, under
/// `.vscode/` or `.cursor/`), Copilot's `mcp-config.json`, Claude Desktop's and Windsurf's.
const NAMES: &[&str] = &[
    ".mcp.json",
    "mcp.json",
    "mcp_servers.json",
    "mcp-config.json",
    "mcp_config.json",
    "claude_desktop_config.json",
];

/// A Claude Code plugin's manifest, which may declare servers inline (`mcpServers`).
const PLUGIN_MANIFEST: &str = ".claude-plugin/plugin.json";

/// Where a folder without `SKILL.md` holds a configuration that makes it worth scanning: the
/// names above at its root or in an editor's project folder, or a plugin manifest.
pub(crate) const FOLDER_CONFIGS: &[&str] = &[
    ".mcp.json",
    "mcp.json",
    "mcp-config.json",
    "mcp_config.json",
    "claude_desktop_config.json",
    ".vscode/mcp.json",
    ".cursor/mcp.json",
    PLUGIN_MANIFEST,
];

/// Whether the folder `dir` holds an MCP configuration or a plugin manifest (a regular
/// file, not a link: the scan would not read through one).
pub(crate) fn holds_config(dir: &Path) -> bool {
    FOLDER_CONFIGS.iter().any(|relative| {
        std::fs::symlink_metadata(dir.join(relative)).is_ok_and(|metadata| metadata.is_file())
    })
}

/// One configured server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Server {
    pub(super) name: String,
    pub(super) command: String,
    pub(super) args: Vec<String>,
    /// The names of the variables its `env` sets.
    pub(super) env: Vec<String>,
    /// The values its `env` sets, in the order of `env`.
    pub(super) env_values: Vec<String>,
    /// A remote server's address (`url`, `serverUrl`), empty for a local one.
    pub(super) url: String,
    /// Where its entry starts in the file (the name's key).
    pub(super) offset: usize,
}

impl Server {
    /// The command line as a shell would read it, each word quoted.
    pub(super) fn command_line(&self) -> String {
        std::iter::once(&self.command)
            .chain(&self.args)
            .map(|word| {
                if !word.is_empty()
                    && word
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c))
                {
                    word.clone()
                } else {
                    format!("'{}'", word.replace('\'', r"'\''"))
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Whether `path` names an MCP configuration.
pub(super) fn is_config(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    NAMES.contains(&name)
        || path == PLUGIN_MANIFEST
        || path.ends_with("/.claude-plugin/plugin.json")
}

/// Whether `value` reads as one server's entry: a command to start or an address to reach.
fn is_server(value: &Value) -> bool {
    value.get("command").is_some_and(Value::is_string)
        || value.get("url").is_some_and(Value::is_string)
        || value.get("serverUrl").is_some_and(Value::is_string)
}

/// The servers of an MCP configuration file; none when it is not one or does not parse.
pub(super) fn servers(file: &ScannedFile) -> Vec<Server> {
    let mut found = Vec::new();
    if !is_config(&file.path) {
        return found;
    }
    let Some(text) = file.text() else {
        return found;
    };
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return found;
    };
    // The wrapped form (`mcpServers`, VS Code's `servers`), or a plugin's bare map of names
    // to entries.
    let Some(servers) = value
        .get("mcpServers")
        .or_else(|| value.get("servers"))
        .and_then(Value::as_object)
        .or_else(|| {
            value
                .as_object()
                .filter(|map| !map.is_empty() && map.values().all(is_server))
        })
    else {
        return found;
    };
    let mut search_from = 0;
    for (name, server) in servers {
        if !is_server(server) {
            continue;
        }
        let command = server.get("command").and_then(Value::as_str).unwrap_or("");
        let url = server
            .get("url")
            .or_else(|| server.get("serverUrl"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let args = server
            .get("args")
            .and_then(Value::as_array)
            .map(|args| {
                args.iter()
                    .filter_map(|arg| arg.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let (env, env_values) = server
            .get("env")
            .and_then(Value::as_object)
            .map(|env| {
                env.iter()
                    .map(|(key, value)| {
                        (key.clone(), value.as_str().unwrap_or_default().to_owned())
                    })
                    .unzip()
            })
            .unwrap_or_default();
        let key = format!("\"{name}\"");
        let offset = text[search_from..]
            .find(&key)
            .map_or(0, |index| search_from + index);
        search_from = offset.max(search_from);
        found.push(Server {
            name: name.clone(),
            command: command.to_owned(),
            args,
            env,
            env_values,
            url: url.to_owned(),
            offset,
        });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_read_with_their_place() {
        let text = r#"{"mcpServers": {"a": {"command": "npx", "args": ["-y", "pkg"]}, "b": {"command": "sh", "args": ["-c", "echo 'x'"], "env": {"TOKEN": "${TOKEN}"}}}}"#;
        let file = ScannedFile::new(".mcp.json", text.as_bytes().to_vec(), text.len() as u64);
        let found = servers(&file);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].command_line(), "npx -y pkg");
        assert_eq!(found[1].command_line(), r"sh -c 'echo '\''x'\'''");
        assert_eq!(found[1].env, ["TOKEN"]);
        assert_eq!(&text[found[1].offset..found[1].offset + 3], "\"b\"");
    }

    #[test]
    fn a_plugin_map_vs_code_servers_and_remote_entries_are_read() {
        // A plugin's `.mcp.json` may be the bare map of names to entries.
        let bare = r#"{"db": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/db", "env": {"DB_URL": "${DB_URL}"}}}"#;
        let file = ScannedFile::new(".mcp.json", bare.as_bytes().to_vec(), bare.len() as u64);
        let found = servers(&file);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].env_values, ["${DB_URL}"]);
        let vscode = r#"{"servers": {"docs": {"type": "http", "url": "https://docs.example.net/mcp"}}, "inputs": []}"#;
        let file = ScannedFile::new(".vscode/mcp.json", vscode.as_bytes().to_vec(), 10);
        let found = servers(&file);
        assert_eq!(found[0].url, "https://docs.example.net/mcp");
        assert!(found[0].command.is_empty());
        let plugin =
            r#"{"name": "p", "mcpServers": {"api": {"command": "node", "args": ["s.js"]}}}"#;
        let file = ScannedFile::new(".claude-plugin/plugin.json", plugin.as_bytes().to_vec(), 10);
        assert_eq!(servers(&file).len(), 1);
        // A JSON object of other things is no server map.
        let other = r#"{"name": "x", "version": "1"}"#;
        let file = ScannedFile::new("mcp.json", other.as_bytes().to_vec(), 10);
        assert!(servers(&file).is_empty());
    }

    #[test]
    fn a_folder_holds_a_configuration_only_as_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!holds_config(dir.path()));
        std::fs::create_dir_all(dir.path().join(".cursor")).unwrap();
        std::fs::write(dir.path().join(".cursor/mcp.json"), "{}").unwrap();
        assert!(holds_config(dir.path()));
        let linked = tempfile::tempdir().unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(
                dir.path().join(".cursor/mcp.json"),
                linked.path().join(".mcp.json"),
            )
            .unwrap();
            assert!(!holds_config(linked.path()));
        }
    }

    #[test]
    fn other_files_and_broken_json_have_no_servers() {
        let broken = ScannedFile::new(".mcp.json", b"{".to_vec(), 1);
        assert!(servers(&broken).is_empty());
        let other = ScannedFile::new("data.json", br#"{"mcpServers": {}}"#.to_vec(), 18);
        assert!(servers(&other).is_empty());
    }
}
