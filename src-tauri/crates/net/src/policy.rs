//! The network policy: which hosts bash (and later `web_fetch`) may reach. Three lists of
//! host rules; deny beats ask beats allow, and a host no rule names is asked about (the
//! caller decides what asking means: the app asks the user, headless denies). Pure logic:
//! no I/O, so the explainers and the proxy give the same answer.

use std::fmt;
use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use crate::addr::is_forbidden;
use crate::host::{Host, HostError, normalize_host, parse_port, split_host_port};

/// One host pattern with an optional port, written like `example.com`, `*.example.com`,
/// `example.com:443`, `10.0.0.5`, `::1` or `[::1]:8080`.
///
/// `*.example.com` matches every subdomain (`a.example.com`, `a.b.example.com`) but not
/// `example.com` itself (Claude Code's convention): list both to have both. It never
/// matches `example.com.evil.net`: names are compared whole, after normalization. No port
/// means any port. An address rule is the only way to reach a private address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct HostRule {
    text: String,
    pattern: Pattern,
    port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Pattern {
    Exact(String),
    /// The suffix with its leading dot: `.example.com`.
    Subdomains(String),
    Ip(IpAddr),
}

/// Why a rule string is not a rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("an empty rule")]
    Empty,
    #[error(
        "`{0}`: write the host alone, without a scheme (`example.com`, not `https://example.com`)"
    )]
    Scheme(String),
    #[error("`{0}`: write the host alone, without a path, query or fragment")]
    Path(String),
    #[error("`{0}`: `*` is allowed only as the whole first label (`*.example.com`)")]
    Star(String),
    #[error("`{0}`: a bare `*` would match every host; list the hosts, or use `*.example.com`")]
    Everything(String),
    #[error("`{0}`: `*.` goes with a name, not an address")]
    StarAddress(String),
    #[error(transparent)]
    Host(#[from] HostError),
}

impl HostRule {
    pub fn parse(input: &str) -> Result<Self, RuleError> {
        let text = input.trim();
        if text.is_empty() {
            return Err(RuleError::Empty);
        }
        if text.contains("://") {
            return Err(RuleError::Scheme(text.to_owned()));
        }
        if text.contains(['/', '?', '#']) {
            return Err(RuleError::Path(text.to_owned()));
        }
        // A bare IPv6 address is the address (no port: a port needs brackets).
        let (host, port) = match text.parse::<std::net::Ipv6Addr>() {
            Ok(_) => (text, None),
            Err(_) => split_host_port(text)?,
        };
        let port = port.map(|p| parse_port(text, p)).transpose()?;
        let pattern = if host == "*" {
            return Err(RuleError::Everything(text.to_owned()));
        } else if let Some(suffix) = host.strip_prefix("*.") {
            if suffix.contains('*') {
                return Err(RuleError::Star(text.to_owned()));
            }
            match normalize_host(suffix)? {
                Host::Name(name) => Pattern::Subdomains(format!(".{name}")),
                Host::Ip(_) => return Err(RuleError::StarAddress(text.to_owned())),
            }
        } else if host.contains('*') {
            return Err(RuleError::Star(text.to_owned()));
        } else {
            match normalize_host(host)? {
                Host::Name(name) => Pattern::Exact(name),
                Host::Ip(ip) => Pattern::Ip(ip),
            }
        };
        Ok(HostRule {
            text: text.to_owned(),
            pattern,
            port,
        })
    }

    /// The rule as written (trimmed).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn port(&self) -> Option<u16> {
        self.port
    }

    pub fn matches(&self, host: &Host, port: u16) -> bool {
        if self.port.is_some_and(|p| p != port) {
            return false;
        }
        match (&self.pattern, host) {
            (Pattern::Exact(want), Host::Name(name)) => want == name,
            (Pattern::Subdomains(suffix), Host::Name(name)) => {
                name.len() > suffix.len() && name.ends_with(suffix.as_str())
            }
            (Pattern::Ip(want), Host::Ip(ip)) => want == ip,
            _ => false,
        }
    }

    /// Whether this rule names exactly this address: the only kind of rule that grants a
    /// forbidden (private, loopback, ...) address.
    fn names_address(&self, ip: IpAddr, port: u16) -> bool {
        self.matches(&Host::Ip(ip), port)
    }
}

impl TryFrom<String> for HostRule {
    type Error = RuleError;
    fn try_from(s: String) -> Result<Self, RuleError> {
        HostRule::parse(&s)
    }
}

impl From<HostRule> for String {
    fn from(rule: HostRule) -> String {
        rule.text
    }
}

impl fmt::Display for HostRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The three lists, named as in the settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleList {
    Allow,
    Ask,
    Deny,
}

impl fmt::Display for RuleList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RuleList::Allow => "allow",
            RuleList::Ask => "ask",
            RuleList::Deny => "deny",
        })
    }
}

/// Which rule decided: shown as `network.allow[2]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleRef {
    pub list: RuleList,
    pub index: usize,
    pub pattern: String,
}

impl fmt::Display for RuleRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "network.{}[{}]", self.list, self.index)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Allow,
    Ask,
    Deny,
}

/// A policy's answer for one host and port, with the rule that gave it (none when no rule
/// matched) and one line saying why, for explainers and refusals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub verdict: Verdict,
    pub rule: Option<RuleRef>,
    pub why: String,
}

/// A rule string that failed, with where it sits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("network.{list}[{index}]: {error}")]
pub struct PolicyError {
    pub list: RuleList,
    pub index: usize,
    pub error: RuleError,
}

/// Whether a resolved address may be connected to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddressCheck {
    /// `rule` is the allow rule naming a forbidden address, `None` for a public one.
    Permitted {
        rule: Option<RuleRef>,
    },
    Refused {
        rule: Option<RuleRef>,
        why: String,
    },
}

/// `allow`, `ask` and `deny` lists of host rules. The default (all empty) asks about every
/// host.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NetworkPolicy {
    pub allow: Vec<HostRule>,
    pub ask: Vec<HostRule>,
    pub deny: Vec<HostRule>,
}

impl NetworkPolicy {
    /// Parses the three lists; the first bad rule is the error, named by list and index.
    pub fn from_lists<S: AsRef<str>>(
        allow: &[S],
        ask: &[S],
        deny: &[S],
    ) -> Result<Self, PolicyError> {
        let parse = |list: RuleList, rules: &[S]| {
            rules
                .iter()
                .enumerate()
                .map(|(index, r)| {
                    HostRule::parse(r.as_ref()).map_err(|error| PolicyError { list, index, error })
                })
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(NetworkPolicy {
            allow: parse(RuleList::Allow, allow)?,
            ask: parse(RuleList::Ask, ask)?,
            deny: parse(RuleList::Deny, deny)?,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.ask.is_empty() && self.deny.is_empty()
    }

    fn first_match(&self, list: RuleList, host: &Host, port: u16) -> Option<RuleRef> {
        let rules = match list {
            RuleList::Allow => &self.allow,
            RuleList::Ask => &self.ask,
            RuleList::Deny => &self.deny,
        };
        let index = rules.iter().position(|r| r.matches(host, port))?;
        Some(RuleRef {
            list,
            index,
            pattern: rules[index].text.clone(),
        })
    }

    /// Decides a normalized host and port. For an address literal that is forbidden
    /// (`is_forbidden`), only an allow rule naming it (and no ask or deny rule) lets it
    /// through: asking never grants a private address.
    pub fn decide(&self, host: &Host, port: u16) -> Decision {
        let target = host.authority(port);
        let decision = if let Some(rule) = self.first_match(RuleList::Deny, host, port) {
            let why = format!("{target} is denied by {rule} (`{}`)", rule.pattern);
            Decision {
                verdict: Verdict::Deny,
                rule: Some(rule),
                why,
            }
        } else if let Some(rule) = self.first_match(RuleList::Ask, host, port) {
            let why = format!("{target} is asked about by {rule} (`{}`)", rule.pattern);
            Decision {
                verdict: Verdict::Ask,
                rule: Some(rule),
                why,
            }
        } else if let Some(rule) = self.first_match(RuleList::Allow, host, port) {
            let why = format!("{target} is allowed by {rule} (`{}`)", rule.pattern);
            Decision {
                verdict: Verdict::Allow,
                rule: Some(rule),
                why,
            }
        } else {
            let why = format!("no rule names {target}, so it is asked about");
            Decision {
                verdict: Verdict::Ask,
                rule: None,
                why,
            }
        };
        match (host, decision.verdict) {
            (Host::Ip(ip), Verdict::Ask) => match is_forbidden(*ip) {
                Some(kind) => Decision {
                    verdict: Verdict::Deny,
                    why: format!(
                        "{ip} is {kind}: only an allow rule naming {ip} reaches it, never a question"
                    ),
                    ..decision
                },
                None => decision,
            },
            _ => decision,
        }
    }

    /// Checks an address a name resolved to (or an address literal after `decide`). A deny
    /// rule naming it refuses it; a forbidden address needs an allow rule naming it
    /// exactly, so a name rule (or a question answered yes) never grants one.
    pub fn check_address(&self, ip: IpAddr, port: u16) -> AddressCheck {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        let host = Host::Ip(ip);
        if let Some(rule) = self.first_match(RuleList::Deny, &host, port) {
            let why = format!("{ip} is denied by {rule} (`{}`)", rule.pattern);
            return AddressCheck::Refused {
                rule: Some(rule),
                why,
            };
        }
        let Some(kind) = is_forbidden(ip) else {
            return AddressCheck::Permitted { rule: None };
        };
        let named = self
            .allow
            .iter()
            .position(|r| r.names_address(ip, port))
            .map(|index| RuleRef {
                list: RuleList::Allow,
                index,
                pattern: self.allow[index].text.clone(),
            });
        match named {
            Some(rule) => AddressCheck::Permitted { rule: Some(rule) },
            None => AddressCheck::Refused {
                rule: None,
                why: format!("{ip} is {kind}; only an allow rule naming {ip} reaches it"),
            },
        }
    }
}
