//! Names and their answers (03 §Which addresses may be connected to): every address of a name
//! is checked and one bad address refuses the whole name; the connection goes only to addresses
//! that were checked (DNS rebinding); `localhost`, admitted for fixtures, stays this machine.

use std::net::{IpAddr, SocketAddr};

use skills_net::client::FetchError;
use skills_net::policy::Policy;
use skills_tests::http::Server;

use super::{GLOBAL_V4, GLOBAL_V6, Home, Net, client_connections, fetch, isolated, targets};

/// The https port, on loopback: where a wrongly followed answer of `127.0.0.1` would land.
fn https_fixture() -> Server {
    Server::start_on(SocketAddr::from(([127, 0, 0, 1], 443))).unwrap()
}

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

/// One non-global address in a name's answer, and the words its refusal must use.
const DENIED_ANSWERS: [(&str, &str); 13] = [
    ("127.0.0.1", "is loopback (127.0.0.0/8)"),
    ("10.1.2.3", "is private (10.0.0.0/8)"),
    ("172.16.0.9", "is private (172.16.0.0/12)"),
    ("192.168.1.1", "is private (192.168.0.0/16)"),
    (
        "169.254.169.254",
        "is link-local (cloud metadata) (169.254.0.0/16)",
    ),
    ("100.64.0.1", "carrier-grade NAT"),
    ("0.0.0.0", "\"this network\""),
    ("::1", "is loopback (::1/128)"),
    ("fe80::1", "is link-local (fe80::/10)"),
    ("fd00::1", "unique local"),
    (
        "::ffff:127.0.0.1",
        "IPv4-mapped 127.0.0.1, which is loopback",
    ),
    (
        "::ffff:169.254.169.254",
        "IPv4-mapped 169.254.169.254, which is link-local (cloud metadata)",
    ),
    (
        "64:ff9b::a9fe:a9fe",
        "NAT64 169.254.169.254, which is link-local",
    ),
];

#[test]
fn one_denied_answer_refuses_the_whole_name() {
    isolated(|| async {
        let fixture = https_fixture();
        for (denied, words) in DENIED_ANSWERS {
            for global in [GLOBAL_V4, GLOBAL_V6] {
                for answer in [[global, ip(denied)], [ip(denied), global]] {
                    let net = Net::new();
                    net.resolver.answer("mixed.example.com", &answer);
                    let error = fetch(&net.client(), "https://mixed.example.com/SKILL.md", 1024)
                        .await
                        .unwrap_err();
                    let case = format!("{answer:?}");
                    match &error {
                        FetchError::Address(refusal) => assert_eq!(refusal.address, ip(denied)),
                        other => panic!("{case}: expected an address refusal, got {other:?}"),
                    }
                    assert_eq!(error.kind(), "refused_url", "{case}");
                    let message = error.to_string();
                    assert!(
                        message.starts_with(&format!("refused: {denied} ")),
                        "{message}"
                    );
                    assert!(message.contains(words), "{case}: {message}");
                    assert_eq!(net.resolver.lookups("mixed.example.com"), 1, "{case}");
                    assert!(
                        net.guard.seen().is_empty(),
                        "{case}: {:?}",
                        net.guard.seen()
                    );
                }
            }
        }
        assert_eq!(client_connections(&fixture), 0);
    });
}

#[test]
fn a_name_answering_only_denied_addresses_is_refused() {
    isolated(|| async {
        let fixture = https_fixture();
        let cases: [(&[IpAddr], &str); 4] = [
            (&[ip("169.254.169.254")], "169.254.169.254 is link-local"),
            (&[ip("127.0.0.1"), ip("::1")], "127.0.0.1 is loopback"),
            (
                &[ip("::ffff:10.0.0.1")],
                "IPv4-mapped 10.0.0.1, which is private",
            ),
            (&[ip("2001:db8::5")], "2001:db8::5 is documentation"),
        ];
        for (answer, words) in cases {
            let net = Net::new();
            net.resolver.answer("internal.example.com", answer);
            let error = fetch(&net.client(), "https://internal.example.com/SKILL.md", 1024)
                .await
                .unwrap_err();
            assert!(
                matches!(error, FetchError::Address(_)),
                "{answer:?}: {error:?}"
            );
            assert!(error.to_string().contains(words), "{error}");
            assert!(net.guard.seen().is_empty());
        }
        assert_eq!(client_connections(&fixture), 0);
    });
}

#[test]
fn the_operators_deny_list_applies_to_answers() {
    isolated(|| async {
        let net = Net::new();
        net.resolver
            .answer("wire.example.com", &[ip("168.63.129.16")]);
        let mut policy = Policy::default();
        policy.denied = vec!["168.63.129.16/32".parse().unwrap()];
        let client = net.client_with(policy, std::time::Duration::from_secs(5));
        let error = fetch(&client, "https://wire.example.com/SKILL.md", 1024)
            .await
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "refused: 168.63.129.16 is on the operator's deny list (168.63.129.16/32)"
        );
        assert!(net.guard.seen().is_empty());
    });
}

#[test]
fn an_empty_answer_or_an_unknown_name_is_a_failure_not_a_fallback() {
    isolated(|| async {
        let fixture = https_fixture();
        let net = Net::new();
        net.resolver.answer("empty.example.com", &[]);
        let error = fetch(&net.client(), "https://empty.example.com/SKILL.md", 1024)
            .await
            .unwrap_err();
        assert_eq!(error.kind(), "fetch_failed");
        assert!(
            error
                .to_string()
                .contains("empty.example.com has no address"),
            "{error}"
        );

        let error = fetch(&net.client(), "https://unknown.example.com/SKILL.md", 1024)
            .await
            .unwrap_err();
        assert_eq!(error.kind(), "fetch_failed");
        assert!(
            error
                .to_string()
                .contains("unknown.example.com cannot be resolved"),
            "{error}"
        );
        assert!(net.guard.seen().is_empty());
        assert_eq!(client_connections(&fixture), 0);
    });
}

/// DNS rebinding: the name answers a public address when checked and loopback afterwards. The
/// client connects only to what it checked (here the guard stops even that), and the later
/// answer is checked again rather than trusted: the https fixture on 127.0.0.1:443 sees nothing.
#[test]
fn rebinding_to_loopback_never_reaches_loopback() {
    isolated(|| async {
        let fixture = https_fixture();
        let net = Net::new();
        net.resolver
            .answer("rebind.example.com", &[GLOBAL_V4])
            .answer("rebind.example.com", &[ip("127.0.0.1")]);
        let client = net.client();

        let first = fetch(&client, "https://rebind.example.com/SKILL.md", 1024)
            .await
            .unwrap_err();
        assert!(matches!(first, FetchError::Guarded(_)), "{first:?}");
        assert!(first.to_string().contains("93.184.215.14"), "{first}");
        assert_eq!(net.resolver.lookups("rebind.example.com"), 1);

        let second = fetch(&client, "https://rebind.example.com/SKILL.md", 1024)
            .await
            .unwrap_err();
        assert!(
            second.to_string().contains("127.0.0.1 is loopback"),
            "{second}"
        );
        assert_eq!(net.resolver.lookups("rebind.example.com"), 2);
        assert_eq!(net.guard.seen_ips(), [GLOBAL_V4]);
        assert_eq!(client_connections(&fixture), 0);
    });
}

/// Rebinding the fixture name: `localhost` answers loopback for the first request, and a
/// private address when the redirect makes the client look it up again.
#[test]
fn rebinding_localhost_between_redirects_is_refused() {
    isolated(|| async {
        let server = Server::start().unwrap();
        let port = server.port();
        server.route(
            "/first",
            skills_tests::http::Reply::Redirect(format!("http://localhost:{port}/second")),
        );
        server.text("/second", "must not be fetched");
        let net = Net::new();
        net.resolver
            .answer("localhost", &[ip("127.0.0.1")])
            .answer("localhost", &[ip("10.0.0.7")]);
        let error = fetch(
            &net.loopback_client(),
            &server.localhost_url("/first"),
            1024,
        )
        .await
        .unwrap_err();
        assert!(matches!(error, FetchError::Address(_)), "{error:?}");
        assert!(error.to_string().contains("10.0.0.7 is private"), "{error}");
        assert_eq!(net.resolver.lookups("localhost"), 2);
        assert_eq!(targets(&server), ["/first"]);
        assert_eq!(net.guard.seen_ips(), [ip("127.0.0.1")]);
    });
}

/// `allow_loopback_http` admits the name `localhost` for fixtures; it must not turn into plain
/// http to whatever address the name answers with.
#[test]
fn localhost_answering_anything_but_loopback_is_refused() {
    isolated(|| async {
        let server = Server::start().unwrap();
        server.text("/SKILL.md", "unreachable");
        let cases: [&[IpAddr]; 5] = [
            &[ip("10.0.0.1")],
            &[ip("169.254.169.254")],
            &[ip("::ffff:169.254.169.254")],
            &[GLOBAL_V4],
            &[ip("127.0.0.1"), GLOBAL_V6],
        ];
        for answer in cases {
            let net = Net::new();
            net.resolver.answer("localhost", answer);
            let error = fetch(
                &net.loopback_client(),
                &server.localhost_url("/SKILL.md"),
                1024,
            )
            .await
            .unwrap_err();
            assert!(
                matches!(error, FetchError::Address(_)),
                "{answer:?}: expected an address refusal, got {error:?}"
            );
            assert_eq!(error.kind(), "refused_url");
            assert!(
                net.guard.seen().is_empty(),
                "{answer:?}: {:?}",
                net.guard.seen()
            );
        }
        assert_eq!(client_connections(&server), 0);

        // The same fixture through loopback answers is fine: the refusals above are not a
        // broken fixture.
        let net = Net::new();
        net.resolver.answer("localhost", &[ip("127.0.0.1")]);
        let body = fetch(
            &net.loopback_client(),
            &server.localhost_url("/SKILL.md"),
            1024,
        )
        .await
        .unwrap();
        assert_eq!(body, b"unreachable");
    });
}

/// The guard is told about every address the client connects to, IP-literal hosts included:
/// those never reach the resolver, which is where the guard is asked about names.
#[test]
fn the_guard_is_asked_about_literal_hosts_too() {
    isolated(|| async {
        let server = Server::start().unwrap();
        server.text("/SKILL.md", "fixture");
        let net = Net::new();
        let body = fetch(&net.loopback_client(), &server.url("/SKILL.md"), 1024)
            .await
            .unwrap();
        assert_eq!(body, b"fixture");
        assert_eq!(net.guard.seen(), [server.address()]);

        // A global literal (allowed by this policy) must reach the guard, which refuses it,
        // before any connection is tried.
        let mut policy = Policy::default();
        policy.allow_ip_literals = true;
        let client = net.client_with(policy, std::time::Duration::from_secs(5));
        let error = fetch(&client, "https://93.184.215.14/SKILL.md", 1024)
            .await
            .unwrap_err();
        assert!(matches!(error, FetchError::Guarded(_)), "{error:?}");
        assert_eq!(
            net.guard.seen().last(),
            Some(&SocketAddr::new(GLOBAL_V4, 443))
        );
    });
}

/// Through the handle: the refusal is a `refused_url` error naming the range, and nothing is
/// written.
#[test]
fn the_handle_refuses_a_mixed_answer_and_writes_nothing() {
    isolated(|| async {
        let home = Home::new();
        let net = Net::new();
        net.resolver.answer(
            "skills.example.com",
            &[GLOBAL_V4, ip("::ffff:169.254.169.254")],
        );
        let error = home
            .skills(&net)
            .install(&skills::install::Request::new(
                "https://skills.example.com/pdf/SKILL.md",
            ))
            .await
            .unwrap_err();
        assert_eq!(error.kind(), "refused_url");
        assert_eq!(
            error.to_string(),
            "refused https://skills.example.com/pdf/SKILL.md: refused: ::ffff:169.254.169.254 is \
             IPv4-mapped 169.254.169.254, which is link-local (cloud metadata) (169.254.0.0/16)"
        );
        assert!(net.guard.seen().is_empty());
        home.assert_untouched("mixed answer");
    });
}

/// A name that resolves into a denied range is a refusal of the local kind: with the fixture
/// switch off, the message names it (a person whose test server's name resolves to a private
/// address learns that only loopback can be opened, and how).
#[test]
fn a_name_resolving_to_a_private_address_names_the_fixture_switch() {
    isolated(|| async {
        let home = Home::new();
        let net = Net::new();
        net.resolver.answer("skills.example.com", &[ip("10.1.2.3")]);
        let mut config = home.config();
        config.network.allow_loopback_http = false;
        let error = skills::Skills::new(config)
            .with_resolver(net.resolver.clone())
            .with_connect_guard(net.guard.hook())
            .install(&skills::install::Request::new(
                "https://skills.example.com/pdf/SKILL.md",
            ))
            .await
            .unwrap_err();
        assert_eq!(error.kind(), "refused_url");
        assert_eq!(
            error.to_string(),
            "refused https://skills.example.com/pdf/SKILL.md: refused: 10.1.2.3 is private \
             (10.0.0.0/8); for a test fixture on this machine, SKILLS_INSTALL_ALLOW_LOCAL_HTTP=1 \
             (`allow_loopback_http`) allows http and any port on 127.0.0.1, [::1] and \
             localhost, and nothing else"
        );
        assert!(net.guard.seen().is_empty());
        home.assert_untouched("private answer");
    });
}
