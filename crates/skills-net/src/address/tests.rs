//! Tests of the address check (03 §Which addresses may be connected to; 06 §Safety and
//! reliability, property tests): the tables against the ranges 03 lists, the first and last
//! address of every IPv4 deny range refused and the addresses just outside allowed when global,
//! the IPv6 allow list with its deny ranges and the named space outside it, the IPv4-mapped and
//! NAT64 forms decoded, operator entries, `is_loopback`, and a property: an IPv4 address gets
//! the same verdict, naming the same range, in its IPv4-mapped and NAT64 spellings.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use proptest::prelude::*;

use super::*;

/// The IPv4 deny list exactly as 03 writes it.
const SPEC_IPV4: &str = "0.0.0.0/8 10.0.0.0/8 100.64.0.0/10 127.0.0.0/8 169.254.0.0/16 \
    172.16.0.0/12 192.0.0.0/24 192.0.2.0/24 192.31.196.0/24 192.52.193.0/24 192.88.99.0/24 \
    192.168.0.0/16 192.175.48.0/24 198.18.0.0/15 198.51.100.0/24 203.0.113.0/24 224.0.0.0/4 \
    240.0.0.0/4";

/// The ranges 03 denies inside global unicast `2000::/3`.
const SPEC_IPV6: &str = "2001::/23 2001:db8::/32 2002::/16 2620:4f:8000::/48 3fff::/20";

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

fn net(text: &str) -> IpNet {
    text.parse().unwrap()
}

/// Asserts `address` is refused in `range`, with a label containing `label`, and that the
/// message names both the address and the range.
#[track_caller]
fn refused(address: IpAddr, extra: &[IpNet], range: &str, label: &str) {
    let refusal = check_ip(address, extra)
        .err()
        .unwrap_or_else(|| panic!("{address} allowed; wanted {range} ({label})"));
    assert_eq!(refusal.address, address);
    assert_eq!(refusal.range.to_string(), range, "{refusal}");
    assert!(refusal.label.contains(label), "{refusal}: wanted {label:?}");
    let message = refusal.to_string();
    assert!(message.contains(&address.to_string()), "{message}");
    assert!(message.contains(range), "{message}");
}

#[track_caller]
fn allowed(address: IpAddr, extra: &[IpNet]) {
    assert_eq!(check_ip(address, extra), Ok(()), "{address}");
}

fn in_ipv4_denied(address: Ipv4Addr) -> bool {
    IPV4_DENIED.iter().any(|(net, _)| net.contains(&address))
}

fn nat64(v4: Ipv4Addr) -> Ipv6Addr {
    let [a, b, c, d] = v4.octets();
    Ipv6Addr::from([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0, a, b, c, d])
}

#[test]
fn the_tables_are_the_ranges_of_03() {
    let ipv4: Vec<String> = IPV4_DENIED.iter().map(|(net, _)| net.to_string()).collect();
    assert_eq!(ipv4, SPEC_IPV4.split_whitespace().collect::<Vec<_>>());
    let ipv6: Vec<String> = IPV6_DENIED.iter().map(|(net, _)| net.to_string()).collect();
    assert_eq!(ipv6, SPEC_IPV6.split_whitespace().collect::<Vec<_>>());
    assert_eq!(IPV6_GLOBAL_UNICAST.to_string(), "2000::/3");
    assert_eq!(IPV4_MAPPED.to_string(), "::ffff:0.0.0.0/96");
    assert_eq!(NAT64.to_string(), "64:ff9b::/96");
    // Each entry is written at its network address, and every IPv6 deny range lies inside
    // the allow list (one outside it would never be reached, a sign of a typo).
    for (net, label) in IPV4_DENIED {
        assert_eq!(net, net.trunc(), "{net} {label}");
        assert!(!label.is_empty());
    }
    for (net, label) in IPV6_DENIED {
        assert_eq!(net, net.trunc(), "{net} {label}");
        assert!(IPV6_GLOBAL_UNICAST.contains(&net), "{net} {label}");
    }
    for (net, label) in IPV6_OUTSIDE {
        assert_eq!(net, net.trunc(), "{net} {label}");
        assert!(!IPV6_GLOBAL_UNICAST.contains(&net), "{net} {label}");
    }
}

#[test]
fn the_first_and_last_address_of_every_ipv4_range_are_refused() {
    for (range, label) in IPV4_DENIED {
        for address in [range.network(), range.broadcast()] {
            refused(IpAddr::V4(address), &[], &range.to_string(), label);
        }
    }
}

#[test]
fn the_addresses_just_outside_each_ipv4_range_are_allowed_when_global() {
    let mut checked = 0;
    for (range, _) in IPV4_DENIED {
        let before = u32::from(range.network())
            .checked_sub(1)
            .map(Ipv4Addr::from);
        let after = u32::from(range.broadcast())
            .checked_add(1)
            .map(Ipv4Addr::from);
        for neighbour in [before, after].into_iter().flatten() {
            if in_ipv4_denied(neighbour) {
                assert!(check_ip(IpAddr::V4(neighbour), &[]).is_err(), "{neighbour}");
            } else {
                allowed(IpAddr::V4(neighbour), &[]);
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "only {checked} neighbours were global");
    // The same, spelled out, so a change to the table cannot quietly move both sides.
    for address in [
        "1.0.0.0",
        "9.255.255.255",
        "11.0.0.0",
        "100.63.255.255",
        "100.128.0.0",
        "126.255.255.255",
        "128.0.0.0",
        "169.253.255.255",
        "169.255.0.0",
        "172.15.255.255",
        "172.32.0.0",
        "192.0.1.0",
        "192.0.3.0",
        "192.31.195.255",
        "192.31.197.0",
        "192.52.192.255",
        "192.52.194.0",
        "192.88.98.255",
        "192.88.100.0",
        "192.167.255.255",
        "192.169.0.0",
        "192.175.47.255",
        "192.175.49.0",
        "198.17.255.255",
        "198.20.0.0",
        "198.51.99.255",
        "198.51.101.0",
        "203.0.112.255",
        "203.0.114.0",
        "223.255.255.255",
        "1.1.1.1",
        "8.8.8.8",
        "93.184.216.34",
        "168.63.129.16",
    ] {
        allowed(ip(address), &[]);
    }
}

#[test]
fn ipv4_refusals_name_their_range() {
    for (address, range, label) in [
        ("0.0.0.0", "0.0.0.0/8", "this network"),
        ("10.255.255.255", "10.0.0.0/8", "private"),
        ("100.127.255.255", "100.64.0.0/10", "carrier-grade NAT"),
        ("127.0.0.1", "127.0.0.0/8", "loopback"),
        (
            "169.254.169.254",
            "169.254.0.0/16",
            "link-local (cloud metadata)",
        ),
        ("172.20.1.1", "172.16.0.0/12", "private"),
        ("192.0.0.9", "192.0.0.0/24", "IETF protocol assignments"),
        ("192.0.2.255", "192.0.2.0/24", "documentation (TEST-NET-1)"),
        ("192.31.196.1", "192.31.196.0/24", "AS112"),
        ("192.52.193.1", "192.52.193.0/24", "AMT"),
        ("192.88.99.1", "192.88.99.0/24", "6to4 relay"),
        ("192.168.0.1", "192.168.0.0/16", "private"),
        ("192.175.48.1", "192.175.48.0/24", "AS112"),
        ("198.19.0.1", "198.18.0.0/15", "benchmarking"),
        ("198.51.100.1", "198.51.100.0/24", "TEST-NET-2"),
        ("203.0.113.1", "203.0.113.0/24", "TEST-NET-3"),
        ("239.255.255.250", "224.0.0.0/4", "multicast"),
        ("255.255.255.255", "240.0.0.0/4", "broadcast"),
    ] {
        refused(ip(address), &[], range, label);
    }
    let refusal = check_ip(ip("169.254.169.254"), &[]).unwrap_err();
    assert_eq!(
        refusal.to_string(),
        "169.254.169.254 is link-local (cloud metadata) (169.254.0.0/16)"
    );
}

#[test]
fn global_ipv6_unicast_is_allowed() {
    for address in [
        "2606:4700::1111",
        "2a00:1450:4001:80b::200e",
        "2001:4860:4860::8888",
        // Just past the ends of the deny ranges.
        "2001:200::1",
        "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff",
        "2001:db9::",
        "2003::",
        "2001:dc0::",
        "2620:4f:7fff:ffff:ffff:ffff:ffff:ffff",
        "2620:4f:8001::",
        "3ffe::1",
        "3fff:1000::",
        "2000::",
        "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    ] {
        allowed(ip(address), &[]);
    }
}

#[test]
fn each_ipv6_deny_range_is_refused_at_both_ends() {
    for (range, label) in IPV6_DENIED {
        for address in [range.network(), range.broadcast()] {
            refused(IpAddr::V6(address), &[], &range.to_string(), label);
        }
    }
    for (address, range, label) in [
        ("2001::1", "2001::/23", "Teredo"),
        (
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001::/23",
            "Teredo",
        ),
        ("2001:1ff:ffff::", "2001::/23", "IETF"),
        (
            "2001:db8:85a3::8a2e:370:7334",
            "2001:db8::/32",
            "documentation",
        ),
        ("2002:a9fe:a9fe::1", "2002::/16", "6to4"),
        ("2002:7f00:1::", "2002::/16", "6to4"),
        ("2620:4f:8000::1", "2620:4f:8000::/48", "AS112"),
        ("3fff::1", "3fff::/20", "documentation"),
        ("3fff:fff::1", "3fff::/20", "documentation"),
    ] {
        refused(ip(address), &[], range, label);
    }
}

#[test]
fn ipv6_outside_global_unicast_is_refused_with_its_name() {
    for (address, range, label) in [
        ("::", "::/128", "unspecified"),
        ("::1", "::1/128", "loopback"),
        (
            "64:ff9b:1::a9fe:a9fe",
            "64:ff9b:1::/48",
            "local-use IPv4/IPv6 translation",
        ),
        ("100::1", "100::/64", "discard-only"),
        ("fc00::1", "fc00::/7", "unique local"),
        ("fdff:ffff::1", "fc00::/7", "unique local"),
        ("fe80::1", "fe80::/10", "link-local"),
        ("febf::1", "fe80::/10", "link-local"),
        ("fec0::1", "fec0::/10", "site-local"),
        ("ff02::1", "ff00::/8", "multicast"),
        ("ff05::1:3", "ff00::/8", "multicast"),
        // Space with no name of its own is named as outside the allow list.
        ("::2", "2000::/3", "outside global unicast"),
        ("::127.0.0.1", "2000::/3", "outside global unicast"),
        ("::ffff:0:7f00:1", "2000::/3", "outside global unicast"),
        ("64:ff9b::1:0:0", "2000::/3", "outside global unicast"),
        ("100:0:0:1::", "2000::/3", "outside global unicast"),
        (
            "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            "2000::/3",
            "outside global unicast",
        ),
        ("4000::1", "2000::/3", "outside global unicast"),
        ("e000::1", "2000::/3", "outside global unicast"),
    ] {
        refused(ip(address), &[], range, label);
    }
    for (range, label) in IPV6_OUTSIDE {
        for address in [range.network(), range.broadcast()] {
            refused(IpAddr::V6(address), &[], &range.to_string(), label);
        }
    }
}

#[test]
fn ipv4_mapped_and_nat64_are_judged_by_the_embedded_address() {
    for (address, range, label) in [
        (
            "::ffff:169.254.169.254",
            "169.254.0.0/16",
            "IPv4-mapped 169.254.169.254, which is link-local (cloud metadata)",
        ),
        (
            "::ffff:a9fe:a9fe",
            "169.254.0.0/16",
            "IPv4-mapped 169.254.169.254",
        ),
        (
            "::ffff:127.0.0.1",
            "127.0.0.0/8",
            "IPv4-mapped 127.0.0.1, which is loopback",
        ),
        (
            "::ffff:10.0.0.1",
            "10.0.0.0/8",
            "IPv4-mapped 10.0.0.1, which is private",
        ),
        ("::ffff:0.0.0.0", "0.0.0.0/8", "IPv4-mapped 0.0.0.0"),
        (
            "::ffff:255.255.255.255",
            "240.0.0.0/4",
            "IPv4-mapped 255.255.255.255",
        ),
        (
            "64:ff9b::a9fe:a9fe",
            "169.254.0.0/16",
            "NAT64 169.254.169.254, which is link-local (cloud metadata)",
        ),
        (
            "64:ff9b::7f00:1",
            "127.0.0.0/8",
            "NAT64 127.0.0.1, which is loopback",
        ),
        (
            "64:ff9b::192.168.0.1",
            "192.168.0.0/16",
            "NAT64 192.168.0.1, which is private",
        ),
        ("64:ff9b::", "0.0.0.0/8", "NAT64 0.0.0.0"),
    ] {
        refused(ip(address), &[], range, label);
    }
    for address in [
        "::ffff:93.184.216.34",
        "::ffff:8.8.8.8",
        "64:ff9b::5db8:d822",
        "64:ff9b::808:808",
    ] {
        allowed(ip(address), &[]);
    }
}

#[test]
fn operator_entries_add_to_the_tables_in_every_spelling() {
    let wire_server = [net("168.63.129.16/32")];
    let operator = "on the operator's deny list";
    for address in [
        "168.63.129.16",
        "::ffff:168.63.129.16",
        "64:ff9b::a83f:8110",
    ] {
        refused(ip(address), &wire_server, "168.63.129.16/32", operator);
    }
    for address in [
        "168.63.129.15",
        "168.63.129.17",
        "::ffff:168.63.129.17",
        "8.8.8.8",
    ] {
        allowed(ip(address), &wire_server);
    }
    // The built-in tables still apply, and an entry is only as wide as it is written.
    refused(ip("10.0.0.1"), &wire_server, "10.0.0.0/8", "private");
    let wide = [net("203.0.112.0/23"), net("2606:4700::/32")];
    refused(ip("203.0.112.1"), &wide, "203.0.112.0/23", operator);
    refused(ip("203.0.113.1"), &wide, "203.0.112.0/23", operator);
    refused(ip("2606:4700::1111"), &wide, "2606:4700::/32", operator);
    allowed(ip("2606:4701::1"), &wide);
    allowed(ip("203.0.114.1"), &wide);
}

#[test]
fn is_loopback_sees_every_spelling_the_fixture_option_admits() {
    for address in ["127.0.0.1", "127.255.255.254", "::1", "::ffff:127.0.0.1"] {
        assert!(is_loopback(ip(address)), "{address}");
    }
    for address in [
        "10.0.0.1",
        "0.0.0.0",
        "::",
        "::2",
        "::ffff:10.0.0.1",
        "2606:4700::1111",
        "128.0.0.1",
    ] {
        assert!(!is_loopback(ip(address)), "{address}");
    }
}

/// IPv4 addresses, half uniform and half inside a deny range (a uniform draw rarely lands in
/// a /24).
fn ipv4() -> impl Strategy<Value = Ipv4Addr> {
    prop_oneof![
        any::<u32>().prop_map(Ipv4Addr::from),
        (0..IPV4_DENIED.len(), any::<u32>()).prop_map(|(index, offset)| {
            let (range, _) = IPV4_DENIED[index];
            Ipv4Addr::from(u32::from(range.network()) | (offset & u32::from(range.hostmask())))
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_048))]

    /// 06: "an IPv4-mapped address gets the IPv4 verdict", and so does its NAT64 form; every
    /// refusal names the range it fell in.
    #[test]
    fn mapped_and_nat64_get_the_ipv4_verdict(a in ipv4(), entry in proptest::option::of((any::<u32>(), 0u8..=32))) {
        let extra: Vec<IpNet> = entry
            .map(|(base, prefix)| IpNet::V4(Ipv4Net::new(Ipv4Addr::from(base), prefix).unwrap().trunc()))
            .into_iter()
            .collect();
        let plain = check_ip(IpAddr::V4(a), &extra);
        if let Err(refusal) = &plain {
            prop_assert!(refusal.to_string().contains(&refusal.range.to_string()), "{}", refusal);
        }
        for spelling in [a.to_ipv6_mapped(), nat64(a)] {
            let wrapped = check_ip(IpAddr::V6(spelling), &extra);
            prop_assert_eq!(plain.is_err(), wrapped.is_err(), "{} vs {}: {:?} vs {:?}", a, spelling, plain, wrapped);
            if let (Err(plain), Err(wrapped)) = (&plain, &wrapped) {
                prop_assert_eq!(plain.range, wrapped.range);
                prop_assert_eq!(wrapped.address, IpAddr::V6(spelling));
                let message = wrapped.to_string();
                prop_assert!(message.contains(&plain.range.to_string()), "{}", message);
                prop_assert!(message.contains(&a.to_string()), "{}", message);
                prop_assert!(message.contains(&plain.label), "{}", message);
            }
        }
        prop_assert_eq!(plain.is_err(), in_ipv4_denied(a) || extra.iter().any(|net| net.contains(&IpAddr::V4(a))));
    }

    /// Any IPv6 address allowed is global unicast outside every deny range; any refused one
    /// names its range.
    #[test]
    fn an_allowed_ipv6_address_is_global_unicast(bits in any::<u128>()) {
        let address = Ipv6Addr::from(bits);
        match check_ip(IpAddr::V6(address), &[]) {
            Ok(()) if IPV4_MAPPED.contains(&address) || NAT64.contains(&address) => {
                let [.., a, b, c, d] = address.octets();
                prop_assert!(check_ip(IpAddr::V4(Ipv4Addr::new(a, b, c, d)), &[]).is_ok(), "{}", address);
            }
            Ok(()) => {
                prop_assert!(IPV6_GLOBAL_UNICAST.contains(&address), "{}", address);
                prop_assert!(IPV6_DENIED.iter().all(|(net, _)| !net.contains(&address)), "{}", address);
            }
            Err(refusal) => {
                // The range hit holds the address, except for the embedded IPv4 forms (the
                // IPv4 range is named) and space outside the allow list (which is named).
                prop_assert!(refusal.range.contains(&IpAddr::V6(address))
                    || IPV4_MAPPED.contains(&address)
                    || NAT64.contains(&address)
                    || (refusal.range == IpNet::V6(IPV6_GLOBAL_UNICAST) && !IPV6_GLOBAL_UNICAST.contains(&address)), "{}", refusal);
                prop_assert!(refusal.to_string().contains(&refusal.range.to_string()), "{}", refusal);
            }
        }
    }
}
