//! Addresses a name must never lead to unless a rule names them: the machine itself, the
//! local networks (where the routers, printers, databases and cloud metadata services are)
//! and addresses no single host owns. A DNS answer is the attacker's (threat model 4), so
//! every resolved address is checked, not just the spelling of the name.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The cloud metadata service (AWS, GCP, Azure, ...): credentials for the machine's role.
pub const METADATA_V4: Ipv4Addr = Ipv4Addr::new(169, 254, 169, 254);

/// Why `ip` is refused unless a rule names it exactly, or `None` for a public address.
pub fn is_forbidden(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => forbidden_v6(v6),
    }
}

fn forbidden_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b) {
        _ if ip == METADATA_V4 => "the cloud metadata service (link-local)",
        _ if ip.is_unspecified() => "unspecified (0.0.0.0)",
        _ if ip.is_broadcast() => "broadcast",
        (0, _) => "\"this network\" (0.0.0.0/8)",
        (127, _) => "loopback (this machine)",
        (10, _) => "a private network (10.0.0.0/8)",
        (172, 16..=31) => "a private network (172.16.0.0/12)",
        (192, 168) => "a private network (192.168.0.0/16)",
        (169, 254) => "link-local",
        (100, 64..=127) => "carrier-grade NAT (100.64.0.0/10)",
        (192, 0) if c == 0 => "IETF protocol assignments (192.0.0.0/24)",
        (198, 18..=19) => "benchmarking networks (198.18.0.0/15)",
        (224..=239, _) => "multicast",
        (240..=255, _) => "reserved (240.0.0.0/4)",
        _ => return None,
    })
}

fn forbidden_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if ip.is_unspecified() {
        return Some("unspecified (::)");
    }
    if ip.is_loopback() {
        return Some("loopback (this machine)");
    }
    let seg = ip.segments();
    // Forms that carry an IPv4 address: judged by that address, since some stacks and
    // translators reach it (mapped ::ffff:a.b.c.d, the old compatible ::a.b.c.d, NAT64
    // 64:ff9b::a.b.c.d, 6to4 2002:AABB:CCDD::).
    if let Some(v4) = ip.to_ipv4_mapped() {
        return forbidden_v4(v4);
    }
    if seg[..6] == [0; 6] {
        return Some(
            forbidden_v4(embedded_tail(ip)).unwrap_or("IPv4-compatible IPv6 (deprecated)"),
        );
    }
    if seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return forbidden_v4(embedded_tail(ip));
    }
    if seg[0] == 0x2002 {
        let [hi, lo] = [seg[1].to_be_bytes(), seg[2].to_be_bytes()];
        return forbidden_v4(Ipv4Addr::new(hi[0], hi[1], lo[0], lo[1]));
    }
    Some(match seg[0] {
        s if s & 0xfe00 == 0xfc00 => "a private network (unique local, fc00::/7)",
        s if s & 0xffc0 == 0xfe80 => "link-local (fe80::/10)",
        s if s & 0xffc0 == 0xfec0 => "site-local (fec0::/10, deprecated)",
        s if s & 0xff00 == 0xff00 => "multicast",
        _ => return None,
    })
}

fn embedded_tail(ip: Ipv6Addr) -> Ipv4Addr {
    let o = ip.octets();
    Ipv4Addr::new(o[12], o[13], o[14], o[15])
}
