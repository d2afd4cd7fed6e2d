//! The subsystem's errors as MCP errors, for the requests that are not tool calls
//! (`resources/read`, `prompts/get`, the lists): the message is the error's own sentence and
//! the data carries its stable `kind`, so a host can tell `refused_path` from `not_found`
//! without parsing English. A tool's failures are tool results instead (`tools.rs`).

use rmcp::ErrorData;
use rmcp::model::ErrorCode;
use serde_json::json;
use skills_types::Error;

/// `error` as the protocol error of a request that named something (a skill, a file, a URI).
pub(crate) fn to_mcp(error: &Error) -> ErrorData {
    let code = match error {
        Error::SkillNotFound { .. } | Error::NotFound { .. } | Error::ToolNotFound { .. } => {
            ErrorCode::RESOURCE_NOT_FOUND
        }
        // Nothing in the request is wrong: the server's own configuration is (`config_invalid`:
        // a `skills.toml` it cannot honour refuses runs until the user fixes it;
        // `not_configured`: what the call needs was never set up), or the server failed in a
        // way no input explains (`internal`).
        Error::Io { .. }
        | Error::ConfigInvalid { .. }
        | Error::NotConfigured { .. }
        | Error::Internal { .. } => ErrorCode::INTERNAL_ERROR,
        _ => ErrorCode::INVALID_PARAMS,
    };
    ErrorData::new(
        code,
        error.to_string(),
        Some(json!({ "kind": error.kind() })),
    )
}

/// A request the server itself cannot read (a bad URI, a missing argument).
pub(crate) fn invalid(message: impl Into<String>) -> ErrorData {
    to_mcp(&Error::InvalidInput(message.into()))
}

/// A blocking call that never came back (its thread panicked or the runtime is stopping).
pub(crate) fn lost(error: &tokio::task::JoinError) -> ErrorData {
    ErrorData::new(
        ErrorCode::INTERNAL_ERROR,
        format!("the request stopped before it was answered ({error}); try it again"),
        Some(json!({ "kind": "internal" })),
    )
}
