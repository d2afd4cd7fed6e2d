//! Fuzz target `url_policy`: arbitrary bytes through the URL policy
//! (`skills_net::policy::parse`, 03 §The URL policy) and the address check
//! (`skills_net::address::check_ip`, 03 §Which addresses may be connected to).
//!
//! The policy is the gate in front of every fetch and every redirect hop, so an accepted URL
//! that is not `https` on port 443 to a public, dotted host name would be request forgery, and
//! a URL that is accepted once but not when its own serialisation is checked again (the next
//! redirect hop) would be a policy that depends on spelling. The target asserts neither
//! happens, that `allow_loopback_http` widens the default policy by the three loopback
//! fixtures only, that `redact` never shows user info, a query or a fragment, and that an
//! IPv4 address gets the same verdict in its IPv4-mapped and NAT64 IPv6 spellings. Nothing
//! here resolves a name or opens a socket.

#![no_main]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{IpNet, Ipv4Net};
use libfuzzer_sys::fuzz_target;
use skills_net::address::{self, IPV4_MAPPED, IPV6_DENIED, IPV6_GLOBAL_UNICAST, NAT64};
use skills_net::policy::{self, Policy, SPECIAL_NAMES, SPECIAL_SUFFIXES};
use skills_types::limits::MAX_URL_BYTES;
use url::{Host, Url};

fuzz_target!(|data: &[u8]| {
    if let Some(octets) = data.first_chunk::<16>() {
        addresses(*octets, data.get(16..21));
    }
    if let Ok(text) = std::str::from_utf8(data) {
        urls(text);
    }
});

fn urls(text: &str) {
    let default = Policy::default();
    let mut loopback = Policy::default();
    loopback.allow_loopback_http = true;
    let mut literals = Policy::default();
    literals.allow_ip_literals = true;

    let by_default = policy::parse(text, &default);
    if let Ok(url) = &by_default {
        accepted_by_default(text, url);
    }

    match policy::parse(text, &loopback) {
        Ok(url) => {
            if by_default.is_err() {
                assert!(
                    is_loopback_fixture(&url),
                    "allow_loopback_http widened more than the loopback fixtures: {text:?} -> {url}"
                );
                assert!(
                    matches!(url.scheme(), "http" | "https"),
                    "a loopback fixture with scheme {}: {text:?}",
                    url.scheme()
                );
                assert!(
                    url.username().is_empty() && url.password().is_none(),
                    "a loopback fixture with user info: {text:?}"
                );
            }
        }
        Err(refusal) => assert!(
            by_default.is_err(),
            "allow_loopback_http refused what the default accepts ({refusal}): {text:?}"
        ),
    }

    match policy::parse(text, &literals) {
        Ok(url) => {
            if let Some(address) = literal(&url) {
                assert!(
                    address::check_ip(address, &[]).is_ok(),
                    "accepted a literal in a denied range: {text:?} -> {url}"
                );
                assert_eq!(url.scheme(), "https", "{text:?}");
                assert_eq!(url.port_or_known_default(), Some(443), "{text:?}");
            } else {
                assert!(
                    by_default.is_ok(),
                    "allow_ip_literals changed the verdict on a name: {text:?}"
                );
            }
        }
        Err(refusal) => assert!(
            by_default.is_err(),
            "allow_ip_literals refused what the default accepts ({refusal}): {text:?}"
        ),
    }

    // Whatever the verdict, a parsed URL is shown without its user info, query or fragment.
    if let Ok(url) = Url::parse(text) {
        redacted(&url);
    }
}

/// What 03 §The URL policy promises of every URL the default policy lets through.
fn accepted_by_default(text: &str, url: &Url) {
    assert_eq!(url.scheme(), "https", "accepted a non-https URL: {text:?}");
    assert!(
        url.username().is_empty() && url.password().is_none(),
        "accepted user info: {text:?}"
    );
    assert_eq!(
        url.port_or_known_default(),
        Some(443),
        "accepted another port: {text:?}"
    );
    assert!(
        url.as_str().len() <= MAX_URL_BYTES,
        "accepted an over-long URL: {text:?}"
    );
    assert!(
        text.trim().len() <= MAX_URL_BYTES,
        "accepted over-long text: {text:?}"
    );
    match url.host() {
        Some(Host::Domain(name)) => {
            let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
            let labels: Vec<&str> = name.split('.').collect();
            assert!(
                labels.len() >= 2 && labels.iter().all(|label| !label.is_empty()),
                "accepted a host without two labels: {text:?} -> {name:?}"
            );
            assert!(
                !SPECIAL_NAMES.contains(&name.as_str())
                    && !SPECIAL_SUFFIXES.iter().any(|suffix| name.ends_with(suffix)),
                "accepted a special-use name: {text:?} -> {name:?}"
            );
            assert!(
                name.parse::<IpAddr>().is_err(),
                "a domain that is an address: {text:?} -> {name:?}"
            );
        }
        other => panic!("accepted a host that is not a name: {text:?} -> {other:?}"),
    }
    // The next redirect hop sees the serialisation, not the text: it must get the same verdict
    // and the same URL.
    let again = policy::parse(url.as_str(), &Policy::default())
        .unwrap_or_else(|refusal| panic!("{url} refused on a second look ({refusal}): {text:?}"));
    assert_eq!(&again, url, "{text:?} changed when parsed again");
    assert_eq!(policy::check(url, &Policy::default()), Ok(()), "{text:?}");
}

/// `redact` shows scheme, host, port and path; a query only as `?…`; never user info or a
/// fragment.
fn redacted(url: &Url) {
    let shown = policy::redact(url);
    let after_scheme = shown
        .strip_prefix(url.scheme())
        .and_then(|rest| rest.strip_prefix("://"))
        .unwrap_or_else(|| panic!("{shown:?} does not start with the scheme of {url}"));
    if url.host().is_some() {
        let authority = after_scheme.split(['/', '?']).next().unwrap_or_default();
        assert!(
            !authority.contains('@'),
            "{shown:?} shows user info of {url}"
        );
        assert_eq!(
            authority,
            match url.port() {
                Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
                None => url.host_str().unwrap_or_default().to_owned(),
            },
            "{shown:?}: the authority of {url} is not its host and port"
        );
    }
    assert!(
        !shown.contains('#'),
        "{shown:?} shows the fragment of {url}"
    );
    match url.query() {
        Some(_) => {
            assert!(shown.ends_with("?…"), "{shown:?} for {url}");
            assert_eq!(
                shown.matches('?').count(),
                1,
                "{shown:?} shows the query of {url}"
            );
        }
        None => assert!(!shown.contains('?'), "{shown:?} for {url}"),
    }
}

/// `127.0.0.1`, `[::1]` or `localhost` in any case. The policy trims every trailing dot from
/// `localhost` here (`localhost..` is no other machine), so the oracle does too.
fn is_loopback_fixture(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(name)) => name.trim_end_matches('.').eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(v4)) => v4 == Ipv4Addr::LOCALHOST,
        Some(Host::Ipv6(v6)) => v6 == Ipv6Addr::LOCALHOST,
        None => false,
    }
}

fn literal(url: &Url) -> Option<IpAddr> {
    match url.host()? {
        Host::Domain(_) => None,
        Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
        Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
    }
}

/// Sixteen bytes as an IPv6 address; its last four as IPv4, judged plain, IPv4-mapped and
/// NAT64, with and without an operator entry made from the next five bytes.
fn addresses(octets: [u8; 16], operator: Option<&[u8]>) {
    let any = Ipv6Addr::from(octets);
    let verdict = address::check_ip(IpAddr::V6(any), &[]);
    if let Err(refusal) = &verdict {
        assert!(
            refusal.to_string().contains(&refusal.range.to_string()),
            "{refusal} does not name its range"
        );
    } else if IPV4_MAPPED.contains(&any) || NAT64.contains(&any) {
        // Judged by the IPv4 address inside, which must then be allowed on its own.
        let [.., a, b, c, d] = octets;
        assert!(
            address::check_ip(IpAddr::V4(Ipv4Addr::new(a, b, c, d)), &[]).is_ok(),
            "{any} allowed, but its embedded IPv4 address is not"
        );
    } else {
        assert!(
            IPV6_GLOBAL_UNICAST.contains(&any),
            "{any} allowed outside global unicast"
        );
        assert!(
            IPV6_DENIED.iter().all(|(net, _)| !net.contains(&any)),
            "{any} allowed inside a denied range"
        );
    }

    let [.., a, b, c, d] = octets;
    let v4 = Ipv4Addr::new(a, b, c, d);
    let mut extras = vec![Vec::new()];
    if let Some([e, f, g, h, prefix]) = operator.and_then(|bytes| <[u8; 5]>::try_from(bytes).ok())
        && let Ok(net) = Ipv4Net::new(Ipv4Addr::new(e, f, g, h), prefix % 33)
    {
        extras.push(vec![IpNet::V4(net.trunc())]);
    }
    for extra in &extras {
        let plain = address::check_ip(IpAddr::V4(v4), extra);
        for spelling in [v4.to_ipv6_mapped(), nat64(v4)] {
            let wrapped = address::check_ip(IpAddr::V6(spelling), extra);
            assert_eq!(
                plain.is_ok(),
                wrapped.is_ok(),
                "{v4} and {spelling} get different verdicts ({plain:?} vs {wrapped:?})"
            );
            if let (Err(plain), Err(wrapped)) = (&plain, &wrapped) {
                assert_eq!(plain.range, wrapped.range, "{v4} vs {spelling}");
                assert!(
                    wrapped.to_string().contains(&plain.range.to_string()),
                    "{wrapped} does not name {}",
                    plain.range
                );
            }
        }
    }
}

fn nat64(v4: Ipv4Addr) -> Ipv6Addr {
    let [a, b, c, d] = v4.octets();
    Ipv6Addr::from([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0, a, b, c, d])
}
