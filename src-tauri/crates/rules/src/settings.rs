//! Reading the `rules` object of the settings file into specs, with errors that name the
//! key and index the way the file does (`rules.bash[3]: …`).

use serde_json::Value;

use crate::error::RuleError;
use crate::{Action, RuleSpec};

const ACTIONS: [(&str, Action); 3] = [
    ("allow", Action::Allow),
    ("ask", Action::Ask),
    ("deny", Action::Deny),
];

/// Reads `{"bash": [{"allow": "git status"}, …], …}`. Each entry has exactly one of
/// `allow`, `ask`, `deny`, whose value is the pattern; order within a key is kept.
/// Patterns are checked by [`crate::Rules::compile`].
pub fn specs_from_json(rules: &Value) -> Result<Vec<RuleSpec>, RuleError> {
    let Some(map) = rules.as_object() else {
        return Err(RuleError::Shape {
            reason: "expected an object of tool names to lists of rules".to_owned(),
        });
    };
    let mut specs = Vec::new();
    for (tool, list) in map {
        let Some(list) = list.as_array() else {
            return Err(RuleError::Key {
                tool: tool.clone(),
                reason: "expected a list of rules".to_owned(),
            });
        };
        for (index, entry) in list.iter().enumerate() {
            let error = |reason: String| RuleError::Rule {
                tool: tool.clone(),
                index,
                reason,
            };
            let Some(entry) = entry.as_object() else {
                return Err(error(
                    "expected an object like {\"allow\": \"pattern\"}".to_owned(),
                ));
            };
            if let Some(unknown) = entry.keys().find(|k| !ACTIONS.iter().any(|(a, _)| a == k)) {
                return Err(error(format!(
                    "unknown key \"{unknown}\" (expected allow, ask or deny)"
                )));
            }
            let present: Vec<&(&str, Action)> = ACTIONS
                .iter()
                .filter(|(a, _)| entry.contains_key(*a))
                .collect();
            let (name, action) = match present.as_slice() {
                [one] => **one,
                [] => {
                    return Err(error(
                        "no action (expected one of allow, ask, deny)".to_owned(),
                    ));
                }
                _ => {
                    let names: Vec<&str> = present.iter().map(|(a, _)| *a).collect();
                    return Err(error(format!(
                        "has both {}; a rule has exactly one action",
                        names.join(" and ")
                    )));
                }
            };
            let Some(pattern) = entry.get(name).and_then(Value::as_str) else {
                return Err(error(format!(
                    "the value of \"{name}\" must be a string pattern"
                )));
            };
            specs.push(RuleSpec {
                tool: tool.clone(),
                action,
                pattern: pattern.to_owned(),
            });
        }
    }
    Ok(specs)
}
