//! The one table of the agents whose skill folders an install can reach (`install --agent NAME`,
//! `new --agent NAME`, `--agent detected`), with each agent's project and user folder and the
//! folders that show it is present.
//!
//! Each row's folders are taken from the agent's own documentation (the `source` field), the
//! vercel tool's agent table serving as the index. Where an agent documents the shared
//! `.agents/skills` (or, for some, `~/.config/agents/skills`) as a folder it reads, that folder
//! is its folder here: one copy there reaches every such agent, and a link is made only into
//! the folders of the agents that read nothing shared. `docs/cli.md` renders this table; a
//! test keeps the two in step.

use crate::SkillScope;

/// The shared folder of both scopes, relative to the workspace or the home: read by Codex,
/// Cursor, Gemini CLI, OpenCode, GitHub Copilot and the vercel tool.
pub const SHARED_DIR: &str = ".agents/skills";

/// The `--agent` value that means "every agent whose config folder exists".
pub const DETECTED: &str = "detected";

/// One agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Agent {
    /// The `--agent` name (the vercel tool's id for the same agent).
    pub name: &'static str,
    /// How people call it.
    pub display_name: &'static str,
    /// Other `--agent` names that mean it.
    pub aliases: &'static [&'static str],
    /// Its skills folder in a project, relative to the workspace.
    pub project_dir: &'static str,
    /// Its skills folder for the user, relative to the home.
    pub user_dir: &'static str,
    /// Folders relative to the home whose presence shows the agent is installed.
    pub home_markers: &'static [&'static str],
    /// Folders relative to the workspace whose presence shows the project uses the agent.
    pub workspace_markers: &'static [&'static str],
    /// Where the folders were read (the agent's own documentation).
    pub source: &'static str,
    /// What could not be verified there, if anything.
    pub unverified: Option<&'static str>,
}

impl Agent {
    /// Its skills folder in `scope`, relative to the workspace (project) or the home (user);
    /// `None` for the scopes nothing is installed into.
    pub fn dir(&self, scope: SkillScope) -> Option<&'static str> {
        match scope {
            SkillScope::Project => Some(self.project_dir),
            SkillScope::User => Some(self.user_dir),
            SkillScope::Legacy | SkillScope::Profile | SkillScope::Remote => None,
        }
    }

    /// Whether `name` (compared ignoring ASCII case) is its name or one of its aliases.
    pub fn is_named(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
            || self
                .aliases
                .iter()
                .any(|alias| alias.eq_ignore_ascii_case(name))
    }
}

/// Every agent, by name.
pub const AGENTS: &[Agent] = &[
    Agent {
        name: "amp",
        display_name: "Amp",
        aliases: &["ampcode"],
        project_dir: SHARED_DIR,
        user_dir: ".config/agents/skills",
        home_markers: &[".config/amp"],
        workspace_markers: &[".amp"],
        source: "https://ampcode.com/manual#agent-skills",
        unverified: Some(
            "ampcode.com itself was not reachable from the sources searched; the folders are the vercel tool's and agree with the secondary sources found",
        ),
    },
    Agent {
        name: "claude-code",
        display_name: "Claude Code",
        aliases: &["claude-code-cli"],
        project_dir: ".claude/skills",
        user_dir: ".claude/skills",
        home_markers: &[".claude"],
        workspace_markers: &[".claude"],
        source: "https://code.claude.com/docs/en/skills",
        unverified: None,
    },
    Agent {
        name: "cline",
        display_name: "Cline",
        aliases: &[],
        project_dir: ".cline/skills",
        user_dir: ".cline/skills",
        home_markers: &[".cline"],
        workspace_markers: &[".cline", ".clinerules"],
        source: "https://docs.cline.bot/customization/skills",
        unverified: Some(
            "the vercel tool writes Cline's skills to .agents/skills; Cline's documentation names only .cline/skills, .clinerules/skills and ~/.cline/skills, which are used here",
        ),
    },
    Agent {
        name: "codex",
        display_name: "Codex",
        aliases: &["openai-codex"],
        project_dir: SHARED_DIR,
        user_dir: SHARED_DIR,
        home_markers: &[".codex"],
        workspace_markers: &[".codex"],
        source: "https://developers.openai.com/codex/skills",
        unverified: None,
    },
    Agent {
        name: "cursor",
        display_name: "Cursor",
        aliases: &[],
        project_dir: SHARED_DIR,
        user_dir: SHARED_DIR,
        home_markers: &[".cursor"],
        workspace_markers: &[".cursor"],
        source: "https://cursor.com/docs/skills",
        unverified: None,
    },
    Agent {
        name: "gemini-cli",
        display_name: "Gemini CLI",
        aliases: &["gemini"],
        project_dir: SHARED_DIR,
        user_dir: SHARED_DIR,
        home_markers: &[".gemini"],
        workspace_markers: &[".gemini"],
        source: "https://geminicli.com/docs/cli/using-agent-skills/",
        unverified: None,
    },
    Agent {
        name: "github-copilot",
        display_name: "GitHub Copilot",
        aliases: &["copilot"],
        project_dir: SHARED_DIR,
        user_dir: SHARED_DIR,
        home_markers: &[".copilot"],
        // Not `.github`: nearly every repository has one, Copilot or not.
        workspace_markers: &[],
        source: "https://docs.github.com/en/copilot/concepts/agents/about-agent-skills",
        unverified: None,
    },
    Agent {
        name: "goose",
        display_name: "Goose",
        aliases: &[],
        project_dir: SHARED_DIR,
        user_dir: ".config/agents/skills",
        home_markers: &[".config/goose"],
        workspace_markers: &[".goose"],
        source: "https://block.github.io/goose/docs/mcp/skills-mcp",
        unverified: None,
    },
    Agent {
        name: "opencode",
        display_name: "OpenCode",
        aliases: &[],
        project_dir: SHARED_DIR,
        user_dir: SHARED_DIR,
        home_markers: &[".config/opencode"],
        workspace_markers: &[".opencode"],
        source: "https://opencode.ai/docs/skills/",
        unverified: None,
    },
    Agent {
        name: "roo",
        display_name: "Roo Code",
        aliases: &["roo-code"],
        project_dir: ".roo/skills",
        user_dir: ".roo/skills",
        home_markers: &[".roo"],
        workspace_markers: &[".roo"],
        source: "https://docs.roocode.com/features/skills",
        unverified: None,
    },
    Agent {
        name: "windsurf",
        display_name: "Windsurf",
        aliases: &["cascade"],
        project_dir: ".windsurf/skills",
        user_dir: ".codeium/windsurf/skills",
        home_markers: &[".codeium/windsurf"],
        workspace_markers: &[".windsurf"],
        source: "https://docs.windsurf.com/windsurf/cascade/skills",
        unverified: None,
    },
];

/// The agent `name` means (its name or an alias, ignoring ASCII case).
pub fn find(name: &str) -> Option<&'static Agent> {
    AGENTS.iter().find(|agent| agent.is_named(name))
}

/// Every `--agent` name, sorted: for the message that refuses an unknown one.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = AGENTS.iter().map(|agent| agent.name).collect();
    names.sort_unstable();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The agents the issue names must all be here.
    #[test]
    fn the_popular_agents_are_all_in_the_table() {
        for name in [
            "claude-code",
            "codex",
            "cursor",
            "gemini-cli",
            "opencode",
            "github-copilot",
            "windsurf",
            "goose",
            "amp",
            "cline",
            "roo",
        ] {
            assert!(find(name).is_some(), "{name}");
        }
    }

    #[test]
    fn names_and_aliases_are_unique_and_never_a_root_name() {
        let mut seen = std::collections::BTreeSet::new();
        for agent in AGENTS {
            for name in std::iter::once(agent.name).chain(agent.aliases.iter().copied()) {
                assert!(seen.insert(name.to_ascii_lowercase()), "{name} twice");
                // `app`, `agents` and `claude` name roots (`AgentTarget`), `detected` the
                // detection: an agent called so would be unreachable.
                assert!(
                    !["app", "agents", "claude", DETECTED].contains(&name),
                    "{name}"
                );
                assert!(
                    name.bytes().all(|byte| byte.is_ascii_lowercase()
                        || byte.is_ascii_digit()
                        || byte == b'-'),
                    "{name}"
                );
            }
        }
        let sorted: Vec<&str> = AGENTS.iter().map(|agent| agent.name).collect();
        assert_eq!(sorted, names(), "the table is kept in name order");
    }

    #[test]
    fn folders_are_plain_relative_paths_under_their_base() {
        for agent in AGENTS {
            let folders = [agent.project_dir, agent.user_dir]
                .into_iter()
                .chain(agent.home_markers.iter().copied())
                .chain(agent.workspace_markers.iter().copied());
            for folder in folders {
                assert!(!folder.is_empty() && !folder.starts_with('/'), "{folder}");
                assert!(
                    folder
                        .split('/')
                        .all(|part| !part.is_empty() && part != "." && part != ".."),
                    "{folder}"
                );
            }
            assert!(agent.project_dir.ends_with("/skills"), "{}", agent.name);
            assert!(agent.user_dir.ends_with("/skills"), "{}", agent.name);
            assert!(agent.source.starts_with("https://"), "{}", agent.name);
            assert!(
                !agent.home_markers.is_empty(),
                "{} cannot be detected",
                agent.name
            );
        }
    }

    #[test]
    fn lookup_ignores_case_and_takes_aliases() {
        assert_eq!(find("Cursor").map(|agent| agent.name), Some("cursor"));
        assert_eq!(
            find("copilot").map(|agent| agent.name),
            Some("github-copilot")
        );
        assert_eq!(find("gemini").map(|agent| agent.name), Some("gemini-cli"));
        assert_eq!(find("roo-code").map(|agent| agent.name), Some("roo"));
        assert_eq!(find("vim"), None);
        assert_eq!(find(DETECTED), None);
        let windsurf = find("windsurf").unwrap_or_else(|| panic!("windsurf"));
        assert_eq!(windsurf.dir(SkillScope::Project), Some(".windsurf/skills"));
        assert_eq!(
            windsurf.dir(SkillScope::User),
            Some(".codeium/windsurf/skills")
        );
        assert_eq!(windsurf.dir(SkillScope::Legacy), None);
    }
}
