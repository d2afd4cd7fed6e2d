//! Responses that misbehave (03 §The HTTP client): sizes are refused when announced and counted
//! while streaming, a drip hits the total deadline, text is strict UTF-8, and only a 2xx is a
//! download.

use std::time::{Duration, Instant};

use skills_net::client::FetchError;
use skills_tests::http::{Reply, Server};

use super::{Home, Net, fetch, isolated, loopback_policy, targets};

const CAP: u64 = 64 * 1024;

#[test]
fn an_announced_length_over_the_cap_is_refused_before_the_body() {
    isolated(|| async {
        let server = Server::start().unwrap();
        // Announces 10 MiB and sends one byte: waiting for the body would hit the deadline.
        server.route(
            "/huge",
            Reply::LyingLength {
                announced: 10 * 1024 * 1024,
                body: b"x".to_vec(),
            },
        );
        server.route("/over", Reply::Ok(vec![b'a'; CAP as usize + 1]));
        server.route("/exact", Reply::Ok(vec![b'a'; CAP as usize]));
        let net = Net::new();
        let client = net.loopback_client();
        let started = Instant::now();
        let error = fetch(&client, &server.url("/huge"), CAP).await.unwrap_err();
        assert_eq!(error, FetchError::TooLarge(CAP));
        assert_eq!(error.kind(), "too_large");
        assert_eq!(error.to_string(), "the response is larger than 65536 bytes");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );

        let error = fetch(&client, &server.url("/over"), CAP).await.unwrap_err();
        assert_eq!(error, FetchError::TooLarge(CAP));
        let exact = fetch(&client, &server.url("/exact"), CAP).await.unwrap();
        assert_eq!(exact.len() as u64, CAP);
    });
}

/// A server that announces less than it sends gets exactly what it announced read, never more;
/// one that announces more than it sends and hangs up is a failed download, not a short one.
#[test]
fn lying_lengths_never_yield_more_or_less_than_announced() {
    isolated(|| async {
        let server = Server::start().unwrap();
        server.route(
            "/short",
            Reply::LyingLength {
                announced: 4,
                body: vec![b'b'; 2 * CAP as usize],
            },
        );
        server.route(
            "/long",
            Reply::LyingLength {
                announced: 100,
                body: b"only ten.\n".to_vec(),
            },
        );
        let net = Net::new();
        let client = net.loopback_client();
        let short = fetch(&client, &server.url("/short"), CAP).await.unwrap();
        assert_eq!(short, b"bbbb");
        let error = fetch(&client, &server.url("/long"), CAP).await.unwrap_err();
        assert_eq!(error.kind(), "fetch_failed", "{error:?}");
        assert!(
            error
                .to_string()
                .contains("end of file before message length reached"),
            "{error}"
        );
    });
}

#[test]
fn an_endless_chunked_body_stops_at_the_cap() {
    isolated(|| async {
        let server = Server::start().unwrap();
        server.route(
            "/endless",
            Reply::Endless {
                chunk: vec![b'z'; 4096],
            },
        );
        let net = Net::new();
        let started = Instant::now();
        let error = fetch(&net.loopback_client(), &server.url("/endless"), CAP)
            .await
            .unwrap_err();
        assert_eq!(error, FetchError::TooLarge(CAP));
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    });
}

/// One byte every 300 ms never trips a read timeout; the total deadline must end it.
#[test]
fn a_drip_hits_the_total_deadline() {
    isolated(|| async {
        let server = Server::start().unwrap();
        server.route(
            "/drip",
            Reply::Drip {
                body: vec![b'd'; 100],
                every: Duration::from_millis(300),
            },
        );
        let net = Net::new();
        let client = net.client_with(loopback_policy(), Duration::from_secs(1));
        let started = Instant::now();
        let error = fetch(&client, &server.url("/drip"), CAP).await.unwrap_err();
        let elapsed = started.elapsed();
        assert_eq!(error, FetchError::Timeout);
        assert_eq!(error.kind(), "timeout");
        assert!(
            (Duration::from_millis(900)..Duration::from_secs(3)).contains(&elapsed),
            "{elapsed:?}"
        );
    });
}

#[test]
fn text_must_be_utf8() {
    isolated(|| async {
        let server = Server::start().unwrap();
        server.route(
            "/latin1/SKILL.md",
            Reply::Ok(b"---\nname: caf\xe9\ndescription: x\n---\n".to_vec()),
        );
        let net = Net::new();
        let url = url::Url::parse(&server.url("/latin1/SKILL.md")).unwrap();
        let error = net
            .loopback_client()
            .fetch_text(&url, CAP)
            .await
            .unwrap_err();
        assert_eq!(error, FetchError::NotUtf8);
        assert_eq!(error.kind(), "not_utf8");

        let home = Home::new();
        let error = home
            .skills(&net)
            .install(&skills::install::Request::new(
                server.url("/latin1/SKILL.md"),
            ))
            .await
            .unwrap_err();
        assert!(error.to_string().contains("UTF-8"), "{error}");
        home.assert_untouched("non-UTF-8 SKILL.md");
    });
}

/// Anything but a 2xx installs nothing, whatever the body looks like; a 200 that is an HTML
/// page is not a skill either.
#[test]
fn error_statuses_and_html_pages_install_nothing() {
    isolated(|| async {
        let server = Server::start().unwrap();
        server.route("/gone/SKILL.md", Reply::Status(404));
        server.route("/broken/SKILL.md", Reply::Status(500));
        server.route(
            "/moved/SKILL.md",
            Reply::Redirect("/gone/SKILL.md".to_owned()),
        );
        server.text(
            "/html/SKILL.md",
            "<!doctype html><html><body><h1>Sign in</h1></body></html>\n",
        );
        let net = Net::new();
        let home = Home::new();
        let skills = home.skills(&net);
        for (path, kind, words) in [
            (
                "/gone/SKILL.md",
                "http_status",
                "the server answered HTTP 404",
            ),
            (
                "/broken/SKILL.md",
                "http_status",
                "the server answered HTTP 500",
            ),
            (
                "/moved/SKILL.md",
                "http_status",
                "the server answered HTTP 404",
            ),
            (
                "/html/SKILL.md",
                "invalid_package",
                "no valid YAML frontmatter",
            ),
        ] {
            let error = skills
                .install(&skills::install::Request::new(server.url(path)))
                .await
                .unwrap_err();
            assert_eq!(error.kind(), kind, "{path}: {error}");
            assert!(error.to_string().contains(words), "{path}: {error}");
            home.assert_untouched(path);
        }
        let error = fetch(&net.loopback_client(), &server.url("/gone/SKILL.md"), CAP)
            .await
            .unwrap_err();
        assert_eq!(error, FetchError::Status(404));
        assert_eq!(
            targets(&server),
            [
                "/gone/SKILL.md",
                "/broken/SKILL.md",
                "/moved/SKILL.md",
                "/gone/SKILL.md",
                "/html/SKILL.md",
                "/gone/SKILL.md",
            ]
        );
    });
}
