//! `paddock hooks`: the hooks a project's runs see; and, for `rules explain --run-hooks`,
//! what the hooks before a call decide of it.

use std::path::Path;
use std::sync::Arc;

use paddock_host::hooks::{HookVerdict, PreToolUse};
use paddock_host::session::SessionStore;
use paddock_host::trust::TrustStore;
use paddock_host::{Project, RunService, canonical_dir};
use paddock_protocol::{HookRun, ToolCall};
use serde_json::Value;

use crate::cli::HooksAction;
use crate::exit::{CliError, Code};
use crate::files::project_dir;
use crate::keys::CliKeys;
use crate::output;

pub fn run(project: Option<&Path>, action: &HooksAction) -> Result<Code, CliError> {
    let root = canonical_dir(&project_dir(project)?)?;
    let service = RunService::new(
        SessionStore::open_default()?,
        Arc::new(CliKeys),
        TrustStore::open_default()?,
    );
    let hooks = service.hook_list(&root)?;
    match action {
        HooksAction::List { json: true } => {
            for hook in &hooks {
                output::json_line(&serde_json::to_value(hook).unwrap_or_default());
            }
        }
        HooksAction::List { json: false } => {
            if hooks.is_empty() {
                output::out(
                    "No hooks: add them under \"hooks\" in .paddock/settings.json, or in \
                     hooks.json in Paddock's config folder.\n",
                );
            }
            for h in &hooks {
                let mut line = format!("{:<8} {}", h.source, h.title);
                if h.fail_closed {
                    line.push_str(" [fail-closed]");
                }
                if h.waiting {
                    line.push_str(" [waits for trust: paddock trust]");
                }
                output::out(&format!("{line}\n"));
            }
        }
    }
    Ok(Code::Success)
}

/// Runs the hooks before `tool` with `input` now (behind the wall).
pub async fn try_call(
    config_dir: &Path,
    project: &Project,
    tool: &str,
    input: Value,
) -> Result<(Vec<HookRun>, String), CliError> {
    let call = ToolCall {
        id: "explain".into(),
        name: tool.to_owned(),
        input,
        parsed_from_text: false,
    };
    let (runs, decided) = paddock_host::hooks::try_call(config_dir, project, &call).await?;
    Ok((runs, verdict_words(&decided)))
}

fn verdict_words(decided: &PreToolUse) -> String {
    let verdict = match &decided.verdict {
        None => "no hook decides: the grants do".to_owned(),
        Some(HookVerdict::Allow) => "allowed by a hook (an Ask of its grant is skipped)".into(),
        Some(HookVerdict::Ask(why)) => format!("a hook asks first: {why}"),
        Some(HookVerdict::Deny(why)) => format!("refused by a hook: {why}"),
    };
    match &decided.input {
        Some(input) => format!("{verdict}; rewritten to {input}"),
        None => verdict,
    }
}

/// The hooks' runs and their verdict, in lines.
pub fn describe_trial(runs: &[HookRun], verdict: &str) -> String {
    let mut out = String::new();
    for r in runs {
        out.push_str(&format!(
            "hook {}: {:?} ({} ms)",
            r.hook, r.outcome, r.duration_ms
        ));
        if let Some(m) = &r.message {
            out.push_str(&format!(" — {m}"));
        }
        out.push('\n');
    }
    out.push_str(&format!("Hooks: {verdict}\n"));
    out
}
