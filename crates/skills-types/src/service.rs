//! [`SkillsService`]: the operations of the subsystem as one object-safe trait.
//!
//! The RPC controllers (`skills-schemas`) are written against this trait rather than against
//! the facade, which depends on them; the facade's `Skills` handle implements it, so a
//! controller call is exactly a handle call: same configuration, same events.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;

use crate::catalog::{Explanation, ListOptions, Listing, SkillBody};
use crate::install::{InstallOutcome, InstallRequest};
use crate::manage::{CreateSkill, Uninstalled, UpdateSkill, Written};
use crate::registry;
use crate::render::{RenderOptions, Rendered};
use crate::run::{RunLogChunk, RunRequest, RunSummary, RuntimeInfo, RuntimeKind, StartedRun, Task};
use crate::skill::{Resource, ResourceBytes, ResourceContent};
use crate::validate::{Options, Report};
use crate::{Error, Skill, SkillScope, SkillsConfig};

/// A boxed future that may move between threads.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Everything the RPC surface can ask of the subsystem. Methods that touch files block; a
/// caller on an async runtime runs them on a blocking thread.
pub trait SkillsService: Send + Sync {
    /// The configuration: the workspace and home paths are resolved against it.
    fn config(&self) -> &SkillsConfig;
    /// The catalog as summaries.
    fn list(&self, options: &ListOptions) -> Result<Listing, Error>;
    /// One skill with its bundled files listed.
    fn get(&self, id: &str) -> Result<Skill, Error>;
    /// Skill bodies with their base directories.
    fn read(&self, ids: &[&str]) -> Result<Vec<SkillBody>, Error>;
    /// One bundled file, through the safe reader.
    fn read_resource(&self, id: &str, relative_path: &str) -> Result<ResourceContent, Error>;
    /// One bundled file's bytes, through the safe reader, text or not.
    fn read_resource_bytes(&self, id: &str, relative_path: &str) -> Result<ResourceBytes, Error>;
    /// The bundled files of each skill folder (as a listing just gave them), in the order
    /// given, without a discovery.
    fn inventories(&self, folders: &[&Path]) -> Vec<Vec<Resource>>;
    /// The listing and the rendered catalog together: one discovery where the implementation
    /// can share it (the default asks twice).
    fn overview(
        &self,
        list: &ListOptions,
        render: &RenderOptions,
    ) -> Result<(Listing, Rendered), Error> {
        Ok((self.list(list)?, self.render_catalog(render)?))
    }
    /// The skills that best match a task phrasing, best first (BM25 over the weighted fields).
    fn search(&self, query: &str, limit: usize) -> Result<Vec<crate::search::SearchHit>, Error>;
    /// Every copy of a name and why the winner won.
    fn explain(&self, name: &str) -> Result<Explanation, Error>;
    /// Lints a skill folder or definition file.
    fn validate(&self, path: &Path, options: &Options) -> Result<Report, Error>;
    /// The catalog as an agent sees it.
    fn render_catalog(&self, options: &RenderOptions) -> Result<Rendered, Error>;
    /// Creates a skill.
    fn create(&self, request: &CreateSkill) -> Result<Written, Error>;
    /// Updates a skill.
    fn update(&self, id: &str, changes: &UpdateSkill) -> Result<Written, Error>;
    /// Removes a skill.
    fn uninstall(&self, name: &str, scope: Option<SkillScope>) -> Result<Uninstalled, Error>;
    /// Installs what a URL names.
    fn install<'a>(
        &'a self,
        request: &'a InstallRequest,
    ) -> BoxFuture<'a, Result<Vec<InstallOutcome>, Error>>;
    /// The registry's entries (of one category), refreshed first when asked.
    fn registry_browse<'a>(
        &'a self,
        category: Option<&'a str>,
        force_refresh: bool,
    ) -> BoxFuture<'a, Result<registry::Listing, Error>>;
    /// The registry entries matching a query.
    fn registry_search<'a>(
        &'a self,
        query: &'a registry::Query,
    ) -> BoxFuture<'a, Result<registry::Listing, Error>>;
    /// The registry's categories with their counts.
    fn registry_categories(&self) -> BoxFuture<'_, Result<registry::Counts, Error>>;
    /// The registry's sources with their counts.
    fn registry_sources(&self) -> BoxFuture<'_, Result<registry::Counts, Error>>;
    /// Installs a registry entry.
    fn registry_install<'a>(
        &'a self,
        request: &'a registry::InstallRequest,
    ) -> BoxFuture<'a, Result<InstallOutcome, Error>>;
    /// Removes a skill installed from the registry.
    fn registry_uninstall(
        &self,
        name: &str,
        scope: Option<SkillScope>,
    ) -> Result<Uninstalled, Error>;

    // The runtime (07). Each has a default of "not available here", so a service without a
    // runtime still implements the trait; the facade's handle implements them all.

    /// Checks, registers and starts a run in the background; its notices go to the
    /// service's own sink.
    fn start_run(&self, request: &RunRequest) -> Result<StartedRun, Error> {
        let _ = request;
        Err(Error::Disabled)
    }
    /// Stops a run: `true` when a running run was signalled.
    fn cancel_run(&self, run_id: &str) -> Result<bool, Error> {
        let _ = run_id;
        Err(Error::Disabled)
    }
    /// The newest runs first.
    fn recent_runs(&self, limit: usize) -> Result<Vec<RunSummary>, Error> {
        let _ = limit;
        Ok(Vec::new())
    }
    /// A slice of a run's log.
    fn read_run_log(
        &self,
        run_id: &str,
        offset: u64,
        max_bytes: usize,
    ) -> Result<RunLogChunk, Error> {
        let _ = (run_id, offset, max_bytes);
        Err(Error::Disabled)
    }
    /// The interpreters.
    fn resolve_runtimes(&self, kind: Option<RuntimeKind>) -> Vec<RuntimeInfo> {
        let _ = kind;
        Vec::new()
    }
    /// An instruction-only skill as an agent session.
    fn render_task(
        &self,
        skill: &str,
        inputs: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Task, Error> {
        let _ = (skill, inputs);
        Err(Error::Disabled)
    }
    /// Every declared tool of the catalog.
    fn list_tools(&self) -> Result<Vec<crate::tool::ToolInfo>, Error> {
        Ok(Vec::new())
    }
    /// Watches the catalog's roots (08 §The live catalog): the stream of changes, and from
    /// then on the service keeps a skill's last valid version while its file is broken.
    fn watch(&self, options: &crate::watch::WatchOptions) -> Result<crate::watch::Watch, Error> {
        let _ = options;
        Err(Error::Disabled)
    }
    /// Calls a declared tool.
    fn execute_tool(
        &self,
        call: &crate::tool::ToolCall,
    ) -> Result<crate::tool::ToolExecution, Error> {
        let _ = call;
        Err(Error::Disabled)
    }
    /// Scans skill folders or catalog names (none: the whole catalog) for what they would
    /// make an agent do. No answer is not "clean": a service without the audit refuses.
    fn audit(&self, request: &crate::audit::Request) -> Result<crate::audit::Reports, Error> {
        let _ = request;
        Err(Error::Disabled)
    }
}
