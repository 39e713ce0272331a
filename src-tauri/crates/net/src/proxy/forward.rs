//! Plain-HTTP forwarding: the absolute-form request a client sends a proxy, rewritten to the
//! origin-form request the server expects. One request per client connection: the proxy
//! adds `Connection: close` and then only carries bytes, so it never has to find where one
//! request ends and the next begins (the body, chunked or not, goes through untouched), and
//! a second request on the connection cannot reach a host the first one did not name.

use std::io::Write;

use crate::host::{Host, HttpTarget, parse_authority_or};
use crate::proxy::head::RequestHead;

/// Headers that belong to the client's connection to the proxy, not to the request.
/// `Transfer-Encoding` stays: the body is carried as it came, so its framing must too.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "proxy-connection",
    "keep-alive",
    "proxy-authorization",
    "proxy-authenticate",
    "te",
    "trailer",
    "upgrade",
];

/// Headers a `Connection` header may not remove: the request would change meaning.
const KEPT: &[&str] = &["host", "content-length", "transfer-encoding"];

/// The request to send upstream, or why it is a bad request (400). The `Host` header must
/// name the URL's host and port: a server reached for one host is never asked, in the same
/// request, for another.
pub(crate) fn origin_request(head: &RequestHead, target: &HttpTarget) -> Result<Vec<u8>, String> {
    let hosts: Vec<&[u8]> = head.values("host").collect();
    match hosts.as_slice() {
        [] => {}
        [value] => check_host_header(value, target)?,
        _ => return Err("more than one Host header".into()),
    }
    if head.values("transfer-encoding").next().is_some()
        && head.values("content-length").next().is_some()
    {
        return Err("both Transfer-Encoding and Content-Length".into());
    }
    let named: Vec<String> = head
        .values("connection")
        .flat_map(|v| {
            String::from_utf8_lossy(v)
                .split(',')
                .map(|t| t.trim().to_ascii_lowercase())
                .collect::<Vec<_>>()
        })
        .filter(|t| !KEPT.contains(&t.as_str()))
        .collect();
    let mut out = Vec::with_capacity(512);
    let _ = write!(
        out,
        "{} {} HTTP/1.{}\r\n",
        head.method, target.origin_form, head.minor_version
    );
    if hosts.is_empty() {
        let _ = write!(out, "Host: {}\r\n", host_header(&target.host, target.port));
    }
    for (name, value) in &head.headers {
        let lower = name.to_ascii_lowercase();
        if HOP_BY_HOP.contains(&lower.as_str()) || named.contains(&lower) {
            continue;
        }
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"Connection: close\r\n\r\n");
    Ok(out)
}

fn check_host_header(value: &[u8], target: &HttpTarget) -> Result<(), String> {
    let text = std::str::from_utf8(value)
        .map_err(|_| "the Host header is not text".to_owned())?
        .trim();
    let (host, port) = parse_authority_or(text, 80).map_err(|e| format!("the Host header: {e}"))?;
    if host != target.host || port != target.port {
        return Err(format!(
            "the Host header `{text}` names another host than the URL's `{}`",
            target.authority
        ));
    }
    Ok(())
}

fn host_header(host: &Host, port: u16) -> String {
    match port {
        80 => match host {
            Host::Ip(std::net::IpAddr::V6(ip)) => format!("[{ip}]"),
            other => other.to_string(),
        },
        _ => host.authority(port),
    }
}
