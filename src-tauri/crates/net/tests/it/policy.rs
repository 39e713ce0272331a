//! The policy: rule parsing, matching, precedence, the rule that decided, and the address
//! checks that keep a name rule from granting a private address.

use paddock_net::{
    AddressCheck, Host, HostRule, NetworkPolicy, NetworkRuleError, RuleList, Verdict, is_forbidden,
    normalize_host,
};

use crate::support::{ip, policy};

fn host(s: &str) -> Host {
    normalize_host(s).unwrap()
}

fn verdict(p: &NetworkPolicy, h: &str, port: u16) -> Verdict {
    p.decide(&host(h), port).verdict
}

#[test]
fn rule_strings_parse_or_say_why_not() {
    for good in [
        "example.com",
        "*.example.com",
        "example.com:443",
        "*.example.com:8080",
        "10.0.0.5",
        "[::1]:8080",
        "::1",
        " padded.com ",
    ] {
        HostRule::parse(good).unwrap_or_else(|e| panic!("{good}: {e}"));
    }
    type Expect = fn(&NetworkRuleError) -> bool;
    let cases: [(&str, Expect); 10] = [
        ("", |e| matches!(e, NetworkRuleError::Empty)),
        ("   ", |e| matches!(e, NetworkRuleError::Empty)),
        ("https://example.com", |e| {
            matches!(e, NetworkRuleError::Scheme(_))
        }),
        ("example.com/path", |e| {
            matches!(e, NetworkRuleError::Path(_))
        }),
        ("example.com?q", |e| matches!(e, NetworkRuleError::Path(_))),
        ("a.*.example.com", |e| {
            matches!(e, NetworkRuleError::Star(_))
        }),
        ("*example.com", |e| matches!(e, NetworkRuleError::Star(_))),
        ("*", |e| matches!(e, NetworkRuleError::Everything(_))),
        ("*.10.0.0.1", |e| {
            matches!(e, NetworkRuleError::StarAddress(_))
        }),
        ("user@example.com", |e| {
            matches!(e, NetworkRuleError::Host(_))
        }),
    ];
    for (bad, expected) in cases {
        let e = HostRule::parse(bad).expect_err(bad);
        assert!(expected(&e), "{bad}: {e:?}");
        assert!(!e.to_string().is_empty());
    }
    assert!(HostRule::parse("example.com:99999").is_err());
    assert!(HostRule::parse("*.*.example.com").is_err());
}

/// Guards: a suffix match that lets `allowed.com.evil.net` or `evilallowed.com` through.
#[test]
fn names_match_whole_never_as_a_prefix_or_substring() {
    let p = policy(&["allowed.com", "*.wild.com"], &[], &[]);
    assert_eq!(verdict(&p, "allowed.com", 443), Verdict::Allow);
    assert_eq!(verdict(&p, "allowed.com.evil.net", 443), Verdict::Ask);
    assert_eq!(verdict(&p, "evilallowed.com", 443), Verdict::Ask);
    assert_eq!(verdict(&p, "sub.allowed.com", 443), Verdict::Ask);
    assert_eq!(verdict(&p, "a.wild.com", 443), Verdict::Allow);
    assert_eq!(verdict(&p, "a.b.wild.com", 443), Verdict::Allow);
    assert_eq!(
        verdict(&p, "wild.com", 443),
        Verdict::Ask,
        "*.x does not match x"
    );
    assert_eq!(verdict(&p, "a.wild.com.evil.net", 443), Verdict::Ask);
    assert_eq!(verdict(&p, "evilwild.com", 443), Verdict::Ask);
}

/// Guards: case, a trailing dot or IDNA in either the rule or the request making them
/// disagree.
#[test]
fn rules_and_requests_are_normalized_alike() {
    let p = policy(&["Allowed.COM.", "*.ÉXAMPLE.com"], &[], &[]);
    assert_eq!(verdict(&p, "ALLOWED.com.", 80), Verdict::Allow);
    assert_eq!(verdict(&p, "a.éxample.com", 80), Verdict::Allow);
    let Host::Name(puny) = host("a.éxample.com") else {
        panic!()
    };
    assert_eq!(verdict(&p, &puny, 80), Verdict::Allow);
}

#[test]
fn ports_narrow_a_rule() {
    let p = policy(&["example.com:443", "*.example.com:8080"], &[], &[]);
    assert_eq!(verdict(&p, "example.com", 443), Verdict::Allow);
    assert_eq!(verdict(&p, "example.com", 80), Verdict::Ask);
    assert_eq!(verdict(&p, "a.example.com", 8080), Verdict::Allow);
    assert_eq!(verdict(&p, "a.example.com", 443), Verdict::Ask);
}

#[test]
fn deny_beats_ask_beats_allow_and_no_rule_asks() {
    let p = policy(
        &["*.example.com", "example.com"],
        &["ask.example.com"],
        &["bad.example.com"],
    );
    let d = p.decide(&host("bad.example.com"), 443);
    assert_eq!(d.verdict, Verdict::Deny);
    let rule = d.rule.unwrap();
    assert_eq!((rule.list, rule.index), (RuleList::Deny, 0));
    assert_eq!(rule.to_string(), "network.deny[0]");
    assert!(d.why.contains("bad.example.com"), "{}", d.why);
    let d = p.decide(&host("ask.example.com"), 443);
    assert_eq!(
        (d.verdict, d.rule.unwrap().list),
        (Verdict::Ask, RuleList::Ask)
    );
    let d = p.decide(&host("example.com"), 443);
    assert_eq!(d.verdict, Verdict::Allow);
    assert_eq!(d.rule.unwrap().to_string(), "network.allow[1]");
    let d = p.decide(&host("other.org"), 443);
    assert_eq!((d.verdict, d.rule), (Verdict::Ask, None));
    assert!(d.why.contains("no rule"), "{}", d.why);
    let empty = NetworkPolicy::default();
    assert_eq!(verdict(&empty, "example.com", 443), Verdict::Ask);
}

/// Guards: an address literal, however spelt, reaching loopback, a private network or the
/// metadata service by being asked about (or by a name rule).
#[test]
fn forbidden_address_literals_need_an_allow_rule_naming_them() {
    let p = policy(&["allowed.com"], &["10.0.0.5"], &[]);
    for h in [
        "127.0.0.1",
        "2130706433",
        "0177.0.0.1",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "10.0.0.5",
        "169.254.169.254",
        "0x0a.1",
    ] {
        let d = p.decide(&host(h), 80);
        assert_eq!(d.verdict, Verdict::Deny, "{h}: {}", d.why);
    }
    let d = p.decide(&host("169.254.169.254"), 80);
    assert!(d.why.contains("metadata"), "{}", d.why);
    assert_eq!(
        verdict(&p, "93.184.216.34", 80),
        Verdict::Ask,
        "public: asked"
    );
    let p = policy(&["127.0.0.1:8080", "[::1]"], &[], &[]);
    assert_eq!(verdict(&p, "2130706433", 8080), Verdict::Allow);
    assert_eq!(verdict(&p, "127.0.0.1", 8081), Verdict::Deny);
    assert_eq!(verdict(&p, "::1", 1), Verdict::Allow);
}

/// Guards: an allowed name whose DNS answer is loopback, private, link-local or metadata.
#[test]
fn resolved_addresses_are_checked_and_only_address_rules_grant_them() {
    let p = policy(&["allowed.test"], &[], &["203.0.113.9"]);
    for addr in [
        "127.0.0.1",
        "10.0.0.1",
        "169.254.169.254",
        "::1",
        "::ffff:127.0.0.1",
        "fd00::1",
        "100.64.0.1",
        "224.0.0.1",
        "0.0.0.0",
        "::",
    ] {
        assert!(
            matches!(p.check_address(ip(addr), 443), AddressCheck::Refused { .. }),
            "{addr}"
        );
    }
    assert_eq!(
        p.check_address(ip("93.184.216.34"), 443),
        AddressCheck::Permitted { rule: None }
    );
    let AddressCheck::Refused { rule, why } = p.check_address(ip("203.0.113.9"), 443) else {
        panic!("a deny rule naming an address refuses it after resolution too")
    };
    assert_eq!(rule.unwrap().to_string(), "network.deny[0]");
    assert!(why.contains("203.0.113.9"));
    let p = policy(&["allowed.test", "10.0.0.1", "[::1]:8080"], &[], &[]);
    let AddressCheck::Permitted { rule: Some(rule) } = p.check_address(ip("10.0.0.1"), 443) else {
        panic!("an allow rule naming the address grants it")
    };
    assert_eq!(rule.to_string(), "network.allow[1]");
    assert!(matches!(
        p.check_address(ip("::1"), 8080),
        AddressCheck::Permitted { .. }
    ));
    assert!(matches!(
        p.check_address(ip("::1"), 443),
        AddressCheck::Refused { .. }
    ));
    assert!(matches!(
        p.check_address(ip("10.0.0.2"), 443),
        AddressCheck::Refused { .. }
    ));
}

#[test]
fn forbidden_addresses_are_classified() {
    let forbidden = [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("172.31.255.255", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "metadata"),
        ("169.254.1.1", "link-local"),
        ("100.64.0.1", "carrier-grade"),
        ("100.127.255.255", "carrier-grade"),
        ("224.0.0.251", "multicast"),
        ("255.255.255.255", "broadcast"),
        ("0.0.0.0", "unspecified"),
        ("0.1.2.3", "this network"),
        ("::", "unspecified"),
        ("::1", "loopback"),
        ("fc00::1", "private"),
        ("fd12:3456::1", "private"),
        ("fe80::1", "link-local"),
        ("ff02::1", "multicast"),
        ("::ffff:10.0.0.1", "private"),
        ("::ffff:169.254.169.254", "metadata"),
        ("::127.0.0.1", "loopback"),
        ("64:ff9b::a9fe:a9fe", "metadata"),
        ("2002:7f00:1::", "loopback"),
    ];
    for (addr, kind) in forbidden {
        let why = is_forbidden(ip(addr)).unwrap_or_else(|| panic!("{addr} is not public"));
        assert!(why.contains(kind), "{addr}: {why}");
    }
    for public in [
        "93.184.216.34",
        "1.1.1.1",
        "172.32.0.1",
        "100.128.0.1",
        "2606:4700::1111",
        "::ffff:1.1.1.1",
        "64:ff9b::101:101",
    ] {
        assert_eq!(is_forbidden(ip(public)), None, "{public}");
    }
}

#[test]
fn policy_errors_name_the_list_and_index() {
    let e = NetworkPolicy::from_lists(&["ok.com", "bad/path"], &[], &[]).unwrap_err();
    assert_eq!((e.list, e.index), (RuleList::Allow, 1));
    assert!(e.to_string().starts_with("network.allow[1]: "), "{e}");
}

#[test]
fn policy_reads_and_writes_settings_json() {
    let p: NetworkPolicy =
        serde_json::from_str(r#"{"allow": ["Example.com:443"], "deny": ["*.evil.net"]}"#).unwrap();
    assert_eq!(verdict(&p, "example.com", 443), Verdict::Allow);
    assert_eq!(verdict(&p, "x.evil.net", 443), Verdict::Deny);
    let back = serde_json::to_value(&p).unwrap();
    assert_eq!(
        back,
        serde_json::json!({"allow": ["Example.com:443"], "ask": [], "deny": ["*.evil.net"]})
    );
    let bad = serde_json::from_str::<NetworkPolicy>(r#"{"allow": ["a.*.com"]}"#);
    assert!(bad.is_err());
}
