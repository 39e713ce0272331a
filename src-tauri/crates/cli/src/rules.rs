//! `paddock rules`: the project's argument rules, and which rule or grant would decide a
//! call (nothing runs) — the same answer the app's "Test a call" box gives.

use std::path::Path;

use paddock_host::edit::in_effect;
use paddock_host::explain::{explain, input_for};
use paddock_host::trust::TrustStore;
use paddock_host::{RunLimits, canonical_dir};
use paddock_protocol::{CallExplanation, Grant, RuleEntry};

use crate::cli::RulesAction;
use crate::exit::{CliError, Code};
use crate::files::project_dir;
use crate::output;

pub async fn run(project: Option<&Path>, action: &RulesAction) -> Result<Code, CliError> {
    let root = canonical_dir(&project_dir(project)?)?;
    let store = TrustStore::open_default()?;
    let now = in_effect(&store, &root)?;
    if let Some(e) = &now.trust().error {
        return Err(CliError::failure(e.clone()));
    }
    // Rules that grant wait for the folder's trust, as they do in a run.
    let waiting: Vec<String> = now
        .trust()
        .pending
        .iter()
        .filter(|i| {
            ["rules.", "tools.", "network."]
                .iter()
                .any(|k| i.key.starts_with(k))
        })
        .map(|i| i.key.clone())
        .collect();
    let stored = now.written();
    let project = now.project();
    match action {
        RulesAction::Explain {
            host: Some(host),
            json,
            ..
        } => {
            let explained = paddock_host::network::explain(project.settings(), host)?;
            if *json {
                output::json_line(&serde_json::to_value(&explained).unwrap_or_default());
            } else {
                let verdict = match explained.decision {
                    Grant::Allow => "reached through the proxy",
                    Grant::Ask => "asked about in the app, refused headless",
                    Grant::Deny => "refused",
                };
                output::out(&format!(
                    "{}: {verdict} — {}\n",
                    explained.target, explained.why
                ));
            }
            note_waiting(&waiting);
        }
        RulesAction::Explain {
            tool,
            json,
            call,
            run_hooks,
            ..
        } => {
            let input = input_for(tool, &call.join(" "))?;
            let config = store.config_dir();
            let explained = explain(&project, &RunLimits::default(), tool, &input, config)?;
            let tried = match run_hooks {
                true => Some(crate::hooks::try_call(config, &project, tool, input).await?),
                false => None,
            };
            if *json {
                let mut v = serde_json::to_value(&explained).unwrap_or_default();
                if let Some((runs, verdict)) = &tried {
                    v["hook_runs"] = serde_json::to_value(runs).unwrap_or_default();
                    v["hook_verdict"] = serde_json::json!(verdict);
                }
                output::json_line(&v);
            } else {
                output::out(&describe(&explained));
                if let Some((runs, verdict)) = &tried {
                    output::out(&crate::hooks::describe_trial(runs, verdict));
                }
            }
            note_waiting(&waiting);
        }
        RulesAction::List { json } => {
            if *json {
                output::json_line(&serde_json::to_value(&stored.rules).unwrap_or_default());
            } else {
                list(&stored.rules, &waiting);
            }
        }
    }
    Ok(Code::Success)
}

fn note_waiting(waiting: &[String]) {
    if !waiting.is_empty() {
        output::err(&format!(
            "paddock: note: {} wait(s) for the folder's trust and did not count (see `paddock trust`)",
            waiting.join(", ")
        ));
    }
}

fn describe(e: &CallExplanation) -> String {
    let verdict = match e.decision {
        Grant::Allow => "runs",
        Grant::Ask => "asks first",
        Grant::Deny => "refused",
    };
    let mut out = format!("{}: {verdict} — {}\n", e.tool, e.why);
    if !e.hooks.is_empty() {
        out.push_str(&format!(
            "Hooks run before it and may still allow, ask, deny or rewrite it (--run-hooks \
             runs them): {}\n",
            e.hooks.join("; ")
        ));
    }
    if !e.proposed_rules.is_empty() {
        out.push_str(&format!(
            "\"Always allow\" would save to rules.{}: {}\n",
            e.tool,
            e.proposed_rules
                .iter()
                .map(|p| format!("{{\"allow\": {}}}", serde_json::Value::String(p.clone())))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out
}

fn list(rules: &std::collections::BTreeMap<String, Vec<RuleEntry>>, waiting: &[String]) {
    if rules.is_empty() {
        output::out("No rules: each tool's grant decides every call.\n");
        return;
    }
    for (tool, entries) in rules {
        let untrusted = waiting.iter().any(|k| *k == format!("rules.{tool}"));
        for (i, entry) in entries.iter().enumerate() {
            let action = match entry.grant() {
                Grant::Allow => "allow",
                Grant::Ask => "ask",
                Grant::Deny => "deny",
            };
            let note = if untrusted && entry.grant() != Grant::Deny {
                "  (waits for trust)"
            } else {
                ""
            };
            output::out(&format!(
                "rules.{tool}[{i}]  {action:5}  {}{note}\n",
                entry.pattern()
            ));
        }
    }
}
