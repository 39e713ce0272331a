//! Grants by argument: rules over a call's input (a bash command, a file path) that refine a
//! tool's grant per call. The core only asks; the host wires a rule book (the `paddock-rules`
//! crate) behind [`CallRules`]. Deny beats ask beats allow; no matching rule leaves the tool's
//! own grant; the framework's deny list, a run's ceiling and a caller's limit stay above all.

use std::sync::{Arc, PoisonError, RwLock};

use paddock_protocol::Grant;
use serde_json::Value;

/// What the rules say about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleVerdict {
    /// `None`: no rule matched; the tool's grant decides.
    pub action: Option<Grant>,
    /// One sentence for the user: which rule matched, or that none did (empty when there
    /// are no rules at all: the grant's reason is the whole why).
    pub why: String,
}

/// A set of argument rules.
pub trait CallRules: Send + Sync {
    fn decide(&self, tool: &str, input: &Value) -> RuleVerdict;

    /// Whether a rule could allow or ask for some call of `tool` (it is then shown to the
    /// model even when the tool itself is not granted).
    fn may_allow(&self, tool: &str) -> bool;

    /// The narrowest rules that would allow this call ("Always allow"); `None` when no rule
    /// can (the call has a construct that always asks).
    fn propose(&self, tool: &str, input: &Value) -> Option<Vec<String>>;

    /// The rules for a path a search tool found inside its walk (`rel`: relative to the
    /// workspace, real: the walk follows no link), so grep and glob over a folder leave out
    /// what the rules keep from that tool.
    fn decide_found(&self, tool: &str, rel: &str) -> RuleVerdict {
        self.decide(tool, &serde_json::json!({ "path": rel }))
    }
}

/// The rules in force, replaceable while runs go on (a rule saved from an approval card
/// applies to the next call).
#[derive(Clone, Default)]
pub struct RuleBook(Arc<RwLock<Option<Arc<dyn CallRules>>>>);

impl RuleBook {
    pub fn new(rules: Option<Arc<dyn CallRules>>) -> Self {
        Self(Arc::new(RwLock::new(rules)))
    }

    pub fn replace(&self, rules: Option<Arc<dyn CallRules>>) {
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = rules;
    }

    pub fn current(&self) -> Option<Arc<dyn CallRules>> {
        self.0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl std::fmt::Debug for RuleBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.current().is_some() {
            "RuleBook(rules)"
        } else {
            "RuleBook(none)"
        })
    }
}

/// Two policies with the same book compare equal (the book is shared, not copied).
impl PartialEq for RuleBook {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for RuleBook {}
