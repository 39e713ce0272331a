//! Host normalization and the authority and URL parsers: every spelling trick of issue 34
//! folds to the host a client would really connect to, or is refused.

use paddock_net::{
    Host, HostNameError, normalize_host, parse_authority, parse_authority_or, parse_http_target,
};

use crate::support::ip;

fn name(s: &str) -> Host {
    Host::Name(s.to_owned())
}

fn norm(s: &str) -> Host {
    normalize_host(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// Guards: a rule for `example.com` missing `EXAMPLE.com.` (or the reverse).
#[test]
fn case_and_one_trailing_dot_fold_away() {
    assert_eq!(norm("ExAmPle.COM"), name("example.com"));
    assert_eq!(norm("example.com."), name("example.com"));
    assert_eq!(norm("EXAMPLE.COM."), name("example.com"));
    assert!(normalize_host("example.com..").is_err());
    assert!(normalize_host("example..com").is_err());
    assert!(normalize_host(".").is_err());
    assert_eq!(normalize_host(""), Err(HostNameError::Empty));
}

/// Guards: an internationalized name and its punycode being two hosts to the policy.
#[test]
fn idna_and_punycode_compare_equal() {
    let unicode = norm("ÉXAMPLE.com");
    let Host::Name(ascii) = &unicode else {
        panic!("{unicode:?}")
    };
    assert!(ascii.starts_with("xn--"), "{ascii}");
    assert_eq!(norm("éxample.com"), unicode);
    assert_eq!(norm(ascii), unicode);
    assert_eq!(norm(&ascii.to_uppercase()), unicode);
}

/// Guards: percent-encoding hiding a host (WHATWG decodes it, so the decoded host is the
/// one decided on and connected to).
#[test]
fn percent_encoding_is_decoded_or_refused() {
    assert_eq!(norm("ex%61mple.com"), name("example.com"));
    assert!(normalize_host("evil.net%2fallowed.com").is_err());
    assert!(normalize_host("evil.net%40allowed.com").is_err());
}

/// Guards: loopback spelt as a number, in octal or hex, or shortened, slipping past an
/// address rule or the forbidden-address check.
#[test]
fn ipv4_spellings_become_the_dotted_address() {
    for spelling in [
        "127.0.0.1",
        "2130706433",
        "0177.0.0.1",
        "0x7f.1",
        "0x7F000001",
        "127.1",
        "127.0.1",
        "0177.0.0.01",
        "127.0.0.1.",
    ] {
        assert_eq!(norm(spelling), Host::Ip(ip("127.0.0.1")), "{spelling}");
    }
    assert_eq!(norm("0xa9.0xfe.0xa9.0xfe"), Host::Ip(ip("169.254.169.254")));
    assert_eq!(norm("167772161"), Host::Ip(ip("10.0.0.1")));
    assert!(normalize_host("1.2.3.4.5").is_err());
    assert!(normalize_host("256.0.0.1").is_err());
}

/// Guards: IPv6 loopback written differently, and IPv4 hidden in an IPv4-mapped address.
#[test]
fn ipv6_forms_normalize() {
    assert_eq!(norm("[::1]"), Host::Ip(ip("::1")));
    assert_eq!(norm("::1"), Host::Ip(ip("::1")));
    assert_eq!(norm("[0:0:0:0:0:0:0:1]"), Host::Ip(ip("::1")));
    assert_eq!(norm("[::ffff:127.0.0.1]"), Host::Ip(ip("127.0.0.1")));
    assert_eq!(norm("::ffff:127.0.0.1"), Host::Ip(ip("127.0.0.1")));
    assert_eq!(norm("[::FFFF:7f00:1]"), Host::Ip(ip("127.0.0.1")));
    assert_eq!(norm("[FE80::1]"), Host::Ip(ip("fe80::1")));
    assert!(normalize_host("[::1").is_err());
}

/// Guards: `allowed.com@evil.net` read as allowed.com while a client connects to evil.net.
#[test]
fn userinfo_is_refused_everywhere() {
    assert!(matches!(
        normalize_host("allowed.com@evil.net"),
        Err(HostNameError::Userinfo(_))
    ));
    assert!(matches!(
        parse_authority("allowed.com@evil.net:443"),
        Err(HostNameError::Userinfo(_))
    ));
    assert!(matches!(
        parse_authority("user:pass@evil.net:443"),
        Err(HostNameError::Userinfo(_))
    ));
    assert!(matches!(
        parse_http_target("http://allowed.com@evil.net/"),
        Err(HostNameError::Userinfo(_))
    ));
    assert!(matches!(
        parse_http_target("http://allowed.com:80@evil.net/"),
        Err(HostNameError::Userinfo(_))
    ));
    assert!(matches!(
        parse_http_target("http://evil.net\\@allowed.com/"),
        Err(HostNameError::Userinfo(_))
    ));
}

/// Guards: `evil.net#@allowed.com`, where a URL parser stops at `#` (evil.net) and a naive
/// one at `@` (allowed.com).
#[test]
fn fragment_tricks_are_refused() {
    assert!(parse_authority("evil.net#@allowed.com:443").is_err());
    assert!(matches!(
        parse_http_target("http://evil.net#@allowed.com/"),
        Err(HostNameError::Fragment(_))
    ));
    assert!(matches!(
        parse_http_target("http://evil.net/#x"),
        Err(HostNameError::Fragment(_))
    ));
}

#[test]
fn authorities_parse_with_ports() {
    assert_eq!(
        parse_authority("Example.COM.:443").unwrap(),
        (name("example.com"), 443)
    );
    assert_eq!(
        parse_authority("[::1]:8080").unwrap(),
        (Host::Ip(ip("::1")), 8080)
    );
    assert_eq!(
        parse_authority("2130706433:80").unwrap(),
        (Host::Ip(ip("127.0.0.1")), 80)
    );
    assert!(matches!(
        parse_authority("example.com"),
        Err(HostNameError::MissingPort(_))
    ));
    assert!(matches!(
        parse_authority("::1:8080"),
        Err(HostNameError::UnbracketedIpv6(_))
    ));
    for bad in ["x.com:0", "x.com:65536", "x.com:+80", "x.com:", "x.com:8o"] {
        assert!(
            matches!(parse_authority(bad), Err(HostNameError::BadPort(_))),
            "{bad}"
        );
    }
    assert!(matches!(
        parse_authority("x.com:443/p"),
        Err(HostNameError::NotAnAuthority(_))
    ));
    assert_eq!(
        parse_authority_or("x.com", 80).unwrap(),
        (name("x.com"), 80)
    );
    assert!(parse_authority("").is_err());
}

#[test]
fn absolute_http_targets_split_into_host_and_origin_form() {
    let t = parse_http_target("HTTP://Example.COM./a/../b?c=%2F").unwrap();
    assert_eq!((t.host, t.port), (name("example.com"), 80));
    assert_eq!(t.origin_form, "/a/../b?c=%2F", "forwarded byte for byte");
    let t = parse_http_target("http://x.com?q").unwrap();
    assert_eq!(t.origin_form, "/?q");
    let t = parse_http_target("http://[::1]:8080").unwrap();
    assert_eq!(
        (t.host, t.port, t.origin_form.as_str()),
        (Host::Ip(ip("::1")), 8080, "/")
    );
    let t = parse_http_target("http://allowed.com.evil.net/").unwrap();
    assert_eq!(t.host, name("allowed.com.evil.net"));
    assert!(matches!(
        parse_http_target("https://x.com/"),
        Err(HostNameError::Scheme(_))
    ));
    assert!(matches!(
        parse_http_target("ftp://x.com/"),
        Err(HostNameError::Scheme(_))
    ));
    assert!(matches!(
        parse_http_target("/path"),
        Err(HostNameError::Scheme(_))
    ));
    assert!(parse_http_target("http:///path").is_err());
}

#[test]
fn authority_display_brackets_ipv6() {
    assert_eq!(Host::Ip(ip("::1")).authority(443), "[::1]:443");
    assert_eq!(name("x.com").authority(80), "x.com:80");
    assert_eq!(Host::Ip(ip("::1")).to_string(), "::1");
}
