//! Saved prompts as the editor's slash commands: listed as ACP's available commands, and
//! `/name args` filled in before the run. A project's prompt (a cloned repository wrote it)
//! is shown in full the first time and sent only when the user sends it again unchanged.

use std::path::Path;

use paddock_protocol::{PromptSource, PromptStatus};
use serde_json::{Value, json};

use super::{Session, lock};
use paddock_host::prompts::{SavedPrompts, parse_invocation};
use paddock_host::trust::TrustStore;

/// The `available_commands_update` for the project's and the user's saved prompts.
pub(super) fn available(trust: &TrustStore, root: &Path) -> Value {
    let commands: Vec<Value> = SavedPrompts::new(trust, root)
        .list()
        .into_iter()
        .filter(|p| p.error.is_none())
        .map(|p| {
            let mut description = p.description.clone();
            if p.source == PromptSource::Project && p.status != PromptStatus::Ready {
                description.push_str(" (the project's: shown before it is first sent)");
            }
            let mut c = json!({"name": p.name, "description": description});
            if let (Some(hint), Some(o)) = (&p.argument_hint, c.as_object_mut()) {
                o.insert("input".into(), json!({"hint": hint}));
            }
            c
        })
        .collect();
    json!({"sessionUpdate": "available_commands_update", "availableCommands": commands})
}

/// What to do with a prompt's text.
pub(super) enum Expanded {
    /// Run this text.
    Send(String),
    /// Run nothing; tell the user this (a project prompt shown for the first time).
    Shown(String),
}

/// `text` as typed, or the saved prompt it invokes filled in.
pub(super) fn expand(
    trust: &TrustStore,
    session: &Session,
    text: String,
) -> Result<Expanded, String> {
    let Some((name, args)) = parse_invocation(&text) else {
        return Ok(Expanded::Send(text));
    };
    let prompts = SavedPrompts::new(trust, &session.root);
    let expanded = prompts.expand(name, args).map_err(|e| e.to_string())?;
    if !expanded.needs_confirmation {
        return Ok(Expanded::Send(expanded.text));
    }
    let mut shown = lock(&session.shown);
    if shown.get(name) == Some(&expanded.digest) {
        // Shown in this session, unchanged since: sending it again is the confirmation.
        let sent = prompts
            .confirm(name, args, &expanded.digest)
            .map_err(|e| e.to_string())?;
        return Ok(Expanded::Send(sent.text));
    }
    shown.insert(name.to_owned(), expanded.digest.clone());
    Ok(Expanded::Shown(format!(
        "/{name} is this project's saved prompt ({}), written by whoever wrote the folder. \
         Nothing was sent. This is all of it:\n\n````markdown\n{}\n````\n\nSend /{name} again to \
         send it.",
        expanded.path, expanded.file_text
    )))
}
