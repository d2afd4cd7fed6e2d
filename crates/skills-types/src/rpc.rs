//! JSON-RPC 2.0 (04 §RPC): the error model, the decoder, controllers and the dispatcher.
//!
//! Everything here is transport-free: [`decode`] turns one line of text into requests,
//! [`Dispatcher::handle_text`] runs them against the registered controllers and gives back
//! the line to send (if any). `skills serve` adds stdin and stdout; a core may add a socket.
//!
//! The rules, beyond the JSON-RPC 2.0 text:
//!
//! - a request object holds `jsonrpc: "2.0"`, a string `method`, and optionally `id` (a
//!   string, a number or null) and `params` (an object or an array); anything else is an
//!   invalid request. Every method takes named params, so an array is `-32602`;
//! - a request without `id` is a notification and gets no response, even when it fails;
//! - a batch is answered with an array of the responses, in request order, or with nothing
//!   when it held only notifications; an empty batch is an invalid request;
//! - subsystem errors are code `-32000` with `data.kind`, the stable name of
//!   [`Error::kind`](crate::Error::kind);
//! - every answer leaves through [`Response::to_json`], and every result presented as a tool
//!   through [`RegisteredController::call_as_tool`]: both put the whole value through the one
//!   sanitiser ([`crate::sanitize::message`]), so no string a skill, a script or a file
//!   supplied reaches the client with a control, escape, bidi or zero-width character in it,
//!   however deep it sits or whichever method carried it. Only the request's `id` is echoed
//!   as it came. A controller's own [`RegisteredController::call`] returns the data as it is,
//!   for a caller that is not an agent.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::ToolResult;

pub mod methods;

/// The protocol version every message carries.
pub const JSONRPC_VERSION: &str = "2.0";

/// The error codes used.
pub mod codes {
    /// The text is not JSON.
    pub const PARSE_ERROR: i64 = -32_700;
    /// The JSON is not a request.
    pub const INVALID_REQUEST: i64 = -32_600;
    /// No such method (or the subsystem is compiled out).
    pub const METHOD_NOT_FOUND: i64 = -32_601;
    /// The params do not fit the method.
    pub const INVALID_PARAMS: i64 = -32_602;
    /// A bug on our side.
    pub const INTERNAL_ERROR: i64 = -32_603;
    /// The subsystem refused or failed; `data.kind` says how.
    pub const SUBSYSTEM_ERROR: i64 = -32_000;
}

/// A JSON-RPC error object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RpcError {
    /// One of [`codes`].
    pub code: i64,
    /// A sentence saying what went wrong.
    pub message: String,
    /// For subsystem errors, `{kind, ...}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// `-32700`: the text is not JSON.
    pub fn parse_error(detail: impl std::fmt::Display) -> Self {
        Self::new(codes::PARSE_ERROR, format!("parse error: {detail}"))
    }

    /// `-32600`: the JSON is not a request.
    pub fn invalid_request(detail: impl std::fmt::Display) -> Self {
        Self::new(codes::INVALID_REQUEST, format!("invalid request: {detail}"))
    }

    /// `-32601`: no such method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            codes::METHOD_NOT_FOUND,
            format!("method not found: '{}'", method.escape_debug()),
        )
    }

    /// `-32602`: the params do not fit.
    pub fn invalid_params(detail: impl std::fmt::Display) -> Self {
        Self::new(codes::INVALID_PARAMS, format!("invalid params: {detail}"))
    }

    /// `-32603`: something that should not happen did.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        Self::new(codes::INTERNAL_ERROR, format!("internal error: {detail}"))
    }
}

impl From<&crate::Error> for RpcError {
    /// `-32000` with `data: {kind}`; bad input from the caller stays `-32602`, and a fault
    /// no input explains (`internal`) is `-32603`, each with its kind too.
    fn from(error: &crate::Error) -> Self {
        match error {
            crate::Error::InvalidInput(message) => {
                return Self {
                    data: Some(json!({ "kind": error.kind() })),
                    ..Self::invalid_params(message)
                };
            }
            crate::Error::Internal { .. } => {
                return Self {
                    data: Some(json!({ "kind": error.kind() })),
                    ..Self::internal(error)
                };
            }
            _ => {}
        }
        Self {
            code: codes::SUBSYSTEM_ERROR,
            message: error.to_string(),
            data: Some(json!({ "kind": error.kind() })),
        }
    }
}

impl From<crate::Error> for RpcError {
    fn from(error: crate::Error) -> Self {
        Self::from(&error)
    }
}

/// One decoded request.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The id to answer with; `None` for a notification.
    pub id: Option<Value>,
    /// The method as sent.
    pub method: String,
    /// The params: an object or an array (an absent `params` is `{}`).
    pub params: Value,
}

/// One response, ready to serialize.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// The request's id (null when it could not be read).
    pub id: Value,
    /// The result or the error.
    pub outcome: Result<Value, RpcError>,
}

impl Response {
    /// The wire form, sanitised (the module documentation says how); the `id` as it came.
    pub fn to_json(&self) -> Value {
        let mut message = match &self.outcome {
            Ok(result) => json!({ "jsonrpc": JSONRPC_VERSION, "id": self.id, "result": result }),
            Err(error) => json!({ "jsonrpc": JSONRPC_VERSION, "id": self.id, "error": error }),
        };
        crate::sanitize::message(&mut message);
        message
    }
}

/// What one line of input holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Incoming {
    /// One message: a request, or a response saying why it is not one.
    One(Result<Request, Response>),
    /// A batch of messages.
    Batch(Vec<Result<Request, Response>>),
}

/// The most messages one batch may hold.
pub const MAX_BATCH: usize = 1_000;

/// Decodes one line. Never fails: what is not a request becomes the error response to send.
pub fn decode(text: &str) -> Incoming {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(error) => {
            return Incoming::One(Err(Response {
                id: Value::Null,
                outcome: Err(RpcError::parse_error(error)),
            }));
        }
    };
    match value {
        Value::Array(items) if items.is_empty() => Incoming::One(Err(Response {
            id: Value::Null,
            outcome: Err(RpcError::invalid_request("an empty batch")),
        })),
        Value::Array(items) if items.len() > MAX_BATCH => Incoming::One(Err(Response {
            id: Value::Null,
            outcome: Err(RpcError::invalid_request(format!(
                "a batch of {} messages; at most {MAX_BATCH} are accepted",
                items.len()
            ))),
        })),
        Value::Array(items) => Incoming::Batch(items.into_iter().map(request_of).collect()),
        other => Incoming::One(request_of(other)),
    }
}

fn request_of(value: Value) -> Result<Request, Response> {
    let Value::Object(mut members) = value else {
        return Err(invalid(Value::Null, "a message must be an object"));
    };
    let id = match members.remove("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_) | Value::Null)) => Some(id),
        Some(_) => {
            return Err(invalid(
                Value::Null,
                "'id' must be a string, a number or null",
            ));
        }
    };
    let answer_to = id.clone().unwrap_or(Value::Null);
    if members.remove("jsonrpc") != Some(Value::String(JSONRPC_VERSION.to_owned())) {
        return Err(invalid(answer_to, "'jsonrpc' must be \"2.0\""));
    }
    let method = match members.remove("method") {
        Some(Value::String(method)) => method,
        _ => return Err(invalid(answer_to, "'method' must be a string")),
    };
    let params = match members.remove("params") {
        None => Value::Object(serde_json::Map::new()),
        // An array is valid JSON-RPC (params by position); the dispatcher refuses it, so a
        // notification carrying one still gets no answer.
        Some(params @ (Value::Object(_) | Value::Array(_))) => params,
        Some(_) => return Err(invalid(answer_to, "'params' must be an object or an array")),
    };
    if let Some(unknown) = members.keys().next() {
        return Err(invalid(
            answer_to,
            format!("unknown member '{}'", unknown.escape_debug()),
        ));
    }
    Ok(Request { id, method, params })
}

fn invalid(id: Value, detail: impl std::fmt::Display) -> Response {
    Response {
        id,
        outcome: Err(RpcError::invalid_request(detail)),
    }
}

/// What a controller's handler returns.
pub type HandlerFuture = Pin<Box<dyn Future<Output = Result<Value, RpcError>> + Send>>;

/// A controller's handler: params in, result out.
pub type Handler = Arc<dyn Fn(Value) -> HandlerFuture + Send + Sync>;

/// Turns a result into Markdown for a model, when the controller has a better rendering than
/// JSON.
pub type Presenter = fn(&Value) -> Option<String>;

/// A method's description: its name, its aliases and the JSON Schemas of its params and
/// result (generated from the Rust types, never written by hand).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ControllerSchema {
    /// The canonical method name.
    pub method: String,
    /// Older names accepted for compatibility.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// What the method does.
    pub description: String,
    /// The JSON Schema of the params object.
    pub params: Value,
    /// The JSON Schema of the result.
    pub result: Value,
    /// Example params.
    pub example: Value,
}

/// A method with its handler.
#[derive(Clone)]
pub struct RegisteredController {
    /// Its description.
    pub schema: ControllerSchema,
    /// What answers it.
    pub handler: Handler,
    /// Its Markdown rendering for models, if it has one.
    pub presenter: Option<Presenter>,
}

impl std::fmt::Debug for RegisteredController {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredController")
            .field("method", &self.schema.method)
            .finish_non_exhaustive()
    }
}

impl RegisteredController {
    /// Runs the handler.
    pub fn call(&self, params: Value) -> HandlerFuture {
        (self.handler)(params)
    }

    /// Runs the handler and presents the outcome as a [`ToolResult`] for a model, sanitised
    /// like an answer: the result as a JSON part, with Markdown (the controller's rendering,
    /// or the pretty-printed JSON); an error as an error result whose text is the message.
    pub async fn call_as_tool(&self, params: Value) -> ToolResult {
        match self.call(params).await {
            Ok(mut result) => {
                crate::sanitize::json(&mut result);
                let markdown = self
                    .presenter
                    .and_then(|present| present(&result))
                    .unwrap_or_else(|| {
                        format!(
                            "```json\n{}\n```",
                            serde_json::to_string_pretty(&result).unwrap_or_default()
                        )
                    });
                ToolResult::json(result).with_markdown(markdown)
            }
            Err(error) => ToolResult::error(crate::sanitize::line(&error.message).into_owned()),
        }
    }
}

/// Routes requests to controllers by method name or alias.
#[derive(Clone, Debug, Default)]
pub struct Dispatcher {
    routes: HashMap<String, Arc<RegisteredController>>,
}

/// What handling one line produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Handled {
    /// The line to send back, if any (none for notifications).
    pub reply: Option<String>,
    /// The canonical methods that succeeded, in order (a server reacts to some, such as
    /// `skills.subscribe`).
    pub succeeded: Vec<String>,
}

impl Dispatcher {
    /// A dispatcher over `controllers`; a later controller's name or alias does not replace
    /// an earlier one.
    pub fn new(controllers: Vec<RegisteredController>) -> Self {
        let mut routes = HashMap::new();
        for controller in controllers {
            let controller = Arc::new(controller);
            let names =
                std::iter::once(&controller.schema.method).chain(&controller.schema.aliases);
            for name in names {
                routes
                    .entry(name.clone())
                    .or_insert_with(|| controller.clone());
            }
        }
        Self { routes }
    }

    /// The controller answering `method` (a canonical name or an alias).
    pub fn resolve(&self, method: &str) -> Option<&RegisteredController> {
        self.routes.get(method).map(|controller| &**controller)
    }

    /// Runs one request: its response (none for a notification), and the canonical method
    /// when it succeeded.
    async fn handle(&self, request: Request) -> (Option<Response>, Option<String>) {
        let Some(controller) = self.resolve(&request.method) else {
            let outcome = Err(RpcError::method_not_found(&request.method));
            return (request.id.map(|id| Response { id, outcome }), None);
        };
        if !request.params.is_object() {
            let outcome = Err(RpcError::invalid_params(
                "params must be an object (every method takes named params)",
            ));
            return (request.id.map(|id| Response { id, outcome }), None);
        }
        let outcome = controller.call(request.params).await;
        let succeeded = outcome.is_ok().then(|| controller.schema.method.clone());
        (request.id.map(|id| Response { id, outcome }), succeeded)
    }

    /// Decodes one line, runs what it asks in order, and gives the line to answer with.
    pub async fn handle_text(&self, text: &str) -> Handled {
        let mut handled = Handled::default();
        match decode(text) {
            Incoming::One(message) => {
                if let Some(response) = self.run(message, &mut handled.succeeded).await {
                    handled.reply = Some(response.to_json().to_string());
                }
            }
            Incoming::Batch(messages) => {
                let mut responses = Vec::new();
                for message in messages {
                    if let Some(response) = self.run(message, &mut handled.succeeded).await {
                        responses.push(response.to_json());
                    }
                }
                if !responses.is_empty() {
                    handled.reply = Some(Value::Array(responses).to_string());
                }
            }
        }
        handled
    }

    async fn run(
        &self,
        message: Result<Request, Response>,
        succeeded: &mut Vec<String>,
    ) -> Option<Response> {
        match message {
            Ok(request) => {
                let (response, method) = self.handle(request).await;
                succeeded.extend(method);
                response
            }
            Err(response) => Some(response),
        }
    }
}

/// Deserializes `params` strictly into `T`; the error is `-32602` naming the problem.
pub fn params<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(RpcError::invalid_params)
}

/// Serializes a result; a failure is a bug (`-32603`).
pub fn result<T: Serialize>(value: &T) -> Result<Value, RpcError> {
    serde_json::to_value(value).map_err(RpcError::internal)
}

#[cfg(test)]
mod tests;
