//! The way out of the wall when bash's network is an allow-list: a loopback port inside the
//! command's network namespace, each connection carried to the proxy's Unix socket bound in
//! at [`crate::PROXY_SOCKET`]. The proxy (outside, in Paddock) decides every request; the
//! bridge only carries bytes. It is a child of the command and ends with the wall.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::Path;

use super::sys;
use crate::policy::Policy;

/// Variables that point programs at the proxy: the common ones in both cases, and those of
/// the tools that read only their own (npm, yarn, cargo, pip).
const PROXY_VARS: &[&str] = &[
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "npm_config_proxy",
    "npm_config_https_proxy",
    "YARN_HTTP_PROXY",
    "YARN_HTTPS_PROXY",
    "CARGO_HTTP_PROXY",
    "PIP_PROXY",
];
/// Servers the command starts inside the wall are reached directly.
const NO_PROXY: &str = "localhost,127.0.0.1,::1";
/// Bytes carried per read.
const CHUNK: usize = 64 * 1024;

/// Starts the bridge when the policy has a proxy; returns the variables to give the
/// command (none without a proxy).
pub fn start(policy: &Policy) -> Result<Vec<(&'static str, String)>, String> {
    if policy.proxy.is_none() {
        return Ok(Vec::new());
    }
    let listener =
        TcpListener::bind("127.0.0.1:0").map_err(|e| format!("the proxy's port: {e}"))?;
    let port = listener
        .local_addr()
        .map_err(|e| format!("the proxy's port: {e}"))?
        .port();
    // A port the command itself already holds, or one that cannot be bound, is left out.
    let tunnels: Vec<(u16, TcpListener)> = policy
        .loopback
        .iter()
        .filter_map(|port| Some((*port, TcpListener::bind(("127.0.0.1", *port)).ok()?)))
        .collect();
    let child = sys::fork().map_err(|e| format!("fork: {e}"))?;
    if child == 0 {
        sys::die_with_parent(libc::SIGKILL);
        for (port, tunnel) in tunnels {
            std::thread::spawn(move || serve_tunnel(&tunnel, port, Path::new(crate::PROXY_SOCKET)));
        }
        serve(&listener, Path::new(crate::PROXY_SOCKET));
        std::process::exit(0);
    }
    // The listeners are the bridge's: the command gets none (std opens them close-on-exec).
    drop(listener);
    drop(tunnels);
    let url = format!("http://127.0.0.1:{port}");
    let mut env: Vec<(&'static str, String)> =
        PROXY_VARS.iter().map(|name| (*name, url.clone())).collect();
    env.push(("NO_PROXY", NO_PROXY.to_owned()));
    env.push(("no_proxy", NO_PROXY.to_owned()));
    Ok(env)
}

fn serve(listener: &TcpListener, socket: &Path) {
    for client in listener.incoming() {
        let Ok(client) = client else { continue };
        let socket = socket.to_path_buf();
        std::thread::spawn(move || {
            // A proxy that is gone (the call ended) closes the client: nothing else is tried.
            if let Ok(upstream) = UnixStream::connect(&socket) {
                carry(client, upstream);
            }
        });
    }
}

/// Longest answer head the proxy gives a CONNECT.
const MAX_CONNECT_ANSWER: usize = 8 * 1024;

/// `127.0.0.1:port` inside the wall: each connection becomes a CONNECT to the host's
/// `127.0.0.1:port` through the proxy, which decides as for any other host.
fn serve_tunnel(listener: &TcpListener, port: u16, socket: &Path) {
    for client in listener.incoming() {
        let Ok(client) = client else { continue };
        let socket = socket.to_path_buf();
        std::thread::spawn(move || {
            if let Some(upstream) = open_tunnel(&socket, port) {
                carry(client, upstream);
            }
        });
    }
}

/// Asks the proxy for a tunnel; `None` (the client is closed) when it refuses.
fn open_tunnel(socket: &Path, port: u16) -> Option<UnixStream> {
    let mut upstream = UnixStream::connect(socket).ok()?;
    let ask = format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    upstream.write_all(ask.as_bytes()).ok()?;
    // Read the answer's head byte by byte: nothing of the tunnel after it is taken.
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > MAX_CONNECT_ANSWER || upstream.read(&mut byte).ok()? == 0 {
            return None;
        }
        head.push(byte[0]);
    }
    let status = head.split(|b| *b == b' ').nth(1)?;
    (status == b"200").then_some(upstream)
}

/// Both directions until each side is done; a half-close is passed on.
fn carry(client: TcpStream, upstream: UnixStream) {
    let (Ok(client_w), Ok(upstream_r)) = (client.try_clone(), upstream.try_clone()) else {
        return;
    };
    let down = std::thread::spawn(move || {
        pump(upstream_r, &client_w);
        let _ = client_w.shutdown(Shutdown::Write);
    });
    pump(&client, &upstream);
    let _ = upstream.shutdown(Shutdown::Write);
    let _ = down.join();
}

fn pump(mut from: impl Read, mut to: impl Write) {
    let mut buf = vec![0u8; CHUNK];
    loop {
        match from.read(&mut buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if to.write_all(&buf[..n]).is_err() {
                    return;
                }
            }
        }
    }
}
