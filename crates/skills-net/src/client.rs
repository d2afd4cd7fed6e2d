//! The guarded HTTP client (03 §The HTTP client).
//!
//! Every defence is in the client, not in the callers: a request cannot be made without them.
//!
//! - **Resolution is checked.** The client resolves names through `GuardedResolver`, which
//!   asks the configured [`Resolver`] once, checks *every* address against
//!   [`address::check_ip`], refuses the whole name if any address fails, and hands the client
//!   only the addresses it checked. The connection therefore goes to an address that was
//!   checked, never to a second answer (DNS rebinding).
//! - **The connect guard hears of every address**, if one is set: resolved names in
//!   `GuardedResolver` (without a port: names resolve before the port is attached), IP-literal
//!   hosts, which never reach a resolver, before the request and before each redirect hop.
//! - **Redirects are checked.** Each hop re-runs the URL policy (and, for IP literals, which
//!   never reach a resolver, the address check); at most five hops.
//! - **No proxy, no referer.** Proxies from the environment would bypass the resolver; the
//!   `Referer` header would leak the previous URL to the next host.
//! - **Bounded.** Connect, read and total timeouts (a server dripping one byte at a time hits
//!   the total deadline); a `Content-Length` over the cap is refused before reading, and the
//!   body is counted while it streams (chunked bodies and lying lengths).
//! - **Tokens stay home.** A [`Bearer`] token is attached only to a request whose origin
//!   (scheme, host, port) is one the token was granted for; reqwest drops `Authorization` on
//!   a redirect to another host, port or scheme (and never adds it back on a later hop), and
//!   the header is marked sensitive so no debug output shows it. A registry's token therefore
//!   never reaches a CDN, a GitHub hand-off or a redirect target, a GitHub token never leaves
//!   the configured GitHub's API and archive origins (its API's redirect to the archive host
//!   carries a token of GitHub's own in the URL), and no message carries either.
//! - **Backstop.** The peer address of the response is checked again, against the same policy
//!   as the resolver's answers: should a connection ever be made where the resolver did not
//!   look, the response is refused. `client/tests.rs` makes exactly such a connection.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use url::{Host, Url};

use crate::address;
use crate::policy::{self, Policy};

pub use skills_types::install::{ConnectGuard, InstallProgress, ProgressSink, Resolver};

/// The operating system's resolver (`getaddrinfo`, on a blocking thread).
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemResolver;

impl Resolver for SystemResolver {
    fn lookup<'a>(
        &'a self,
        host: &'a str,
    ) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send + 'a>> {
        Box::pin(async move {
            let addresses = tokio::net::lookup_host((host, 0)).await?;
            Ok(addresses.map(|address| address.ip()).collect())
        })
    }
}

/// How the client behaves.
#[derive(Clone)]
pub struct Settings {
    /// The URL policy applied to the first URL and to every redirect.
    pub policy: Policy,
    /// The resolver behind the address check.
    pub resolver: Arc<dyn Resolver>,
    /// Called on every address about to be connected to; see [`ConnectGuard`].
    pub connect_guard: Option<ConnectGuard>,
    /// The deadline of one whole request, body included.
    pub total: Duration,
    /// Told when a request starts and as its body arrives.
    pub progress: Option<ProgressSink>,
    /// A token sent to its own origin only.
    pub bearer: Option<Bearer>,
}

/// Bearer tokens and the origins each may be sent to (09 §Registries, Tokens): a registry's
/// token to the registry's origin, a GitHub token to the configured GitHub's API and archive
/// origins. A request gets the token of its own origin, or none.
#[derive(Clone)]
pub struct Bearer {
    grants: Vec<(url::Origin, String)>,
}

impl Bearer {
    /// `token` for the origin of `url` (its scheme, host and port).
    pub fn new(url: &Url, token: impl Into<String>) -> Self {
        Self { grants: Vec::new() }.with(url, token)
    }

    /// This bearer, also sending `token` to the origin of `url` (an origin granted already
    /// keeps its first token).
    pub fn with(mut self, url: &Url, token: impl Into<String>) -> Self {
        let origin = url.origin();
        if origin.is_tuple() && !self.grants.iter().any(|(granted, _)| *granted == origin) {
            self.grants.push((origin, token.into()));
        }
        self
    }

    /// Whether a token goes to the origin of `url`.
    pub fn covers(&self, url: &Url) -> bool {
        self.token_for(url).is_some()
    }

    fn token_for(&self, url: &Url) -> Option<&str> {
        let origin = url.origin();
        self.grants
            .iter()
            .find(|(granted, _)| origin.is_tuple() && *granted == origin)
            .map(|(_, token)| token.as_str())
    }

    /// The `Authorization` value for a request to `url`: `None` off the tokens' origins.
    fn header_for(&self, url: &Url) -> Option<reqwest::header::HeaderValue> {
        let token = self.token_for(url)?;
        let mut value = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}")).ok()?;
        value.set_sensitive(true);
        Some(value)
    }
}

impl std::fmt::Debug for Bearer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let origins: Vec<String> = self
            .grants
            .iter()
            .map(|(origin, _)| origin.ascii_serialization())
            .collect();
        f.debug_struct("Bearer")
            .field("origins", &origins)
            .field("token", &"<redacted>")
            .finish()
    }
}

/// The validators of a cached copy, sent so an unchanged resource costs a `304`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Validators {
    /// The `ETag` the server sent with the copy.
    pub etag: Option<String>,
    /// The `Last-Modified` the server sent with the copy.
    pub last_modified: Option<String>,
}

/// What a conditional fetch into a file got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fetched {
    /// `304 Not Modified`: the cached copy stands; nothing was written.
    NotModified,
    /// The body was written; these are its size and its validators.
    Written {
        /// Bytes written.
        bytes: u64,
        /// The response's validators, kept for the next request.
        validators: Validators,
    },
}

impl Settings {
    /// The defaults: the default policy, the system resolver, no guard, the given deadline.
    pub fn new(total: Duration) -> Self {
        Self {
            policy: Policy::default(),
            resolver: Arc::new(SystemResolver),
            connect_guard: None,
            total,
            progress: None,
            bearer: None,
        }
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("policy", &self.policy)
            .field("connect_guard", &self.connect_guard.is_some())
            .field("total", &self.total)
            .field("progress", &self.progress.is_some())
            .field("bearer", &self.bearer)
            .finish_non_exhaustive()
    }
}

/// Why a fetch failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FetchError {
    /// The URL (or a redirect's) was refused by the policy.
    Refused(policy::Refusal),
    /// A name resolved to an address that is not allowed.
    Address(address::Refusal),
    /// The connect guard refused an address.
    Guarded(String),
    /// More redirects than allowed.
    TooManyRedirects,
    /// A redirect left the origin the request had to stay on.
    CrossOrigin(String),
    /// The server answered with a status other than 2xx.
    Status(u16),
    /// The body is larger than the cap (announced or counted).
    TooLarge(u64),
    /// The deadline passed.
    Timeout,
    /// The body is not UTF-8 text.
    NotUtf8,
    /// Anything else: resolution, connection, TLS, protocol.
    Other(String),
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Refused(refusal) => write!(f, "refused: {refusal}"),
            Self::Address(refusal) => write!(f, "refused: {refusal}"),
            Self::Guarded(why) => write!(f, "refused by the connect guard: {why}"),
            Self::CrossOrigin(to) => write!(f, "refused: a redirect left the origin, to {to}"),
            Self::TooManyRedirects => write!(
                f,
                "more than {} redirects",
                skills_types::limits::MAX_REDIRECTS
            ),
            Self::Status(status) => write!(f, "the server answered HTTP {status}"),
            Self::TooLarge(cap) => write!(f, "the response is larger than {cap} bytes"),
            Self::Timeout => f.write_str("the download did not finish in time"),
            Self::NotUtf8 => f.write_str("the response is not UTF-8 text"),
            Self::Other(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for FetchError {}

impl FetchError {
    /// A stable snake_case name.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Refused(_) | Self::Address(_) | Self::Guarded(_) | Self::CrossOrigin(_) => {
                "refused_url"
            }
            Self::TooManyRedirects => "too_many_redirects",
            Self::Status(_) => "http_status",
            Self::TooLarge(_) => "too_large",
            Self::Timeout => "timeout",
            Self::NotUtf8 => "not_utf8",
            Self::Other(_) => "fetch_failed",
        }
    }

    /// Whether this is a refusal of the local kind ([`policy::Refusal::is_local`], or a name
    /// that resolved into a denied range).
    pub fn is_local(&self) -> bool {
        match self {
            Self::Refused(refusal) => refusal.is_local(),
            Self::Address(_) => true,
            _ => false,
        }
    }
}

/// Most bytes of an error response kept for a message.
pub const MAX_ERROR_BODY_BYTES: usize = 4096;

/// A response of [`Client::fetch_answer`], whatever its status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// `Retry-After` in seconds, when the server sent one in that form.
    pub retry_after: Option<Duration>,
    /// `Content-Type`, as sent.
    pub content_type: Option<String>,
    /// The URL that answered (after redirects).
    pub url: Url,
    /// The body: at most the cap on success, at most [`MAX_ERROR_BODY_BYTES`] otherwise.
    pub body: Vec<u8>,
}

/// The guarded client.
#[derive(Clone, Debug)]
pub struct Client {
    inner: reqwest::Client,
    settings: Settings,
}

impl Client {
    /// A client with these settings.
    pub fn new(settings: Settings) -> Result<Self, FetchError> {
        Self::build(settings, std::convert::identity)
    }

    /// [`Client::new`], with `finish` having the last word on the reqwest builder. Production
    /// passes it through untouched; the tests use it to make reqwest connect where the
    /// guarded resolver never looked, which only the peer-address backstop can then catch.
    fn build(
        settings: Settings,
        finish: impl FnOnce(reqwest::ClientBuilder) -> reqwest::ClientBuilder,
    ) -> Result<Self, FetchError> {
        let resolver = GuardedResolver {
            inner: settings.resolver.clone(),
            denied: settings.policy.denied.clone(),
            loopback: settings.policy.allow_loopback_http,
            guard: settings.connect_guard.clone(),
        };
        let redirect_policy = settings.policy.clone();
        let redirect_guard = settings.connect_guard.clone();
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() > skills_types::limits::MAX_REDIRECTS {
                return attempt.error(FetchError::TooManyRedirects);
            }
            let checked = policy::check(attempt.url(), &redirect_policy)
                .map_err(FetchError::Refused)
                .and_then(|()| guard_literal(attempt.url(), redirect_guard.as_ref()));
            match checked {
                Ok(()) => attempt.follow(),
                Err(error) => attempt.error(error),
            }
        });
        let builder = reqwest::Client::builder()
            .dns_resolver(Arc::new(resolver))
            .redirect(redirects)
            .no_proxy()
            .referer(false)
            .retry(reqwest::retry::never())
            .connect_timeout(settings.total.min(Duration::from_secs(10)))
            .read_timeout(settings.total.min(Duration::from_secs(30)))
            .timeout(settings.total)
            .user_agent(concat!("skills/", env!("CARGO_PKG_VERSION")));
        let inner = finish(builder)
            .build()
            .map_err(|error| FetchError::Other(error.to_string()))?;
        Ok(Self { inner, settings })
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Reports progress to the sink of the settings, if there is one.
    pub fn report(&self, progress: impl FnOnce() -> InstallProgress) {
        if let Some(sink) = &self.settings.progress {
            sink(&progress());
        }
    }

    /// Fetches `url` (already parsed and checked by the policy) as bytes, at most `cap`.
    pub async fn fetch(&self, url: &Url, cap: u64) -> Result<Vec<u8>, FetchError> {
        self.get(url, cap, false).await
    }

    /// Like [`Client::fetch`], but a redirect may not leave the origin of `url` (the files of
    /// a pack come from the pack's own origin, redirects included).
    pub async fn fetch_same_origin(&self, url: &Url, cap: u64) -> Result<Vec<u8>, FetchError> {
        self.get(url, cap, true).await
    }

    async fn get(&self, url: &Url, cap: u64, same_origin: bool) -> Result<Vec<u8>, FetchError> {
        let deadline = Instant::now() + self.settings.total;
        let body = async {
            let Some(mut response) = self.send(url, same_origin, None, cap, false).await? else {
                return Err(FetchError::Status(304));
            };
            let expected = response.content_length();
            let mut bytes = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(|error| classify(&error))? {
                if bytes.len() as u64 + chunk.len() as u64 > cap {
                    return Err(FetchError::TooLarge(cap));
                }
                bytes.extend_from_slice(&chunk);
                self.report(|| InstallProgress::Received {
                    bytes: bytes.len() as u64,
                    expected,
                });
            }
            Ok(bytes)
        };
        // reqwest's own total timeout covers the body too; this one makes the deadline
        // independent of how the body is read.
        match tokio::time::timeout_at(deadline.into(), body).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout),
        }
    }

    /// Fetches `url` and hands back the status, the headers a registry client needs and the
    /// body, whatever the status (the registries answer errors with a body worth showing and
    /// a `429` with `Retry-After`). A success body over `cap` is refused; an error body is cut
    /// at [`MAX_ERROR_BODY_BYTES`]. The settings' [`Bearer`] applies as to every request.
    pub async fn fetch_answer(&self, url: &Url, cap: u64) -> Result<Answer, FetchError> {
        let deadline = Instant::now() + self.settings.total;
        let body = async {
            let Some(mut response) = self.send(url, false, None, cap, true).await? else {
                return Err(FetchError::Status(304));
            };
            let status = response.status();
            let success = status.is_success();
            let header = |name: reqwest::header::HeaderName| {
                response
                    .headers()
                    .get(name)
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned)
            };
            let retry_after = header(reqwest::header::RETRY_AFTER)
                .and_then(|value| value.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let content_type = header(reqwest::header::CONTENT_TYPE);
            let answered = response.url().clone();
            let expected = response.content_length();
            let mut bytes = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(|error| classify(&error))? {
                if !success {
                    let room = MAX_ERROR_BODY_BYTES.saturating_sub(bytes.len());
                    bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
                    if bytes.len() == MAX_ERROR_BODY_BYTES {
                        break;
                    }
                    continue;
                }
                if bytes.len() as u64 + chunk.len() as u64 > cap {
                    return Err(FetchError::TooLarge(cap));
                }
                bytes.extend_from_slice(&chunk);
                self.report(|| InstallProgress::Received {
                    bytes: bytes.len() as u64,
                    expected,
                });
            }
            Ok(Answer {
                status: status.as_u16(),
                retry_after,
                content_type,
                url: answered,
                body: bytes,
            })
        };
        match tokio::time::timeout_at(deadline.into(), body).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout),
        }
    }

    /// Fetches `url` into `file`, chunk by chunk (the body is never whole in memory), at most
    /// `cap` bytes, sending `validators` as `If-None-Match` / `If-Modified-Since`. A `304`
    /// writes nothing. On an error the file holds a partial body: the caller discards it.
    pub async fn fetch_to_file(
        &self,
        url: &Url,
        cap: u64,
        validators: &Validators,
        file: &mut std::fs::File,
    ) -> Result<Fetched, FetchError> {
        use std::io::Write as _;
        let deadline = Instant::now() + self.settings.total;
        let body = async {
            let Some(mut response) = self.send(url, false, Some(validators), cap, false).await?
            else {
                return Ok(Fetched::NotModified);
            };
            let header = |name: reqwest::header::HeaderName| {
                response
                    .headers()
                    .get(name)
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned)
            };
            let received = Validators {
                etag: header(reqwest::header::ETAG),
                last_modified: header(reqwest::header::LAST_MODIFIED),
            };
            let expected = response.content_length();
            let mut written = 0u64;
            while let Some(chunk) = response.chunk().await.map_err(|error| classify(&error))? {
                if written + chunk.len() as u64 > cap {
                    return Err(FetchError::TooLarge(cap));
                }
                // A short blocking write of one chunk: tokio's file support is not enabled,
                // and a chunk is small.
                file.write_all(&chunk).map_err(|error| {
                    FetchError::Other(format!("cannot write the body: {error}"))
                })?;
                written += chunk.len() as u64;
                self.report(|| InstallProgress::Received {
                    bytes: written,
                    expected,
                });
            }
            file.flush()
                .map_err(|error| FetchError::Other(format!("cannot write the body: {error}")))?;
            Ok(Fetched::Written {
                bytes: written,
                validators: received,
            })
        };
        match tokio::time::timeout_at(deadline.into(), body).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout),
        }
    }

    /// Sends the request and checks the response (peer, origin, status, announced length);
    /// `None` is a `304` to a conditional request. With `any_status`, a status other than 2xx
    /// (and not a redirect) is handed back for the caller to judge, not an error.
    async fn send(
        &self,
        url: &Url,
        same_origin: bool,
        validators: Option<&Validators>,
        cap: u64,
        any_status: bool,
    ) -> Result<Option<reqwest::Response>, FetchError> {
        policy::check(url, &self.settings.policy).map_err(FetchError::Refused)?;
        guard_literal(url, self.settings.connect_guard.as_ref())?;
        self.report(|| InstallProgress::Request {
            url: policy::redact(url),
        });
        let mut request = self.inner.get(url.clone());
        if let Some(value) = self
            .settings
            .bearer
            .as_ref()
            .and_then(|bearer| bearer.header_for(url))
        {
            request = request.header(reqwest::header::AUTHORIZATION, value);
        }
        if let Some(validators) = validators {
            if let Some(etag) = &validators.etag {
                request = request.header(reqwest::header::IF_NONE_MATCH, etag);
            }
            if let Some(date) = &validators.last_modified {
                request = request.header(reqwest::header::IF_MODIFIED_SINCE, date);
            }
        }
        let response = request.send().await.map_err(|error| classify(&error))?;
        if let Some(peer) = response.remote_addr() {
            self.check_peer(peer.ip())?;
        }
        if same_origin && response.url().origin() != url.origin() {
            return Err(FetchError::CrossOrigin(policy::redact(response.url())));
        }
        let status = response.status();
        if status == reqwest::StatusCode::NOT_MODIFIED && validators.is_some() {
            return Ok(None);
        }
        if status.is_redirection() {
            return Err(unfollowed_redirect(&response, &self.settings.policy));
        }
        if !status.is_success() {
            if any_status {
                return Ok(Some(response));
            }
            return Err(FetchError::Status(status.as_u16()));
        }
        if response.content_length().is_some_and(|length| length > cap) {
            return Err(FetchError::TooLarge(cap));
        }
        Ok(Some(response))
    }

    /// Fetches `url` as UTF-8 text, at most `cap` bytes.
    pub async fn fetch_text(&self, url: &Url, cap: u64) -> Result<String, FetchError> {
        let bytes = self.fetch(url, cap).await?;
        String::from_utf8(bytes).map_err(|_| FetchError::NotUtf8)
    }

    fn check_peer(&self, peer: IpAddr) -> Result<(), FetchError> {
        if self.settings.policy.allow_loopback_http && address::is_loopback(peer) {
            return Ok(());
        }
        address::check_ip(peer, &self.settings.policy.denied).map_err(FetchError::Address)
    }
}

/// Asks the connect guard about an IP-literal host, which never reaches the resolver (where
/// the guard is asked about names): without this, a literal URL or redirect hop would connect
/// without the guard hearing of it.
fn guard_literal(url: &Url, guard: Option<&ConnectGuard>) -> Result<(), FetchError> {
    let Some(guard) = guard else {
        return Ok(());
    };
    let address = match url.host() {
        Some(Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(Host::Ipv6(v6)) => IpAddr::V6(v6),
        Some(Host::Domain(_)) | None => return Ok(()),
    };
    let port = url.port_or_known_default().unwrap_or(0);
    guard(SocketAddr::new(address, port)).map_err(FetchError::Guarded)
}

/// `localhost` is this machine: under the fixture exception it may answer with loopback
/// addresses only. Otherwise a name that answers a public address would turn the exception
/// into plain http, on any port, to the internet.
fn check_fixture_address(address: IpAddr, denied: &[IpNet]) -> Result<(), address::Refusal> {
    if address::is_loopback(address) {
        return Ok(());
    }
    // A denied range names itself; an address that passes the full check is still not loopback.
    address::check_ip(address, denied)?;
    let range = match address {
        IpAddr::V4(_) => IpNet::V4(Ipv4Net::new_assert(Ipv4Addr::new(127, 0, 0, 0), 8)),
        IpAddr::V6(_) => IpNet::V6(Ipv6Net::new_assert(Ipv6Addr::LOCALHOST, 128)),
    };
    Err(address::Refusal {
        address,
        range,
        label: "not loopback, which the name localhost must be".to_owned(),
    })
}

/// A redirect the client did not follow: reqwest hands back, without asking the redirect
/// policy, a redirect to a scheme it cannot fetch (`file:`, `ftp:`). Say why in the policy's
/// words rather than as a bare status.
fn unfollowed_redirect(response: &reqwest::Response, policy: &Policy) -> FetchError {
    let status = FetchError::Status(response.status().as_u16());
    let Some(location) = response
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|value| value.to_str().ok())
    else {
        return status;
    };
    match response.url().join(location) {
        Ok(target) => match policy::check(&target, policy) {
            Err(refusal) => FetchError::Refused(refusal),
            Ok(()) => status,
        },
        Err(_) => status,
    }
}

/// Finds our own error in reqwest's chain (a redirect refusal, a resolver refusal), or names
/// the failure.
fn classify(error: &reqwest::Error) -> FetchError {
    if error.is_timeout() {
        return FetchError::Timeout;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = source {
        if let Some(ours) = current.downcast_ref::<FetchError>() {
            return ours.clone();
        }
        if let Some(io) = current.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::TimedOut
        {
            return FetchError::Timeout;
        }
        source = current.source();
    }
    if error.is_redirect() {
        return FetchError::TooManyRedirects;
    }
    FetchError::Other(without_url(error))
}

/// reqwest's message without the URL it appends (which may hold a query string).
fn without_url(error: &reqwest::Error) -> String {
    let mut message = error.to_string();
    if let Some(url) = error.url() {
        message = message.replace(&format!(" ({url})"), "");
        message = message.replace(url.as_str(), &policy::redact(url));
    }
    let mut source = std::error::Error::source(error);
    while let Some(current) = source {
        message.push_str(": ");
        message.push_str(&current.to_string());
        source = current.source();
    }
    message
}

/// The resolver the client uses: the configured one, then the address check on every answer.
struct GuardedResolver {
    inner: Arc<dyn Resolver>,
    denied: Vec<IpNet>,
    loopback: bool,
    guard: Option<ConnectGuard>,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let inner = self.inner.clone();
        let denied = self.denied.clone();
        let loopback = self.loopback;
        let guard = self.guard.clone();
        let host = name.as_str().to_owned();
        type Boxed = Box<dyn std::error::Error + Send + Sync>;
        Box::pin(async move {
            let addresses = inner.lookup(&host).await.map_err(|error| -> Boxed {
                Box::new(FetchError::Other(format!(
                    "{host} cannot be resolved: {error}"
                )))
            })?;
            if addresses.is_empty() {
                let error: Boxed = Box::new(FetchError::Other(format!("{host} has no address")));
                return Err(error);
            }
            // The loopback exception is for the fixture name only: `localhost` may answer with
            // loopback addresses, and only with those; any other name is held to the full check.
            let fixture = loopback && host.trim_end_matches('.').eq_ignore_ascii_case("localhost");
            for address in &addresses {
                let checked = if fixture {
                    check_fixture_address(*address, &denied)
                } else {
                    address::check_ip(*address, &denied)
                };
                checked.map_err(|refusal| -> Boxed { Box::new(FetchError::Address(refusal)) })?;
            }
            let checked: Vec<SocketAddr> = addresses
                .into_iter()
                .map(|address| SocketAddr::new(address, 0))
                .collect();
            if let Some(guard) = &guard {
                for address in &checked {
                    guard(*address)
                        .map_err(|why| -> Boxed { Box::new(FetchError::Guarded(why)) })?;
                }
            }
            Ok(Box::new(checked.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests;
