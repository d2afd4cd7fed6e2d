//! `skills mcp`: the catalog served to any Model Context Protocol host over stdin and stdout
//! (08 §`skills mcp`). Stdout is the protocol from the first byte, so this command prints
//! nothing there: logs and failures go to stderr.

use std::sync::Arc;

use skills::Error;
use skills::mcp::Options;

use crate::Exit;
use crate::cli::{Global, McpArgs};
use crate::context;
use crate::output;

pub(crate) fn run(global: &Global, args: &McpArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let options = Options::new().scripts(!args.no_scripts);
    match skills::mcp::serve_stdio(Arc::new(skills), &options) {
        Ok(()) => Exit::Success,
        Err(error @ Error::Disabled) => output::fail_with_hint(
            global,
            &error,
            Some(
                "this binary was built without the MCP server: build it with `--features mcp` (on by default for skills-cli)",
            ),
        ),
        Err(error) => output::fail(global, &error),
    }
}
