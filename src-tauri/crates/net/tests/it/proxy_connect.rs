//! CONNECT through the proxy over real loopback sockets: tunnels to allowed hosts, refusals
//! for denied names and forbidden addresses, and the address-literal spellings.

use paddock_net::{StaticResolver, Verdict};
use tokio::io::AsyncWriteExt;

use crate::support::{
    Harness, echo_server, http_server, ip, policy, read_head, read_to_end, round_trip, settle,
    status,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowed_connect_tunnels_bytes_and_reports_them() {
    let echo = echo_server("127.0.0.1:0").await;
    let resolver = StaticResolver::new().with("allowed.test", [ip("127.0.0.1")]);
    let mut h = Harness::start(policy(&["allowed.test", "127.0.0.1"], &[], &[]), resolver).await;
    let (mut tunnel, head) = h.connect(&format!("Allowed.TEST.:{}", echo.port())).await;
    assert_eq!(status(&head), 200, "{head}");
    assert_eq!(round_trip(&mut tunnel, b"hello").await, b"hello");
    assert_eq!(round_trip(&mut tunnel, b" world").await, b" world");
    drop(tunnel);
    let e = h.event().await;
    assert!(e.allowed, "{e:?}");
    assert_eq!(e.host.as_deref(), Some("allowed.test"));
    assert_eq!(e.method.as_deref(), Some("CONNECT"));
    assert_eq!(e.rule.as_ref().unwrap().to_string(), "network.allow[0]");
    assert_eq!(e.address, Some(echo.addr));
    assert!(
        e.why
            .ends_with("127.0.0.1 is allowed by network.allow[1] (`127.0.0.1`)"),
        "{}",
        e.why
    );
    assert_eq!((e.bytes_up, e.bytes_down), (11, 11));
    assert_eq!(e.status, Some(200));
    assert_eq!(e.error, None);
    let json = serde_json::to_value(&e).unwrap();
    assert_eq!(json["rule"]["list"], "allow");
}

/// Guards: a denied host being reached, or even looked up in DNS (a lookup of
/// `secret.evil.net` carries data out). Fails if the deny check moves after resolution.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_host_gets_403_and_is_never_resolved_or_contacted() {
    let echo = echo_server("127.0.0.1:0").await;
    let resolver = StaticResolver::new().with("denied.test", [ip("127.0.0.1")]);
    let mut h = Harness::start(policy(&["127.0.0.1"], &[], &["*.test"]), resolver).await;
    let (code, body) = h
        .refused(format!("CONNECT denied.test:{} HTTP/1.1\r\n\r\n", echo.port()).as_bytes())
        .await;
    assert_eq!(code, 403);
    assert!(
        body.contains("denied.test") && body.contains("network.deny[0]"),
        "{body}"
    );
    let e = h.event().await;
    assert!(!e.allowed);
    assert_eq!(e.rule.unwrap().to_string(), "network.deny[0]");
    settle().await;
    assert_eq!(echo.accepted(), 0, "the upstream was contacted");
    assert!(
        h.resolver.lookups().is_empty(),
        "{:?}",
        h.resolver.lookups()
    );
}

/// Guards: DNS pointing an allowed name at loopback, a private network, the metadata
/// service or IPv6 loopback (DNS rebinding). Fails if resolved addresses go unchecked: the
/// loopback listeners here would then be reached.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowed_name_resolving_to_a_forbidden_address_is_refused() {
    let echo4 = echo_server("127.0.0.1:0").await;
    let echo6 = echo_server("[::1]:0").await;
    for (addr, port, kind) in [
        ("127.0.0.1", echo4.port(), "loopback"),
        ("::ffff:127.0.0.1", echo4.port(), "loopback"),
        ("::1", echo6.port(), "loopback"),
        ("10.0.0.1", 443, "private"),
        ("169.254.169.254", 80, "metadata"),
    ] {
        let resolver = StaticResolver::new().with("allowed.test", [ip(addr)]);
        let mut h = Harness::start(policy(&["allowed.test"], &[], &[]), resolver).await;
        let (code, body) = h
            .refused(format!("CONNECT allowed.test:{port} HTTP/1.1\r\n\r\n").as_bytes())
            .await;
        assert_eq!(code, 403, "{addr}: {body}");
        assert!(body.contains(kind), "{addr}: {body}");
        let e = h.event().await;
        assert!(!e.allowed, "{addr}");
        assert_eq!(e.refused_addresses.len(), 1, "{addr}");
        assert_eq!(e.address, None);
    }
    settle().await;
    assert_eq!(
        echo4.accepted() + echo6.accepted(),
        0,
        "a forbidden address was reached"
    );
}

/// The way to reach a local service on purpose: an allow rule naming the address.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allow_rule_naming_the_address_grants_it() {
    let echo4 = echo_server("127.0.0.1:0").await;
    let echo6 = echo_server("[::1]:0").await;
    let resolver = StaticResolver::new()
        .with("four.test", [ip("127.0.0.1")])
        .with("six.test", [ip("::1")]);
    let rules = [
        "four.test".to_owned(),
        "six.test".to_owned(),
        format!("127.0.0.1:{}", echo4.port()),
        "[::1]".to_owned(),
    ];
    let mut h = Harness::start(
        policy(
            &rules.iter().map(String::as_str).collect::<Vec<_>>(),
            &[],
            &[],
        ),
        resolver,
    )
    .await;
    for target in [
        format!("four.test:{}", echo4.port()),
        format!("six.test:{}", echo6.port()),
    ] {
        let (mut tunnel, head) = h.connect(&target).await;
        assert_eq!(status(&head), 200, "{target}: {head}");
        assert_eq!(round_trip(&mut tunnel, b"ping").await, b"ping");
    }
    // The address rule carries a port: the same address on another port stays refused.
    let (code, _) = h.refused(b"CONNECT four.test:1 HTTP/1.1\r\n\r\n").await;
    assert_eq!(code, 403);
    while let Ok(e) = h.events.try_recv() {
        assert_ne!(e.status, Some(502), "{e:?}");
    }
}

/// Guards: a DNS answer mixing a forbidden address with a good one. Only the permitted
/// address is tried; the forbidden one is never connected to.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_permitted_addresses_of_an_answer_are_tried() {
    let echo = echo_server("127.0.0.1:0").await;
    let resolver = StaticResolver::new().with(
        "mixed.test",
        [ip("169.254.169.254"), ip("10.0.0.1"), ip("127.0.0.1")],
    );
    let mut h = Harness::start(policy(&["mixed.test", "127.0.0.1"], &[], &[]), resolver).await;
    let (mut tunnel, head) = h.connect(&format!("mixed.test:{}", echo.port())).await;
    assert_eq!(status(&head), 200, "{head}");
    assert_eq!(round_trip(&mut tunnel, b"x").await, b"x");
    drop(tunnel);
    let e = h.event().await;
    assert_eq!(e.address, Some(echo.addr));
    let refused: Vec<_> = e.refused_addresses.iter().map(|r| r.address).collect();
    assert_eq!(refused, [ip("169.254.169.254"), ip("10.0.0.1")]);
}

/// Guards: loopback spelt as a decimal, octal, hex or mapped address escaping both the
/// address rule and the forbidden check. Every spelling reaches the listener only when
/// `127.0.0.1` is allowed, and none is asked about without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn address_spellings_are_decided_as_the_address() {
    let echo = echo_server("127.0.0.1:0").await;
    let port = echo.port();
    let spellings = [
        "2130706433",
        "0177.0.0.1",
        "0x7f.1",
        "127.1",
        "[::ffff:127.0.0.1]",
        "127.0.0.1.",
    ];
    let h = Harness::start(policy(&["127.0.0.1"], &[], &[]), StaticResolver::new()).await;
    for s in spellings {
        let (mut tunnel, head) = h.connect(&format!("{s}:{port}")).await;
        assert_eq!(status(&head), 200, "{s}: {head}");
        assert_eq!(round_trip(&mut tunnel, b"k").await, b"k");
    }
    let reached = echo.accepted();
    let h = Harness::start(policy(&["localhost"], &[], &[]), StaticResolver::new()).await;
    for s in spellings {
        let (code, body) = h
            .refused(format!("CONNECT {s}:{port} HTTP/1.1\r\n\r\n").as_bytes())
            .await;
        assert_eq!(code, 403, "{s}: {body}");
        assert!(body.contains("loopback"), "{s}: {body}");
    }
    settle().await;
    assert_eq!(echo.accepted(), reached);
    assert!(h.resolver.lookups().is_empty());
}

/// Guards: userinfo and fragment tricks in a CONNECT target (`allowed.test@evil.test`,
/// `evil.test#@allowed.test`): refused as bad requests, nothing resolved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn userinfo_and_fragments_in_a_connect_target_are_400() {
    let resolver = StaticResolver::new()
        .with("allowed.test", [ip("127.0.0.1")])
        .with("evil.test", [ip("127.0.0.1")]);
    let mut h = Harness::start(policy(&["allowed.test", "127.0.0.1"], &[], &[]), resolver).await;
    for target in [
        "allowed.test@evil.test:443",
        "evil.test#@allowed.test:443",
        "evil.test:443#@allowed.test:443",
        "allowed.test",
        "[::1:443",
        "allowed.test:443/x",
    ] {
        let (code, body) = h
            .refused(format!("CONNECT {target} HTTP/1.1\r\n\r\n").as_bytes())
            .await;
        assert_eq!(code, 400, "{target}: {body}");
        let e = h.event().await;
        assert_eq!((e.allowed, e.status), (false, Some(400)), "{target}");
    }
    assert!(
        h.resolver.lookups().is_empty(),
        "{:?}",
        h.resolver.lookups()
    );
}

/// Guards: a request inside a tunnel whose Host header names another host reaching that
/// other host. The tunnel goes to the CONNECT target's address and nowhere else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_header_inside_a_tunnel_reaches_only_the_connect_target() {
    let mut target = http_server("127.0.0.1:0", "target").await;
    let other = http_server("127.0.0.1:0", "other").await;
    let resolver = StaticResolver::new()
        .with("allowed.test", [ip("127.0.0.1")])
        .with("other.test", [ip("127.0.0.1")]);
    let h = Harness::start(
        policy(&["allowed.test", "127.0.0.1"], &[], &["other.test"]),
        resolver,
    )
    .await;
    let (mut tunnel, head) = h.connect(&format!("allowed.test:{}", target.port())).await;
    assert_eq!(status(&head), 200);
    let request = format!(
        "GET / HTTP/1.1\r\nHost: other.test:{}\r\n\r\n",
        other.port()
    );
    tunnel.write_all(request.as_bytes()).await.unwrap();
    let answer = read_head(&mut tunnel).await;
    assert_eq!(status(&answer), 200);
    let body = read_to_end(&mut tunnel).await;
    assert_eq!(body, b"target 0");
    assert!(target.head().await.contains("Host: other.test"));
    settle().await;
    assert_eq!(other.accepted(), 0);
    assert_eq!(h.resolver.lookups(), ["allowed.test"]);
}

/// Bytes a client sends right behind its CONNECT (before the 200) reach the server first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn early_data_after_connect_is_carried() {
    let echo = echo_server("127.0.0.1:0").await;
    let h = Harness::start(policy(&["127.0.0.1"], &[], &[]), StaticResolver::new()).await;
    let raw = format!("CONNECT 127.0.0.1:{} HTTP/1.1\r\n\r\nearly", echo.port());
    let (mut tunnel, head) = h.send(raw.as_bytes()).await;
    assert_eq!(status(&head), 200);
    let mut got = [0u8; 5];
    tokio::io::AsyncReadExt::read_exact(&mut tunnel, &mut got)
        .await
        .unwrap();
    assert_eq!(&got, b"early");
}

/// An allowed name that does not resolve, or whose server is down: 502 saying so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_upstreams_get_502() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let resolver = StaticResolver::new().with("down.test", [ip("127.0.0.1")]);
    let mut h = Harness::start(policy(&["*.test", "127.0.0.1"], &[], &[]), resolver).await;
    let (code, body) = h
        .refused(format!("CONNECT down.test:{port} HTTP/1.1\r\n\r\n").as_bytes())
        .await;
    assert_eq!(code, 502, "{body}");
    assert!(body.contains("cannot connect"), "{body}");
    let (code, body) = h
        .refused(b"CONNECT nowhere.test:443 HTTP/1.1\r\n\r\n")
        .await;
    assert_eq!(code, 502, "{body}");
    assert!(body.contains("cannot resolve"), "{body}");
    // Each connection's event comes when its handler ends: not always in the order sent.
    let events = [h.event().await, h.event().await];
    let of = |host: &str| {
        events
            .iter()
            .find(|e| e.host.as_deref() == Some(host))
            .unwrap_or_else(|| panic!("no event for {host}: {events:?}"))
    };
    let down = of("down.test");
    assert!(down.allowed && down.error.is_some(), "{down:?}");
    let nowhere = of("nowhere.test");
    assert!(
        nowhere
            .error
            .as_deref()
            .is_some_and(|e| e.contains("cannot resolve")),
        "{nowhere:?}"
    );
    assert_eq!(
        h.proxy
            .policy()
            .decide(&paddock_net::normalize_host("x.test").unwrap(), 1)
            .verdict,
        Verdict::Allow
    );
}
