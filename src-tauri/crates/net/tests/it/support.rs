//! Test servers and clients, all on loopback: a proxy serving one call, upstream servers
//! that count what reaches them, and a client that speaks raw HTTP/1.1 to the proxy.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use paddock_net::{
    Call, CallLimits, ConnectionEvent, Decider, DenyAsks, NetworkPolicy, OwnAddressCache, Proxy,
    ProxyBuilder, ProxyConfig, StaticResolver,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// How long a test waits for anything before it fails.
pub const WAIT: Duration = Duration::from_secs(5);

pub fn policy(allow: &[&str], ask: &[&str], deny: &[&str]) -> NetworkPolicy {
    NetworkPolicy::from_lists(allow, ask, deny).unwrap()
}

pub fn ip(text: &str) -> std::net::IpAddr {
    text.parse().unwrap()
}

pub struct Harness {
    pub addr: SocketAddr,
    pub proxy: Proxy,
    pub call: Call,
    pub resolver: Arc<StaticResolver>,
    pub events: mpsc::UnboundedReceiver<ConnectionEvent>,
}

impl Harness {
    pub async fn start(policy: NetworkPolicy, resolver: StaticResolver) -> Harness {
        Self::start_with(
            policy,
            resolver,
            Arc::new(DenyAsks),
            ProxyConfig::default(),
            CallLimits::default(),
        )
        .await
    }

    pub async fn start_with(
        policy: NetworkPolicy,
        resolver: StaticResolver,
        decider: Arc<dyn Decider>,
        config: ProxyConfig,
        limits: CallLimits,
    ) -> Harness {
        let builder = Proxy::builder(policy).config(config).decider(decider);
        Self::launch(builder, resolver, limits).await
    }

    /// A proxy that takes this machine's addresses from `own` instead of its interfaces.
    pub async fn start_own(
        policy: NetworkPolicy,
        resolver: StaticResolver,
        own: Arc<OwnAddressCache>,
    ) -> Harness {
        let builder = Proxy::builder(policy).own_addresses(own);
        Self::launch(builder, resolver, CallLimits::default()).await
    }

    async fn launch(
        builder: ProxyBuilder,
        resolver: StaticResolver,
        limits: CallLimits,
    ) -> Harness {
        let resolver = Arc::new(resolver);
        let (tx, events) = mpsc::unbounded_channel();
        let proxy = builder
            .resolver(resolver.clone())
            .events(Arc::new(move |e: ConnectionEvent| {
                let _ = tx.send(e);
            }))
            .build();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let call = Call::new("call-1", limits);
        tokio::spawn({
            let (proxy, call) = (proxy.clone(), call.clone());
            async move { proxy.serve_tcp(listener, call).await }
        });
        Harness {
            addr,
            proxy,
            call,
            resolver,
            events,
        }
    }

    pub async fn event(&mut self) -> ConnectionEvent {
        tokio::time::timeout(WAIT, self.events.recv())
            .await
            .expect("no connection event in time")
            .expect("event channel closed")
    }

    /// Sends `raw` to the proxy and reads the proxy's (or server's) response head.
    pub async fn send(&self, raw: &[u8]) -> (TcpStream, String) {
        let mut stream = TcpStream::connect(self.addr).await.unwrap();
        stream.write_all(raw).await.unwrap();
        let head = read_head(&mut stream).await;
        (stream, head)
    }

    /// `CONNECT authority`: the stream and the proxy's answer head.
    pub async fn connect(&self, authority: &str) -> (TcpStream, String) {
        self.send(format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n").as_bytes())
            .await
    }

    /// A refusal's status and body.
    pub async fn refused(&self, raw: &[u8]) -> (u16, String) {
        let (mut stream, head) = self.send(raw).await;
        let body = read_to_end(&mut stream).await;
        (status(&head), String::from_utf8_lossy(&body).into_owned())
    }
}

/// An upstream server and how many connections reached it.
pub struct Upstream {
    pub addr: SocketAddr,
    pub accepted: Arc<AtomicUsize>,
    /// Each request head (HTTP servers) received.
    pub heads: mpsc::UnboundedReceiver<String>,
}

impl Upstream {
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    pub async fn head(&mut self) -> String {
        tokio::time::timeout(WAIT, self.heads.recv())
            .await
            .expect("no request reached the server")
            .unwrap()
    }
}

async fn serve(
    bind: &str,
    handler: impl Fn(TcpStream, mpsc::UnboundedSender<String>) -> tokio::task::JoinHandle<()>
    + Send
    + 'static,
) -> Upstream {
    let listener = TcpListener::bind(bind).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let (tx, heads) = mpsc::unbounded_channel();
    let count = accepted.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            handler(stream, tx.clone());
        }
    });
    Upstream {
        addr,
        accepted,
        heads,
    }
}

/// Echoes every byte back until the client closes.
pub async fn echo_server(bind: &str) -> Upstream {
    serve(bind, |mut stream, _| {
        tokio::spawn(async move {
            let (mut r, mut w) = stream.split();
            let _ = tokio::io::copy(&mut r, &mut w).await;
        })
    })
    .await
}

/// Reads one request (head, and a Content-Length body), records the head, answers
/// `200` with `body` followed by the request body's length, and closes.
pub async fn http_server(bind: &str, body: &'static str) -> Upstream {
    serve(bind, move |mut stream, tx| {
        tokio::spawn(async move {
            let head = read_head(&mut stream).await;
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .map_or(0, |n| n.trim().parse::<usize>().unwrap());
            let mut got = vec![0u8; length];
            stream.read_exact(&mut got).await.unwrap();
            let _ = tx.send(head);
            let answer = format!("{body} {length}");
            let response = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{answer}",
                answer.len()
            );
            let _ = stream.write_all(response.as_bytes()).await;
        })
    })
    .await
}

/// Sends `bytes` zero bytes as soon as a client connects, then closes.
pub async fn blast_server(bind: &str, bytes: usize) -> Upstream {
    serve(bind, move |mut stream, _| {
        tokio::spawn(async move {
            let chunk = vec![0u8; 64 * 1024];
            let mut left = bytes;
            while left > 0 {
                let n = left.min(chunk.len());
                if stream.write_all(&chunk[..n]).await.is_err() {
                    return;
                }
                left -= n;
            }
        })
    })
    .await
}

/// Reads up to and including the blank line, a byte at a time (so nothing after it is
/// taken from the stream).
pub async fn read_head(stream: &mut TcpStream) -> String {
    let read = async {
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            match stream.read(&mut byte).await {
                Ok(0) | Err(_) => break,
                Ok(_) => head.push(byte[0]),
            }
        }
        String::from_utf8_lossy(&head).into_owned()
    };
    tokio::time::timeout(WAIT, read)
        .await
        .expect("no response head in time")
}

pub async fn read_to_end(stream: &mut TcpStream) -> Vec<u8> {
    let mut out = Vec::new();
    let read = stream.read_to_end(&mut out);
    match tokio::time::timeout(WAIT, read).await {
        Ok(_) => out,
        Err(_) => panic!("the connection stayed open"),
    }
}

/// Writes `msg` into a tunnel and reads the same number of bytes back.
pub async fn round_trip(stream: &mut TcpStream, msg: &[u8]) -> Vec<u8> {
    stream.write_all(msg).await.unwrap();
    let mut back = vec![0u8; msg.len()];
    tokio::time::timeout(WAIT, stream.read_exact(&mut back))
        .await
        .expect("no echo in time")
        .unwrap();
    back
}

pub fn status(head: &str) -> u16 {
    head.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"))
}

/// Lets any connection the proxy might have made reach the server's accept loop.
pub async fn settle() {
    tokio::time::sleep(Duration::from_millis(100)).await;
}
