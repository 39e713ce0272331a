//! Every hook of a configuration, in the shape the file gives them (events, then matcher
//! groups, then hooks), and the question the host asks of it: which hooks run now.

pub(crate) mod parse;

use std::collections::HashSet;

use serde::{Serialize, Serializer};
use serde_json::{Map, Value, json};

use crate::event::HookPoint;
use crate::hook::Hook;
use crate::subject::Subject;

/// A hook configuration: what goes under `hooks` in the settings. Read from Paddock's,
/// Claude Code's or Codex's shape (`HooksConfig::from_json`), written back in Paddock's
/// (events under the names they were written by, matcher groups and hooks in file order).
///
/// Equality is over what the file says, in its order (white space and the order of a hook's
/// or a group's keys do not count; the events' order and spelling do).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HooksConfig {
    pub(crate) events: Vec<EventHooks>,
}

/// One event's key and its matcher groups.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EventHooks {
    /// The key as written (`PreToolUse` or `pre_tool_use`), kept for writing back.
    pub(crate) key: String,
    pub(crate) event: HookPoint,
    pub(crate) groups: Vec<HookGroup>,
}

/// Hooks that share a matcher.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HookGroup {
    pub(crate) matcher: Option<String>,
    pub(crate) hooks: Vec<Hook>,
}

impl HooksConfig {
    pub fn is_empty(&self) -> bool {
        self.hooks().next().is_none()
    }

    /// How many hooks there are.
    pub fn len(&self) -> usize {
        self.hooks().count()
    }

    /// Every hook, in file order.
    pub fn hooks(&self) -> impl Iterator<Item = &Hook> {
        self.events
            .iter()
            .flat_map(|e| e.groups.iter())
            .flat_map(|g| g.hooks.iter())
    }

    /// Keeps only the hooks `keep` accepts (groups and events left empty go too); returns
    /// how many went.
    pub fn retain(&mut self, mut keep: impl FnMut(&Hook) -> bool) -> usize {
        let before = self.len();
        for e in &mut self.events {
            for g in &mut e.groups {
                g.hooks.retain(&mut keep);
            }
            e.groups.retain(|g| !g.hooks.is_empty());
        }
        self.events.retain(|e| !e.groups.is_empty());
        before - self.len()
    }

    /// The hooks of `event` that run for `subject`, in file order. A hook given twice (the
    /// same digest: same command, matcher, rule, limits) is listed once, as Claude Code runs
    /// an identical handler once.
    pub fn matching(&self, event: HookPoint, subject: &Subject<'_>) -> Vec<&Hook> {
        let mut seen = HashSet::new();
        self.hooks()
            .filter(|h| h.event == event && h.matches(subject))
            .filter(|h| seen.insert(h.digest.as_str()))
            .collect()
    }

    /// The configuration in Paddock's shape, as the settings file holds it.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        for e in &self.events {
            let groups: Vec<Value> = e
                .groups
                .iter()
                .map(|g| {
                    let mut group = Map::new();
                    if let Some(m) = &g.matcher {
                        group.insert("matcher".into(), json!(m));
                    }
                    let hooks: Vec<Value> = g.hooks.iter().map(Hook::to_json).collect();
                    group.insert("hooks".into(), Value::Array(hooks));
                    Value::Object(group)
                })
                .collect();
            out.insert(e.key.clone(), Value::Array(groups));
        }
        Value::Object(out)
    }
}

impl Serialize for HooksConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}
