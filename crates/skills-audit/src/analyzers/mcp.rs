//! MCP server configurations shipped in a skill (`.mcp.json`, `mcp.json`): a host that loads
//! the skill's plugin starts each server's `command` with its `args` and `env` by itself,
//! without a person running anything — so the command line is code that runs, and is read
//! as such by the `scripts` analyzer, while the `manifest` analyzer checks what the entry
//! claims to be (a server, a package) against what it is.

use serde_json::Value;

use crate::files::ScannedFile;

/// File names of MCP configurations.
const NAMES: &[&str] = &[".mcp.json", "mcp.json", "mcp_servers.json"];

/// One configured server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Server {
    pub(super) name: String,
    pub(super) command: String,
    pub(super) args: Vec<String>,
    /// The names of the variables its `env` sets.
    pub(super) env: Vec<String>,
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
    let Some(servers) = value
        .get("mcpServers")
        .or_else(|| value.get("servers"))
        .and_then(Value::as_object)
    else {
        return found;
    };
    let mut search_from = 0;
    for (name, server) in servers {
        let Some(command) = server.get("command").and_then(Value::as_str) else {
            continue;
        };
        let args = server
            .get("args")
            .and_then(Value::as_array)
            .map(|args| {
                args.iter()
                    .filter_map(|arg| arg.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let env = server
            .get("env")
            .and_then(Value::as_object)
            .map(|env| env.keys().cloned().collect())
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
    fn other_files_and_broken_json_have_no_servers() {
        let broken = ScannedFile::new(".mcp.json", b"{".to_vec(), 1);
        assert!(servers(&broken).is_empty());
        let other = ScannedFile::new("data.json", br#"{"mcpServers": {}}"#.to_vec(), 18);
        assert!(servers(&other).is_empty());
    }
}
