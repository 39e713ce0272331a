//! What an external agent may reach, said before it fails: an API address in its variables
//! that its wall refuses stops it before it starts, and a host the proxy refuses while it
//! runs is named at once with the rule that would let it through — never a minutes-long
//! retry ending in "connection refused".

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

use paddock_core::EventSink;
use paddock_net::{Host, NetworkPolicy, Verdict, parse_authority_or};
use paddock_protocol::AgentEvent;

/// Whether the agent can reach what its variables name, through its wall: an error that
/// stops it naming the first address its wall refuses, else perhaps a note (a wall with no
/// network at all).
pub(super) fn check(
    agent: &str,
    vars: &[(String, String)],
    env: &paddock_tools::ToolEnv,
) -> Result<Option<String>, String> {
    if env.sandbox.bash_network {
        return Ok(None);
    }
    if let (Some(fence), Some(_)) = (&env.network, env.sandbox.network_rules) {
        return check_addresses(agent, vars, &fence.proxy().policy()).map(|()| None);
    }
    let first = vars
        .iter()
        .find_map(|(name, value)| address_in(value).map(|(host, port)| (name, value, host, port)));
    match first {
        Some((name, value, host, port)) => Err(format!(
            "{agent}'s {name} is {value}, but its wall has no network (neither the project nor              you allowed it a host): add \"{rule}\" to its hosts in agents.json",
            rule = paddock_wall::network::rule_for(&host.to_string(), port)
        )),
        None => Ok(Some(format!(
            "{agent}'s wall has no network (neither the project nor you allowed it a host), so              it can reach no API: add its API's host to its hosts in agents.json"
        ))),
    }
}

/// The first address in the agent's variables (`ANTHROPIC_BASE_URL=http://127.0.0.1:8080`)
/// that `policy` denies, as the message that stops it. Hosts that would be asked about pass:
/// the user is asked when the agent connects.
fn check_addresses(
    agent: &str,
    vars: &[(String, String)],
    policy: &NetworkPolicy,
) -> Result<(), String> {
    for (name, value) in vars {
        let Some((host, port)) = address_in(value) else {
            continue;
        };
        let decision = policy.decide(&host, port);
        if decision.verdict == Verdict::Deny {
            let rule = paddock_wall::network::rule_for(&host.to_string(), port);
            return Err(format!(
                "{agent}'s {name} is {value}, which its wall does not let it reach ({why}): add \
                 \"{rule}\" to its hosts in agents.json",
                why = decision.why
            ));
        }
    }
    Ok(())
}

/// The host and port of an `http://` or `https://` address.
fn address_in(value: &str) -> Option<(Host, u16)> {
    let (scheme, rest) = value.trim().split_once("://")?;
    let default = match scheme.to_ascii_lowercase().as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    parse_authority_or(authority, default).ok()
}

/// Takes the agent's connections as they happen and says each refused host once, with the
/// rule that would let it through. Allowed ones are summed up when it stops.
pub(super) struct RefusedHosts {
    agent: String,
    events: Arc<dyn EventSink>,
    refused: Mutex<BTreeSet<String>>,
}

impl RefusedHosts {
    pub(super) fn new(agent: &str, events: Arc<dyn EventSink>) -> Self {
        Self {
            agent: agent.to_owned(),
            events,
            refused: Mutex::new(BTreeSet::new()),
        }
    }

    /// Every host:port refused so far.
    pub(super) fn refused(&self) -> Vec<String> {
        self.lock().iter().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        self.refused.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl EventSink for RefusedHosts {
    fn emit(&self, event: AgentEvent) {
        let AgentEvent::Connection(c) = event else {
            return;
        };
        let (false, Some(host), Some(port)) = (c.allowed, &c.host, c.port) else {
            return;
        };
        let rule = paddock_wall::network::rule_for(host, port);
        if !self.lock().insert(rule.clone()) {
            return;
        }
        self.events.emit(AgentEvent::warning(format!(
            "{agent} was refused {rule}: {why}. To let it through, add \"{rule}\" to its hosts \
             in agents.json (or to the project's network.allow)",
            agent = self.agent,
            why = c.why.trim_end_matches('.'),
        )));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::NetworkConnection;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn an_address_its_wall_refuses_stops_the_agent_by_name() {
        let none = NetworkPolicy::default();
        let err = check_addresses(
            "claude",
            &vars(&[
                ("MODE", "fast"),
                ("ANTHROPIC_BASE_URL", "http://127.0.0.1:8080/v1"),
            ]),
            &none,
        )
        .unwrap_err();
        assert!(err.starts_with("claude's ANTHROPIC_BASE_URL is http://127.0.0.1:8080/v1"));
        assert!(err.contains("add \"127.0.0.1:8080\" to its hosts"), "{err}");
        // Allowed by a rule: it starts.
        let allowed = NetworkPolicy::from_lists(&["127.0.0.1:8080"], &[], &[]).unwrap();
        let ok = vars(&[("ANTHROPIC_BASE_URL", "http://127.0.0.1:8080/v1")]);
        assert!(check_addresses("claude", &ok, &allowed).is_ok());
        // A public host no rule names is asked about when it connects, not refused here.
        let public = vars(&[("OPENAI_BASE_URL", "https://user:pw@api.example.com/v1")]);
        assert!(check_addresses("codex", &public, &none).is_ok());
        let denied = NetworkPolicy::from_lists::<&str>(&[], &[], &["api.example.com"]).unwrap();
        let err = check_addresses("codex", &public, &denied).unwrap_err();
        assert!(err.contains("\"api.example.com:443\""), "{err}");
        assert!(
            !err.contains("pw@") || err.contains("OPENAI_BASE_URL"),
            "{err}"
        );
    }

    #[test]
    fn a_refused_host_is_said_once_with_its_rule() {
        #[derive(Default)]
        struct Seen(Mutex<Vec<AgentEvent>>);
        impl EventSink for Seen {
            fn emit(&self, e: AgentEvent) {
                self.0.lock().unwrap().push(e);
            }
        }
        let seen = Arc::new(Seen::default());
        let sink = RefusedHosts::new("claude", seen.clone());
        let connection = |host: &str, allowed: bool| {
            AgentEvent::Connection(NetworkConnection {
                call_id: "claude".into(),
                method: Some("CONNECT".into()),
                host: Some(host.into()),
                port: Some(443),
                allowed,
                asked: false,
                rule: None,
                why: "no rule names it, so it is asked about; nobody could answer".into(),
                bytes_up: 0,
                bytes_down: 0,
                duration_ms: 1,
                error: None,
            })
        };
        sink.emit(connection("api.anthropic.com", false));
        sink.emit(connection("api.anthropic.com", false));
        sink.emit(connection("ok.example.com", true));
        let said = seen.0.lock().unwrap();
        assert_eq!(said.len(), 1, "{said:?}");
        let AgentEvent::Warning { message, .. } = &said[0] else {
            panic!("{said:?}")
        };
        assert!(
            message.contains("claude was refused api.anthropic.com:443"),
            "{message}"
        );
        assert!(message.contains("add \"api.anthropic.com:443\" to its hosts"));
        assert_eq!(sink.refused(), ["api.anthropic.com:443"]);
    }
}
