//! Addresses a name must never lead to unless a rule names them: this machine (loopback and
//! every address of its interfaces), the local networks (where the routers, printers,
//! databases and cloud metadata services are) and addresses no single host owns. A DNS
//! answer is the attacker's (threat model 4), so every resolved address is judged, and by
//! what it reaches, not by how it is spelt: an IPv6 address that carries an IPv4 address
//! (`embedded`) is judged by that address too.
//!
//! `judge` is the one classifier: the proxy calls it (through `NetworkPolicy`) for every
//! address before connecting, which is `web_fetch`'s only way out too, and `rules explain`
//! calls it through the same policy.

pub mod embedded;
pub mod own;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

pub use embedded::{Embedded, Embedding, Reading, embedded_v4};
pub use own::{OwnAddressCache, OwnAddresses, own_addresses};

/// The cloud metadata service (AWS, GCP, Azure, ...): credentials for the machine's role.
pub const METADATA_V4: Ipv4Addr = Ipv4Addr::new(169, 254, 169, 254);

/// One reason an address is refused unless an allow rule names `address`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forbidden {
    /// What the reason is about: the address judged, or an IPv4 address inside it.
    pub address: IpAddr,
    /// What it is, to follow "`address` is ...".
    pub why: String,
}

/// What the fence makes of one address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub address: IpAddr,
    /// The IPv4 address(es) it carries, if it is one of the embedding forms.
    pub embedded: Option<Embedded>,
    /// Empty for an address anyone may be asked about (a public address of another host).
    pub forbidden: Vec<Forbidden>,
}

impl Judgement {
    pub fn is_forbidden(&self) -> bool {
        !self.forbidden.is_empty()
    }

    /// The reasons as one phrase ("192.0.2.2 is this machine's own address (on eth0)").
    pub fn why(&self) -> Option<String> {
        let whys: Vec<String> = self
            .forbidden
            .iter()
            .map(|f| format!("{} is {}", f.address, f.why))
            .collect();
        (!whys.is_empty()).then(|| whys.join("; "))
    }
}

/// Judges `ip` against `own`, this machine's addresses.
pub fn judge(ip: IpAddr, own: &OwnAddresses) -> Judgement {
    let mut forbidden = Vec::new();
    let mut embedded = None;
    match ip {
        IpAddr::V4(v4) => {
            forbidden.extend(judge_v4(v4, own).map(|why| Forbidden { address: ip, why }))
        }
        IpAddr::V6(v6) => {
            embedded = embedded_v4(v6);
            judge_v6(v6, embedded, own, &mut forbidden);
        }
    }
    Judgement {
        address: ip,
        embedded,
        forbidden,
    }
}

/// Why `ip` is refused unless a rule names it, or `None`: `judge` against this machine's
/// addresses as they are now (`own_addresses`), its reasons in one phrase.
pub fn is_forbidden(ip: IpAddr) -> Option<String> {
    judge(ip, &own_addresses()).why()
}

fn judge_v4(ip: Ipv4Addr, own: &OwnAddresses) -> Option<String> {
    // Loopback is named as such, though `lo` lists 127.0.0.1 among the machine's addresses.
    if ip.is_loopback() {
        return Some(LOOPBACK.to_owned());
    }
    if let Some(why) = own_address(IpAddr::V4(ip), own) {
        return Some(why);
    }
    kind_v4(ip).map(str::to_owned).or_else(|| unknown(own))
}

fn judge_v6(
    ip: Ipv6Addr,
    embedded: Option<Embedded>,
    own: &OwnAddresses,
    out: &mut Vec<Forbidden>,
) {
    let address = IpAddr::V6(ip);
    let mut push = |address: IpAddr, why: String| {
        // One reason per address: the first, the most specific, is kept.
        if !out.iter().any(|f| f.address == address) {
            out.push(Forbidden { address, why });
        }
    };
    if ip.is_unspecified() {
        return push(address, "unspecified (::)".into());
    }
    if ip.is_loopback() {
        return push(address, LOOPBACK.into());
    }
    if let Some(why) = own_address(address, own) {
        return push(address, why);
    }
    let readings = embedded.as_ref().map_or(&[][..], Embedded::readings);
    // The IPv6 address is judged as itself too: an ISATAP identifier behind a link-local
    // prefix is link-local whatever it carries.
    let zero_block = readings.iter().any(|r| r.form.has_zero_block_prefix());
    if let Some(kind) = kind_v6(ip, zero_block) {
        push(address, kind.to_owned());
    } else if readings.is_empty()
        && let Some(why) = unknown(own)
    {
        push(address, why);
    }
    let mut any_forbidden = false;
    for reading in readings {
        if let Some(why) = judge_v4(reading.v4, own) {
            any_forbidden = true;
            let why = format!("{why}, reached through {address} ({})", reading.form);
            push(IpAddr::V4(reading.v4), why);
        }
    }
    if !any_forbidden && let Some(obsolete) = readings.iter().find(|r| r.form.is_obsolete()) {
        let why = format!("{}: no host is reached by it", obsolete.form);
        push(address, why);
    }
}

const LOOPBACK: &str = "loopback (this machine)";

fn own_address(ip: IpAddr, own: &OwnAddresses) -> Option<String> {
    own.interface(ip)
        .map(|name| format!("this machine's own address (on {name})"))
}

/// For an address no kind forbids: when the machine's addresses are unknown, it may be one.
fn unknown(own: &OwnAddresses) -> Option<String> {
    own.unreadable_why()
        .map(|e| format!("perhaps this machine's own address ({e})"))
}

fn kind_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b) {
        _ if ip == METADATA_V4 => "the cloud metadata service (link-local)",
        _ if ip.is_unspecified() => "unspecified (0.0.0.0)",
        _ if ip.is_broadcast() => "broadcast",
        (0, _) => "\"this network\" (0.0.0.0/8)",
        (127, _) => LOOPBACK,
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

/// What `ip` is by its own prefix. `zero_block`: it is one of the embedding forms of
/// `::/8`, judged by the IPv4 address inside rather than as reserved space.
fn kind_v6(ip: Ipv6Addr, zero_block: bool) -> Option<&'static str> {
    let seg = ip.segments();
    Some(match seg[0] {
        s if s & 0xfe00 == 0xfc00 => "a private network (unique local, fc00::/7)",
        s if s & 0xffc0 == 0xfe80 => "link-local (fe80::/10)",
        s if s & 0xffc0 == 0xfec0 => "site-local (fec0::/10, deprecated)",
        s if s & 0xff00 == 0xff00 => "multicast",
        // The rest of ::/8 (unspecified and loopback are judged before): no host.
        s if s & 0xff00 == 0 && !zero_block => "reserved (::/8)",
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
