//! Limits: a slow or oversized client holds up nobody else, a call's connections end with
//! it, the byte cap ends them, too many connections get a 503.

use std::sync::Arc;
use std::time::{Duration, Instant};

use paddock_net::{Call, CallLimits, DenyAsks, Plain, ProxyConfig, StaticResolver};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{
    Harness, WAIT, blast_server, echo_server, policy, read_head, read_to_end, round_trip, status,
};

async fn start(config: ProxyConfig, limits: CallLimits) -> Harness {
    Harness::start_with(
        policy(&["127.0.0.1"], &[], &[]),
        StaticResolver::new(),
        Arc::new(DenyAsks),
        config,
        limits,
    )
    .await
}

/// Guards: slowloris. Clients trickling their heads a byte at a time neither stall a
/// second client nor live past the head timeout (they get a 408).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_clients_do_not_stall_others_and_time_out() {
    let echo = echo_server("127.0.0.1:0").await;
    let config = ProxyConfig {
        head_timeout: Duration::from_millis(1500),
        ..ProxyConfig::default()
    };
    let h = start(config, CallLimits::default()).await;
    let head = format!("CONNECT 127.0.0.1:{} HTTP/1.1\r\n\r\n", echo.port());
    let slow: Vec<_> = (0..8)
        .map(|_| {
            let (addr, head) = (h.addr, head.clone());
            tokio::spawn(async move {
                let mut s = TcpStream::connect(addr).await.unwrap();
                for b in head.as_bytes() {
                    if s.write_all(&[*b]).await.is_err() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                read_head(&mut s).await
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let (mut tunnel, answer) = h.connect(&format!("127.0.0.1:{}", echo.port())).await;
    assert_eq!(status(&answer), 200);
    assert_eq!(round_trip(&mut tunnel, b"fast").await, b"fast");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert!(
        slow.iter().all(|s| !s.is_finished()),
        "served while every slow client was still waiting"
    );
    for s in slow {
        let answer = s.await.unwrap();
        assert_eq!(status(&answer), 408, "{answer}");
    }
}

/// Guards: a head larger than the cap filling memory, or one with too many lines.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_heads_are_431() {
    let h = start(ProxyConfig::default(), CallLimits::default()).await;
    let big = format!(
        "GET http://127.0.0.1/ HTTP/1.1\r\nX-Big: {}\r\n\r\n",
        "a".repeat(20_000)
    );
    let (code, body) = h.refused(big.as_bytes()).await;
    assert_eq!(code, 431, "{body}");
    let many: String = (0..150).map(|i| format!("X-{i}: v\r\n")).collect();
    let raw = format!("GET http://127.0.0.1/ HTTP/1.1\r\n{many}\r\n");
    let (code, body) = h.refused(raw.as_bytes()).await;
    assert_eq!(code, 431, "{body}");
}

/// Guards: a process keeping a connection open after its call ended. Closing the call
/// ends the open tunnel (both sides see the close) and the listener.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_call_closes_its_open_tunnels() {
    let echo = echo_server("127.0.0.1:0").await;
    let mut h = start(ProxyConfig::default(), CallLimits::default()).await;
    let (mut tunnel, answer) = h.connect(&format!("127.0.0.1:{}", echo.port())).await;
    assert_eq!(status(&answer), 200);
    assert_eq!(round_trip(&mut tunnel, b"before").await, b"before");
    h.call.close();
    assert!(read_to_end(&mut tunnel).await.is_empty());
    let e = h.event().await;
    assert_eq!(e.error.as_deref(), Some("closed: the call ended"));
    assert_eq!((e.bytes_up, e.bytes_down), (6, 6));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        TcpStream::connect(h.addr).await.is_err(),
        "the listener outlived the call"
    );
}

/// The same through a drop guard and a parent token (the tool call's cancellation), and a
/// connection handed to a closed call is closed unanswered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_ends_with_its_guard_or_parent() {
    let echo = echo_server("127.0.0.1:0").await;
    let h = start(ProxyConfig::default(), CallLimits::default()).await;
    let parent = tokio_util::sync::CancellationToken::new();
    let call = Call::child_of("child", &parent, CallLimits::default());
    let guard_call = Call::new("guarded", CallLimits::default());
    for (call, end) in [
        (call, Box::new(|| parent.cancel()) as Box<dyn FnOnce()>),
        (
            guard_call.clone(),
            Box::new(move || drop(guard_call.drop_guard())),
        ),
    ] {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let proxy = h.proxy.clone();
        let served = {
            let call = call.clone();
            tokio::spawn(async move { proxy.serve_connection(server, &call).await })
        };
        let mut client = client;
        let connect = format!("CONNECT 127.0.0.1:{} HTTP/1.1\r\n\r\n", echo.port());
        client.write_all(connect.as_bytes()).await.unwrap();
        let mut buf = vec![0u8; 39];
        client.read_exact(&mut buf).await.unwrap();
        assert!(
            buf.starts_with(b"HTTP/1.1 200"),
            "{}",
            String::from_utf8_lossy(&buf)
        );
        end();
        tokio::time::timeout(WAIT, served).await.unwrap().unwrap();
        assert!(call.is_closed());
        let mut rest = Vec::new();
        client.read_to_end(&mut rest).await.unwrap();
    }
    let closed = Call::new("closed", CallLimits::default());
    closed.close();
    let (mut client, server) = tokio::io::duplex(1024);
    client
        .write_all(b"CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n")
        .await
        .unwrap();
    h.proxy.serve_connection(server, &closed).await;
    let mut rest = Vec::new();
    client.read_to_end(&mut rest).await.unwrap();
    assert!(rest.is_empty());
}

/// Guards: a call carrying more than its byte cap. The connection ends at the cap exactly
/// and later connections of the call are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_byte_cap_ends_the_call_s_connections() {
    let blast = blast_server("127.0.0.1:0", 100_000).await;
    let limits = CallLimits {
        byte_cap: Some(10_000),
        ..CallLimits::default()
    };
    let mut h = start(ProxyConfig::default(), limits).await;
    let (mut tunnel, answer) = h.connect(&format!("127.0.0.1:{}", blast.port())).await;
    assert_eq!(status(&answer), 200);
    let got = read_to_end(&mut tunnel).await;
    assert_eq!(got.len(), 10_000);
    let e = h.event().await;
    assert!(
        e.error.as_deref().unwrap_or_default().contains("byte cap"),
        "{e:?}"
    );
    assert_eq!(h.call.bytes_used(), 10_000);
    let (code, body) = h
        .refused(format!("CONNECT 127.0.0.1:{} HTTP/1.1\r\n\r\n", blast.port()).as_bytes())
        .await;
    assert_eq!(code, 403);
    assert!(body.contains("byte cap"), "{body}");
}

/// Issue 50, class 7: a download cap (bytes the call receives) ends the connection at the
/// cap exactly, names itself, and refuses the call's later connections; on main there was
/// only the cap on both ways together.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_download_cap_ends_the_call_s_connections_at_the_cap() {
    let blast = blast_server("127.0.0.1:0", 100_000).await;
    let limits = CallLimits {
        download_cap: Some(7_000),
        ..CallLimits::default()
    };
    let mut h = start(ProxyConfig::default(), limits).await;
    let (mut tunnel, answer) = h.connect(&format!("127.0.0.1:{}", blast.port())).await;
    assert_eq!(status(&answer), 200);
    assert_eq!(read_to_end(&mut tunnel).await.len(), 7_000);
    let e = h.event().await;
    assert!(
        e.error
            .as_deref()
            .unwrap_or_default()
            .contains("download cap (7000 bytes)"),
        "{e:?}"
    );
    let (code, body) = h
        .refused(format!("CONNECT 127.0.0.1:{} HTTP/1.1\r\n\r\n", blast.port()).as_bytes())
        .await;
    assert_eq!(code, 403);
    assert!(body.contains("download cap"), "{body}");
}

/// An upload cap stops what the call sends at the cap exactly (what it received before is
/// not charged to it) and ends the connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_upload_cap_stops_what_goes_out_only() {
    let echo = echo_server("127.0.0.1:0").await;
    let limits = CallLimits {
        upload_cap: Some(10),
        ..CallLimits::default()
    };
    let mut h = start(ProxyConfig::default(), limits).await;
    let (mut tunnel, answer) = h.connect(&format!("127.0.0.1:{}", echo.port())).await;
    assert_eq!(status(&answer), 200);
    assert_eq!(round_trip(&mut tunnel, b"12345").await, b"12345");
    tunnel.write_all(b"6789012345678").await.unwrap();
    // The connection ends at the cap; at most the bytes within it came back.
    let back = read_to_end(&mut tunnel).await;
    assert!(b"67890".starts_with(&back), "{back:?}");
    let e = h.event().await;
    assert!(
        e.error
            .as_deref()
            .unwrap_or_default()
            .contains("upload cap (10 bytes)"),
        "{e:?}"
    );
    assert_eq!(e.bytes_up, 10);
}

/// Guards: one call opening connections without end. Past its limit it gets 503s while
/// its open connections keep working.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_connections_get_503() {
    let echo = echo_server("127.0.0.1:0").await;
    let limits = CallLimits {
        max_connections: 2,
        ..CallLimits::default()
    };
    let h = start(ProxyConfig::default(), limits).await;
    let target = format!("127.0.0.1:{}", echo.port());
    let (mut first, a) = h.connect(&target).await;
    let (_second, b) = h.connect(&target).await;
    assert_eq!((status(&a), status(&b)), (200, 200));
    let (code, body) = h
        .refused(format!("CONNECT {target} HTTP/1.1\r\n\r\n").as_bytes())
        .await;
    assert_eq!(code, 503, "{body}");
    assert_eq!(round_trip(&mut first, b"still").await, b"still");
}

/// The helper for the socket bound into the wall: the same proxy over a Unix socket.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_a_unix_socket() {
    let echo = echo_server("127.0.0.1:0").await;
    let h = start(ProxyConfig::default(), CallLimits::default()).await;
    let dir = std::env::temp_dir().join(format!("paddock-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("proxy.sock");
    let _ = std::fs::remove_file(&path);
    let listener = tokio::net::UnixListener::bind(&path).unwrap();
    let call = Call::new("unix", CallLimits::default());
    tokio::spawn({
        let (proxy, call) = (h.proxy.clone(), call.clone());
        async move { proxy.serve_unix(listener, call).await }
    });
    let mut s = tokio::net::UnixStream::connect(&path).await.unwrap();
    s.write_all(format!("CONNECT 127.0.0.1:{} HTTP/1.1\r\n\r\n", echo.port()).as_bytes())
        .await
        .unwrap();
    let mut head = vec![0u8; 39];
    s.read_exact(&mut head).await.unwrap();
    assert!(head.starts_with(b"HTTP/1.1 200 Connection established\r\n\r\n"));
    s.write_all(b"unix").await.unwrap();
    let mut back = [0u8; 4];
    s.read_exact(&mut back).await.unwrap();
    assert_eq!(&back, b"unix");
    call.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The copying path (any stream that is not a socket, here in memory) carries a tunnel and
/// holds to the byte cap like the spliced one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_stream_is_carried_by_copying_and_capped() {
    let blast = blast_server("127.0.0.1:0", 100_000).await;
    let h = start(ProxyConfig::default(), CallLimits::default()).await;
    let limits = CallLimits {
        byte_cap: Some(30_000),
        ..CallLimits::default()
    };
    let call = Call::new("plain", limits);
    let (mut client, server) = tokio::io::duplex(16 * 1024);
    let served = h.proxy.spawn_connection(Plain(server), call.clone());
    let connect = format!("CONNECT 127.0.0.1:{} HTTP/1.1\r\n\r\n", blast.port());
    client.write_all(connect.as_bytes()).await.unwrap();
    let mut all = Vec::new();
    tokio::time::timeout(WAIT, client.read_to_end(&mut all))
        .await
        .unwrap()
        .unwrap();
    let head = b"HTTP/1.1 200 Connection established\r\n\r\n";
    assert!(all.starts_with(head));
    assert_eq!(all.len() - head.len(), 30_000);
    tokio::time::timeout(WAIT, served).await.unwrap().unwrap();
    assert_eq!(call.bytes_used(), 30_000);
}
