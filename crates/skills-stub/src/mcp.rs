//! The twin of `skills-mcp`: no server is compiled in, so serving answers
//! `Error::Disabled` at once (the command line turns that into "build with `--features mcp`").

use std::sync::Arc;

use skills_types::Error;
use skills_types::mcp::Options;
use skills_types::service::SkillsService;

/// Serves nothing: `Err(Error::Disabled)`.
pub fn serve_stdio(_service: Arc<dyn SkillsService>, _options: &Options) -> Result<(), Error> {
    Err(Error::Disabled)
}

/// The path the HTTP server would answer.
pub const HTTP_PATH: &str = "/mcp";

/// Serves nothing: `Err(Error::Disabled)`, without binding or telling `listening` anything.
pub fn serve_http(
    _service: Arc<dyn SkillsService>,
    _options: &Options,
    _address: core::net::SocketAddr,
    _token: &str,
    _listening: impl FnOnce(core::net::SocketAddr),
) -> Result<(), Error> {
    Err(Error::Disabled)
}
