//! `skills mcp`: the catalog served to any Model Context Protocol host over stdin and stdout
//! (08 §`skills mcp`), or with `--http ADDR` over streamable HTTP on loopback. On stdio,
//! stdout is the protocol from the first byte, so this command prints nothing there: the
//! address, the token, logs and failures go to stderr.

use std::io::Read as _;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use anstream::eprintln;
use skills::Error;
use skills::mcp::Options;

use crate::Exit;
use crate::cli::{Global, McpArgs};
use crate::context;
use crate::output;

/// Where a user-chosen token comes from.
const TOKEN_VARIABLE: &str = crate::secrets::MCP_TOKEN;

/// The shortest token accepted from the user: a short one can be guessed.
const MIN_TOKEN_CHARS: usize = 16;

pub(crate) fn run(global: &Global, args: &McpArgs) -> Exit {
    let skills = match context::skills(global, Some(&args.discovery)) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let options = Options::new().scripts(!args.no_scripts);
    let served = match &args.http {
        None => skills::mcp::serve_stdio(Arc::new(skills), &options),
        Some(address) => {
            let address = match loopback(address) {
                Ok(address) => address,
                Err(message) => return output::usage(global, &message),
            };
            let (token, made) = match token() {
                Ok(token) => token,
                Err(message) => return output::usage(global, &message),
            };
            let announce = |bound: SocketAddr| {
                eprintln!(
                    "skills mcp: serving http://{bound}{}",
                    skills::mcp::HTTP_PATH
                );
                if made {
                    eprintln!("skills mcp: bearer token {token}");
                } else {
                    eprintln!("skills mcp: bearer token from {TOKEN_VARIABLE}");
                }
            };
            skills::mcp::serve_http(Arc::new(skills), &options, address, &token, announce)
        }
    };
    match served {
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

/// The socket address `--http` names, which must be a loopback one: a bare port is
/// 127.0.0.1's, and `localhost` is 127.0.0.1.
fn loopback(text: &str) -> Result<SocketAddr, String> {
    let address = if let Ok(port) = text.parse::<u16>() {
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
    } else if let Some(port) = text.strip_prefix("localhost:") {
        let port = port
            .parse()
            .map_err(|_| format!("--http {text}: '{port}' is not a port"))?;
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
    } else {
        text.parse::<SocketAddr>().map_err(|_| {
            format!("--http {text}: give a port, or an address and port such as 127.0.0.1:8765")
        })?
    };
    if !address.ip().is_loopback() {
        return Err(format!(
            "--http {text}: the server binds loopback addresses only (127.0.0.1, [::1]); \
             put a reverse proxy with its own authentication in front to reach it from \
             elsewhere"
        ));
    }
    Ok(address)
}

/// The bearer token: the user's from [`TOKEN_VARIABLE`], or a fresh random one (and
/// whether it was made here, so that it is printed).
fn token() -> Result<(String, bool), String> {
    match crate::secrets::value(TOKEN_VARIABLE).ok_or_else(|| std::env::var(TOKEN_VARIABLE)) {
        Ok(token) => {
            let token = token.trim().to_owned();
            if token.chars().count() < MIN_TOKEN_CHARS || token.contains(char::is_whitespace) {
                return Err(format!(
                    "{TOKEN_VARIABLE} must be at least {MIN_TOKEN_CHARS} characters with no \
                     spaces; unset it and a random token is made"
                ));
            }
            Ok((token, false))
        }
        Err(Ok(_) | Err(std::env::VarError::NotPresent)) => {
            random_token().map(|token| (token, true))
        }
        Err(Err(std::env::VarError::NotUnicode(_))) => {
            Err(format!("{TOKEN_VARIABLE} is not valid Unicode"))
        }
    }
}

/// 32 bytes from the operating system's random source, in hex.
fn random_token() -> Result<String, String> {
    let mut bytes = [0_u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut source| source.read_exact(&mut bytes))
        .map_err(|error| {
            format!("no random source to make a token ({error}); set {TOKEN_VARIABLE}")
        })?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_addresses_are_loopback_only() {
        assert_eq!(loopback("8765").unwrap().to_string(), "127.0.0.1:8765");
        assert_eq!(loopback("localhost:0").unwrap().to_string(), "127.0.0.1:0");
        assert_eq!(loopback("[::1]:9").unwrap().to_string(), "[::1]:9");
        assert_eq!(loopback("127.0.0.2:9").unwrap().to_string(), "127.0.0.2:9");
        for refused in [
            "0.0.0.0:8765",
            "[::]:1",
            "192.168.1.2:80",
            "example.com:80",
            "x",
        ] {
            assert!(loopback(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn made_tokens_are_long_and_differ() {
        let (first, second) = (random_token().unwrap(), random_token().unwrap());
        assert_eq!(first.len(), 64);
        assert_ne!(first, second);
    }
}
