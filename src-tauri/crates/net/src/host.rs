//! Host names and authorities as a client would connect to them: one spelling per host, so a
//! rule and a request compare equal whatever tricks the request's spelling plays (case, a
//! trailing dot, IDNA, percent-encoding, IPv4 in decimal/octal/hex, IPv4-mapped IPv6).
//! Parsing follows the WHATWG URL standard's host parser (the `url` crate), which is what
//! browsers, Node and most HTTP clients use; userinfo is refused outright, since the host
//! after an `@` is the one a client reaches and a rule should never have to think about it.

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};

use serde::{Deserialize, Serialize};

/// Longest name DNS carries (RFC 1035), without the trailing dot.
pub const MAX_NAME_LEN: usize = 253;
/// Longest label of a name.
pub const MAX_LABEL_LEN: usize = 63;
/// Longest input looked at: anything longer is refused before parsing.
const MAX_INPUT_LEN: usize = 1024;

/// A normalized host: a lower-case ASCII (punycode) name without a trailing dot, or an
/// address (IPv4-mapped IPv6 becomes the IPv4 address).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Host {
    Name(String),
    Ip(IpAddr),
}

impl Host {
    /// `host:port`, with IPv6 in brackets.
    pub fn authority(&self, port: u16) -> String {
        match self {
            Host::Ip(IpAddr::V6(ip)) => format!("[{ip}]:{port}"),
            other => format!("{other}:{port}"),
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Name(name) => f.write_str(name),
            Host::Ip(ip) => write!(f, "{ip}"),
        }
    }
}

/// Why a host, authority or URL was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostNameError {
    #[error("empty host")]
    Empty,
    #[error("host longer than {MAX_INPUT_LEN} characters")]
    TooLong,
    #[error(
        "`{0}`: user info (`name@`) is refused: the host a client connects to is the part after the `@`"
    )]
    Userinfo(String),
    #[error("`{0}`: a path, query or fragment where only a host (and port) belongs")]
    NotAnAuthority(String),
    #[error("`{0}` is not a valid host: {1}")]
    Invalid(String, String),
    #[error("`{0}`: a port is needed (`host:port`)")]
    MissingPort(String),
    #[error("`{0}`: the port must be a number from 1 to 65535")]
    BadPort(String),
    #[error("`{0}`: an IPv6 address with a port is written in brackets: `[::1]:8080`")]
    UnbracketedIpv6(String),
    #[error("`{0}`: only http:// URLs are forwarded (https goes through CONNECT)")]
    Scheme(String),
    #[error("`{0}`: a URL with a fragment (`#`): fragments never go on the wire")]
    Fragment(String),
}

/// Normalizes a host alone (no port): see the module comment for what is folded together.
/// A bare IPv6 address is accepted with or without brackets.
pub fn normalize_host(input: &str) -> Result<Host, HostNameError> {
    if input.is_empty() {
        return Err(HostNameError::Empty);
    }
    if input.len() > MAX_INPUT_LEN {
        return Err(HostNameError::TooLong);
    }
    if input.contains('@') {
        return Err(HostNameError::Userinfo(input.to_owned()));
    }
    if input.contains(['/', '?', '#', '\\']) {
        return Err(HostNameError::NotAnAuthority(input.to_owned()));
    }
    if !input.starts_with('[')
        && input.contains(':')
        && let Ok(ip) = input.parse::<Ipv6Addr>()
    {
        return Ok(from_ipv6(ip));
    }
    // One trailing dot names the same host (the DNS root); more than one is refused below.
    let trimmed = input.strip_suffix('.').unwrap_or(input);
    let invalid = |why: String| HostNameError::Invalid(input.to_owned(), why);
    match url::Host::parse(trimmed).map_err(|e| invalid(e.to_string()))? {
        url::Host::Ipv4(ip) => Ok(Host::Ip(IpAddr::V4(ip))),
        url::Host::Ipv6(ip) => Ok(from_ipv6(ip)),
        url::Host::Domain(name) => {
            check_name(&name).map_err(invalid)?;
            Ok(Host::Name(name))
        }
    }
}

fn from_ipv6(ip: Ipv6Addr) -> Host {
    match ip.to_ipv4_mapped() {
        Some(v4) => Host::Ip(IpAddr::V4(v4)),
        None => Host::Ip(IpAddr::V6(ip)),
    }
}

/// What the WHATWG parser lets through but DNS cannot carry (or a rule could not match).
fn check_name(name: &str) -> Result<(), String> {
    if name.len() > MAX_NAME_LEN {
        return Err(format!("longer than {MAX_NAME_LEN} characters"));
    }
    for label in name.split('.') {
        if label.is_empty() {
            return Err("an empty label (`..` or a trailing dot too many)".into());
        }
        if label.len() > MAX_LABEL_LEN {
            return Err(format!("a label longer than {MAX_LABEL_LEN} characters"));
        }
    }
    if name.contains('*') {
        return Err("`*` is not part of a host name".into());
    }
    Ok(())
}

/// Splits `host`, `host:port`, `[v6]` or `[v6]:port` (the port still text, `None` without
/// one). A bare IPv6 address (more than one `:`) is refused: its port would be ambiguous.
pub(crate) fn split_host_port(input: &str) -> Result<(&str, Option<&str>), HostNameError> {
    if input.starts_with('[') {
        let end = input
            .find(']')
            .ok_or_else(|| HostNameError::Invalid(input.to_owned(), "no closing `]`".into()))?;
        let (host, rest) = input.split_at(end + 1);
        return match rest {
            "" => Ok((host, None)),
            _ => match rest.strip_prefix(':') {
                Some(port) => Ok((host, Some(port))),
                None => Err(HostNameError::Invalid(
                    input.to_owned(),
                    "text after `]`".into(),
                )),
            },
        };
    }
    match input.rsplit_once(':') {
        None => Ok((input, None)),
        Some((host, _)) if host.contains(':') => {
            Err(HostNameError::UnbracketedIpv6(input.to_owned()))
        }
        Some((host, port)) => Ok((host, Some(port))),
    }
}

pub(crate) fn parse_port(input: &str, port: &str) -> Result<u16, HostNameError> {
    let bad = || HostNameError::BadPort(input.to_owned());
    if port.is_empty() || port.len() > 5 || !port.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    match port.parse::<u16>() {
        Ok(0) | Err(_) => Err(bad()),
        Ok(p) => Ok(p),
    }
}

/// A CONNECT target: `host:port`, the port required.
pub fn parse_authority(input: &str) -> Result<(Host, u16), HostNameError> {
    let (host, port) = authority_parts(input)?;
    let port = port.ok_or_else(|| HostNameError::MissingPort(input.to_owned()))?;
    Ok((host, port))
}

/// An authority whose port may be left out (a `Host` header, a URL): `default_port` then.
pub fn parse_authority_or(input: &str, default_port: u16) -> Result<(Host, u16), HostNameError> {
    let (host, port) = authority_parts(input)?;
    Ok((host, port.unwrap_or(default_port)))
}

fn authority_parts(input: &str) -> Result<(Host, Option<u16>), HostNameError> {
    if input.is_empty() {
        return Err(HostNameError::Empty);
    }
    if input.len() > MAX_INPUT_LEN {
        return Err(HostNameError::TooLong);
    }
    if input.contains('@') {
        return Err(HostNameError::Userinfo(input.to_owned()));
    }
    if input.contains(['/', '?', '#', '\\']) {
        return Err(HostNameError::NotAnAuthority(input.to_owned()));
    }
    let (host, port) = split_host_port(input)?;
    let port = port.map(|p| parse_port(input, p)).transpose()?;
    Ok((normalize_host(host)?, port))
}

/// An absolute-form `http://` request target, split into what the proxy decides on and
/// what it sends upstream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpTarget {
    pub host: Host,
    pub port: u16,
    /// The authority as written in the URL (sent on as the `Host` header when none came).
    pub authority: String,
    /// The path and query exactly as the client wrote them (`/` when empty): forwarded
    /// byte for byte, so the proxy never changes what the server is asked.
    pub origin_form: String,
}

/// Parses an absolute-form target such as `http://example.com:8080/a?b`. The authority is
/// taken up to the first `/` or `?`, userinfo and fragments are refused, so the host
/// decided on is the one connected to whatever `@`, `#` or `\` the URL holds.
pub fn parse_http_target(target: &str) -> Result<HttpTarget, HostNameError> {
    if target.len() > 2 * MAX_INPUT_LEN + 8192 {
        return Err(HostNameError::TooLong);
    }
    let Some((scheme, rest)) = target.split_once("://") else {
        return Err(HostNameError::Scheme(target.to_owned()));
    };
    if !scheme.eq_ignore_ascii_case("http") {
        return Err(HostNameError::Scheme(target.to_owned()));
    }
    if target.contains('#') {
        return Err(HostNameError::Fragment(target.to_owned()));
    }
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    let (host, port) = parse_authority_or(authority, 80)?;
    let origin_form = match path {
        "" => "/".to_owned(),
        p if p.starts_with('?') => format!("/{p}"),
        p => p.to_owned(),
    };
    Ok(HttpTarget {
        host,
        port,
        authority: authority.to_owned(),
        origin_form,
    })
}
