//! `Skills`: the handle an agent core holds. It carries the configuration and answers every
//! question about the catalog; each method delegates to the compiled-in behaviour (or to the
//! stub's twin when the `skills` feature is off), so each signature is written once, here.

use std::path::PathBuf;
use std::sync::Arc;

use skills_types::catalog::{Explanation, ListOptions, Listing, SkillBody};
use skills_types::install::{
    ConnectGuard, Hooks, InstallOutcome, InstallRequest, ProgressSink, Resolver,
};
use skills_types::manage::{CreateSkill, Uninstalled, UpdateSkill, Written};
use skills_types::render::{RenderOptions, Rendered, SyncOptions, SyncOutcome};
use skills_types::skill::ResourceContent;
use skills_types::{Catalog, Error, Skill, SkillScope, SkillsConfig};

use crate::{install_impl, ops};

/// The skills subsystem for one workspace and home.
#[derive(Clone, Debug)]
pub struct Skills {
    config: SkillsConfig,
    hooks: Hooks,
}

impl Skills {
    /// A handle over this configuration. Nothing is read until a method asks.
    pub fn new(config: SkillsConfig) -> Self {
        Self {
            config,
            hooks: Hooks::default(),
        }
    }

    /// The same handle resolving host names with `resolver` (every answer still goes through
    /// the address check).
    #[must_use]
    pub fn with_resolver(mut self, resolver: Arc<dyn Resolver>) -> Self {
        self.hooks.resolver = Some(resolver);
        self
    }

    /// The same handle vetting every address before the client connects to it (a test or a
    /// sandbox proving nothing leaves the machine).
    #[must_use]
    pub fn with_connect_guard(mut self, guard: ConnectGuard) -> Self {
        self.hooks.connect_guard = Some(guard);
        self
    }

    /// The same handle telling `sink` how installs are going (a progress bar).
    #[must_use]
    pub fn with_progress(mut self, sink: ProgressSink) -> Self {
        self.hooks.progress = Some(sink);
        self
    }

    /// The configuration the handle was built with.
    pub fn config(&self) -> &SkillsConfig {
        &self.config
    }

    /// Discovers every skill: the catalog, the shadowed copies, the hidden skills and what the
    /// scan noticed.
    pub fn discover(&self) -> Result<Catalog, Error> {
        ops::discover::discover(&self.config)
    }

    /// The catalog as summaries (no frontmatter, no bodies).
    pub fn list(&self, options: &ListOptions) -> Result<Listing, Error> {
        ops::catalog::list(&self.config, options)
    }

    /// The skill an agent would use under `name` (or whose directory is `name`), with its
    /// bundled files listed.
    pub fn get(&self, name: &str) -> Result<Skill, Error> {
        ops::resources::describe(&self.config, name)
    }

    /// One bundled file of a skill, read through the safe reader (no traversal, no symlinks,
    /// no hard links, no special files; at most 128 KiB of UTF-8 text).
    pub fn read_resource(
        &self,
        id_or_name: &str,
        relative_path: &str,
    ) -> Result<ResourceContent, Error> {
        ops::resources::read_resource(&self.config, id_or_name, relative_path)
    }

    /// Creates a skill in the first root of its scope, atomically; refuses to overwrite.
    pub fn create(&self, request: &CreateSkill) -> Result<Written, Error> {
        ops::manage::create(&self.config, request)
    }

    /// Changes a skill's frontmatter or body, atomically; the body is kept unless replaced.
    pub fn update(&self, id: &str, changes: &UpdateSkill) -> Result<Written, Error> {
        ops::manage::update(&self.config, id, changes)
    }

    /// Removes a skill folder from a user or trusted project root (a symlinked one as a link).
    pub fn uninstall(&self, name: &str, scope: Option<SkillScope>) -> Result<Uninstalled, Error> {
        ops::manage::uninstall(&self.config, name, scope)
    }

    /// The bodies of the named skills, with their base directories, in the order asked.
    pub fn read(&self, names: &[&str]) -> Result<Vec<SkillBody>, Error> {
        ops::catalog::read(&self.config, names)
    }

    /// Every copy of `name` and why the winner won.
    pub fn explain(&self, name: &str) -> Result<Explanation, Error> {
        ops::catalog::explain(&self.config, name)
    }

    /// The catalog as an agent sees it, in a format and within a budget.
    pub fn render_catalog(&self, options: &RenderOptions) -> Result<Rendered, Error> {
        ops::catalog::render_catalog(&self.config, options)
    }

    /// Writes the skills block of `AGENTS.md`, leaving the rest of the file alone.
    pub fn sync_agents_md(&self, options: &SyncOptions) -> Result<SyncOutcome, Error> {
        ops::agents_md::sync(&self.config, options)
    }

    /// Installs the skills a URL names (a `SKILL.md`, a GitHub file page, a pack, a
    /// well-known index): downloaded and checked in memory, then written atomically into the
    /// scope's root; one outcome per skill.
    pub async fn install(&self, request: &InstallRequest) -> Result<Vec<InstallOutcome>, Error> {
        install_impl::install(&self.config, &self.hooks, request).await
    }

    /// Whether the workspace's project and legacy skills are loaded.
    pub fn is_trusted(&self) -> bool {
        ops::trust::is_trusted(&self.config)
    }

    /// Marks the workspace as trusted; returns the marker's path.
    pub fn trust(&self) -> Result<PathBuf, Error> {
        ops::trust::trust(&self.config)
    }

    /// Removes the trust marker; returns whether there was one.
    pub fn revoke_trust(&self) -> Result<bool, Error> {
        ops::trust::revoke_trust(&self.config)
    }
}
