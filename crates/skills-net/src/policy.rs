//! The URL policy (03 §The URL policy): checked on the URL a user gives and again on every
//! redirect hop.
//!
//! A URL is parsed once, by `url::Url` (the WHATWG parser the HTTP client also uses), and that
//! same value is what gets fetched: the host is never re-parsed with another parser, because
//! `127.1`, `0x7f.1`, `2130706433` and full-width digits all mean 127.0.0.1 to some parsers and
//! a domain to others, and that disagreement is how request forgery gets through.

use std::fmt;
use std::net::IpAddr;

use ipnet::IpNet;
use skills_types::limits::MAX_URL_BYTES;
use url::{Host, Url};

use crate::address;

/// Names that never reach the public internet, refused as hosts.
pub const SPECIAL_NAMES: [&str; 1] = ["localhost"];
/// Suffixes of names that never reach the public internet.
pub const SPECIAL_SUFFIXES: [&str; 11] = [
    ".localhost",
    ".local",
    ".internal",
    ".home.arpa",
    ".test",
    ".example",
    ".invalid",
    ".onion",
    ".lan",
    ".corp",
    ".localdomain",
];

/// What the policy allows beyond its defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Policy {
    /// Ports allowed for `https` (default 443 only).
    pub ports: Vec<u16>,
    /// Allow hosts written as IP addresses (still only global ones). Off by default.
    pub allow_ip_literals: bool,
    /// For test fixtures only: allow `http` (and `https`) to `127.0.0.1`, `[::1]` and
    /// `localhost` on any port. It never widens anything else.
    pub allow_loopback_http: bool,
    /// Extra ranges an operator denies (added to the built-in tables).
    pub denied: Vec<IpNet>,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            ports: vec![443],
            allow_ip_literals: false,
            allow_loopback_http: false,
            denied: Vec::new(),
        }
    }
}

/// Why a URL was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// Longer than the limit (bytes after trimming).
    TooLong(usize),
    /// Not a URL at all.
    Unparsable(String),
    /// A scheme other than `https`.
    Scheme(String),
    /// A user name or password in the URL.
    UserInfo,
    /// A port other than the allowed ones.
    Port(u16),
    /// No host.
    NoHost,
    /// A host name with fewer than two labels, or an empty label.
    NotAPublicName(String),
    /// A name reserved for local or special use.
    SpecialName(String),
    /// A host written as an IP address, which is refused unless allowed.
    IpLiteral(IpAddr),
    /// An address in a denied range.
    Address(address::Refusal),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLong(bytes) => write!(
                f,
                "the URL is {bytes} bytes long; at most {MAX_URL_BYTES} are accepted"
            ),
            Self::Unparsable(why) => write!(f, "not a URL: {why}"),
            Self::Scheme(scheme) => write!(f, "only https URLs are fetched, not {scheme}:"),
            Self::UserInfo => f.write_str("URLs with a user name or password are refused"),
            Self::Port(port) => write!(f, "port {port} is not allowed (https on 443 only)"),
            Self::NoHost => f.write_str("the URL has no host"),
            Self::NotAPublicName(host) => {
                write!(f, "{host} is not a public host name (it needs a dot)")
            }
            Self::SpecialName(host) => {
                write!(f, "{host} is a local or reserved name, not a public host")
            }
            Self::IpLiteral(address) => write!(
                f,
                "{address} is an IP address; skills are installed from host names"
            ),
            Self::Address(refusal) => write!(f, "{refusal}"),
        }
    }
}

impl std::error::Error for Refusal {}

impl Refusal {
    /// A stable snake_case name, for programs and tests.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::TooLong(_) => "too_long",
            Self::Unparsable(_) => "unparsable",
            Self::Scheme(_) => "scheme",
            Self::UserInfo => "user_info",
            Self::Port(_) => "port",
            Self::NoHost => "no_host",
            Self::NotAPublicName(_) => "not_public_name",
            Self::SpecialName(_) => "special_name",
            Self::IpLiteral(_) => "ip_literal",
            Self::Address(_) => "address",
        }
    }

    /// Whether the URL aims at plain http, another port, a local or single-label name, an IP
    /// literal or a denied range: what someone pointing `install` at a server on this machine
    /// meets, so the refusal names the fixture switch.
    pub fn is_local(&self) -> bool {
        match self {
            Self::Scheme(scheme) => scheme == "http",
            Self::Port(_)
            | Self::NotAPublicName(_)
            | Self::SpecialName(_)
            | Self::IpLiteral(_)
            | Self::Address(_) => true,
            Self::TooLong(_) | Self::Unparsable(_) | Self::UserInfo | Self::NoHost => false,
        }
    }
}

/// Parses and checks a URL given by a person or a catalog.
pub fn parse(text: &str, policy: &Policy) -> Result<Url, Refusal> {
    let text = text.trim();
    if text.len() > MAX_URL_BYTES {
        return Err(Refusal::TooLong(text.len()));
    }
    let url = Url::parse(text).map_err(|error| Refusal::Unparsable(error.to_string()))?;
    check(&url, policy)?;
    Ok(url)
}

/// Checks an already parsed URL (the one given, or a redirect's target).
pub fn check(url: &Url, policy: &Policy) -> Result<(), Refusal> {
    if url.as_str().len() > MAX_URL_BYTES {
        return Err(Refusal::TooLong(url.as_str().len()));
    }
    if !matches!(url.scheme(), "http" | "https") {
        // `file:`, `data:`, `javascript:`...: refused for what they are, host or not.
        return Err(Refusal::Scheme(url.scheme().to_owned()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Refusal::UserInfo);
    }
    let host = url.host().ok_or(Refusal::NoHost)?;
    if policy.allow_loopback_http && is_loopback_fixture(&host) {
        // The one exception, for tests: plain http or https to this machine, any port.
        return match url.scheme() {
            "http" | "https" => Ok(()),
            other => Err(Refusal::Scheme(other.to_owned())),
        };
    }
    if url.scheme() != "https" {
        return Err(Refusal::Scheme(url.scheme().to_owned()));
    }
    let port = url.port_or_known_default().unwrap_or(0);
    if !policy.ports.contains(&port) {
        return Err(Refusal::Port(port));
    }
    match host {
        Host::Domain(name) => check_name(name),
        Host::Ipv4(v4) => check_literal(IpAddr::V4(v4), policy),
        Host::Ipv6(v6) => check_literal(IpAddr::V6(v6), policy),
    }
}

fn check_literal(address: IpAddr, policy: &Policy) -> Result<(), Refusal> {
    // A literal never reaches the resolver, so its range is checked here as well; it is
    // refused by default either way.
    address::check_ip(address, &policy.denied).map_err(Refusal::Address)?;
    if policy.allow_ip_literals {
        Ok(())
    } else {
        Err(Refusal::IpLiteral(address))
    }
}

fn check_name(name: &str) -> Result<(), Refusal> {
    let name = name.strip_suffix('.').unwrap_or(name);
    let lower = name.to_ascii_lowercase();
    // A suffix matches the name itself too: `home.arpa` as well as `x.home.arpa`.
    if SPECIAL_NAMES.contains(&lower.as_str())
        || SPECIAL_SUFFIXES.iter().any(|suffix| {
            lower.ends_with(suffix) || Some(lower.as_str()) == suffix.strip_prefix('.')
        })
    {
        return Err(Refusal::SpecialName(name.to_owned()));
    }
    let labels: Vec<&str> = lower.split('.').collect();
    if labels.len() < 2 || labels.iter().any(|label| label.is_empty()) {
        return Err(Refusal::NotAPublicName(name.to_owned()));
    }
    Ok(())
}

/// `127.0.0.1`, `[::1]` or `localhost`: the hosts `allow_loopback_http` admits.
fn is_loopback_fixture(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(name) => name
            .strip_suffix('.')
            .unwrap_or(name)
            .eq_ignore_ascii_case("localhost"),
        Host::Ipv4(v4) => *v4 == std::net::Ipv4Addr::LOCALHOST,
        Host::Ipv6(v6) => *v6 == std::net::Ipv6Addr::LOCALHOST,
    }
}

/// The URL as it may appear in messages and logs: no user info, no query, no fragment.
pub fn redact(url: &Url) -> String {
    let mut shown = format!("{}://", url.scheme());
    if let Some(host) = url.host_str() {
        shown.push_str(host);
    }
    if let Some(port) = url.port() {
        shown.push_str(&format!(":{port}"));
    }
    shown.push_str(url.path());
    if url.query().is_some() {
        shown.push_str("?…");
    }
    shown
}

#[cfg(test)]
mod tests;
