//! [`SkillsServer`]: the `rmcp` server handler over a [`SkillsService`]. Each request runs the
//! service's blocking call on a blocking thread and maps its answer; what each tool, resource
//! and prompt is lives in `tools.rs`, `resources.rs` and `prompts.rs`.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use skills_types::mcp::Options;
use skills_types::render::{Format, RenderOptions};
use skills_types::service::SkillsService;

use crate::errors;
use crate::{prompts, resources, tools};

/// The instructions' budget when the configuration sets none: the catalog a host's model
/// reads before its first tool call, so it is kept to a few thousand tokens.
pub(crate) const DEFAULT_INSTRUCTIONS_BUDGET_CHARS: usize = 24_000;

/// The MCP server of one skills handle.
#[derive(Clone)]
pub struct SkillsServer {
    service: Arc<dyn SkillsService>,
    options: Options,
    /// Rendered once, when the server is made: the SDK asks `get_info` on several paths
    /// (initialize, discover, capability checks) and wants it cheap, and rendering means a
    /// discovery. Keeping it current belongs with the change notifications.
    instructions: Arc<str>,
}

impl std::fmt::Debug for SkillsServer {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SkillsServer")
            .field("workspace", &self.service.config().workspace)
            .field("options", &self.options)
            .finish()
    }
}

impl SkillsServer {
    /// A server answering from `service`. Renders the catalog, so it blocks: call it off an
    /// async runtime's worker threads.
    pub fn new(service: Arc<dyn SkillsService>, options: Options) -> Self {
        let instructions = instructions(service.as_ref()).into();
        Self {
            service,
            options,
            instructions,
        }
    }
}

/// The budgeted catalog text; a catalog that cannot be rendered becomes a sentence saying so,
/// because a server without instructions is still useful through its tools.
fn instructions(service: &dyn SkillsService) -> String {
    let mut options = RenderOptions::new(Format::Xml);
    options.budget_chars = Some(
        service
            .config()
            .budget_chars
            .unwrap_or(DEFAULT_INSTRUCTIONS_BUDGET_CHARS),
    );
    match service.render_catalog(&options) {
        Ok(rendered) => format!(
            "{}\n\nThese are the Agent Skills available here. Call `load_skill` with a \
             skill's name to read its instructions before following them, and \
             `read_skill_resource` for the files they mention.",
            rendered.text
        ),
        Err(error) => format!("The skills catalog could not be read: {error}"),
    }
}

/// Runs `call` with the service on a blocking thread: every service method may touch files.
pub(crate) async fn blocking<T: Send + 'static>(
    service: &Arc<dyn SkillsService>,
    call: impl FnOnce(&dyn SkillsService) -> Result<T, ErrorData> + Send + 'static,
) -> Result<T, ErrorData> {
    let service = Arc::clone(service);
    tokio::task::spawn_blocking(move || call(service.as_ref()))
        .await
        .map_err(|error| errors::lost(&error))?
}

impl ServerHandler for SkillsServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("skills", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.instructions.as_ref())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let scripts = self.options.scripts;
        let listed = blocking(&self.service, move |service| tools::list(service, scripts)).await?;
        Ok(ListToolsResult::with_all_items(listed))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let scripts = self.options.scripts;
        let name = request.name.into_owned();
        let arguments = request.arguments.unwrap_or_default();
        let result = blocking(&self.service, move |service| {
            tools::call(service, scripts, &name, arguments)
        })
        .await?;
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cursor = request.and_then(|request| request.cursor);
        blocking(&self.service, move |service| {
            resources::list(service, cursor.as_deref())
        })
        .await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let read = blocking(&self.service, move |service| resources::read(service, &uri)).await?;
        Ok(read.into())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let cursor = request.and_then(|request| request.cursor);
        blocking(&self.service, move |service| {
            prompts::list(service, cursor.as_deref())
        })
        .await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let name = request.name;
        let arguments = request.arguments.unwrap_or_default();
        let prompt = blocking(&self.service, move |service| {
            prompts::get(service, &name, &arguments)
        })
        .await?;
        Ok(prompt.into())
    }
}
