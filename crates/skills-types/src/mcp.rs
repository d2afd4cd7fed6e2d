//! The options of the MCP server (08 §`skills mcp`), here so that the server crate and the
//! stub's twin take the very same type.

/// How `skills mcp` serves the catalog.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Offer `run_skill_script` and every declared tool. Off (`--no-scripts`), the server
    /// is read-only: bodies, files, search, resources and prompts.
    pub scripts: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self { scripts: true }
    }
}

impl Options {
    /// The default: scripts offered.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same options with scripts offered or not.
    #[must_use]
    pub fn scripts(mut self, scripts: bool) -> Self {
        self.scripts = scripts;
        self
    }
}
