#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// A machine with `eth0` at 192.0.2.2 (public to the kind rules: TEST-NET-1) and a global
/// IPv6 address, as a cloud VM or a desktop on IPv6 has.
fn machine() -> OwnAddresses {
    OwnAddresses::new([
        (ip("127.0.0.1"), "lo".to_owned()),
        (ip("::1"), "lo".to_owned()),
        (ip("192.0.2.2"), "eth0".to_owned()),
        (ip("2001:db8:5::2"), "eth0".to_owned()),
    ])
}

fn why(addr: &str, own: &OwnAddresses) -> Option<String> {
    judge(ip(addr), own).why()
}

/// Guards: each IPv6 form that carries an IPv4 address passing as a public IPv6 address
/// while it reaches loopback, a private network or the metadata service. Fails on main:
/// its `is_forbidden` judged `::ffff:0:127.0.0.1`, `64:ff9b:1::7f00:1`, the Teredo and the
/// ISATAP addresses here public (`None`), so a name resolving to them was connected to.
#[test]
fn every_embedding_form_is_judged_by_the_ipv4_inside() {
    let own = OwnAddresses::none();
    for (addr, inner, kind) in [
        ("::ffff:127.0.0.1", "127.0.0.1", "loopback"),
        ("::ffff:0:127.0.0.1", "127.0.0.1", "loopback"),
        ("::ffff:0:a00:1", "10.0.0.1", "private"),
        ("::169.254.169.254", "169.254.169.254", "metadata"),
        ("64:ff9b::7f00:1", "127.0.0.1", "loopback"),
        ("64:ff9b::a9fe:a9fe", "169.254.169.254", "metadata"),
        ("64:ff9b:1::7f00:1", "127.0.0.1", "loopback"),
        ("64:ff9b:1:a9fe:a9:fe00::", "169.254.169.254", "metadata"),
        ("64:ff9b:1:ffff:c0:a801:100::", "192.168.1.1", "private"),
        ("2002:a00:1::", "10.0.0.1", "private"),
        ("2002:7f00:1:1::1", "127.0.0.1", "loopback"),
        (
            "2001:0:4136:e378:8000:63bf:80ff:fffe",
            "127.0.0.1",
            "loopback",
        ),
        (
            "2001:0:4136:e378:8000:63bf:5601:5646",
            "169.254.169.185",
            "link-local",
        ),
        ("2001:db8:1::5efe:7f00:1", "127.0.0.1", "loopback"),
        (
            "2606:4700::200:5efe:a9fe:a9fe",
            "169.254.169.254",
            "metadata",
        ),
        ("::5efe:a00:1", "10.0.0.1", "private"),
    ] {
        let j = judge(ip(addr), &own);
        let reason = j
            .forbidden
            .iter()
            .find(|f| f.address == ip(inner))
            .unwrap_or_else(|| panic!("{addr}: {inner} not judged: {j:?}"));
        assert!(reason.why.contains(kind), "{addr}: {}", reason.why);
        let spelt = ip(addr).to_string();
        assert!(reason.why.contains(&spelt), "{addr}: {}", reason.why);
    }
}

#[test]
fn embedding_forms_of_public_addresses_stay_public_except_obsolete_ones() {
    let own = OwnAddresses::none();
    for addr in [
        "::ffff:1.1.1.1",
        "64:ff9b::101:101",
        // Public read with every translator prefix length (1.1.1.0, 1.1.0.1, 1.0.1.1, 1.1.1.1).
        "64:ff9b:1:101:101:1:101:101",
        "2002:101:101::1",
        "2001:0:4136:e378:8000:63bf:fefe:fefe",
        "2001:db8::5efe:101:101",
    ] {
        assert_eq!(why(addr, &own), None, "{addr}");
    }
    for (addr, form) in [
        ("::1.1.1.1", "compatible"),
        ("::ffff:0:1.1.1.1", "translated"),
    ] {
        let why = why(addr, &own).unwrap_or_else(|| panic!("{addr} is public"));
        let spelt = ip(addr).to_string();
        assert!(
            why.contains(form) && why.starts_with(&spelt),
            "{addr}: {why}"
        );
    }
}

/// Guards: the local-use NAT64 prefix judged by one prefix length only, when the
/// translator may use any of four. Shown able to fail against the old classifier, which
/// judged `64:ff9b:1::/48` public whatever it carried.
#[test]
fn local_use_nat64_is_refused_when_any_reading_is_forbidden() {
    let own = OwnAddresses::none();
    // /64 reading 127.0.0.1; the /96 reading (0.1.0.0) and the others are "this network".
    let j = judge(ip("64:ff9b:1:abcd:7f:0:100::"), &own);
    assert!(
        j.forbidden.iter().any(|f| f.address == ip("127.0.0.1")),
        "{j:?}"
    );
    // Public whichever way it is read.
    let j = judge(ip("64:ff9b:1:101:1:101:101:101"), &own);
    assert_eq!(j.forbidden, [], "{j:?}");
    // Public as a /96, but a /64 translator reads 0.0.0.1 and a /56 one 0.0.0.0 (this
    // network, this host): refused, saying so.
    let why = why_of("64:ff9b:1::101:101", &own);
    assert!(
        why.starts_with("0.0.0.1 is \"this network\"") && why.contains("/64 prefix"),
        "{why}"
    );
    assert!(
        why.contains("0.0.0.0 is unspecified") && why.contains("/56 prefix"),
        "{why}"
    );
}

/// Guards: an ISATAP identifier hiding what its prefix is (a found form must not end the
/// judging). Fails on main for `::5efe:1.1.1.1`, judged public there; the link-local and
/// private prefixes were refused on main too, and stay refused now that the identifier
/// is read.
#[test]
fn the_prefix_is_judged_as_well_as_what_it_carries() {
    let own = OwnAddresses::none();
    assert!(why_of("fe80::5efe:101:101", &own).contains("link-local"));
    assert!(why_of("fd00::5efe:101:101", &own).contains("private"));
    assert!(why_of("::5efe:101:101", &own).contains("reserved"));
    let why = why_of("fe80::5efe:a00:1", &own);
    assert!(
        why.contains("link-local") && why.contains("10.0.0.1 is a private"),
        "{why}"
    );
}

/// Guards: a DNS answer that is this machine's own (non-loopback) address, which reaches
/// every service listening on all interfaces. Fails on main: 192.0.2.2, 2001:db8:5::2 and
/// the forms carrying 192.0.2.2 were public there.
#[test]
fn this_machines_own_addresses_are_refused_in_every_form() {
    let own = machine();
    for (addr, about) in [
        ("192.0.2.2", "192.0.2.2"),
        ("2001:db8:5::2", "2001:db8:5::2"),
        ("::ffff:192.0.2.2", "192.0.2.2"),
        ("64:ff9b::c000:202", "192.0.2.2"),
        ("2002:c000:202::1", "192.0.2.2"),
        ("64:ff9b:1:c000:2:200::", "192.0.2.2"),
        ("2001:0:4136:e378:8000:63bf:3fff:fdfd", "192.0.2.2"),
        ("2001:db8:9::5efe:c000:202", "192.0.2.2"),
    ] {
        let j = judge(ip(addr), &own);
        let reason = j
            .forbidden
            .iter()
            .find(|f| f.address == ip(about))
            .unwrap_or_else(|| panic!("{addr}: {j:?}"));
        assert!(
            reason.why.contains("this machine's own address (on eth0)"),
            "{addr}: {}",
            reason.why
        );
    }
    assert!(why("127.0.0.1", &own).unwrap().contains("loopback"));
    assert_eq!(
        why("192.0.2.3", &own),
        None,
        "a neighbour is not this machine"
    );
    assert_eq!(why("192.0.2.2", &OwnAddresses::none()), None);
}

/// Guards: a failed interface listing taken as "no own address". Every address no kind
/// forbids is then refused, saying why.
#[test]
fn unknown_own_addresses_refuse_what_they_might_be() {
    let own = OwnAddresses::unreadable("netlink said no");
    let why = why("93.184.216.34", &own).unwrap();
    assert!(why.contains("perhaps this machine's own address"), "{why}");
    assert!(why.contains("netlink said no"), "{why}");
    let why = why_of("64:ff9b::5db8:d822", &own);
    assert!(why.contains("93.184.216.34 is perhaps"), "{why}");
    assert!(why_of("10.0.0.1", &own).contains("private"));
}

fn why_of(addr: &str, own: &OwnAddresses) -> String {
    why(addr, own).unwrap_or_else(|| panic!("{addr} is public"))
}

#[test]
fn the_rest_of_the_reserved_ipv6_space_is_refused() {
    let own = OwnAddresses::none();
    for (addr, kind) in [
        ("::", "unspecified"),
        ("::1", "loopback"),
        ("::1:0:0:1", "reserved"),
        ("fd00::2", "private"),
        ("fe80::1", "link-local"),
        ("ff02::1", "multicast"),
    ] {
        assert!(why_of(addr, &own).contains(kind), "{addr}");
    }
    assert_eq!(why("2606:4700::1111", &own), None);
}

/// The machine this runs on: its own non-loopback addresses (if it has any) are refused,
/// and the live cache agrees with a fresh listing.
#[test]
fn the_live_machine_is_judged_by_its_own_interfaces() {
    let listed = OwnAddresses::read();
    assert_eq!(listed.unreadable_why(), None);
    let cached = own_addresses();
    for address in listed.addresses() {
        let j = judge(address, &cached);
        assert!(j.is_forbidden(), "{address} of this machine: {j:?}");
    }
}
