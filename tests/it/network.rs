//! The installer's network defences under attack (03 §The URL policy, §Which addresses may be
//! connected to, §The HTTP client; 06 §Safety): a lying resolver, hostile redirects, proxies in
//! the environment, misbehaving responses and hostile packs.
//!
//! Every test here runs inside a private network namespace ([`skills_tests::netns`]) whose only
//! interface is `lo`, so even a broken installer cannot reach anything but this machine; and
//! with a [`Guard`] that records every address the client is about to connect to and refuses
//! anything but loopback. Names are answered by a [`FakeResolver`]; servers are the loopback
//! fixtures of [`skills_tests::http`]. Each test asserts the exact refusal and what the servers
//! saw: a refusal that happened after the request went out is no refusal.

mod local_paths;
mod namespace;
mod packs;
mod proxies;
mod redirects;
mod resolver;
mod responses;

use std::collections::HashMap;
use std::future::Future;
use std::io::{Read, Write};
use std::net::{IpAddr, Ipv6Addr, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use skills::SkillsConfig;
use skills::install::{ConnectGuard, Resolver};
use skills_net::client::{Client, FetchError, Settings};
use skills_net::policy::Policy;
use skills_tests::http::Server;

/// A public address the fake resolver hands out. Nothing ever connects to it: the guard refuses
/// it and the namespace has no route to it.
const GLOBAL_V4: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(93, 184, 215, 14));
/// A public IPv6 address, for the same purpose.
const GLOBAL_V6: IpAddr = IpAddr::V6(Ipv6Addr::new(
    0x2606, 0x2800, 0x21f, 0xcb07, 0x6820, 0x80da, 0xaf6b, 0x8b2c,
));

/// The request target of the probe [`client_connections`] makes itself.
const PROBE: &str = "/.probe";

/// Runs `test` on a current-thread runtime inside a private network namespace. The runtime,
/// the fixture servers the test starts and any child process all live in that namespace. It
/// may run in a re-run copy of the test binary (see [`skills_tests::netns::run`]), so a test
/// does all its work, assertions included, inside `test`.
fn isolated<F, Fut>(test: F)
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future<Output = ()>,
{
    skills_tests::netns::run(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(test());
    });
}

/// A resolver with fixed answers. The n-th lookup of a name gets the n-th answer given for it
/// (the last one repeats), so a test can rebind a name after its first lookup.
#[derive(Default)]
struct FakeResolver {
    answers: Mutex<HashMap<String, Vec<Vec<IpAddr>>>>,
    lookups: Mutex<Vec<String>>,
}

impl FakeResolver {
    fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Adds the next answer for `host`.
    fn answer(&self, host: &str, addresses: &[IpAddr]) -> &Self {
        lock(&self.answers)
            .entry(host.to_ascii_lowercase())
            .or_default()
            .push(addresses.to_vec());
        self
    }

    /// How many times `host` was looked up.
    fn lookups(&self, host: &str) -> usize {
        lock(&self.lookups)
            .iter()
            .filter(|name| name.eq_ignore_ascii_case(host))
            .count()
    }

    /// Every name looked up, in order.
    fn names(&self) -> Vec<String> {
        lock(&self.lookups).clone()
    }
}

impl Resolver for FakeResolver {
    fn lookup<'a>(
        &'a self,
        host: &'a str,
    ) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send + 'a>> {
        let asked = {
            let mut lookups = lock(&self.lookups);
            lookups.push(host.to_owned());
            lookups
                .iter()
                .filter(|name| name.eq_ignore_ascii_case(host))
                .count()
        };
        let answer = lock(&self.answers)
            .get(&host.to_ascii_lowercase())
            .and_then(|answers| answers.get(asked - 1).or(answers.last()).cloned())
            .ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("the fake resolver has no answer for {host}"),
                )
            });
        Box::pin(std::future::ready(answer))
    }
}

/// A connect guard that records every address it is asked about and refuses all but loopback
/// (`127.0.0.0/8` and `::1`, judged here, not by the code under test).
#[derive(Clone, Default)]
struct Guard {
    seen: Arc<Mutex<Vec<SocketAddr>>>,
}

impl Guard {
    fn hook(&self) -> ConnectGuard {
        let seen = self.seen.clone();
        Arc::new(move |address: SocketAddr| {
            lock(&seen).push(address);
            let loopback = match address.ip() {
                IpAddr::V4(v4) => v4.is_loopback(),
                IpAddr::V6(v6) => v6 == Ipv6Addr::LOCALHOST,
            };
            if loopback {
                Ok(())
            } else {
                Err(format!("the test guard refuses {address}: not loopback"))
            }
        })
    }

    /// Every address asked about, in order.
    fn seen(&self) -> Vec<SocketAddr> {
        lock(&self.seen).clone()
    }

    /// The addresses asked about, without ports (names resolve before the port is known).
    fn seen_ips(&self) -> Vec<IpAddr> {
        self.seen().iter().map(SocketAddr::ip).collect()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A fake resolver and a recording guard, and clients or handles built over them.
struct Net {
    resolver: Arc<FakeResolver>,
    guard: Guard,
}

impl Net {
    fn new() -> Self {
        Self {
            resolver: FakeResolver::new(),
            guard: Guard::default(),
        }
    }

    /// A client with the default policy (https, port 443, public names only).
    fn client(&self) -> Client {
        self.client_with(Policy::default(), Duration::from_secs(5))
    }

    /// A client that also admits the loopback fixtures (`allow_loopback_http`).
    fn loopback_client(&self) -> Client {
        self.client_with(loopback_policy(), Duration::from_secs(5))
    }

    fn client_with(&self, policy: Policy, total: Duration) -> Client {
        let mut settings = Settings::new(total);
        settings.policy = policy;
        settings.resolver = self.resolver.clone();
        settings.connect_guard = Some(self.guard.hook());
        Client::new(settings).unwrap()
    }
}

fn loopback_policy() -> Policy {
    let mut policy = Policy::default();
    policy.allow_loopback_http = true;
    policy
}

/// Fetches `url` (parsed here, as the installer would) with `cap` bytes allowed.
async fn fetch(client: &Client, url: &str, cap: u64) -> Result<Vec<u8>, FetchError> {
    client.fetch(&url::Url::parse(url).unwrap(), cap).await
}

/// The connections `server` accepted from the code under test. A probe request of our own is
/// made and answered first: the server accepts in order, so every connection made before the
/// probe has been counted by then, even one that never sent a request.
fn client_connections(server: &Server) -> usize {
    let mut stream = TcpStream::connect(server.address()).unwrap();
    write!(stream, "GET {PROBE} HTTP/1.1\r\nHost: probe\r\n\r\n").unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let probes = server.targets().iter().filter(|t| *t == PROBE).count();
    server.connections() - probes
}

/// The request targets `server` saw from the code under test (probes left out).
fn targets(server: &Server) -> Vec<String> {
    server
        .targets()
        .into_iter()
        .filter(|target| target != PROBE)
        .collect()
}

/// A temporary home and workspace for installs through the `Skills` handle.
struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    workspace: PathBuf,
}

impl Home {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let workspace = dir.path().join("workspace");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&workspace).unwrap();
        Self {
            _dir: dir,
            home,
            workspace,
        }
    }

    /// Every default, no caches or config files, loopback fixtures admitted.
    fn config(&self) -> SkillsConfig {
        let mut config = SkillsConfig::new(&self.workspace, &self.home);
        config.cache = false;
        config.read_config_files = false;
        config.interop = false;
        config.network.allow_loopback_http = true;
        config
    }

    /// A handle over [`Home::config`] resolving with `net`'s resolver, guarded by its guard.
    fn skills(&self, net: &Net) -> skills::Skills {
        skills::Skills::new(self.config())
            .with_resolver(net.resolver.clone())
            .with_connect_guard(net.guard.hook())
    }

    /// The user scope's install root.
    fn root(&self) -> PathBuf {
        // With `interop` off (see `config`) nothing reads `.agents/skills`, so installs go to
        // the app's own root.
        self.home.join(".openhuman/skills")
    }

    /// Asserts that a refused install left nothing behind: no skill folder, no lock file entry,
    /// no staging folder, and no install lock.
    fn assert_untouched(&self, case: &str) {
        let Ok(entries) = std::fs::read_dir(self.root()) else {
            return;
        };
        let names: Vec<String> = entries
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.is_empty(),
            "{case}: a refused install left {names:?} in {}",
            self.root().display()
        );
    }
}

/// A minimal valid `SKILL.md` for `name`.
fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: A test skill called {name}.\n---\n\n# {name}\n")
}

/// Lowercase hex SHA-256, computed here rather than by the code under test.
fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    format!("{:x}", sha2::Sha256::digest(bytes))
}
