//! The proxy's cost on loopback: the latency it adds to a request (a new connection, the
//! CONNECT and one request/response, as curl makes them; and one round trip inside an open
//! tunnel) and the throughput of a 100 MB download through a tunnel, each against the same
//! thing done directly. Criterion times the requests; a closing table prints the medians
//! of interleaved runs (targets: <= 2 ms added per request, >= 80 % of direct throughput).
//! Run: `cargo bench -p paddock-net --bench proxy`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use paddock_net::{Call, CallLimits, NetworkPolicy, Plain, Proxy, StaticResolver};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Bytes of one request and of its answer.
const MESSAGE: usize = 256;
/// The download's size.
const DOWNLOAD: usize = 100 * 1024 * 1024;
/// Interleaved runs for the closing table.
const LATENCY_RUNS: usize = 400;
const DOWNLOAD_RUNS: usize = 9;
const READ_BUFFER: usize = 64 * 1024;

/// Answers every `MESSAGE` bytes with `MESSAGE` bytes until the client closes.
async fn answer_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let _ = s.set_nodelay(true);
            tokio::spawn(async move {
                let mut buf = [0u8; MESSAGE];
                while s.read_exact(&mut buf).await.is_ok() {
                    if s.write_all(&buf).await.is_err() {
                        break;
                    }
                }
            });
        }
    });
    addr
}

/// Sends `DOWNLOAD` bytes to each client, then closes.
async fn download_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let chunk = vec![7u8; READ_BUFFER];
                let mut left = DOWNLOAD;
                while left > 0 {
                    let n = left.min(chunk.len());
                    if s.write_all(&chunk[..n]).await.is_err() {
                        return;
                    }
                    left -= n;
                }
            });
        }
    });
    addr
}

/// The proxy on a loopback port; `copying` serves every client as a `Plain` stream, so
/// tunnels copy through a buffer instead of splicing (to show what splicing buys).
async fn start_proxy(copying: bool) -> SocketAddr {
    let policy = NetworkPolicy::from_lists(&["bench.test", "127.0.0.1"], &[], &[]).unwrap();
    let resolver = StaticResolver::new().with("bench.test", ["127.0.0.1".parse().unwrap()]);
    let proxy = Proxy::builder(policy).resolver(Arc::new(resolver)).build();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let call = Call::new("bench", CallLimits::default());
    if !copying {
        tokio::spawn(async move { proxy.serve_tcp(listener, call).await });
        return addr;
    }
    tokio::spawn(async move {
        while let Ok((s, _)) = listener.accept().await {
            s.set_nodelay(true).unwrap();
            proxy.spawn_connection(Plain(s), call.clone());
        }
    });
    addr
}

/// A connection to `server`, straight or through a CONNECT tunnel.
async fn open(server: SocketAddr, proxy: Option<SocketAddr>) -> TcpStream {
    let Some(proxy) = proxy else {
        let s = TcpStream::connect(server).await.unwrap();
        s.set_nodelay(true).unwrap();
        return s;
    };
    let mut s = TcpStream::connect(proxy).await.unwrap();
    s.set_nodelay(true).unwrap();
    let connect = format!(
        "CONNECT bench.test:{} HTTP/1.1\r\nHost: bench.test:{}\r\n\r\n",
        server.port(),
        server.port()
    );
    s.write_all(connect.as_bytes()).await.unwrap();
    let mut head = [0u8; 39];
    s.read_exact(&mut head).await.unwrap();
    assert!(head.starts_with(b"HTTP/1.1 200"), "{head:?}");
    s
}

async fn exchange(s: &mut TcpStream) {
    let mut buf = [1u8; MESSAGE];
    s.write_all(&buf).await.unwrap();
    s.read_exact(&mut buf).await.unwrap();
}

/// A new connection and one request/response, as one curl call makes it.
async fn request(server: SocketAddr, proxy: Option<SocketAddr>) {
    let mut s = open(server, proxy).await;
    exchange(&mut s).await;
}

async fn download(server: SocketAddr, proxy: Option<SocketAddr>) -> usize {
    let mut s = open(server, proxy).await;
    let mut buf = vec![0u8; READ_BUFFER];
    let mut total = 0;
    loop {
        match s.read(&mut buf).await.unwrap() {
            0 => break,
            n => total += n,
        }
    }
    assert_eq!(total, DOWNLOAD);
    total
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Medians of interleaved runs, so both sides see the same machine load.
fn interleaved(
    runs: usize,
    mut direct: impl FnMut(),
    mut proxied: impl FnMut(),
) -> (Duration, Duration) {
    let (mut d, mut p) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs {
        let start = Instant::now();
        direct();
        d.push(start.elapsed());
        let start = Instant::now();
        proxied();
        p.push(start.elapsed());
    }
    (median(d), median(p))
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (answer, big, proxy, copying) = rt.block_on(async {
        (
            answer_server().await,
            download_server().await,
            start_proxy(false).await,
            start_proxy(true).await,
        )
    });
    let via = Some(proxy);

    let mut c = Criterion::default()
        .sample_size(50)
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    c.bench_function("request/direct", |b| {
        b.iter(|| rt.block_on(request(answer, None)))
    });
    c.bench_function("request/proxied", |b| {
        b.iter(|| rt.block_on(request(answer, via)))
    });
    let mut direct_conn = rt.block_on(open(answer, None));
    let mut tunnel = rt.block_on(open(answer, via));
    c.bench_function("round_trip/direct", |b| {
        b.iter(|| rt.block_on(exchange(&mut direct_conn)))
    });
    c.bench_function("round_trip/tunnel", |b| {
        b.iter(|| rt.block_on(exchange(&mut tunnel)))
    });
    c.final_summary();

    let (d, p) = interleaved(
        LATENCY_RUNS,
        || rt.block_on(request(answer, None)),
        || rt.block_on(request(answer, via)),
    );
    let added = p.saturating_sub(d);
    println!(
        "request (new connection + {MESSAGE} B each way): direct {:.3} ms, proxied {:.3} ms, added {:.3} ms (target <= 2 ms){}",
        ms(d),
        ms(p),
        ms(added),
        if added <= Duration::from_millis(2) {
            ""
        } else {
            "  ABOVE TARGET"
        }
    );
    let (d, p) = interleaved(
        LATENCY_RUNS,
        || rt.block_on(exchange(&mut direct_conn)),
        || rt.block_on(exchange(&mut tunnel)),
    );
    println!(
        "round trip in an open connection: direct {:.3} ms, tunnel {:.3} ms, added {:.3} ms",
        ms(d),
        ms(p),
        ms(p.saturating_sub(d))
    );
    let rate = |t: Duration| DOWNLOAD as f64 / t.as_secs_f64() / 1e6;
    for (name, through) in [("spliced", via), ("copied", Some(copying))] {
        let (d, p) = interleaved(
            DOWNLOAD_RUNS,
            || {
                rt.block_on(download(big, None));
            },
            || {
                rt.block_on(download(big, through));
            },
        );
        let share = d.as_secs_f64() / p.as_secs_f64() * 100.0;
        println!(
            "download of {} MB: direct {:.0} MB/s, through the proxy ({name}) {:.0} MB/s, {share:.0} % of direct (target >= 80 %){}",
            DOWNLOAD / (1024 * 1024),
            rate(d),
            rate(p),
            if share >= 80.0 { "" } else { "  BELOW TARGET" }
        );
    }
}
