//! Which roots a discovery scans, in which order (02 §Scopes and roots).
//!
//! Roots are returned highest precedence first (profile, project, user, legacy), each scope's
//! roots in their table order, so the first copy of a name met while scanning is the copy that
//! wins. Paths are made absolute once, here, without resolving symlinks; then every root of a
//! workspace scope (profile, project, legacy), whatever its source, is held against the user's
//! own places (`overlap`), and one that leads into them is set aside, not scanned.

use std::path::{Path, PathBuf};

use skills_types::SkillScope;
use skills_types::agents::AGENTS;
use skills_types::catalog::Root;
use skills_types::config::SkillsConfig;

use super::overlap::{self, Overlap, UserPlaces};
use super::settings::Sources;

/// The shared roots other agents use, scanned when `interop` is on, in precedence order
/// within a scope (after the scope's own `<app_dir>/skills`): `.agents/skills`, the shared root
/// most agents read (Codex, Gemini CLI, OpenCode, the vercel tool); `.agent/skills`, where
/// `openskills --universal` installs; `.claude/skills`, Claude Code's own. Cross-agent roots
/// come before the one agent's root, the established `.agents` before the newer `.agent`.
pub(crate) const INTEROP_ROOTS: [&str; 3] = [".agents/skills", ".agent/skills", ".claude/skills"];
/// The skills folder inside an app directory.
pub(crate) const SKILLS_DIR: &str = "skills";
/// The folder of a workspace's profiles (personalities).
pub(crate) const PROFILES_DIR: &str = "personalities";

/// The roots to scan and the ones skipped for lack of trust.
pub(crate) struct Plan {
    /// Scan order: highest precedence first.
    pub(crate) roots: Vec<Root>,
    /// Project, legacy and profile roots that exist but were skipped.
    pub(crate) untrusted: Vec<Root>,
    /// Project, legacy and profile roots that lead into the user's own places: never
    /// scanned, whether the workspace is trusted or not.
    pub(crate) overlapping: Vec<Overlap>,
}

/// The root of the profile `config` is opened for (`<workspace>/personalities/<id>/skills`),
/// or `None` without one or with an id that is not a single plain name.
pub(crate) fn profile_root(config: &SkillsConfig) -> Option<PathBuf> {
    let id = config.profile.as_deref().filter(|id| is_plain_name(id))?;
    Some(
        absolute(&config.workspace)
            .join(PROFILES_DIR)
            .join(id)
            .join(SKILLS_DIR),
    )
}

/// The roots of `config`, and of `named`: the sources a trusted workspace's file names, which
/// are project scope (after the workspace's own project roots), never user roots: a repository
/// chose them, so they are trust-gated and their runs need confirmation. The workspace's
/// roots are held against `places`, the user's own places (`overlap`).
pub(crate) fn plan(
    config: &SkillsConfig,
    named: &Sources,
    trusted: bool,
    places: &UserPlaces,
) -> Plan {
    let workspace = absolute(&config.workspace);
    let home = absolute(&config.home);
    let app = |base: &Path| base.join(&config.app_dir).join(SKILLS_DIR);
    let interop = |base: &Path, scope| -> Vec<Root> {
        if !config.interop {
            return Vec::new();
        }
        INTEROP_ROOTS
            .iter()
            .map(|relative| Root {
                scope,
                path: base.join(relative),
                interop: true,
            })
            .collect()
    };
    let own = |scope, path| Root {
        scope,
        path,
        interop: false,
    };

    let mut profile = Vec::new();
    if let Some(path) = profile_root(config) {
        profile.push(own(SkillScope::Profile, path));
    }
    let mut project = vec![own(SkillScope::Project, app(&workspace))];
    project.extend(interop(&workspace, SkillScope::Project));
    let mut user = vec![own(SkillScope::User, app(&home))];
    user.extend(interop(&home, SkillScope::User));
    user.extend(
        config
            .extra_roots
            .iter()
            .map(|path| own(SkillScope::User, absolute(path))),
    );
    // A folder a workspace names that is one of the user's roots stays the user's.
    project.extend(
        named
            .paths
            .iter()
            .map(|path| absolute(path))
            .filter(|path| !user.iter().any(|root| root.path == *path))
            .map(|path| own(SkillScope::Project, path)),
    );
    // The packs a workspace names are project scope too, but their copies live in this
    // program's own cache in the home: they are held to trust, not to the user's places.
    let project_packs = super::remote::roots(config, &named.urls, SkillScope::Project);
    let remote = super::remote::roots(config, &config.urls, SkillScope::Remote);
    let legacy = vec![own(SkillScope::Legacy, workspace.join(SKILLS_DIR))];

    let mut plan = Plan {
        roots: Vec::new(),
        untrusted: Vec::new(),
        overlapping: Vec::new(),
    };
    // The profile root lives in the workspace too: an untrusted clone must not be able to
    // put skills in front of an agent through it either.
    // (trust-gated, held against the user's places, roots)
    for (gated, checked, roots) in [
        (true, true, profile),
        (true, true, project),
        (true, false, project_packs),
        (false, false, user),
        (false, false, remote),
        (true, true, legacy),
    ] {
        // Every root of a workspace scope, from whatever source: a link planted or cloned at
        // `<ws>/.agents` must not make the user's own root a second, project-scope one.
        let roots = if checked {
            let (kept, overlapping) = overlap::split(places, roots);
            plan.overlapping.extend(overlapping);
            kept
        } else {
            roots
        };
        if gated && !trusted {
            plan.untrusted
                .extend(roots.into_iter().filter(|root| root.path.is_dir()));
        } else {
            plan.roots.extend(roots);
        }
    }
    plan
}

/// The user's own places under `config` (`overlap`): the home, its app folder, and every user
/// root: the app's own, the shared ones whether or not `interop` reads them (another agent
/// does, and a project-scope write must not land there either), every agent's user folder,
/// and `config.extra_roots` (the caller's, and the home configuration's `paths` when `config`
/// holds them).
pub(crate) fn user_places(config: &SkillsConfig) -> UserPlaces {
    let home = absolute(&config.home);
    let mut roots = vec![home.join(&config.app_dir).join(SKILLS_DIR)];
    roots.extend(INTEROP_ROOTS.iter().map(|relative| home.join(relative)));
    roots.extend(AGENTS.iter().map(|agent| home.join(agent.user_dir)));
    roots.extend(config.extra_roots.iter().map(|path| absolute(path)));
    UserPlaces::of(config, roots)
}

/// A profile id is one path component: `../x` must not pick a folder elsewhere.
fn is_plain_name(id: &str) -> bool {
    !id.is_empty() && id != "." && id != ".." && !id.contains(['/', '\\', '\0'])
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scopes_and_paths(roots: &[Root], base: &Path) -> Vec<(SkillScope, String)> {
        roots
            .iter()
            .map(|root| {
                let path = root.path.strip_prefix(base).unwrap_or(&root.path);
                (root.scope, path.display().to_string())
            })
            .collect()
    }

    #[test]
    fn trusted_plan_is_in_precedence_order() {
        let base = Path::new("/base");
        let mut config = SkillsConfig::new("/base/ws", "/base/home");
        config.profile = Some("dev".into());
        config.extra_roots.push("/base/extra".into());
        let plan = plan(&config, &Sources::default(), true, &user_places(&config));
        assert_eq!(
            scopes_and_paths(&plan.roots, base),
            [
                (
                    SkillScope::Profile,
                    "ws/personalities/dev/skills".to_owned()
                ),
                (SkillScope::Project, "ws/.openhuman/skills".to_owned()),
                (SkillScope::Project, "ws/.agents/skills".to_owned()),
                (SkillScope::Project, "ws/.agent/skills".to_owned()),
                (SkillScope::Project, "ws/.claude/skills".to_owned()),
                (SkillScope::User, "home/.openhuman/skills".to_owned()),
                (SkillScope::User, "home/.agents/skills".to_owned()),
                (SkillScope::User, "home/.agent/skills".to_owned()),
                (SkillScope::User, "home/.claude/skills".to_owned()),
                (SkillScope::User, "extra".to_owned()),
                (SkillScope::Legacy, "ws/skills".to_owned()),
            ]
        );
    }

    #[test]
    fn untrusted_plan_keeps_only_user_roots_and_interop_can_be_off() {
        let mut config = SkillsConfig::new("/base/ws", "/base/home");
        config.interop = false;
        config.app_dir = ".mycore".into();
        let plan = plan(&config, &Sources::default(), false, &user_places(&config));
        assert_eq!(
            scopes_and_paths(&plan.roots, Path::new("/base")),
            [(SkillScope::User, "home/.mycore/skills".to_owned())]
        );
    }

    /// What a workspace's `skills.toml` names is project scope, after the workspace's own
    /// project roots; one of the user's roots stays the user's.
    #[test]
    fn what_a_workspace_names_is_project_scope() {
        let mut config = SkillsConfig::new("/base/ws", "/base/home");
        config.interop = false;
        config.extra_roots.push("/base/team".into());
        config.urls.push("https://a.example/pack".into());
        let named = Sources {
            paths: vec![
                "/base/ws/vendor".into(),
                "/base/home/.openhuman/skills".into(),
            ],
            urls: vec!["https://b.example/pack".into()],
        };
        let plan = plan(&config, &named, true, &user_places(&config));
        let scopes: Vec<(SkillScope, String)> = scopes_and_paths(&plan.roots, Path::new("/base"))
            .into_iter()
            .map(|(scope, path)| (scope, path.split("/remote/").next().unwrap().to_owned()))
            .collect();
        assert_eq!(
            scopes,
            [
                (SkillScope::Project, "ws/.openhuman/skills".to_owned()),
                (SkillScope::Project, "ws/vendor".to_owned()),
                (SkillScope::Project, "home/.openhuman".to_owned()),
                (SkillScope::User, "home/.openhuman/skills".to_owned()),
                (SkillScope::User, "team".to_owned()),
                (SkillScope::Remote, "home/.openhuman".to_owned()),
                (SkillScope::Legacy, "ws/skills".to_owned()),
            ]
        );
        // Untrusted, they are set aside with the rest of the workspace's roots.
        assert!(
            plan_untrusted_has_no_project(&config, &named),
            "a workspace's sources need trust"
        );
    }

    fn plan_untrusted_has_no_project(config: &SkillsConfig, named: &Sources) -> bool {
        plan(config, named, false, &user_places(config))
            .roots
            .iter()
            .all(|root| root.scope != SkillScope::Project)
    }

    #[test]
    fn profile_ids_are_single_components() {
        for id in ["dev", "my profile"] {
            assert!(is_plain_name(id));
        }
        for id in ["", ".", "..", "../x", "a/b", "a\\b"] {
            assert!(!is_plain_name(id), "{id}");
        }
    }
}
