//! Plain-HTTP forwarding: absolute-form in, origin-form with `Connection: close` out, the
//! Host header held to the URL, and everything that is not a proxy request refused.

use paddock_net::StaticResolver;

use crate::support::{Harness, http_server, ip, policy, read_to_end, settle, status};

fn allowed() -> StaticResolver {
    StaticResolver::new()
        .with("allowed.test", [ip("127.0.0.1")])
        .with("denied.test", [ip("127.0.0.1")])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_get_is_forwarded_in_origin_form_with_connection_close() {
    let mut server = http_server("127.0.0.1:0", "hello").await;
    let port = server.port();
    let mut h = Harness::start(policy(&["allowed.test", "127.0.0.1"], &[], &[]), allowed()).await;
    let raw = format!(
        "GET http://allowed.test:{port}/path/../x?q=1&r=%2F HTTP/1.1\r\nHost: allowed.test:{port}\r\n\
         User-Agent: test\r\nProxy-Connection: keep-alive\r\nProxy-Authorization: Basic eA==\r\n\
         Connection: keep-alive, X-Hop\r\nX-Hop: 1\r\nAccept: */*\r\n\r\n"
    );
    let (mut stream, head) = h.send(raw.as_bytes()).await;
    assert_eq!(status(&head), 200, "{head}");
    assert_eq!(read_to_end(&mut stream).await, b"hello 0");
    let got = server.head().await;
    let mut lines = got.lines();
    assert_eq!(lines.next(), Some("GET /path/../x?q=1&r=%2F HTTP/1.1"));
    let rest: Vec<&str> = lines.filter(|l| !l.is_empty()).collect();
    assert_eq!(
        rest,
        [
            format!("Host: allowed.test:{port}").as_str(),
            "User-Agent: test",
            "Accept: */*",
            "Connection: close"
        ],
        "hop-by-hop headers dropped, the rest kept in order"
    );
    let e = h.event().await;
    assert!(e.allowed);
    assert_eq!(e.method.as_deref(), Some("GET"));
    assert_eq!(e.status, None, "the server answered, not the proxy");
    assert_eq!(e.bytes_down, (head.len() + 7) as u64);
}

/// A body (Content-Length here; chunked goes through the same byte pipe) reaches the
/// server whole, and a request without a Host header (HTTP/1.0) gets the URL's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_body_is_streamed_and_a_missing_host_is_added() {
    let mut server = http_server("127.0.0.1:0", "got").await;
    let port = server.port();
    let h = Harness::start(policy(&["allowed.test", "127.0.0.1"], &[], &[]), allowed()).await;
    let body = vec![b'a'; 200_000];
    let mut raw = format!(
        "POST http://allowed.test:{port}/up HTTP/1.0\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    raw.extend_from_slice(&body);
    let (mut stream, head) = h.send(&raw).await;
    assert_eq!(status(&head), 200, "{head}");
    assert_eq!(read_to_end(&mut stream).await, b"got 200000");
    let got = server.head().await;
    assert!(
        got.starts_with("POST /up HTTP/1.0\r\nHost: allowed.test:"),
        "{got}"
    );
}

/// Guards: an absolute URL naming an allowed host while the Host header names another (a
/// virtual host on the same server, or a confused upstream). Refused before anything is
/// resolved or contacted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_header_differing_from_the_url_is_400() {
    let server = http_server("127.0.0.1:0", "x").await;
    let port = server.port();
    let h = Harness::start(policy(&["allowed.test", "127.0.0.1"], &[], &[]), allowed()).await;
    for headers in [
        "Host: denied.test\r\n".to_owned(),
        format!("Host: denied.test:{port}\r\n"),
        "Host: allowed.test\r\n".to_owned(),
        format!("Host: allowed.test:{port}\r\nHost: denied.test\r\n"),
        format!("Host: allowed.test@denied.test:{port}\r\n"),
    ] {
        let raw = format!("GET http://allowed.test:{port}/ HTTP/1.1\r\n{headers}\r\n");
        let (code, body) = h.refused(raw.as_bytes()).await;
        assert_eq!(code, 400, "{headers}: {body}");
    }
    // Same host spelt differently is the same host.
    let raw =
        format!("GET http://allowed.test:{port}/ HTTP/1.1\r\nHost: ALLOWED.test.:{port}\r\n\r\n");
    let (mut stream, head) = h.send(raw.as_bytes()).await;
    assert_eq!(status(&head), 200, "{head}");
    read_to_end(&mut stream).await;
    settle().await;
    assert_eq!(server.accepted(), 1);
    assert_eq!(h.resolver.lookups(), ["allowed.test"]);
}

/// Guards: URL tricks in an absolute-form target (`http://allowed@evil/`,
/// `http://evil#@allowed/`, a denied host by a decimal address): never forwarded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn url_tricks_and_denied_hosts_are_refused() {
    let server = http_server("127.0.0.1:0", "x").await;
    let port = server.port();
    let h = Harness::start(policy(&["allowed.test"], &[], &["denied.test"]), allowed()).await;
    for (target, want) in [
        (format!("http://allowed.test@denied.test:{port}/"), 400),
        (format!("http://denied.test:{port}#@allowed.test/"), 400),
        (format!("http://denied.test:{port}/"), 403),
        (format!("http://allowed.test.denied.test:{port}/"), 403),
        (format!("http://2130706433:{port}/"), 403),
        ("https://allowed.test/".to_owned(), 400),
    ] {
        let raw = format!("GET {target} HTTP/1.1\r\n\r\n");
        let (code, body) = h.refused(raw.as_bytes()).await;
        assert_eq!(code, want, "{target}: {body}");
    }
    settle().await;
    assert_eq!(server.accepted(), 0);
    assert!(
        h.resolver.lookups().is_empty(),
        "{:?}",
        h.resolver.lookups()
    );
}

/// Guards: the proxy being used as a web server, a SOCKS proxy or a TLS endpoint; each is
/// refused at once (not after the head timeout).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anything_else_is_400_at_once() {
    let h = Harness::start(policy(&[], &[], &[]), StaticResolver::new()).await;
    let started = std::time::Instant::now();
    let socks: &[u8] = &[5, 1, 0];
    let tls: &[u8] = &[0x16, 3, 1, 0, 0x2e, 1, 0];
    for raw in [
        b"GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n".as_slice(),
        b"OPTIONS * HTTP/1.1\r\n\r\n",
        b"GET http://allowed.test/ HTTP/2.0\r\n\r\n",
        b"this is not http\r\n\r\n",
        socks,
        tls,
    ] {
        let (code, body) = h.refused(raw).await;
        assert_eq!(code, 400, "{raw:?}: {body}");
    }
    assert!(started.elapsed() < paddock_net::proxy::HEAD_TIMEOUT / 2);
    let (_, body) = h.refused(b"GET /index.html HTTP/1.1\r\n\r\n").await;
    assert!(body.contains("not a proxy request"), "{body}");
}
