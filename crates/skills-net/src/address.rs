//! Which addresses may be connected to (03 §Which addresses may be connected to).
//!
//! Everything here is pure: const tables and [`check_ip`]. The standard library's `is_*`
//! helpers are not enough (several are unstable, and `Ipv6Addr::to_ipv4` maps `::1` to
//! `0.0.0.1`), and server-side request forgery lives in exactly those gaps: an IPv4-mapped
//! `::ffff:169.254.169.254`, a NAT64 `64:ff9b::a9fe:a9fe`, a 6to4 `2002:a9fe:a9fe::`. IPv4
//! gets a deny list from the IANA special-purpose registry; IPv6 gets an allow list (global
//! unicast `2000::/3`) with its own deny list inside, and the two IPv6 forms that embed an IPv4
//! address are judged by that address.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

const fn v4(a: u8, b: u8, c: u8, d: u8, prefix: u8) -> Ipv4Net {
    Ipv4Net::new_assert(Ipv4Addr::new(a, b, c, d), prefix)
}

const fn v6(segments: [u16; 8], prefix: u8) -> Ipv6Net {
    let [a, b, c, d, e, f, g, h] = segments;
    Ipv6Net::new_assert(Ipv6Addr::new(a, b, c, d, e, f, g, h), prefix)
}

/// IPv4 ranges never connected to, with what they are.
pub const IPV4_DENIED: [(Ipv4Net, &str); 18] = [
    (v4(0, 0, 0, 0, 8), "\"this network\""),
    (v4(10, 0, 0, 0, 8), "private"),
    (
        v4(100, 64, 0, 0, 10),
        "shared address space (carrier-grade NAT)",
    ),
    (v4(127, 0, 0, 0, 8), "loopback"),
    (v4(169, 254, 0, 0, 16), "link-local (cloud metadata)"),
    (v4(172, 16, 0, 0, 12), "private"),
    (v4(192, 0, 0, 0, 24), "IETF protocol assignments"),
    (v4(192, 0, 2, 0, 24), "documentation (TEST-NET-1)"),
    (v4(192, 31, 196, 0, 24), "AS112-v4"),
    (v4(192, 52, 193, 0, 24), "AMT"),
    (v4(192, 88, 99, 0, 24), "deprecated 6to4 relay anycast"),
    (v4(192, 168, 0, 0, 16), "private"),
    (v4(192, 175, 48, 0, 24), "direct delegation AS112 service"),
    (v4(198, 18, 0, 0, 15), "benchmarking"),
    (v4(198, 51, 100, 0, 24), "documentation (TEST-NET-2)"),
    (v4(203, 0, 113, 0, 24), "documentation (TEST-NET-3)"),
    (v4(224, 0, 0, 0, 4), "multicast"),
    (v4(240, 0, 0, 0, 4), "reserved (class E, and broadcast)"),
];

/// The only IPv6 addresses connected to: global unicast.
pub const IPV6_GLOBAL_UNICAST: Ipv6Net = v6([0x2000, 0, 0, 0, 0, 0, 0, 0], 3);

/// Ranges inside global unicast that are still never connected to.
pub const IPV6_DENIED: [(Ipv6Net, &str); 5] = [
    (
        v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 23),
        "IETF protocol assignments (including Teredo)",
    ),
    (v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32), "documentation"),
    (v6([0x2002, 0, 0, 0, 0, 0, 0, 0], 16), "6to4"),
    (
        v6([0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0], 48),
        "direct delegation AS112 service",
    ),
    (v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), "documentation"),
];

/// Names for the IPv6 space outside global unicast, so a refusal says what was hit.
const IPV6_OUTSIDE: [(Ipv6Net, &str); 8] = [
    (v6([0, 0, 0, 0, 0, 0, 0, 0], 128), "unspecified"),
    (v6([0, 0, 0, 0, 0, 0, 0, 1], 128), "loopback"),
    (
        v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48),
        "local-use IPv4/IPv6 translation",
    ),
    (v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64), "discard-only"),
    (
        v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7),
        "unique local (private)",
    ),
    (v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10), "link-local"),
    (
        v6([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10),
        "deprecated site-local",
    ),
    (v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8), "multicast"),
];

/// IPv4-mapped IPv6 (`::ffff:a.b.c.d`): the IPv4 address is what is really reached.
pub const IPV4_MAPPED: Ipv6Net = v6([0, 0, 0, 0, 0, 0xffff, 0, 0], 96);
/// The well-known NAT64 prefix (`64:ff9b::a.b.c.d`): translated to the embedded IPv4 address.
pub const NAT64: Ipv6Net = v6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96);

/// Why an address was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The address as given.
    pub address: IpAddr,
    /// The range it fell in (or the allow list it fell outside).
    pub range: IpNet,
    /// What the range is.
    pub label: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is {} ({})", self.address, self.label, self.range)
    }
}

impl std::error::Error for Refusal {}

/// Whether `address` may be connected to; `extra` holds an operator's additional deny ranges
/// (such as `168.63.129.16/32`, a cloud's wire server).
pub fn check_ip(address: IpAddr, extra: &[IpNet]) -> Result<(), Refusal> {
    match address {
        IpAddr::V4(v4) => check_v4(v4, extra),
        IpAddr::V6(v6) => match extra.iter().find(|net| net.contains(&address)) {
            Some(net) => Err(Refusal {
                address,
                range: *net,
                label: "on the operator's deny list".to_owned(),
            }),
            None => check_v6(v6, extra),
        },
    }
}

fn check_v4(address: Ipv4Addr, extra: &[IpNet]) -> Result<(), Refusal> {
    if let Some(net) = extra.iter().find(|net| net.contains(&IpAddr::V4(address))) {
        return Err(Refusal {
            address: IpAddr::V4(address),
            range: *net,
            label: "on the operator's deny list".to_owned(),
        });
    }
    match IPV4_DENIED.iter().find(|(net, _)| net.contains(&address)) {
        Some((net, label)) => Err(Refusal {
            address: IpAddr::V4(address),
            range: IpNet::V4(*net),
            label: (*label).to_owned(),
        }),
        None => Ok(()),
    }
}

fn check_v6(address: Ipv6Addr, extra: &[IpNet]) -> Result<(), Refusal> {
    for (prefix, form) in [(IPV4_MAPPED, "IPv4-mapped"), (NAT64, "NAT64")] {
        if prefix.contains(&address) {
            let embedded = embedded_v4(address);
            return check_v4(embedded, extra).map_err(|refusal| Refusal {
                address: IpAddr::V6(address),
                label: format!("{form} {embedded}, which is {}", refusal.label),
                range: refusal.range,
            });
        }
    }
    if !IPV6_GLOBAL_UNICAST.contains(&address) {
        let (range, label) = IPV6_OUTSIDE
            .iter()
            .find(|(net, _)| net.contains(&address))
            .map_or(
                (IPV6_GLOBAL_UNICAST, "outside global unicast"),
                |(net, label)| (*net, *label),
            );
        return Err(Refusal {
            address: IpAddr::V6(address),
            range: IpNet::V6(range),
            label: label.to_owned(),
        });
    }
    match IPV6_DENIED.iter().find(|(net, _)| net.contains(&address)) {
        Some((net, label)) => Err(Refusal {
            address: IpAddr::V6(address),
            range: IpNet::V6(*net),
            label: (*label).to_owned(),
        }),
        None => Ok(()),
    }
}

/// The IPv4 address in the last 32 bits.
fn embedded_v4(address: Ipv6Addr) -> Ipv4Addr {
    let [.., a, b, c, d] = address.octets();
    Ipv4Addr::new(a, b, c, d)
}

/// Whether `address` is a loopback address, in any of its IPv6 spellings (for the test
/// fixtures `allow_loopback_http` admits, and nothing else).
pub fn is_loopback(address: IpAddr) -> bool {
    match address {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) if IPV4_MAPPED.contains(&v6) => embedded_v4(v6).is_loopback(),
        IpAddr::V6(v6) => v6.is_loopback(),
    }
}

#[cfg(test)]
mod tests;
