//! Redirects (03 §The URL policy, §The HTTP client): every hop is checked like the first URL,
//! at most five hops are followed, and no hop carries a `Referer`. The start is a loopback
//! fixture admitted by `allow_loopback_http`, which must not widen what a hop may reach.

use skills_net::client::FetchError;
use skills_net::policy::Refusal;
use skills_tests::http::{Reply, Server};

use super::{Net, client_connections, fetch, isolated, targets};

/// Where a hostile fixture redirects, the rule that refuses it (`Refusal::kind`), and words the
/// refusal must use; `{port}` is the fixture's own port. The loopback exception admits exactly
/// `127.0.0.1`, `[::1]` and `localhost`, so other spellings of loopback are held to the rules.
const REFUSED_HOPS: [(&str, &str, &str); 17] = [
    (
        "http://169.254.169.254/latest/meta-data",
        "scheme",
        "only https URLs are fetched, not http:",
    ),
    (
        "https://169.254.169.254/latest/meta-data",
        "address",
        "169.254.169.254 is link-local (cloud metadata)",
    ),
    (
        "https://[::ffff:a9fe:a9fe]/",
        "address",
        "IPv4-mapped 169.254.169.254, which is link-local",
    ),
    (
        "https://[64:ff9b::a9fe:a9fe]/",
        "address",
        "NAT64 169.254.169.254, which is link-local",
    ),
    ("https://10.0.0.1/", "address", "10.0.0.1 is private"),
    (
        "https://0xa9.0xfe.0xa9.0xfe/",
        "address",
        "169.254.169.254 is link-local",
    ),
    (
        "https://2852039166/",
        "address",
        "169.254.169.254 is link-local",
    ),
    (
        "https://93.184.215.14/SKILL.md",
        "ip_literal",
        "93.184.215.14 is an IP address",
    ),
    (
        "http://public.example.com/SKILL.md",
        "scheme",
        "only https URLs are fetched",
    ),
    (
        "https://public.example.com:8443/SKILL.md",
        "port",
        "port 8443 is not allowed",
    ),
    (
        "https://metadata.google.internal/computeMetadata/v1/",
        "special_name",
        "metadata.google.internal is a local or reserved name",
    ),
    (
        "https://intranet/SKILL.md",
        "not_public_name",
        "intranet is not a public host name",
    ),
    (
        "http://user:secret@127.0.0.1:{port}/final",
        "user_info",
        "URLs with a user name or password are refused",
    ),
    (
        "https://user@public.example.com/SKILL.md",
        "user_info",
        "user name or password",
    ),
    (
        "ftp://127.0.0.1:{port}/final",
        "scheme",
        "only https URLs are fetched, not ftp:",
    ),
    (
        "http://[::ffff:127.0.0.1]:{port}/final",
        "scheme",
        "only https URLs are fetched, not http:",
    ),
    (
        "http://127.0.0.2:{port}/final",
        "scheme",
        "only https URLs are fetched, not http:",
    ),
];

#[test]
fn a_hop_is_checked_like_the_first_url() {
    isolated(|| async {
        let server = Server::start().unwrap();
        server.text("/final", "must not be fetched");
        for (location, rule, words) in REFUSED_HOPS {
            let location = location.replace("{port}", &server.port().to_string());
            server.route("/start", Reply::Redirect(location.clone()));
            let net = Net::new();
            let error = fetch(&net.loopback_client(), &server.url("/start"), 1024)
                .await
                .unwrap_err();
            match &error {
                FetchError::Refused(refusal) => assert_eq!(refusal.kind(), rule, "{location}"),
                other => panic!("{location}: expected a {rule} refusal, got {other:?}"),
            }
            assert_eq!(error.kind(), "refused_url");
            let message = error.to_string();
            assert!(message.contains(words), "{location}: {message}");
            assert!(!message.contains("secret"), "{location}: {message}");
            assert!(net.resolver.names().is_empty(), "{location}");
            assert!(
                net.guard
                    .seen()
                    .iter()
                    .all(|seen| *seen == server.address())
            );
        }
        assert!(targets(&server).iter().all(|target| target == "/start"));
        assert_eq!(client_connections(&server), REFUSED_HOPS.len());
    });
}

/// `file:` is not an http URL at all: the HTTP stack does not follow it (our redirect policy is
/// never asked), so the fetch ends at the 302 itself; nothing is read and nothing installed.
#[test]
fn a_redirect_to_a_file_url_is_not_followed() {
    isolated(|| async {
        let server = Server::start().unwrap();
        server.route("/start", Reply::Redirect("file:///etc/passwd".to_owned()));
        let net = Net::new();
        let error = fetch(&net.loopback_client(), &server.url("/start"), 1024)
            .await
            .unwrap_err();
        // reqwest hands the redirect back without asking the redirect policy; the client
        // still names the rule it breaks.
        assert_eq!(
            error,
            FetchError::Refused(Refusal::Scheme("file".to_owned()))
        );
        assert_eq!(error.kind(), "refused_url");
        assert_eq!(targets(&server), ["/start"]);
    });
}

/// A chain of `hops` relative redirects on `server`, `/hop0` → `/hop1` → … → `/hop<hops>`,
/// ending in a `200`.
fn chain(server: &Server, hops: usize) {
    for hop in 0..hops {
        server.route(
            &format!("/hop{hop}"),
            Reply::Redirect(format!("/hop{}", hop + 1)),
        );
    }
    server.text(&format!("/hop{hops}"), "the end");
}

#[test]
fn five_redirects_are_followed_and_six_are_not() {
    isolated(|| async {
        let five = Server::start().unwrap();
        chain(&five, 5);
        let net = Net::new();
        let body = fetch(&net.loopback_client(), &five.url("/hop0"), 1024)
            .await
            .unwrap();
        assert_eq!(body, b"the end");
        assert_eq!(targets(&five).len(), 6);

        let six = Server::start().unwrap();
        chain(&six, 6);
        let error = fetch(&net.loopback_client(), &six.url("/hop0"), 1024)
            .await
            .unwrap_err();
        assert!(matches!(error, FetchError::TooManyRedirects), "{error:?}");
        assert_eq!(error.kind(), "too_many_redirects");
        assert_eq!(error.to_string(), "more than 5 redirects");
        assert_eq!(
            targets(&six),
            ["/hop0", "/hop1", "/hop2", "/hop3", "/hop4", "/hop5"]
        );
    });
}

/// Hops between the loopback forms (127.0.0.1, [::1], localhost), relative and absolute, are
/// followed; none of them carries a `Referer` (it would tell the next host where we came from).
#[test]
fn loopback_hops_are_followed_without_a_referer() {
    isolated(|| async {
        let v4 = Server::start().unwrap();
        let v6 = Server::start_v6().unwrap();
        v4.route("/start", Reply::Redirect("next?token=secret".to_owned()));
        v4.route("/next", Reply::Redirect(v6.url("/there")));
        v6.route("/there", Reply::Redirect(v4.localhost_url("/back")));
        v4.route("/back", Reply::Redirect("./SKILL.md".to_owned()));
        v4.text("/SKILL.md", "arrived");
        let net = Net::new();
        net.resolver
            .answer("localhost", &[std::net::IpAddr::from([127, 0, 0, 1])]);
        let body = fetch(&net.loopback_client(), &v4.url("/start"), 1024)
            .await
            .unwrap();
        assert_eq!(body, b"arrived");
        assert_eq!(
            targets(&v4),
            ["/start", "/next?token=secret", "/back", "/SKILL.md"]
        );
        assert_eq!(targets(&v6), ["/there"]);
        for hit in v4.hits().iter().chain(&v6.hits()) {
            assert_eq!(hit.header("referer"), None, "{hit:?}");
        }
        // Two lookups: the hop to `localhost` and the relative hop after it (the fixture closes
        // every connection, so nothing is reused).
        assert_eq!(net.resolver.lookups("localhost"), 2);
    });
}
