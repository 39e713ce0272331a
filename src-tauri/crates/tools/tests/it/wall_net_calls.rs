//! bash's proxied connections belong to their call: shown live as events under it, held to
//! the target the call asked for, and ended with it.
#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use paddock_core::CollectSink;
use paddock_protocol::AgentEvent;
use serde_json::json;

use crate::wall::{PY, wall};
use crate::wall_net::{PAGE, allowing, fenced, fetch, run, server};

/// Each connection is an event to the call's observers as it ends, with the rule that
/// decided: the transcript's lines under the call. Able to fail: before, the events only
/// reached the result's text (no `Connection` event was emitted).
#[tokio::test]
async fn each_connection_is_an_event_under_its_call() {
    let Some(w) = wall() else { return };
    let port = server();
    let env = fenced(&w, &allowing(port));
    let mut kit = crate::tools_support::context(env, Default::default());
    let events = CollectSink::new();
    kit.ctx.events = events.clone();
    let command = format!(
        "{}; {}",
        fetch("allowed.test", port),
        fetch("denied.test", port)
    );
    let seen = crate::tools_support::call_with(&kit, "bash", json!({ "command": command })).await;
    assert!(seen.text.contains(PAGE), "{}", seen.text);
    let connections: Vec<_> = events
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::Connection(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(connections.len(), 2, "{connections:?}");
    let allowed = &connections[0];
    assert_eq!(
        (
            allowed.call_id.as_str(),
            allowed.host.as_deref(),
            allowed.port,
            allowed.allowed
        ),
        ("call-1", Some("allowed.test"), Some(port), true)
    );
    assert_eq!(allowed.rule.as_deref(), Some("network.allow[0]"));
    assert!(allowed.bytes_down > 0, "{allowed:?}");
    let denied = &connections[1];
    assert_eq!(
        (
            denied.host.as_deref(),
            denied.allowed,
            denied.rule.as_deref()
        ),
        (Some("denied.test"), false, Some("network.deny[0]"))
    );
}

/// A server that counts the requests it is sent (and answers none).
fn counting() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(AtomicUsize::new(0));
    let count = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            count.fetch_add(1, Ordering::SeqCst);
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nNO");
        }
    });
    (port, seen)
}

/// Talks to the proxy by hand from inside the wall: a request whose Host header names a
/// host other than its target. Prints what came back.
fn smuggle(head: &str) -> String {
    format!(
        "{PY} - <<'PYEOF'\nimport os, socket\np = os.environ['HTTP_PROXY'].rsplit(':', 1)\n\
         s = socket.create_connection(('127.0.0.1', int(p[1].strip('/'))), timeout=10)\n\
         s.sendall({head:?}.encode())\nout = b''\ntry:\n    while True:\n        b = s.recv(4096)\n\
         \x20       if not b: break\n        out += b\n        if b'HTTP/1.1 200' in out and \
         b'\\r\\n\\r\\n' in out and not out.startswith(b'HTTP/1.1 200 Connection'): break\n\
         except Exception as e:\n    out += str(e).encode()\nprint(out.decode(errors='replace'))\nPYEOF"
    )
}

/// The proxy decides the target the client asked for, and only that one is reached: a Host
/// header naming a denied host gets no request there, in a tunnel or in plain HTTP. Able to
/// fail: the denied server counts requests, and is reached when its port is allowed.
#[tokio::test]
async fn a_host_header_naming_another_host_reaches_only_the_target() {
    let Some(w) = wall() else { return };
    let port = server();
    let (other, seen) = counting();
    let env = fenced(&w, &allowing(port));

    // Plain HTTP: the target is allowed.test, the Host header says denied.test: refused.
    let plain = smuggle(&format!(
        "GET http://allowed.test:{port}/ HTTP/1.1\r\nHost: denied.test:{other}\r\n\
         Connection: close\r\n\r\n"
    ));
    let out = run(&env, &plain).await;
    assert!(out.text.contains("HTTP/1.1 400"), "{}", out.text);
    assert!(!out.text.contains(PAGE), "{}", out.text);

    // A tunnel to allowed.test carrying a request for denied.test reaches allowed.test.
    let tunnel = smuggle(&format!(
        "CONNECT allowed.test:{port} HTTP/1.1\r\nHost: allowed.test:{port}\r\n\r\n\
         GET / HTTP/1.1\r\nHost: denied.test:{other}\r\nConnection: close\r\n\r\n"
    ));
    let out = run(&env, &tunnel).await;
    assert!(out.text.contains(PAGE), "{}", out.text);
    assert_eq!(seen.load(Ordering::SeqCst), 0, "the other host saw nothing");

    // Control: allowing the other server's address and name reaches it.
    let open = fenced(
        &w,
        &[
            "denied2.test".to_owned(),
            "allowed.test".to_owned(),
            format!("127.0.0.1:{other}"),
        ],
    );
    let out = run(&open, &fetch("allowed.test", other)).await;
    assert!(out.text.contains("NO"), "{}", out.text);
    assert_eq!(seen.load(Ordering::SeqCst), 1);
}

/// A server that sends a byte every 50 ms for as long as the client listens, and notes when
/// the connection is gone.
fn endless() -> (u16, Arc<AtomicBool>, Arc<AtomicBool>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (opened, closed) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let (o, c) = (opened.clone(), closed.clone());
    std::thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        let mut buf = [0u8; 4096];
        let _ = stream.read(&mut buf);
        o.store(true, Ordering::SeqCst);
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n");
        while stream.write_all(b".").is_ok() {
            std::thread::sleep(Duration::from_millis(50));
        }
        c.store(true, Ordering::SeqCst);
    });
    (port, opened, closed)
}

/// A process the call started and left behind (detached, its own session) keeps no
/// connection open after the call ended: the wall ends what the call left and the proxy
/// closes the call's connections, either one enough. Able to fail: the same download runs
/// on while the call lasts (the server sees it open before the call returns).
#[tokio::test]
async fn a_connection_left_open_ends_with_its_call() {
    let Some(w) = wall() else { return };
    let (port, opened, closed) = endless();
    let env = fenced(&w, &allowing(port));
    let command = format!(
        "setsid nohup {PY} -c \"import urllib.request as u; r = u.urlopen('http://allowed.test:{port}/'); \
         [r.read(1) for _ in iter(int, 1)]\" >/dev/null 2>&1 & sleep 2; echo left"
    );
    let out = run(&env, &command).await;
    assert!(out.text.contains("left"), "{}", out.text);
    assert!(
        opened.load(Ordering::SeqCst),
        "the download ran during the call"
    );
    let ended = Instant::now();
    while !closed.load(Ordering::SeqCst) && ended.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        closed.load(Ordering::SeqCst),
        "the connection was still open 20 s after its call ended"
    );
}

/// UDP has no way out either: a datagram to the host's loopback from inside the wall never
/// arrives (the wall's network namespace has only its own loopback). Able to fail: the same
/// datagram sent by plain `bash -c` arrives.
#[tokio::test]
async fn udp_does_not_leave_the_wall() {
    let Some(w) = wall() else { return };
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let port = socket.local_addr().unwrap().port();
    let send = format!(
        "{PY} -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\
         .sendto(b'OUT', ('127.0.0.1', {port}))\""
    );
    let mut buf = [0u8; 16];
    let _ = w.plain(&send);
    assert_eq!(
        socket.recv(&mut buf).ok(),
        Some(3),
        "plain bash reaches the host"
    );
    let env = fenced(&w, &allowing(server()));
    let _ = run(&env, &send).await;
    assert!(socket.recv(&mut buf).is_err(), "a datagram left the wall");
}
