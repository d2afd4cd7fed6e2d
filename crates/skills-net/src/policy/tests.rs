//! Tests of the URL policy (03 §The URL policy; 06 §Safety and reliability, URL policy): a
//! table of hostile URLs, each refused for its own stated reason (every IPv4 deny range, the
//! IPv4-mapped and NAT64 spellings, the IPv6 ranges, IPv4 written in decimal, octal, hex, short
//! and full-width forms, trailing dots, special-use and single-label names, user info, ports,
//! schemes, length, text that is no URL, and global literals); a table of public URLs that
//! pass; the `allow_loopback_http`, `allow_ip_literals`, `ports` and `denied` options, each
//! shown to widen or narrow exactly what it names; and `redact`. Everything is pure: nothing
//! here resolves a name or opens a socket.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::*;

/// What the policy must say about one URL.
#[derive(Debug)]
enum Verdict {
    /// Accepted.
    Allowed,
    /// Refused as `Refusal::Address`, in the range with this CIDR text, whose label contains
    /// the second string.
    Range(&'static str, &'static str),
    /// Refused with exactly this refusal.
    Exactly(Refusal),
    /// Refused with this `Refusal::kind()`, whatever the detail.
    Kind(&'static str),
    /// Refused, whatever the reason.
    Refused,
}

use Verdict::{Allowed, Exactly, Kind, Range, Refused};

fn v4(text: &str) -> IpAddr {
    IpAddr::V4(text.parse::<Ipv4Addr>().unwrap())
}

fn v6(text: &str) -> IpAddr {
    IpAddr::V6(text.parse::<Ipv6Addr>().unwrap())
}

fn special(name: &str) -> Verdict {
    Exactly(Refusal::SpecialName(name.to_owned()))
}

fn not_public(name: &str) -> Verdict {
    Exactly(Refusal::NotAPublicName(name.to_owned()))
}

fn scheme(scheme: &str) -> Verdict {
    Exactly(Refusal::Scheme(scheme.to_owned()))
}

/// `https://example.com/` followed by `a`s, `total` bytes in all.
fn long_url(total: usize) -> String {
    let mut url = "https://example.com/".to_owned();
    url.push_str(&"a".repeat(total - url.len()));
    url
}

/// Hostile URLs under the default policy, with what each must get and why it is hostile.
fn hostile() -> Vec<(String, Verdict)> {
    let table: Vec<(&str, Verdict)> = vec![
        // Every IPv4 deny range of 03, one address in each, written as a literal host. The
        // range is checked before the literal rule, so the refusal names the range.
        ("https://0.1.2.3/", Range("0.0.0.0/8", "this network")),
        ("https://0.0.0.0/", Range("0.0.0.0/8", "this network")),
        ("https://10.0.0.1/", Range("10.0.0.0/8", "private")),
        (
            "https://100.64.0.1/",
            Range("100.64.0.0/10", "carrier-grade NAT"),
        ),
        ("https://127.0.0.1/", Range("127.0.0.0/8", "loopback")),
        (
            "https://169.254.169.254/latest/meta-data/",
            Range("169.254.0.0/16", "link-local (cloud metadata)"),
        ),
        ("https://172.16.0.1/", Range("172.16.0.0/12", "private")),
        ("https://172.31.255.255/", Range("172.16.0.0/12", "private")),
        (
            "https://192.0.0.170/",
            Range("192.0.0.0/24", "IETF protocol assignments"),
        ),
        ("https://192.0.2.1/", Range("192.0.2.0/24", "TEST-NET-1")),
        ("https://192.31.196.1/", Range("192.31.196.0/24", "AS112")),
        ("https://192.52.193.1/", Range("192.52.193.0/24", "AMT")),
        (
            "https://192.88.99.1/",
            Range("192.88.99.0/24", "6to4 relay"),
        ),
        ("https://192.168.1.1/", Range("192.168.0.0/16", "private")),
        ("https://192.175.48.1/", Range("192.175.48.0/24", "AS112")),
        (
            "https://198.19.255.255/",
            Range("198.18.0.0/15", "benchmarking"),
        ),
        (
            "https://198.51.100.7/",
            Range("198.51.100.0/24", "TEST-NET-2"),
        ),
        (
            "https://203.0.113.9/",
            Range("203.0.113.0/24", "TEST-NET-3"),
        ),
        ("https://224.0.0.1/", Range("224.0.0.0/4", "multicast")),
        ("https://240.0.0.1/", Range("240.0.0.0/4", "class E")),
        (
            "https://255.255.255.255/",
            Range("240.0.0.0/4", "broadcast"),
        ),
        // IPv4-mapped and NAT64 spellings are judged by the IPv4 address inside.
        (
            "https://[::ffff:169.254.169.254]/",
            Range("169.254.0.0/16", "IPv4-mapped 169.254.169.254"),
        ),
        (
            "https://[::ffff:a9fe:a9fe]/",
            Range("169.254.0.0/16", "link-local"),
        ),
        (
            "https://[::ffff:127.0.0.1]/",
            Range("127.0.0.0/8", "IPv4-mapped 127.0.0.1, which is loopback"),
        ),
        ("https://[::ffff:10.0.0.1]/", Range("10.0.0.0/8", "private")),
        (
            "https://[64:ff9b::a9fe:a9fe]/",
            Range("169.254.0.0/16", "NAT64 169.254.169.254"),
        ),
        (
            "https://[64:ff9b::7f00:1]/",
            Range("127.0.0.0/8", "NAT64 127.0.0.1, which is loopback"),
        ),
        (
            "https://[64:ff9b::192.168.0.1]/",
            Range("192.168.0.0/16", "NAT64"),
        ),
        // The local-use translation prefix is not decoded: it is refused outright.
        (
            "https://[64:ff9b:1::a9fe:a9fe]/",
            Range("64:ff9b:1::/48", "translation"),
        ),
        // IPv6 ranges.
        ("https://[::1]/", Range("::1/128", "loopback")),
        ("https://[::]/", Range("::/128", "unspecified")),
        ("https://[fe80::1]/", Range("fe80::/10", "link-local")),
        ("https://[fd00::1]/", Range("fc00::/7", "unique local")),
        ("https://[fc00::1]/", Range("fc00::/7", "unique local")),
        ("https://[fec0::1]/", Range("fec0::/10", "site-local")),
        ("https://[ff02::1]/", Range("ff00::/8", "multicast")),
        ("https://[100::1]/", Range("100::/64", "discard")),
        (
            "https://[2001:db8::1]/",
            Range("2001:db8::/32", "documentation"),
        ),
        ("https://[3fff::1]/", Range("3fff::/20", "documentation")),
        ("https://[2002:a9fe:a9fe::1]/", Range("2002::/16", "6to4")),
        (
            "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
            Range("2001::/23", "Teredo"),
        ),
        (
            "https://[2620:4f:8000::1]/",
            Range("2620:4f:8000::/48", "AS112"),
        ),
        // IPv4-compatible (deprecated): outside global unicast, not decoded.
        (
            "https://[::127.0.0.1]/",
            Range("2000::/3", "outside global unicast"),
        ),
        (
            "https://[4000::1]/",
            Range("2000::/3", "outside global unicast"),
        ),
        // Other spellings of IPv4: `url` reads each as the address (as a system resolver
        // would), so the range check sees through them.
        ("https://2130706433/", Range("127.0.0.0/8", "loopback")),
        ("https://0177.0.0.1/", Range("127.0.0.0/8", "loopback")),
        ("https://0x7f.0.0.1/", Range("127.0.0.0/8", "loopback")),
        ("https://0x7f000001/", Range("127.0.0.0/8", "loopback")),
        ("https://0x7f.1/", Range("127.0.0.0/8", "loopback")),
        ("https://127.1/", Range("127.0.0.0/8", "loopback")),
        ("https://10.1/", Range("10.0.0.0/8", "private")),
        ("https://0/", Range("0.0.0.0/8", "this network")),
        (
            "https://0xa9.0xfe.0xa9.0xfe/",
            Range("169.254.0.0/16", "link-local"),
        ),
        ("https://2852039166/", Range("169.254.0.0/16", "link-local")),
        ("https://3232235521/", Range("192.168.0.0/16", "private")),
        (
            "https://\u{ff11}\u{ff12}\u{ff17}.\u{ff10}.\u{ff10}.\u{ff11}/",
            Range("127.0.0.0/8", "loopback"),
        ),
        ("https://%31%32%37.0.0.1/", Range("127.0.0.0/8", "loopback")),
        ("https://127.0.0.1./", Range("127.0.0.0/8", "loopback")),
        ("https://127.0.0.1:443/", Range("127.0.0.0/8", "loopback")),
        // Special-use names, with and without one trailing dot, in any case or width.
        ("https://localhost/", special("localhost")),
        ("https://localhost./", special("localhost")),
        ("https://LocalHost/", special("localhost")),
        (
            "https://\u{ff4c}\u{ff4f}\u{ff43}\u{ff41}\u{ff4c}\u{ff48}\u{ff4f}\u{ff53}\u{ff54}/",
            special("localhost"),
        ),
        ("https://x.localhost/", special("x.localhost")),
        ("https://printer.local/", special("printer.local")),
        ("https://foo.local./", special("foo.local")),
        ("https://printer\u{3002}local/", special("printer.local")),
        ("https://db.internal/", special("db.internal")),
        ("https://nas.home.arpa/", special("nas.home.arpa")),
        ("https://a.test/", special("a.test")),
        ("https://a.example/", special("a.example")),
        ("https://a.invalid/", special("a.invalid")),
        ("https://x.onion/", special("x.onion")),
        ("https://box.lan/", special("box.lan")),
        ("https://mail.corp/", special("mail.corp")),
        ("https://MAIL.CORP./", special("mail.corp")),
        ("https://host.localdomain/", special("host.localdomain")),
        // Names without two labels, or with an empty one.
        ("https://intranet/", not_public("intranet")),
        ("https://intranet./", not_public("intranet")),
        ("https://example.com../", not_public("example.com.")),
        ("https://example..com/", not_public("example..com")),
        // User info, with or without a password, even on an otherwise fine URL; it is checked
        // before the host, so it is never echoed.
        ("https://user:pw@example.com/", Exactly(Refusal::UserInfo)),
        ("https://user@example.com/", Exactly(Refusal::UserInfo)),
        ("https://:pw@example.com/", Exactly(Refusal::UserInfo)),
        (
            "https://example.com:443@evil.example.net/",
            Exactly(Refusal::UserInfo),
        ),
        ("https://user@127.0.0.1/", Exactly(Refusal::UserInfo)),
        // Ports other than 443.
        ("https://example.com:8443/", Exactly(Refusal::Port(8443))),
        ("https://example.com:80/", Exactly(Refusal::Port(80))),
        ("https://example.com:22/", Exactly(Refusal::Port(22))),
        ("https://example.com:0/", Exactly(Refusal::Port(0))),
        // Schemes other than https.
        ("http://example.com/", scheme("http")),
        ("HTTP://example.com/", scheme("http")),
        ("http://127.0.0.1:8080/x", scheme("http")),
        ("ftp://example.com/x", scheme("ftp")),
        ("gopher://example.com/", scheme("gopher")),
        ("ws://example.com/", scheme("ws")),
        ("wss://example.com/", scheme("wss")),
        // A scheme other than http(s) is refused for its scheme first, user info or not.
        (
            "ssh://git@example.com/",
            Exactly(Refusal::Scheme("ssh".to_owned())),
        ),
        // No host: refused, whichever reason is given (see
        // `a_url_without_a_host_and_another_scheme_is_refused_for_its_scheme`).
        ("file:///etc/passwd", Refused),
        ("data:text/plain,hello", Refused),
        ("javascript:alert(1)", Refused),
        ("mailto:someone@example.com", Refused),
        // Not URLs at all.
        ("", Kind("unparsable")),
        ("   ", Kind("unparsable")),
        ("not a url", Kind("unparsable")),
        ("example.com/SKILL.md", Kind("unparsable")),
        ("//example.com/SKILL.md", Kind("unparsable")),
        ("https://", Kind("unparsable")),
        ("https://exa mple.com/", Kind("unparsable")),
        ("https://[::1/", Kind("unparsable")),
        ("https://256.0.0.1/", Kind("unparsable")),
        ("https://1.2.3.4.5/", Kind("unparsable")),
        ("https://example.com:99999/", Kind("unparsable")),
        // Global literals: refused by default all the same (allowed only with
        // `allow_ip_literals`, below).
        (
            "https://93.184.216.34/",
            Exactly(Refusal::IpLiteral(v4("93.184.216.34"))),
        ),
        (
            "https://1572395042/",
            Exactly(Refusal::IpLiteral(v4("93.184.216.34"))),
        ),
        (
            "https://[2606:4700::1111]/",
            Exactly(Refusal::IpLiteral(v6("2606:4700::1111"))),
        ),
        (
            "https://[::ffff:93.184.216.34]/",
            Exactly(Refusal::IpLiteral(v6("::ffff:93.184.216.34"))),
        ),
        (
            "https://[64:ff9b::5db8:d822]/",
            Exactly(Refusal::IpLiteral(v6("64:ff9b::5db8:d822"))),
        ),
    ];
    let mut cases: Vec<(String, Verdict)> = table
        .into_iter()
        .map(|(url, verdict)| (url.to_owned(), verdict))
        .collect();
    // Over-long: 2,049 bytes after trimming, with or without whitespace around; and a URL
    // whose text fits but whose serialisation (what is fetched) does not.
    cases.push((long_url(2_049), Exactly(Refusal::TooLong(2_049))));
    cases.push((
        format!("  {}\n", long_url(2_049)),
        Exactly(Refusal::TooLong(2_049)),
    ));
    cases.push((long_url(100_000), Exactly(Refusal::TooLong(100_000))));
    let mut spaced = long_url(2_000);
    spaced.push_str(&" ".repeat(30));
    spaced.push('x');
    cases.push((spaced, Exactly(Refusal::TooLong(2_091))));
    cases
}

/// Public URLs the default policy lets through.
fn allowed() -> Vec<String> {
    let mut urls: Vec<String> = [
        "https://example.com/x/SKILL.md",
        "https://raw.githubusercontent.com/o/r/main/SKILL.md",
        "https://github.com/o/r/blob/main/skills/pdf/SKILL.md",
        "https://bücher.de/x.md",
        "https://xn--bcher-kva.de/x.md",
        "https://example.com./",
        "https://EXAMPLE.COM/SKILL.md",
        "https://example.com:443/SKILL.md",
        "https://example.com/a/%2e%2e/%2E%2E/SKILL.md",
        "https://example.com/SKILL.md?ref=main&x=1",
        "https://example.com/SKILL.md#usage",
        "  https://example.com/SKILL.md \n",
        "https://skills.sub.example.co.uk/deep/path/index.json",
        "https://localhost.example.com/SKILL.md",
        "https://local.example.org/SKILL.md",
        "https://my-test.com/SKILL.md",
        "https://a.b/",
        "https://example.com/.well-known/agent-skills/index.json",
    ]
    .iter()
    .map(|url| (*url).to_owned())
    .collect();
    urls.push(long_url(2_048));
    urls.push(format!("\t{}  ", long_url(2_048)));
    urls
}

/// Checks one URL against its verdict; `Err` says how it failed, so a table reports every
/// failure at once.
fn judge(url: &str, policy: &Policy, verdict: &Verdict) -> Result<(), String> {
    let shown = if url.len() > 80 {
        format!("{}… ({} bytes)", &url[..60], url.len())
    } else {
        format!("{url:?}")
    };
    let result = parse(url, policy);
    let ok = match (verdict, &result) {
        (Allowed, Ok(_)) => true,
        (Range(cidr, label), Err(Refusal::Address(refusal))) => {
            refusal.range.to_string() == *cidr && refusal.label.contains(label)
        }
        (Exactly(expected), Err(refusal)) => refusal == expected,
        (Refused, Err(_)) => true,
        (Kind(kind), Err(refusal)) => refusal.kind() == *kind,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{shown}: wanted {verdict:?}, got {}",
            match &result {
                Ok(url) => format!("Ok({url})"),
                Err(refusal) => format!("{refusal:?} ({refusal})"),
            }
        ))
    }
}

fn judge_all<'a>(
    policy: &Policy,
    cases: impl IntoIterator<Item = (&'a str, &'a Verdict)>,
) -> usize {
    let mut count = 0;
    let failures: Vec<String> = cases
        .into_iter()
        .inspect(|_| count += 1)
        .filter_map(|(url, verdict)| judge(url, policy, verdict).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {count} verdicts wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
    count
}

#[test]
fn hostile_urls_are_refused_for_their_own_reason() {
    let cases = hostile();
    let count = judge_all(
        &Policy::default(),
        cases.iter().map(|(url, verdict)| (url.as_str(), verdict)),
    );
    assert!(count >= 70, "only {count} hostile URLs");
}

#[test]
fn public_urls_are_allowed() {
    let urls = allowed();
    let count = judge_all(
        &Policy::default(),
        urls.iter().map(|url| (url.as_str(), &Allowed)),
    );
    assert!(count >= 10, "only {count} allowed URLs");
}

#[test]
fn a_redirect_target_gets_the_same_verdict_from_check() {
    // A redirect hop arrives parsed: `check` on it must agree with `parse` on its text.
    let hostile = hostile();
    let allowed = allowed();
    let texts = hostile
        .iter()
        .map(|(url, _)| url.as_str())
        .chain(allowed.iter().map(String::as_str));
    for text in texts {
        let Ok(url) = Url::parse(text.trim()) else {
            continue;
        };
        assert_eq!(
            check(&url, &Policy::default()),
            parse(text, &Policy::default()).map(|_| ()),
            "{text:?}"
        );
    }
}

#[test]
fn an_accepted_url_is_accepted_again_as_serialised() {
    // The client fetches the serialisation, and a redirect back to it is checked again.
    for text in allowed() {
        let url = parse(&text, &Policy::default()).unwrap();
        assert_eq!(parse(url.as_str(), &Policy::default()), Ok(url.clone()));
    }
}

#[test]
fn exactly_the_limit_is_allowed_and_one_byte_more_is_not() {
    let at = long_url(MAX_URL_BYTES);
    assert_eq!(at.len(), 2_048);
    assert_eq!(parse(&at, &Policy::default()).unwrap().as_str(), at);
    assert_eq!(
        parse(&long_url(MAX_URL_BYTES + 1), &Policy::default()),
        Err(Refusal::TooLong(2_049))
    );
}

#[test]
fn hosts_are_normalised_before_they_are_judged() {
    let host = |text: &str| {
        parse(text, &Policy::default())
            .unwrap()
            .host_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(host("https://bücher.de/x.md"), "xn--bcher-kva.de");
    assert_eq!(host("https://EXAMPLE.COM/SKILL.md"), "example.com");
    assert_eq!(host("https://example.com./"), "example.com.");
    let url = parse(
        "https://example.com/a/%2e%2e/%2E%2E/SKILL.md",
        &Policy::default(),
    )
    .unwrap();
    assert_eq!(url.path(), "/SKILL.md");
    let url = parse("https://example.com:443/SKILL.md", &Policy::default()).unwrap();
    assert_eq!(url.port(), None);
}

/// The fixture option: `http` or `https` to `127.0.0.1`, `[::1]` and `localhost`, any port.
#[test]
fn allow_loopback_http_admits_the_three_loopback_fixtures() {
    let with = Policy {
        allow_loopback_http: true,
        ..Policy::default()
    };
    let fixtures = [
        "http://127.0.0.1:8080/x",
        "http://localhost:1/x",
        "http://[::1]:9/x",
        "http://127.0.0.1/x",
        "https://127.0.0.1:8443/x",
        "https://[::1]/x",
        "http://LOCALHOST./SKILL.md",
        // `url` reads these as 127.0.0.1 itself: the same fixture, spelled differently.
        "http://127.1:8080/x",
        "http://2130706433:8080/x",
    ];
    for url in fixtures {
        assert!(parse(url, &with).is_ok(), "{url} refused with the option");
        assert!(
            parse(url, &Policy::default()).is_err(),
            "{url} allowed without it"
        );
    }
    // It does not take away what the default allows.
    for url in allowed() {
        assert!(parse(&url, &with).is_ok(), "{url}");
    }
}

/// A redirect from a fixture to any other non-global address, or to a public host over
/// `http`, is still refused with the option on (03: "It never widens anything else").
#[test]
fn allow_loopback_http_widens_nothing_else() {
    let with = Policy {
        allow_loopback_http: true,
        ..Policy::default()
    };
    let cases: Vec<(&str, Verdict)> = vec![
        ("http://10.0.0.1/", scheme("http")),
        ("https://10.0.0.1/", Range("10.0.0.0/8", "private")),
        ("http://127.0.0.2/", scheme("http")),
        ("https://127.0.0.2/", Range("127.0.0.0/8", "loopback")),
        // Decided from the code: only the exact hosts `127.0.0.1`, `::1` and `localhost` are
        // fixtures; the IPv4-mapped spelling of 127.0.0.1 is not, so it gets the ordinary
        // rules (`http` refused; over `https`, the mapped loopback range).
        ("http://[::ffff:127.0.0.1]/", scheme("http")),
        (
            "https://[::ffff:127.0.0.1]/",
            Range("127.0.0.0/8", "IPv4-mapped 127.0.0.1"),
        ),
        ("http://[64:ff9b::7f00:1]/", scheme("http")),
        ("http://[::ffff:7f00:1]:8080/", scheme("http")),
        ("http://0.0.0.0:8080/", scheme("http")),
        ("https://0.0.0.0/", Range("0.0.0.0/8", "this network")),
        ("http://169.254.169.254/", scheme("http")),
        (
            "https://169.254.169.254/",
            Range("169.254.0.0/16", "link-local"),
        ),
        ("http://[::2]/", scheme("http")),
        ("http://example.com/", scheme("http")),
        ("http://x.localhost/", scheme("http")),
        ("http://localhost.example.com/", scheme("http")),
        ("https://x.localhost:8443/", Exactly(Refusal::Port(8443))),
        ("https://x.localhost/", special("x.localhost")),
        ("https://example.com:8080/", Exactly(Refusal::Port(8080))),
        ("http://user:pw@127.0.0.1:8080/", Exactly(Refusal::UserInfo)),
        ("http://user@localhost/", Exactly(Refusal::UserInfo)),
        ("ftp://127.0.0.1/", scheme("ftp")),
        ("ws://localhost:8080/", scheme("ws")),
        ("gopher://[::1]/", scheme("gopher")),
        ("file://localhost/etc/passwd", Refused),
        ("https://93.184.216.34/", Kind("ip_literal")),
    ];
    judge_all(&with, cases.iter().map(|(url, verdict)| (*url, verdict)));
}

#[test]
fn allow_ip_literals_admits_global_literals_only() {
    let with = Policy {
        allow_ip_literals: true,
        ..Policy::default()
    };
    let cases: Vec<(&str, Verdict)> = vec![
        ("https://93.184.216.34/", Allowed),
        ("https://1572395042/SKILL.md", Allowed),
        ("https://[2606:4700::1111]/", Allowed),
        ("https://[2001:4860:4860::8888]/", Allowed),
        ("https://[::ffff:93.184.216.34]/", Allowed),
        ("https://[64:ff9b::5db8:d822]/", Allowed),
        ("https://127.0.0.1/", Range("127.0.0.0/8", "loopback")),
        ("https://0x7f.1/", Range("127.0.0.0/8", "loopback")),
        (
            "https://169.254.169.254/",
            Range("169.254.0.0/16", "link-local"),
        ),
        (
            "https://[::ffff:169.254.169.254]/",
            Range("169.254.0.0/16", "IPv4-mapped"),
        ),
        (
            "https://[64:ff9b::a9fe:a9fe]/",
            Range("169.254.0.0/16", "NAT64"),
        ),
        ("https://[::1]/", Range("::1/128", "loopback")),
        (
            "https://[2001:db8::1]/",
            Range("2001:db8::/32", "documentation"),
        ),
        ("https://[2002:5db8:d822::1]/", Range("2002::/16", "6to4")),
        ("http://93.184.216.34/", scheme("http")),
        ("https://93.184.216.34:8443/", Exactly(Refusal::Port(8443))),
        ("https://user@93.184.216.34/", Exactly(Refusal::UserInfo)),
        ("https://localhost/", special("localhost")),
    ];
    judge_all(&with, cases.iter().map(|(url, verdict)| (*url, verdict)));
}

#[test]
fn operator_entries_are_refused_even_when_literals_are_allowed() {
    let wire_server: IpNet = "168.63.129.16/32".parse().unwrap();
    let with = Policy {
        allow_ip_literals: true,
        denied: vec![wire_server],
        ..Policy::default()
    };
    let operator = "on the operator's deny list";
    let cases: Vec<(&str, Verdict)> = vec![
        (
            "https://168.63.129.16/",
            Range("168.63.129.16/32", operator),
        ),
        (
            "https://[::ffff:168.63.129.16]/",
            Range("168.63.129.16/32", "IPv4-mapped 168.63.129.16"),
        ),
        (
            "https://[64:ff9b::a83f:8110]/",
            Range("168.63.129.16/32", "NAT64 168.63.129.16"),
        ),
        ("https://2822734096/", Range("168.63.129.16/32", operator)),
        ("https://168.63.129.17/", Allowed),
        ("https://93.184.216.34/", Allowed),
        ("https://10.0.0.1/", Range("10.0.0.0/8", "private")),
    ];
    judge_all(&with, cases.iter().map(|(url, verdict)| (*url, verdict)));

    // Without the entry the same address is a global literal; without literals it is still
    // named as the operator's range rather than as a mere literal.
    let without = Policy {
        allow_ip_literals: true,
        ..Policy::default()
    };
    assert!(parse("https://168.63.129.16/", &without).is_ok());
    let no_literals = Policy {
        denied: vec![wire_server],
        ..Policy::default()
    };
    judge(
        "https://168.63.129.16/",
        &no_literals,
        &Range("168.63.129.16/32", operator),
    )
    .unwrap();

    // An IPv6 entry.
    let v6_entry = Policy {
        allow_ip_literals: true,
        denied: vec!["2606:4700::/32".parse().unwrap()],
        ..Policy::default()
    };
    judge(
        "https://[2606:4700::1111]/",
        &v6_entry,
        &Range("2606:4700::/32", operator),
    )
    .unwrap();
    judge("https://[2606:4701::1]/", &v6_entry, &Allowed).unwrap();
}

#[test]
fn configured_ports_replace_443() {
    let alternate = Policy {
        ports: vec![443, 8443],
        ..Policy::default()
    };
    judge("https://example.com:8443/x.md", &alternate, &Allowed).unwrap();
    judge("https://example.com/x.md", &alternate, &Allowed).unwrap();
    judge(
        "https://example.com:8080/x.md",
        &alternate,
        &Exactly(Refusal::Port(8080)),
    )
    .unwrap();
    judge("http://example.com:8443/", &alternate, &scheme("http")).unwrap();

    let only = Policy {
        ports: vec![8443],
        ..Policy::default()
    };
    judge(
        "https://example.com/x.md",
        &only,
        &Exactly(Refusal::Port(443)),
    )
    .unwrap();
}

/// A `file:`, `data:` or `javascript:` URL is refused, but the reason given is "the URL has no
/// host" where 03 (https only) and STYLE.md (errors that tell a person what to do next) want
/// "only https URLs are fetched, not file:": `check` looks for a host before it looks at the
/// scheme.
#[test]
fn a_url_without_a_host_and_another_scheme_is_refused_for_its_scheme() {
    for (url, name) in [
        ("file:///etc/passwd", "file"),
        ("data:text/plain,hello", "data"),
        ("javascript:alert(1)", "javascript"),
        ("mailto:someone@example.com", "mailto"),
    ] {
        assert_eq!(
            parse(url, &Policy::default()),
            Err(Refusal::Scheme(name.to_owned())),
            "{url}"
        );
    }
}

/// RFC 8375 reserves `home.arpa.` itself, not only names below it, for home networks (as RFC
/// 6761 does `localhost.` and the others, which are single labels and refused as such). The
/// suffix test `.home.arpa` misses the bare two-label name, so it passes as public.
#[test]
fn the_bare_home_arpa_domain_is_a_special_name() {
    assert_eq!(
        parse("https://home.arpa/SKILL.md", &Policy::default()),
        Err(Refusal::SpecialName("home.arpa".to_owned()))
    );
    assert_eq!(
        parse("https://HOME.ARPA./SKILL.md", &Policy::default()),
        Err(Refusal::SpecialName("home.arpa".to_owned()))
    );
}

#[test]
fn redact_never_shows_user_info_query_or_fragment() {
    let cases = [
        (
            "https://user:hunter2@example.com:8443/a/b.md?token=s3cr3t&x=1#frag",
            "https://example.com:8443/a/b.md?…",
        ),
        (
            "https://user@example.com/SKILL.md",
            "https://example.com/SKILL.md",
        ),
        ("https://:hunter2@example.com/", "https://example.com/"),
        (
            "https://example.com/SKILL.md?token=s3cr3t",
            "https://example.com/SKILL.md?…",
        ),
        (
            "https://example.com/SKILL.md?",
            "https://example.com/SKILL.md?…",
        ),
        (
            "https://example.com/SKILL.md#frag",
            "https://example.com/SKILL.md",
        ),
        ("https://example.com:443/x", "https://example.com/x"),
        (
            "http://user:hunter2@[::1]:9/x?token=s3cr3t",
            "http://[::1]:9/x?…",
        ),
        ("https://bücher.de/x.md", "https://xn--bcher-kva.de/x.md"),
        // An `@` in the path is not user info, and stays.
        (
            "https://example.com/@scope/pkg",
            "https://example.com/@scope/pkg",
        ),
    ];
    for (text, expected) in cases {
        let url = Url::parse(text).unwrap();
        let shown = redact(&url);
        assert_eq!(shown, expected, "{text}");
        for secret in ["user", "hunter2", "s3cr3t", "token", "frag"] {
            assert!(!shown.contains(secret), "{shown} shows {secret}");
        }
    }
}

#[test]
fn refusals_never_echo_user_info_and_name_the_range() {
    for text in [
        "https://user:hunter2@example.com/",
        "https://user:hunter2@127.0.0.1/",
        "http://user:hunter2@example.com:8080/",
    ] {
        let refusal = parse(text, &Policy::default()).unwrap_err();
        assert_eq!(refusal, Refusal::UserInfo, "{text}");
        let message = refusal.to_string();
        assert!(
            !message.contains("hunter2") && !message.contains("user:"),
            "{message}"
        );
    }
    let refusal = parse("https://169.254.169.254/", &Policy::default()).unwrap_err();
    assert_eq!(
        refusal.to_string(),
        "169.254.169.254 is link-local (cloud metadata) (169.254.0.0/16)"
    );
    let refusal = parse("https://[::ffff:169.254.169.254]/", &Policy::default()).unwrap_err();
    let message = refusal.to_string();
    assert!(message.contains("::ffff:169.254.169.254"), "{message}");
    assert!(message.contains("169.254.0.0/16"), "{message}");
    assert!(message.contains("link-local"), "{message}");
}

#[test]
fn every_kind_is_distinct_and_snake_case() {
    let refusals = [
        Refusal::TooLong(1),
        Refusal::Unparsable(String::new()),
        Refusal::Scheme(String::new()),
        Refusal::UserInfo,
        Refusal::Port(1),
        Refusal::NoHost,
        Refusal::NotAPublicName(String::new()),
        Refusal::SpecialName(String::new()),
        Refusal::IpLiteral(v4("1.1.1.1")),
        Refusal::Address(address::check_ip(v4("10.0.0.1"), &[]).unwrap_err()),
    ];
    let kinds: std::collections::BTreeSet<&str> = refusals.iter().map(Refusal::kind).collect();
    assert_eq!(kinds.len(), refusals.len(), "{kinds:?}");
    for kind in kinds {
        assert!(
            kind.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
            "{kind}"
        );
    }
}
