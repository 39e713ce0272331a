//! The policy over the one address classifier: a rule written as an IPv4 address names the
//! IPv6 forms that carry it, and an address literal that is this machine's own (or carries
//! a forbidden IPv4 address) is never asked about. Each hostile case says how it fails on
//! main.

use paddock_net::{
    AddressCheck, Host, NetworkPolicy, OwnAddresses, Verdict, judge, normalize_host,
};

use crate::support::{ip, policy};

fn host(s: &str) -> Host {
    normalize_host(s).unwrap()
}

/// A machine whose `eth0` is 192.0.2.2 and 2001:db8:5::2 (public to the kind rules).
fn machine() -> OwnAddresses {
    OwnAddresses::new([
        (ip("127.0.0.1"), "lo".to_owned()),
        (ip("192.0.2.2"), "eth0".to_owned()),
        (ip("2001:db8:5::2"), "eth0".to_owned()),
    ])
}

/// Every IPv6 spelling of 203.0.113.9 (TEST-NET-3: public to the kind rules).
const FORMS_OF_203_0_113_9: [&str; 7] = [
    "::ffff:203.0.113.9",
    "::ffff:0:203.0.113.9",
    "64:ff9b::cb00:7109",
    "64:ff9b:1:abcd::cb00:7109",
    "2002:cb00:7109::1",
    "2001:0:4136:e378:8000:63bf:34ff:8ef6",
    "2001:db8::5efe:cb00:7109",
];

/// Guards: a deny rule written as an IPv4 address missing the same host spelt as IPv6.
/// Fails on main: its rules compared addresses by spelling, so a name resolving to
/// `64:ff9b::cb00:7109` (or a literal so spelt) passed `deny: ["203.0.113.9"]`.
#[test]
fn a_deny_rule_written_as_ipv4_refuses_every_form_that_carries_it() {
    let p = policy(&["allowed.test"], &[], &["203.0.113.9"]);
    let own = OwnAddresses::none();
    for form in FORMS_OF_203_0_113_9 {
        let AddressCheck::Refused { rule, why } = p.check_address_with(ip(form), 443, &own) else {
            panic!("{form} passed the deny rule for 203.0.113.9")
        };
        assert_eq!(
            rule.map(|r| r.to_string()).as_deref(),
            Some("network.deny[0]")
        );
        assert!(why.contains("denied by network.deny[0]"), "{form}: {why}");
        let literal = format!("[{form}]");
        let decision = p.decide_with(&host(&literal), 443, &own);
        assert_eq!(decision.verdict, Verdict::Deny, "{form}: {}", decision.why);
    }
    // Another address is not named by it.
    assert_eq!(
        p.check_address_with(ip("64:ff9b::cb00:710a"), 443, &own),
        AddressCheck::Permitted { rule: None }
    );
}

/// An allow rule naming a private IPv4 address reaches it however it is spelt, and only
/// when every address the spelling may reach is named.
#[test]
fn an_allow_rule_naming_an_ipv4_address_grants_its_forms() {
    let p = policy(&["allowed.test", "10.0.0.5", "1.1.1.1"], &[], &[]);
    let own = OwnAddresses::none();
    for form in ["::ffff:10.0.0.5", "64:ff9b::a00:5", "2002:a00:5::1"] {
        let check = p.check_address_with(ip(form), 443, &own);
        let AddressCheck::Permitted { rule: Some(rule) } = check else {
            panic!("{form}: {check:?}")
        };
        assert_eq!(rule.to_string(), "network.allow[1]", "{form}");
    }
    // Read with a /64 translator prefix this is 127.0.0.1; with /96, the allowed 1.1.1.1.
    let literal = host("[64:ff9b:1:abcd:7f:0:101:101]");
    let decision = p.decide_with(&literal, 443, &own);
    assert_eq!(decision.verdict, Verdict::Deny, "{}", decision.why);
    assert!(
        decision.why.contains("127.0.0.1 is loopback") && decision.why.contains("/64 prefix"),
        "{}",
        decision.why
    );
}

/// Guards: an address literal of this machine (not loopback) treated as any public host,
/// so the user is asked and a yes reaches every service listening on all interfaces.
/// Fails on main: `decide` answered Ask for `192.0.2.2` and `[2001:db8:5::2]`.
#[test]
fn this_machines_own_address_is_refused_not_asked_about() {
    let p = NetworkPolicy::default();
    let own = machine();
    for (literal, about) in [
        ("192.0.2.2", "192.0.2.2"),
        ("[2001:db8:5::2]", "2001:db8:5::2"),
        ("[64:ff9b::c000:202]", "192.0.2.2"),
    ] {
        let d = p.decide_with(&host(literal), 8080, &own);
        assert_eq!(d.verdict, Verdict::Deny, "{literal}: {}", d.why);
        assert!(
            d.why
                .contains(&format!("{about} is this machine's own address (on eth0)")),
            "{literal}: {}",
            d.why
        );
        assert!(d.why.contains("never a question"), "{literal}: {}", d.why);
    }
    assert_eq!(
        p.decide_with(&host("192.0.2.3"), 8080, &own).verdict,
        Verdict::Ask,
        "a neighbour is asked about"
    );
    // The way to it on purpose: an allow rule naming the address.
    let p = policy(&["192.0.2.2:8080"], &[], &[]);
    assert_eq!(
        p.decide_with(&host("192.0.2.2"), 8080, &own).verdict,
        Verdict::Allow
    );
    assert!(matches!(
        p.check_address_with(ip("192.0.2.2"), 8080, &own),
        AddressCheck::Permitted { rule: Some(_) }
    ));
    assert!(matches!(
        p.check_address_with(ip("192.0.2.2"), 5432, &own),
        AddressCheck::Refused { .. }
    ));
}

/// The refusal says what the address carries and which rule would reach it.
#[test]
fn a_refusal_names_the_ipv4_address_inside_and_the_rule_to_add() {
    let p = policy(&["allowed.test"], &[], &[]);
    let own = OwnAddresses::none();
    let AddressCheck::Refused { why, .. } =
        p.check_address_with(ip("64:ff9b:1::a9fe:a9fe"), 80, &own)
    else {
        panic!("the metadata service through local-use NAT64 was permitted")
    };
    assert!(
        why.starts_with("169.254.169.254 is the cloud metadata service")
            && why.contains("reached through 64:ff9b:1::a9fe:a9fe")
            && why.contains("(or 64:ff9b:1::a9fe:a9fe itself)"),
        "{why}"
    );
    let d = NetworkPolicy::default().decide_with(&host("[::ffff:0:7f00:1]"), 80, &own);
    assert!(
        d.why
            .contains("only an allow rule naming ::ffff:0:7f00:1 or 127.0.0.1 reaches it"),
        "{}",
        d.why
    );
}

/// The live machine: `decide` and `check_address` (no addresses given) use this machine's
/// interfaces, so each of its addresses is refused.
#[test]
fn the_policy_judges_by_this_machines_live_addresses() {
    let p = policy(&["allowed.test"], &[], &[]);
    let listed = OwnAddresses::read();
    for address in listed.addresses() {
        assert!(judge(address, &listed).is_forbidden(), "{address}");
        assert!(
            matches!(p.check_address(address, 443), AddressCheck::Refused { .. }),
            "{address} of this machine was permitted"
        );
    }
}
