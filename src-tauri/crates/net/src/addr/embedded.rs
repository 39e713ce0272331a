//! IPv6 addresses that carry an IPv4 address. A stack, a translator or a relay on the way
//! reaches the IPv4 address inside, so the fence judges them by it (and a rule written as
//! that IPv4 address names them too): `::ffff:127.0.0.1` is loopback, `64:ff9b::a9fe:a9fe`
//! the metadata service through NAT64.
//!
//! Prefixes a network picks for itself (a network-specific NAT64 prefix, 6rd) cannot be told
//! from the address alone; the forms here are the ones with a fixed prefix or identifier.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

/// The prefix lengths a NAT64 translator may use (RFC 6052 section 2.2), the usual /96
/// first (a reason is told by the first prefix length that gives its address).
pub const NAT64_PREFIX_LENGTHS: [u8; 4] = [96, 64, 56, 48];
/// Readings of one address at most: one per NAT64 prefix length, plus an ISATAP
/// identifier after the prefix.
pub const MAX_READINGS: usize = NAT64_PREFIX_LENGTHS.len() + 1;

/// The ISATAP interface identifier's marker (RFC 5214): `[02]00:5efe` before the address.
const ISATAP_MARK: u16 = 0x5efe;
/// The bits of the identifier's first word that may be set (the u and g bits).
const ISATAP_FLAGS: u16 = 0x0300;

/// The forms, each with the document that defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Embedding {
    /// `::ffff:a.b.c.d` (RFC 4291): how a dual-stack socket spells an IPv4 peer.
    Mapped,
    /// `::ffff:0:a.b.c.d` (RFC 2765, SIIT): IPv4-translated.
    Translated,
    /// `::a.b.c.d` (RFC 4291, deprecated): IPv4-compatible.
    Compatible,
    /// `64:ff9b::a.b.c.d` (RFC 6052): NAT64's well-known prefix.
    Nat64,
    /// `64:ff9b:1::/48` (RFC 8215): NAT64's local-use prefix, read with a translator prefix
    /// of `prefix` bits. The length is the translator's and not in the address, so every
    /// one is read: an address is refused when any reading is forbidden.
    Nat64Local { prefix: u8 },
    /// `2002:AABB:CCDD::/48` (RFC 3056): 6to4, the IPv4 address in bits 16 to 47.
    SixToFour,
    /// `2001:0::/32` (RFC 4380): Teredo, the client's IPv4 address in the last 32 bits,
    /// every bit inverted.
    Teredo,
    /// `…:0:5efe:a.b.c.d` or `…:200:5efe:a.b.c.d` (RFC 5214): an ISATAP interface
    /// identifier, after any prefix.
    Isatap,
}

impl Embedding {
    /// Forms that no host is reached by from here: refused even around a public address.
    pub fn is_obsolete(self) -> bool {
        matches!(self, Embedding::Compatible | Embedding::Translated)
    }

    /// Whether the form's prefix is carved out of `::/8`, where every other address is
    /// reserved (an ISATAP identifier can follow any prefix, so it is not).
    pub(crate) fn has_zero_block_prefix(self) -> bool {
        !matches!(
            self,
            Embedding::SixToFour | Embedding::Teredo | Embedding::Isatap
        )
    }
}

impl fmt::Display for Embedding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Embedding::Mapped => f.write_str("IPv4-mapped ::ffff:0:0/96"),
            Embedding::Translated => f.write_str("IPv4-translated ::ffff:0:0:0/96"),
            Embedding::Compatible => f.write_str("IPv4-compatible ::/96 (deprecated)"),
            Embedding::Nat64 => f.write_str("NAT64 64:ff9b::/96"),
            Embedding::Nat64Local { prefix } => write!(
                f,
                "local-use NAT64 64:ff9b:1::/48, read as a translator's /{prefix} prefix"
            ),
            Embedding::SixToFour => f.write_str("6to4 2002::/16"),
            Embedding::Teredo => f.write_str("Teredo 2001::/32, the client's address"),
            Embedding::Isatap => f.write_str("an ISATAP identifier ::5efe:0:0/96"),
        }
    }
}

/// One IPv4 address an IPv6 address may reach, and the form that says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reading {
    pub form: Embedding,
    pub v4: Ipv4Addr,
}

/// The IPv4 addresses an IPv6 address carries: usually one; one per prefix length for the
/// local-use NAT64 prefix; one more when an ISATAP identifier follows a 6to4 or NAT64
/// prefix. Without repeats (the first form that gives an address is kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Embedded {
    readings: [Reading; MAX_READINGS],
    count: usize,
}

impl Embedded {
    fn new(first: Reading) -> Self {
        Embedded {
            readings: [first; MAX_READINGS],
            count: 1,
        }
    }

    fn push(&mut self, reading: Reading) {
        let seen = self.readings().iter().any(|r| r.v4 == reading.v4);
        if !seen && self.count < MAX_READINGS {
            self.readings[self.count] = reading;
            self.count += 1;
        }
    }

    pub fn readings(&self) -> &[Reading] {
        &self.readings[..self.count]
    }

    /// Every IPv4 address the IPv6 address may reach.
    pub fn addresses(&self) -> impl Iterator<Item = Ipv4Addr> + '_ {
        self.readings().iter().map(|r| r.v4)
    }

    /// Whether `v4` is one of them.
    pub fn contains(&self, v4: Ipv4Addr) -> bool {
        self.addresses().any(|a| a == v4)
    }
}

/// The IPv4 addresses inside `ip`, if `ip` is one of the forms that carry one. `::` and
/// `::1` are themselves (unspecified, loopback), not IPv4-compatible addresses.
pub fn embedded_v4(ip: Ipv6Addr) -> Option<Embedded> {
    let seg = ip.segments();
    let o = ip.octets();
    let v4 = |a: usize, b: usize, c: usize, d: usize| Ipv4Addr::new(o[a], o[b], o[c], o[d]);
    let tail = v4(12, 13, 14, 15);
    let one = |form: Embedding, v4: Ipv4Addr| Some(Embedded::new(Reading { form, v4 }));
    let mut found = match seg {
        [0, 0, 0, 0, 0, 0xffff, _, _] => one(Embedding::Mapped, tail),
        [0, 0, 0, 0, 0xffff, 0, _, _] => one(Embedding::Translated, tail),
        [0, 0, 0, 0, 0, 0, _, _] if !ip.is_unspecified() && !ip.is_loopback() => {
            one(Embedding::Compatible, tail)
        }
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => one(Embedding::Nat64, tail),
        [0x64, 0xff9b, 1, ..] => {
            // RFC 6052 section 2.2: bits 64 to 71 (octet 8) are never part of the address.
            let by_length = [tail, v4(9, 10, 11, 12), v4(7, 9, 10, 11), v4(6, 7, 9, 10)];
            let mut readings = NAT64_PREFIX_LENGTHS.into_iter().zip(by_length);
            readings.next().map(|(prefix, v4)| {
                let mut e = Embedded::new(Reading {
                    form: Embedding::Nat64Local { prefix },
                    v4,
                });
                for (prefix, v4) in readings {
                    let form = Embedding::Nat64Local { prefix };
                    e.push(Reading { form, v4 });
                }
                e
            })
        }
        [0x2002, ..] => one(Embedding::SixToFour, v4(2, 3, 4, 5)),
        [0x2001, 0, ..] => one(Embedding::Teredo, Ipv4Addr::from(!u32::from(tail))),
        _ => None,
    };
    if seg[4] & !ISATAP_FLAGS == 0 && seg[5] == ISATAP_MARK {
        let reading = Reading {
            form: Embedding::Isatap,
            v4: tail,
        };
        match found.as_mut() {
            Some(e) => e.push(reading),
            None => found = Some(Embedded::new(reading)),
        }
    }
    found
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn of(s: &str) -> Option<Vec<(Embedding, Ipv4Addr)>> {
        let ip: Ipv6Addr = s.parse().unwrap();
        embedded_v4(ip).map(|e| e.readings().iter().map(|r| (r.form, r.v4)).collect())
    }

    fn v4(s: &str) -> Ipv4Addr {
        s.parse().unwrap()
    }

    #[test]
    fn each_form_gives_its_ipv4_address() {
        let cases = [
            ("::ffff:127.0.0.1", Embedding::Mapped, "127.0.0.1"),
            ("::ffff:0:10.1.2.3", Embedding::Translated, "10.1.2.3"),
            ("::ffff:0:a01:203", Embedding::Translated, "10.1.2.3"),
            (
                "::169.254.169.254",
                Embedding::Compatible,
                "169.254.169.254",
            ),
            ("::2", Embedding::Compatible, "0.0.0.2"),
            ("64:ff9b::7f00:1", Embedding::Nat64, "127.0.0.1"),
            ("64:ff9b::192.168.1.1", Embedding::Nat64, "192.168.1.1"),
            ("2002:7f00:1::", Embedding::SixToFour, "127.0.0.1"),
            (
                "2002:a9fe:a9fe:1234::5",
                Embedding::SixToFour,
                "169.254.169.254",
            ),
            // Teredo: server 65.54.227.120, client 127.0.0.1 inverted (80ff:fffe).
            (
                "2001:0:4136:e378:8000:63bf:80ff:fffe",
                Embedding::Teredo,
                "127.0.0.1",
            ),
            (
                "2001:0:4136:e378:8000:63bf:3fff:fdd2",
                Embedding::Teredo,
                "192.0.2.45",
            ),
            ("2001:db8::5efe:10.0.0.1", Embedding::Isatap, "10.0.0.1"),
            ("2001:db8::200:5efe:7f00:1", Embedding::Isatap, "127.0.0.1"),
            ("::5efe:7f00:1", Embedding::Isatap, "127.0.0.1"),
        ];
        for (ip, form, inner) in cases {
            assert_eq!(of(ip), Some(vec![(form, v4(inner))]), "{ip}");
        }
    }

    /// Guards: a local-use NAT64 address judged by one prefix length while the
    /// translator uses another. Each RFC 6052 reading is there.
    #[test]
    fn local_use_nat64_has_a_reading_per_prefix_length() {
        for (ip, prefix) in [
            ("64:ff9b:1:7f00:0:100::", 48),    // octets 6,7 then 9,10
            ("64:ff9b:1:ab7f:0:1::", 56),      // octet 7 then 9,10,11
            ("64:ff9b:1:abcd:7f:0:100::", 64), // octets 9..12
            ("64:ff9b:1:abcd::127.0.0.1", 96), // the last 32 bits
        ] {
            let readings = of(ip).unwrap();
            let form = Embedding::Nat64Local { prefix };
            assert!(
                readings.contains(&(form, v4("127.0.0.1"))),
                "{ip}: {readings:?}"
            );
        }
        let readings = of("64:ff9b:1::").unwrap();
        let form = Embedding::Nat64Local { prefix: 96 };
        assert_eq!(readings, [(form, v4("0.0.0.0"))], "repeats are dropped");
    }

    /// Guards: an ISATAP identifier after a 6to4 prefix judged by the prefix alone: both
    /// IPv4 addresses are readings.
    #[test]
    fn an_isatap_identifier_adds_a_reading_to_a_prefix_form() {
        let readings = of("2002:101:101:1::5efe:10.0.0.1").unwrap();
        assert_eq!(
            readings,
            [
                (Embedding::SixToFour, v4("1.1.1.1")),
                (Embedding::Isatap, v4("10.0.0.1"))
            ]
        );
    }

    #[test]
    fn other_addresses_carry_none() {
        for ip in [
            "::",
            "::1",
            "2606:4700::1111",
            "fd00::2",
            "64:ff9b:2::1",
            "2001:db8::1",
            "2001:1::1",
            "::ffff:1:0:0:1",
            "2001:db8::400:5efe:a00:1",
            "2001:db8::5eff:a00:1",
        ] {
            assert_eq!(of(ip), None, "{ip}");
        }
    }
}
