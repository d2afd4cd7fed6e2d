//! The peer-address backstop, on its own (03 §The HTTP client): the guarded resolver checks
//! every address a name resolves to, so in normal operation a connection never reaches an
//! address the backstop would refuse. These tests make reqwest connect where the resolver
//! never looked (a resolution override, standing for any future path around the resolver: a
//! proxy, a pooled connection, a builder option) and show that the check of the connected
//! socket's address still refuses the response, while the same path to loopback is accepted.
//!
//! The bearer's grants are here too: which origin gets which token, before any request.
//!
//! The backstop tests run inside a private network namespace whose only interface is `lo`, with the
//! forbidden address added to `lo`, so the refused server is on this machine and nothing can
//! leave it, whatever the code under test does.

use std::io::{BufRead, BufReader, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::sync::mpsc;
use std::time::Duration;

use super::*;

/// Addresses in denied ranges that are not loopback: the fixture exception (which admits
/// loopback peers) does not cover them.
const FORBIDDEN: [(Ipv4Addr, &str); 2] = [
    (Ipv4Addr::new(192, 0, 2, 1), "192.0.2.0/24"),
    (Ipv4Addr::new(10, 0, 0, 1), "10.0.0.0/8"),
];

/// A one-request HTTP server on `address`: it reports the request line on the channel before
/// it answers `200 ok`, so a test knows the connection really reached it.
fn serve_once(address: IpAddr) -> (u16, mpsc::Receiver<String>) {
    let listener = TcpListener::bind(SocketAddr::new(address, 0)).unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tell, told) = mpsc::channel();
    std::thread::spawn(move || {
        let Ok((stream, _)) = listener.accept() else {
            return;
        };
        let mut reader = BufReader::new(&stream);
        let mut request_line = String::new();
        drop(reader.read_line(&mut request_line));
        let mut line = String::new();
        while reader.read_line(&mut line).is_ok_and(|read| read > 0) && line != "\r\n" {
            line.clear();
        }
        drop(tell.send(request_line.trim_end().to_owned()));
        let mut stream = &stream;
        drop(
            stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"),
        );
    });
    (port, told)
}

/// Fetches `http://localhost:<port>/SKILL.md` under the fixture policy with `localhost`
/// overridden to `address`, bypassing the guarded resolver.
fn fetch_bypassing_the_resolver(address: IpAddr, port: u16) -> Result<Vec<u8>, FetchError> {
    let mut settings = Settings::new(Duration::from_secs(10));
    settings.policy.allow_loopback_http = true;
    let target = SocketAddr::new(address, port);
    let client = Client::build(settings, |builder| builder.resolve("localhost", target)).unwrap();
    let url = Url::parse(&format!("http://localhost:{port}/SKILL.md")).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(client.fetch(&url, 1024))
}

#[test]
fn the_backstop_refuses_a_peer_the_resolver_never_checked() {
    skills_tests::netns::run(|| {
        for (address, range) in FORBIDDEN {
            let address = IpAddr::V4(address);
            skills_tests::netns::add_loopback_address(address).unwrap();
            let (port, told) = serve_once(address);
            let result = fetch_bypassing_the_resolver(address, port);
            // The request reached the server: nothing before the backstop refused it.
            assert_eq!(told.try_recv().as_deref(), Ok("GET /SKILL.md HTTP/1.1"));
            match result {
                Err(FetchError::Address(refusal)) => {
                    assert_eq!(refusal.address, address);
                    assert_eq!(refusal.range.to_string(), range);
                }
                other => panic!("{address}: the backstop let {other:?} through"),
            }
        }
    });
}

#[test]
fn the_same_bypass_to_loopback_is_accepted() {
    skills_tests::netns::run(|| {
        let address = IpAddr::V4(Ipv4Addr::LOCALHOST);
        let (port, told) = serve_once(address);
        let body = fetch_bypassing_the_resolver(address, port).unwrap();
        assert_eq!(body, b"ok");
        assert_eq!(told.try_recv().as_deref(), Ok("GET /SKILL.md HTTP/1.1"));
    });
}

#[test]
fn a_bearer_sends_each_token_to_its_own_origins_only() {
    let url = |text: &str| Url::parse(text).unwrap();
    let bearer = Bearer::new(&url("https://registry.example/catalog.json"), "reg")
        .with(&url("https://api.github.com/repos"), "gh")
        .with(&url("https://codeload.github.com"), "gh")
        // An origin granted already keeps its first token.
        .with(&url("https://registry.example/other"), "later");
    let sent = |text: &str| {
        bearer
            .header_for(&url(text))
            .map(|value| value.to_str().unwrap().to_owned())
    };
    assert_eq!(
        sent("https://registry.example/x").as_deref(),
        Some("Bearer reg")
    );
    assert_eq!(
        sent("https://api.github.com/repos/o/r/tarball").as_deref(),
        Some("Bearer gh")
    );
    assert_eq!(
        sent("https://codeload.github.com/o/r/tar.gz/main").as_deref(),
        Some("Bearer gh")
    );
    for elsewhere in [
        "https://github.com/o/r",
        "http://api.github.com/repos",
        "https://api.github.com:8443/repos",
        "https://objects.githubusercontent.com/x",
        "https://registry.example.evil/x",
    ] {
        assert_eq!(sent(elsewhere), None, "{elsewhere}");
        assert!(!bearer.covers(&url(elsewhere)));
    }
    let shown = format!("{bearer:?}");
    assert!(
        shown.contains("https://api.github.com")
            && !shown.contains("gh\"")
            && !shown.contains("reg\""),
        "{shown}"
    );
    assert!(
        bearer
            .header_for(&url("https://api.github.com"))
            .unwrap()
            .is_sensitive()
    );
}
