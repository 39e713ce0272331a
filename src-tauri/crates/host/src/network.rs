//! A project's `network` setting as the proxy's policy, and the fence bash's calls go
//! through when the network is an allow-list.

use std::sync::Arc;

use paddock_net::{CallLimits, Host, NetworkPolicy, Proxy, SystemResolver, Verdict};
use paddock_protocol::{
    BashNetwork, Grant, NetworkPreset, NetworkSettings, NetworkView, ProjectSettings,
};
use paddock_wall::NetworkFence;
use serde::Serialize;

use crate::HostError;
use crate::field_error::FieldError;

/// What bash's network would do with one host: `paddock rules explain --host`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostExplanation {
    /// The host and port as the proxy sees them (normalized).
    pub target: String,
    /// Allow, ask (refused where nobody can answer) or deny.
    pub decision: Grant,
    /// The rule that decided (`network.allow[2]`), if one did.
    pub rule: Option<String>,
    pub why: String,
}

/// How the settings in effect treat `target` (`host`, `host:port`; 443 when no port).
/// Nothing is resolved or connected.
pub fn explain(s: &ProjectSettings, target: &str) -> Result<HostExplanation, HostError> {
    let (host, port) = paddock_net::parse_authority_or(target, 443).map_err(|e| {
        crate::error::RequestError::BadTarget {
            target: target.to_owned(),
            why: e.to_string(),
        }
    })?;
    let target = host.authority(port);
    let whole = |decision: Grant, why: &str| HostExplanation {
        target: target.clone(),
        decision,
        rule: None,
        why: why.to_owned(),
    };
    if s.bash_network {
        return Ok(whole(
            Grant::Allow,
            "bash has the whole network (\"bashNetwork\": true); the proxy is not used",
        ));
    }
    if s.network.is_empty() {
        return Ok(whole(
            Grant::Deny,
            "bash has no network: the settings name no host (add it to \"network\".\"allow\")",
        ));
    }
    // An address literal is judged here as the proxy judges it (`paddock_net::addr`: the
    // IPv4 address an IPv6 form carries, this machine's own addresses); a name only when it
    // is reached, by the addresses it resolves to then.
    let decision = policy(&s.network)
        .map_err(|e| crate::field_error::FieldError::new("network", e.to_string()))?
        .decide(&host, port);
    let why = match (&host, decision.verdict) {
        (Host::Name(_), Verdict::Allow | Verdict::Ask) => {
            format!("{}; {ADDRESSES_NOTE}", decision.why)
        }
        _ => decision.why,
    };
    Ok(HostExplanation {
        target,
        decision: match decision.verdict {
            Verdict::Allow => Grant::Allow,
            Verdict::Ask => Grant::Ask,
            Verdict::Deny => Grant::Deny,
        },
        rule: decision.rule.map(|r| r.to_string()),
        why,
    })
}

/// What `explain` adds for a name it lets through: resolution happens on connecting.
const ADDRESSES_NOTE: &str = "each address it resolves to is checked when it is reached: \
                              loopback, private, link-local, metadata and this machine's own \
                              addresses (also inside an IPv6 form such as 64:ff9b::/96) need \
                              an allow rule naming the address";

/// The policy the setting describes (presets expanded into `allow`); a bad rule is named by
/// its list and place.
pub fn policy(s: &NetworkSettings) -> Result<NetworkPolicy, FieldError> {
    NetworkPolicy::from_lists(&s.allowed(), &s.ask, &s.deny).map_err(|e| {
        FieldError::new(
            format!("network.{}[{}]", e.list, e.index),
            e.error.to_string(),
        )
    })
}

/// The grants screen's Network section for `effect`: the rules as written, those waiting for
/// trust, what bash's network is, the presets on offer.
/// `written` is the file as it is, `s` the settings in effect.
pub fn view(written: &ProjectSettings, s: &ProjectSettings) -> NetworkView {
    let (written, applied) = (&written.network, &s.network);
    let waiting = written
        .allow
        .iter()
        .filter(|r| !applied.allow.contains(r))
        .cloned()
        .chain(
            written
                .presets
                .iter()
                .filter(|p| !applied.presets.contains(p))
                .map(|p| format!("preset {}", p.as_str())),
        )
        .collect();
    NetworkView {
        written: written.clone(),
        waiting,
        bash: if s.bash_network {
            BashNetwork::Whole
        } else if bash_uses_fence(s) {
            BashNetwork::AllowList
        } else {
            BashNetwork::None
        },
        presets: NetworkPreset::ALL.into_iter().map(Into::into).collect(),
    }
}

/// Whether `rule` is a host rule (`example.com`, `*.example.com`, `host:443`), and why not.
pub fn check_rule(rule: &str) -> Result<(), String> {
    paddock_net::HostRule::parse(rule)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The fence for these settings: the proxy web_fetch always goes through, and bash too when
/// its network is an allow-list (`bash_uses_fence`). With no rules every host asks. `None`
/// only for rules that do not parse.
pub fn fence(s: &ProjectSettings) -> Option<NetworkFence> {
    match policy(&s.network) {
        Ok(policy) => Some(NetworkFence::new(
            Proxy::builder(policy).resolver(Arc::new(SystemResolver)),
            CallLimits {
                upload_cap: s.network.max_upload_bytes,
                download_cap: s.network.max_download_bytes,
                ..CallLimits::default()
            },
        )),
        // Loading refuses such a file; settings built in code get no network rather than
        // more of it.
        Err(e) => {
            tracing::warn!("network rules not used: {e}");
            None
        }
    }
}

/// Whether bash's network is the allow-list through the proxy: rules are named and the
/// whole network is not granted. Otherwise bash has all of it or none.
pub fn bash_uses_fence(s: &ProjectSettings) -> bool {
    !s.bash_network && !s.network.is_empty()
}

/// The host loopback ports the allow and ask rules name exactly (`127.0.0.1:11434`,
/// `localhost:8080`): tunnelled from the same port inside the wall, when bash's network is
/// the fence.
pub fn loopback_ports(s: &ProjectSettings) -> Vec<u16> {
    if !bash_uses_fence(s) {
        return Vec::new();
    }
    let mut ports: Vec<u16> = s
        .network
        .allow
        .iter()
        .chain(&s.network.ask)
        .filter_map(|rule| {
            let (host, port) = rule.trim().rsplit_once(':')?;
            matches!(host, "127.0.0.1" | "localhost")
                .then(|| port.parse().ok())
                .flatten()
        })
        .collect();
    ports.sort_unstable();
    ports.dedup();
    ports
}

#[cfg(test)]
mod tests {
    use paddock_protocol::NetworkPreset;

    use super::*;

    #[test]
    fn a_host_is_explained_by_the_rule_that_decides_it() {
        let mut s = ProjectSettings::default();
        assert_eq!(explain(&s, "example.com").unwrap().decision, Grant::Deny);
        s.network.allow = vec!["*.example.com".into()];
        s.network.deny = vec!["bad.example.com".into()];
        let e = explain(&s, "API.Example.com.").unwrap();
        assert_eq!(
            (e.target.as_str(), e.decision, e.rule.as_deref()),
            (
                "api.example.com:443",
                Grant::Allow,
                Some("network.allow[0]")
            )
        );
        let e = explain(&s, "bad.example.com:80").unwrap();
        assert_eq!(
            (e.decision, e.rule.as_deref()),
            (Grant::Deny, Some("network.deny[0]"))
        );
        let e = explain(&s, "example.com.evil.net").unwrap();
        assert_eq!((e.decision, e.rule), (Grant::Ask, None));
        assert!(explain(&s, "user@example.com").is_err());
        s.bash_network = true;
        assert_eq!(explain(&s, "anything.net").unwrap().decision, Grant::Allow);
    }

    /// Guards: `rules explain` judging an address literal by its spelling. Fails on main:
    /// `[64:ff9b:1::7f00:1]` (loopback through local-use NAT64) and `[::ffff:0:a00:1]`
    /// (10.0.0.1, IPv4-translated) were "asked about", and this machine's own address too.
    #[test]
    fn an_address_is_explained_by_what_it_reaches() {
        let mut s = ProjectSettings::default();
        s.network.allow = vec!["example.com".into()];
        for (target, inner, kind) in [
            ("[64:ff9b:1::7f00:1]:8080", "127.0.0.1", "loopback"),
            ("[::ffff:0:a00:1]", "10.0.0.1", "a private network"),
        ] {
            let e = explain(&s, target).unwrap();
            assert_eq!(e.decision, Grant::Deny, "{target}: {}", e.why);
            assert!(
                e.why.contains(&format!("{inner} is {kind}")) && e.why.contains("never a question"),
                "{target}: {}",
                e.why
            );
        }
        let own = paddock_net::OwnAddresses::read();
        for address in own.addresses().filter(|a| !a.is_loopback()) {
            let target = match address {
                std::net::IpAddr::V4(v4) => v4.to_string(),
                std::net::IpAddr::V6(v6) => format!("[{v6}]"),
            };
            let e = explain(&s, &target).unwrap();
            assert_eq!(e.decision, Grant::Deny, "{target}: {}", e.why);
        }
        let e = explain(&s, "example.com").unwrap();
        assert!(e.why.contains("this machine's own addresses"), "{}", e.why);
    }

    #[test]
    fn a_bad_rule_is_named_and_presets_count_as_allowed() {
        let mut s = ProjectSettings::default();
        assert!(!bash_uses_fence(&s), "no rules: bash has no network");
        assert_eq!(fence(&s).map(|f| f.rule_count()), Some(0), "web_fetch asks");
        s.network.presets = vec![NetworkPreset::Npm];
        assert!(bash_uses_fence(&s));
        assert_eq!(fence(&s).map(|f| f.rule_count()), Some(3));
        s.bash_network = true;
        assert!(!bash_uses_fence(&s), "the whole network needs no proxy");
        s.network.deny = vec!["ok.example".into(), "https://x.example/".into()];
        let e = policy(&s.network).unwrap_err();
        assert_eq!(e.field, "network.deny[1]");
    }
}
