//! The network policy: which hosts bash (and later `web_fetch`) may reach. Three lists of
//! host rules; deny beats ask beats allow, and a host no rule names is asked about (the
//! caller decides what asking means: the app asks the user, headless denies). Logic only,
//! so the explainers and the proxy give the same answer; its one outside input, this
//! machine's own addresses, comes from the process's cache (`addr::own`) in `decide` and
//! `check_address`, and is passed in to `decide_with` and `check_address_with`.

use std::fmt;
use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use crate::addr::{OwnAddresses, embedded_v4, judge, own_addresses};
use crate::host::{Host, HostNameError, normalize_host, parse_port, split_host_port};

/// One host pattern with an optional port, written like `example.com`, `*.example.com`,
/// `example.com:443`, `10.0.0.5`, `::1` or `[::1]:8080`.
///
/// `*.example.com` matches every subdomain (`a.example.com`, `a.b.example.com`) but not
/// `example.com` itself (Claude Code's convention): list both to have both. It never
/// matches `example.com.evil.net`: names are compared whole, after normalization. No port
/// means any port. An address rule is the only way to reach a private address. A rule
/// written as an IPv4 address also names the IPv6 forms that carry it (`::ffff:10.0.0.5`,
/// `64:ff9b::a00:5`, 6to4, Teredo, ISATAP: `addr::embedded`).
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
pub enum NetworkRuleError {
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
    Host(#[from] HostNameError),
}

impl HostRule {
    pub fn parse(input: &str) -> Result<Self, NetworkRuleError> {
        let text = input.trim();
        if text.is_empty() {
            return Err(NetworkRuleError::Empty);
        }
        if text.contains("://") {
            return Err(NetworkRuleError::Scheme(text.to_owned()));
        }
        if text.contains(['/', '?', '#']) {
            return Err(NetworkRuleError::Path(text.to_owned()));
        }
        // A bare IPv6 address is the address (no port: a port needs brackets).
        let (host, port) = match text.parse::<std::net::Ipv6Addr>() {
            Ok(_) => (text, None),
            Err(_) => split_host_port(text)?,
        };
        let port = port.map(|p| parse_port(text, p)).transpose()?;
        let pattern = if host == "*" {
            return Err(NetworkRuleError::Everything(text.to_owned()));
        } else if let Some(suffix) = host.strip_prefix("*.") {
            if suffix.contains('*') {
                return Err(NetworkRuleError::Star(text.to_owned()));
            }
            match normalize_host(suffix)? {
                Host::Name(name) => Pattern::Subdomains(format!(".{name}")),
                Host::Ip(_) => return Err(NetworkRuleError::StarAddress(text.to_owned())),
            }
        } else if host.contains('*') {
            return Err(NetworkRuleError::Star(text.to_owned()));
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
            (Pattern::Ip(want), Host::Ip(ip)) => names_ip(*want, *ip),
            _ => false,
        }
    }

    /// Whether this rule is the address `ip` itself (and its port): the only kind of rule
    /// that grants a forbidden (private, loopback, ...) address.
    fn names_exactly(&self, ip: IpAddr, port: u16) -> bool {
        self.port.is_none_or(|p| p == port) && self.pattern == Pattern::Ip(ip)
    }
}

/// Whether a rule for `want` names `ip`: the address itself, or an IPv6 form carrying it.
fn names_ip(want: IpAddr, ip: IpAddr) -> bool {
    match (want, ip) {
        (IpAddr::V4(want), IpAddr::V6(ip)) => embedded_v4(ip).is_some_and(|e| e.contains(want)),
        _ => want == ip,
    }
}

impl TryFrom<String> for HostRule {
    type Error = NetworkRuleError;
    fn try_from(s: String) -> Result<Self, NetworkRuleError> {
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
    pub error: NetworkRuleError,
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
    /// (`addr::judge`), only an allow rule naming it (and no ask or deny rule) lets it
    /// through: asking never grants a private address, nor one of this machine's. An
    /// allowed literal is also checked as a resolved address would be (`check_address`), so
    /// the answer is the proxy's: an allow rule for `1.1.1.1` does not grant a local-use
    /// NAT64 address that may also read as `127.0.0.1`.
    pub fn decide(&self, host: &Host, port: u16) -> Decision {
        match host {
            // Only a literal needs this machine's addresses.
            Host::Ip(_) => self.decide_with(host, port, &own_addresses()),
            Host::Name(_) => self.decide_by_rules(host, port),
        }
    }

    /// `decide` with this machine's addresses given.
    pub fn decide_with(&self, host: &Host, port: u16, own: &OwnAddresses) -> Decision {
        let decision = self.decide_by_rules(host, port);
        let Host::Ip(ip) = host else {
            return decision;
        };
        match decision.verdict {
            Verdict::Deny => decision,
            Verdict::Ask => refuse_forbidden(*ip, decision, own),
            Verdict::Allow => match self.check_address_with(*ip, port, own) {
                AddressCheck::Permitted { .. } => decision,
                AddressCheck::Refused { rule, why } => Decision {
                    verdict: Verdict::Deny,
                    rule: rule.or(decision.rule),
                    why: format!("{}, but {why}", decision.why),
                },
            },
        }
    }

    fn decide_by_rules(&self, host: &Host, port: u16) -> Decision {
        let target = host.authority(port);
        if let Some(rule) = self.first_match(RuleList::Deny, host, port) {
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
        }
    }

    /// Checks an address a name resolved to (or an address literal after `decide`). A deny
    /// rule naming it (or the IPv4 address inside it) refuses it; a forbidden address needs
    /// an allow rule naming it exactly, so a name rule (or a question answered yes) never
    /// grants one. An IPv6 address carrying a forbidden IPv4 address is granted by a rule
    /// naming the IPv6 address, or by rules naming each forbidden IPv4 address inside.
    pub fn check_address(&self, ip: IpAddr, port: u16) -> AddressCheck {
        self.check_address_with(ip, port, &own_addresses())
    }

    /// `check_address` with this machine's addresses given.
    pub fn check_address_with(&self, ip: IpAddr, port: u16, own: &OwnAddresses) -> AddressCheck {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        if let Some(rule) = self.first_match(RuleList::Deny, &Host::Ip(ip), port) {
            let why = format!("{ip} is denied by {rule} (`{}`)", rule.pattern);
            return AddressCheck::Refused {
                rule: Some(rule),
                why,
            };
        }
        let judgement = judge(ip, own);
        if !judgement.is_forbidden() {
            return AddressCheck::Permitted { rule: None };
        }
        if let Some(rule) = self.allow_naming(ip, port) {
            return AddressCheck::Permitted { rule: Some(rule) };
        }
        // Each forbidden address it may reach must be named, else it is refused for all
        // of those that are not.
        let mut granted = None;
        let mut unnamed = Vec::new();
        for reason in &judgement.forbidden {
            match self.allow_naming(reason.address, port) {
                Some(rule) => {
                    granted.get_or_insert(rule);
                }
                None => unnamed.push(reason),
            }
        }
        if unnamed.is_empty() {
            return AddressCheck::Permitted { rule: granted };
        }
        let whys: Vec<String> = unnamed
            .iter()
            .map(|r| format!("{} is {}", r.address, r.why))
            .collect();
        let names: Vec<String> = unnamed.iter().map(|r| r.address.to_string()).collect();
        let or_itself = match unnamed.iter().all(|r| r.address == ip) {
            true => String::new(),
            false => format!(" (or {ip} itself)"),
        };
        AddressCheck::Refused {
            rule: None,
            why: format!(
                "{}; only an allow rule naming {}{or_itself} reaches it",
                whys.join("; "),
                names.join(" and ")
            ),
        }
    }

    /// The first allow rule that is `ip` itself.
    fn allow_naming(&self, ip: IpAddr, port: u16) -> Option<RuleRef> {
        let index = self.allow.iter().position(|r| r.names_exactly(ip, port))?;
        Some(RuleRef {
            list: RuleList::Allow,
            index,
            pattern: self.allow[index].text.clone(),
        })
    }
}

/// An address literal nobody may be asked about: denied, saying why and which rule would
/// reach it.
fn refuse_forbidden(ip: IpAddr, decision: Decision, own: &OwnAddresses) -> Decision {
    let judgement = judge(ip, own);
    let Some(why) = judgement.why() else {
        return decision;
    };
    let mut named: Vec<String> = Vec::new();
    for reason in &judgement.forbidden {
        let address = reason.address.to_string();
        if !named.contains(&address) {
            named.push(address);
        }
    }
    let itself = ip.to_string();
    named.retain(|n| *n != itself);
    let rules = match named.as_slice() {
        [] => format!("an allow rule naming {itself}"),
        [inner] => format!("an allow rule naming {itself} or {inner}"),
        _ => format!(
            "an allow rule naming {itself}, or rules naming {}",
            named.join(" and ")
        ),
    };
    Decision {
        verdict: Verdict::Deny,
        why: format!("{why}: only {rules} reaches it, never a question"),
        ..decision
    }
}
