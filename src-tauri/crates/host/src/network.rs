//! A project's `network` setting as the proxy's policy, and the fence bash's calls go
//! through when the network is an allow-list.

use std::sync::Arc;

use paddock_net::{CallLimits, NetworkPolicy, Proxy, SystemResolver};
use paddock_protocol::{NetworkSettings, ProjectSettings};
use paddock_tools::NetworkFence;

use crate::field_error::FieldError;

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

/// Whether `rule` is a host rule (`example.com`, `*.example.com`, `host:443`), and why not.
pub fn check_rule(rule: &str) -> Result<(), String> {
    paddock_net::HostRule::parse(rule)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The fence for these settings: none when bash has the whole network or none of it.
pub fn fence(s: &ProjectSettings) -> Option<NetworkFence> {
    if s.bash_network || s.network.is_empty() {
        return None;
    }
    match policy(&s.network) {
        Ok(policy) => Some(NetworkFence::new(
            Proxy::builder(policy).resolver(Arc::new(SystemResolver)),
            CallLimits::default(),
        )),
        // Loading refuses such a file; settings built in code get no network rather than
        // more of it.
        Err(e) => {
            tracing::warn!("network rules not used: {e}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use paddock_protocol::NetworkPreset;

    use super::*;

    #[test]
    fn a_bad_rule_is_named_and_presets_count_as_allowed() {
        let mut s = ProjectSettings::default();
        assert!(fence(&s).is_none(), "no rules: no network");
        s.network.presets = vec![NetworkPreset::Npm];
        assert_eq!(fence(&s).map(|f| f.rule_count()), Some(3));
        s.bash_network = true;
        assert!(fence(&s).is_none(), "the whole network needs no proxy");
        s.network.deny = vec!["ok.example".into(), "https://x.example/".into()];
        let e = policy(&s.network).unwrap_err();
        assert_eq!(e.field, "network.deny[1]");
    }
}
