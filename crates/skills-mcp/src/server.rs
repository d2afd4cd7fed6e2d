//! [`SkillsServer`]: the `rmcp` server handler over a [`SkillsService`]. Each request runs the
//! service's blocking call on a blocking thread and maps its answer; what each tool, resource
//! and prompt is lives in `tools.rs`, `resources.rs` and `prompts.rs`.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ResourceUpdatedNotificationParam, ServerCapabilities, ServerConfig, SubscribeRequestParams,
    SubscriptionFilter, UnsubscribeRequestParams,
};
// MCP logging is deprecated by the 2026 revision, yet it is how the 2025 revisions, which
// every host speaks today, take a server's log.
#[allow(deprecated)]
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, SetLevelRequestParams};
use rmcp::service::{
    ElicitationError, ElicitationMode, NotificationContext, Peer, RequestContext, ServiceError,
    SubscriptionContext, SubscriptionSendError,
};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use skills_types::Severity;
use skills_types::mcp::Options;
use skills_types::service::SkillsService;
use tokio::sync::broadcast::error::RecvError;

use crate::changes::{Change, Live, Log};
use crate::errors;
use crate::{prompts, resources, tools};

/// The name log messages carry.
const LOGGER: &str = "skills";

/// The MCP server of one skills handle: one value per session (cloning it shares the
/// session; [`SkillsServer::for_new_session`] does not).
#[derive(Clone)]
pub struct SkillsServer {
    service: Arc<dyn SkillsService>,
    options: Options,
    /// The catalog as last seen, shared by every session of this server: its instructions
    /// (the SDK asks `get_info` on several paths and wants it cheap) and its changes.
    live: Arc<Live>,
    session: Arc<Session>,
}

/// What the user answers when the host asks whether a run may go ahead.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Confirmation {
    /// Run it now.
    run: bool,
}

rmcp::elicit_safe!(Confirmation);

/// What one session asked for.
#[derive(Debug)]
struct Session {
    /// The URIs of `resources/subscribe` (the older mechanism).
    subscriptions: Mutex<BTreeSet<String>>,
    /// The least severity logged (`logging/setLevel`); warnings until the host says.
    level: Mutex<Severity>,
}

impl Default for Session {
    fn default() -> Self {
        Self {
            subscriptions: Mutex::default(),
            level: Mutex::new(Severity::Warning),
        }
    }
}

impl Session {
    /// The subscribed URIs that belong to one of `skills`.
    fn subscribed_to(&self, skills: &BTreeSet<String>) -> Vec<String> {
        let subscriptions = self
            .subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        within(subscriptions.iter(), skills)
    }

    /// Sends the lines of `logs` at or above the session's level.
    #[allow(
        deprecated,
        reason = "logging is still how the 2025 revisions tell a host"
    )]
    async fn log(&self, peer: &Peer<RoleServer>, logs: &[Log]) -> Result<(), ServiceError> {
        let level = *self.level.lock().unwrap_or_else(PoisonError::into_inner);
        for log in logs.iter().filter(|log| log.severity >= level) {
            let protocol_level = match log.severity {
                Severity::Info => LoggingLevel::Info,
                Severity::Warning => LoggingLevel::Warning,
                Severity::Error => LoggingLevel::Error,
            };
            peer.notify_logging_message(
                LoggingMessageNotificationParam::new(protocol_level, log.text.clone().into())
                    .with_logger(LOGGER),
            )
            .await?;
        }
        Ok(())
    }
}

/// The URIs among `uris` that name a file of one of `skills`.
fn within<'a>(uris: impl Iterator<Item = &'a String>, skills: &BTreeSet<String>) -> Vec<String> {
    uris.filter(|uri| resources::skill_of(uri).is_some_and(|skill| skills.contains(&skill)))
        .cloned()
        .collect()
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
    /// A server answering from `service`. Lists and renders the catalog, so it blocks: call
    /// it off an async runtime's worker threads.
    pub fn new(service: Arc<dyn SkillsService>, options: Options) -> Self {
        let live = Arc::new(Live::new(Arc::clone(&service)));
        Self {
            service,
            options,
            live,
            session: Arc::default(),
        }
    }

    /// The same server for another session (an HTTP transport makes one per client): the
    /// catalog and its changes are shared, the subscriptions and log level are not.
    pub fn for_new_session(&self) -> Self {
        Self {
            service: Arc::clone(&self.service),
            options: self.options.clone(),
            live: Arc::clone(&self.live),
            session: Arc::default(),
        }
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
    #[allow(
        deprecated,
        reason = "logging is still how the 2025 revisions tell a host"
    )]
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_resources_subscribe()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("skills", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.live.instructions().as_ref())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        Live::start(&self.live);
        let peer = context.peer;
        let session = Arc::clone(&self.session);
        let mut changes = self.live.subscribe();
        let logs = self.live.logs();
        // Ends when a notification cannot be sent: the session is over.
        tokio::spawn(async move {
            if session.log(&peer, &logs).await.is_err() {
                return;
            }
            loop {
                let change = match changes.recv().await {
                    Ok(change) => change,
                    Err(RecvError::Lagged(_)) => Change::everything(),
                    Err(RecvError::Closed) => return,
                };
                if forward(&peer, &session, &change).await.is_err() {
                    return;
                }
            }
        });
    }

    #[allow(
        deprecated,
        reason = "logging is still how the 2025 revisions tell a host"
    )]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let least = match request.level {
            LoggingLevel::Debug | LoggingLevel::Info | LoggingLevel::Notice => Severity::Info,
            LoggingLevel::Warning => Severity::Warning,
            _ => Severity::Error,
        };
        *self
            .session
            .level
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = least;
        Ok(())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        resources::check_uri(&request.uri)?;
        self.session
            .subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session
            .subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // Everything asked for that is ours; the SDK keeps only what the capabilities offer.
        let mut accepted = requested.clone();
        if let Some(uris) = accepted.resource_subscriptions.as_mut() {
            uris.retain(|uri| resources::check_uri(uri).is_ok());
        }
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        Live::start(&self.live);
        let mut changes = self.live.subscribe();
        let sink = context.sink().clone();
        let uris = context
            .accepted()
            .resource_subscriptions
            .clone()
            .unwrap_or_default();
        loop {
            let change = tokio::select! {
                () = context.cancelled() => return Ok(()),
                received = changes.recv() => match received {
                    Ok(change) => change,
                    Err(RecvError::Lagged(_)) => Change::everything(),
                    Err(RecvError::Closed) => return Ok(()),
                },
            };
            let mut sent = Vec::new();
            if change.lists {
                sent.push(sink.notify_tool_list_changed().await);
                sent.push(sink.notify_resource_list_changed().await);
                sent.push(sink.notify_prompt_list_changed().await);
            }
            for uri in within(uris.iter(), &change.updated) {
                sent.push(sink.notify_resource_updated(uri).await);
            }
            // A category the filter left out is refused by the sink, which is fine; a stream
            // that is gone ends the subscription.
            let gone = sent.iter().any(|result| {
                matches!(
                    result,
                    Err(SubscriptionSendError::SubscriptionClosed
                        | SubscriptionSendError::Service(_))
                )
            });
            if gone {
                return Ok(());
            }
        }
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
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let scripts = self.options.scripts;
        let name = request.name.into_owned();
        let arguments = request.arguments.unwrap_or_default();
        let call = |confirmed: bool| {
            let (name, arguments) = (name.clone(), arguments.clone());
            blocking(&self.service, move |service| {
                tools::call(service, scripts, &name, arguments, confirmed)
            })
        };
        let (reason, refused) = match call(false).await? {
            tools::Called::Answered(result) => return Ok(result.into()),
            tools::Called::NeedsConfirmation { reason, refused } => (reason, refused),
        };
        // The user, not the model, confirms: through the host's form where it has one.
        if !context
            .peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
        {
            return Ok(refused.into());
        }
        let question = format!("An agent wants to run the tool '{name}': {reason}. Run it now?");
        match context.peer.elicit::<Confirmation>(question).await {
            Ok(Some(Confirmation { run: true })) => match call(true).await? {
                tools::Called::Answered(result)
                | tools::Called::NeedsConfirmation {
                    refused: result, ..
                } => Ok(result.into()),
            },
            Ok(_) | Err(ElicitationError::UserDeclined | ElicitationError::UserCancelled) => {
                Ok(tools::declined(&name).into())
            }
            // The host could not ask (the 2026 revision has no server-to-client requests, or
            // the request failed): the refusal stands, and says how to confirm.
            Err(_) => Ok(refused.into()),
        }
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        // A client of the stateless 2026 requests may never send `initialized`: the lists
        // it pages through follow the catalog all the same.
        Live::start(&self.live);
        let cursor = request.and_then(|request| request.cursor);
        let live = Arc::clone(&self.live);
        blocking(&self.service, move |service| {
            let listing = live.listing().map_err(|error| errors::to_mcp(&error))?;
            resources::list(service, &listing, cursor.as_deref())
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
        // A client of the stateless 2026 requests may never send `initialized`: the lists
        // it pages through follow the catalog all the same.
        Live::start(&self.live);
        let cursor = request.and_then(|request| request.cursor);
        let live = Arc::clone(&self.live);
        blocking(&self.service, move |service| {
            let listing = live.listing().map_err(|error| errors::to_mcp(&error))?;
            prompts::list(service, &listing, cursor.as_deref())
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

/// Tells one session (the older, per-session notifications) what `change` means to it.
#[allow(
    deprecated,
    reason = "the 2025 revisions notify outside any subscription"
)]
async fn forward(
    peer: &Peer<RoleServer>,
    session: &Session,
    change: &Change,
) -> Result<(), ServiceError> {
    if change.lists {
        peer.notify_tool_list_changed().await?;
        peer.notify_resource_list_changed().await?;
        peer.notify_prompt_list_changed().await?;
    }
    for uri in session.subscribed_to(&change.updated) {
        peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
            .await?;
    }
    session.log(peer, &change.logs).await
}
