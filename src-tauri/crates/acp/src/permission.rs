//! A Paddock approval request as ACP's `session/request_permission`, and the client's choice
//! back as Paddock's decision. The client picks by option kind; the ids are Paddock's.

use paddock_protocol::ApprovalDecision;
use serde_json::{Value, json};

/// Option ids offered.
pub const ONCE: &str = "once";
pub const SESSION: &str = "session";
pub const RULE: &str = "rule";
pub const REJECT: &str = "reject";

/// What to do with the client's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub decision: ApprovalDecision,
    /// Save the proposed rules to the project's settings ("Always allow"), then run it.
    pub save_rules: bool,
}

/// The options for a call of `tool`; "Always allow" names the rules it would save, and is
/// offered only when some rule could allow calls like this one.
pub fn options(tool: &str, proposed_rules: &[String]) -> Vec<Value> {
    let mut options = vec![
        json!({"optionId": ONCE, "name": "Allow once", "kind": "allow_once"}),
        json!({"optionId": SESSION, "name": format!("Allow {tool} for this session"), "kind": "allow_always"}),
    ];
    if !proposed_rules.is_empty() {
        options.push(json!({
            "optionId": RULE,
            "name": format!(
                "Always allow {tool} {} (saved in the project's rules)",
                proposed_rules.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(" or ")
            ),
            "kind": "allow_always",
        }));
    }
    options.push(json!({"optionId": REJECT, "name": "Deny", "kind": "reject_once"}));
    options
}

/// The client's answer (`RequestPermissionResponse`); cancelled, unknown or malformed ones
/// deny.
pub fn answer(response: &Value) -> Answer {
    let outcome = &response["outcome"];
    let chosen = match outcome["outcome"].as_str() {
        Some("selected") => outcome["optionId"].as_str(),
        _ => None,
    };
    let (decision, save_rules) = match chosen {
        Some(ONCE) => (ApprovalDecision::Once, false),
        Some(SESSION) => (ApprovalDecision::Session, false),
        Some(RULE) => (ApprovalDecision::Once, true),
        _ => (ApprovalDecision::Deny, false),
    };
    Answer {
        decision,
        save_rules,
    }
}

/// The client side: Paddock's answer to an external agent's request, as its outcome. The
/// option is chosen by kind (its ids are the agent's): allow once, else any allow; reject
/// once, else any reject; with no such option, cancelled (which the agent takes as no).
pub fn outcome(options: &Value, allowed: bool) -> Value {
    let options = options.as_array().map(Vec::as_slice).unwrap_or_default();
    let wanted: &[&str] = if allowed {
        &["allow_once", "allow_always"]
    } else {
        &["reject_once", "reject_always"]
    };
    let chosen = wanted.iter().find_map(|kind| {
        options
            .iter()
            .find(|o| o["kind"] == *kind)
            .and_then(|o| o["optionId"].as_str())
    });
    match chosen {
        Some(id) => json!({"outcome": {"outcome": "selected", "optionId": id}}),
        None => json!({"outcome": {"outcome": "cancelled"}}),
    }
}
