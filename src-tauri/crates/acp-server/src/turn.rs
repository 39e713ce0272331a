//! One `session/prompt`: the run through [`RunService`] with a person approving (the
//! client), its events streamed as `session/update`s, its approvals sent as
//! `session/request_permission`, and the stop reason it ended with.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use paddock_acp::peer::RpcError;
use paddock_acp::permission;
use paddock_acp::updates::{Updates, note};
use paddock_core::EventSink;
use paddock_protocol::{AgentEvent, ExitReason, ToolCall};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::commands::Expanded;
use super::{Server, Session, lock, rpc};
use paddock_host::edit::Edit;
use paddock_host::trust::{TrustPolicy, TrustStore};
use paddock_host::{Approver, RunOptions, RunRequest, SessionTarget};

/// The agent's workspace in `root` as its settings in effect place it.
pub(super) fn workspace(trust: &TrustStore, root: &Path) -> PathBuf {
    let settings = paddock_host::edit::in_effect(trust, root)
        .map(|e| e.settings().clone())
        .unwrap_or_default();
    settings.workspace.root(root)
}

pub(super) async fn prompt(
    server: Arc<Server>,
    session: Arc<Session>,
    blocks: &Value,
) -> Result<Value, RpcError> {
    let service = &server.service;
    let root = session.root.clone();
    let workspace = workspace(service.trust(), &root);
    let mut prompt =
        paddock_acp::prompt::read(blocks, &workspace).map_err(RpcError::invalid_params)?;
    if !session.first_said.swap(true, Ordering::Relaxed) {
        say_first(&server, &session);
    }
    match super::commands::expand(service.trust(), &session, prompt.text)
        .map_err(RpcError::invalid_params)?
    {
        Expanded::Send(text) => prompt.text = text,
        Expanded::Shown(text) => {
            server.update(
                &session.id,
                paddock_acp::updates::chunk("agent_message_chunk", &text),
            );
            return Ok(json!({"stopReason": "end_turn"}));
        }
    }
    // The session file exists once a prompt was run in it (or it was loaded).
    let target = match service.store().header(&root, &session.id) {
        Ok(_) => SessionTarget::Resume(session.id.clone()),
        Err(_) => SessionTarget::NewAs(session.id.clone()),
    };
    let spent = *lock(&session.spent);
    let cancel = CancellationToken::new();
    let sink = Arc::new(Sink {
        server: server.clone(),
        session: session.clone(),
        updates: Mutex::new(Updates::new(&workspace, spent)),
        runtime: tokio::runtime::Handle::current(),
        last_error: Mutex::default(),
    });
    let options = RunOptions {
        preset: *lock(&session.mode),
        ..RunOptions::default()
    };
    let request = RunRequest {
        target,
        prompt: prompt.text,
        attachments: prompt.attachments,
        options,
        approver: Approver::Person,
        events: sink.clone(),
        cancel: Some(cancel.clone()),
        trust: TrustPolicy::SafeDefaults,
        output_schema: None,
        worktree: None,
    };
    {
        let mut running = lock(&session.running);
        if running.is_some() {
            return Err(RpcError::invalid_params(
                "a prompt is already running in this session; cancel it or wait",
            ));
        }
        *running = Some(cancel);
    }
    let _done = Done(session.clone());
    let prepared = service.prepare(&session.live, request).await.map_err(rpc)?;
    for w in &prepared.warnings {
        server.update(&session.id, note(&format!("warning: {w}")));
    }
    let report = prepared.run().await;
    *lock(&session.spent) = lock(&sink.updates).session_cost();
    if let Some(e) = report.save_error {
        server.update(
            &session.id,
            note(&format!("the session could not be saved: {e}")),
        );
    }
    let stop = match report.result.exit {
        ExitReason::EndTurn | ExitReason::LoopDetected => "end_turn",
        ExitReason::MaxTurns => "max_turn_requests",
        ExitReason::BudgetExceeded => "max_tokens",
        ExitReason::Aborted => "cancelled",
        ExitReason::Error => {
            let message = lock(&sink.last_error)
                .take()
                .unwrap_or_else(|| "the model could not be reached".to_owned());
            return Err(RpcError::internal(message));
        }
    };
    Ok(json!({"stopReason": stop}))
}

/// Tells the client once, before the first run, what it may not expect: the editor's MCP
/// servers are not started (only the project's, under its grants), and what of the folder's
/// settings waits for trust (an editor has no trust screen; safe defaults apply meanwhile).
fn say_first(server: &Server, session: &Session) {
    if !session.client_servers.is_empty() {
        server.update(
            &session.id,
            note(&format!(
                "the editor's MCP servers ({}) are not started: Paddock runs the servers in \
                 the project's settings (mcpServers), under its grants and trust",
                session.client_servers.join(", ")
            )),
        );
    }
    let Ok(effect) = paddock_host::edit::in_effect(server.service.trust(), &session.root) else {
        return;
    };
    if !effect.trust().needs_trust() {
        return;
    }
    let what: Vec<&str> = effect
        .trust()
        .pending
        .iter()
        .map(|i| i.what.as_str())
        .collect();
    server.update(
        &session.id,
        note(&format!(
            "this folder's settings wait for your trust and do not apply yet ({}). Paddock's \
             safe defaults apply meanwhile. To trust them, run `paddock trust` in {} or open \
             the folder in the Paddock app.",
            what.join("; "),
            session.root.display()
        )),
    );
}

/// Marks the session idle when the prompt ends, however it ends.
struct Done(Arc<Session>);

impl Drop for Done {
    fn drop(&mut self) {
        *lock(&self.0.running) = None;
    }
}

/// The run's events, sent to the client as they come.
struct Sink {
    server: Arc<Server>,
    session: Arc<Session>,
    updates: Mutex<Updates>,
    /// Approvals wait for the client on their own tasks.
    runtime: tokio::runtime::Handle,
    last_error: Mutex<Option<String>>,
}

impl EventSink for Sink {
    fn emit(&self, event: AgentEvent) {
        match &event {
            AgentEvent::ApprovalRequested {
                request_id,
                call,
                summary,
                proposed_rules,
                ..
            } => {
                let ask = Ask {
                    server: self.server.clone(),
                    session: self.session.clone(),
                    request_id: request_id.clone(),
                    call: call.clone(),
                    summary: summary.clone(),
                    rules: proposed_rules.clone().unwrap_or_default(),
                };
                self.runtime.spawn(ask.send());
            }
            AgentEvent::Error { message, .. } => {
                *lock(&self.last_error) = Some(message.clone());
            }
            _ => {}
        }
        let updates = lock(&self.updates).of(&event);
        for update in updates {
            self.server.update(&self.session.id, update);
        }
    }
}

/// One approval, asked of the client.
struct Ask {
    server: Arc<Server>,
    session: Arc<Session>,
    request_id: String,
    call: ToolCall,
    summary: String,
    rules: Vec<String>,
}

impl Ask {
    async fn send(self) {
        let call = &self.call;
        let params = json!({
            "sessionId": self.session.id,
            "toolCall": {
                "toolCallId": call.id,
                "title": paddock_acp::updates::title(&call.name, &self.summary),
                "kind": paddock_acp::updates::kind(&call.name),
                "status": "pending",
                "rawInput": call.input,
            },
            "options": permission::options(&call.name, &self.rules),
        });
        let response = self
            .server
            .peer
            .request("session/request_permission", params)
            .await;
        // A client that cannot answer denies, as a headless run does.
        let answer = match &response {
            Ok(r) => permission::answer(r),
            Err(e) => {
                tracing::warn!("acp: the permission request failed ({e}); the call is denied");
                permission::answer(&Value::Null)
            }
        };
        let (root, id) = (&self.session.root, &self.session.id);
        if answer.save_rules {
            let trust = self.server.service.trust();
            let saved = Edit::new(trust, root)
                .live(&self.session.live)
                .allow(&call.name, &self.rules);
            if let Err(e) = saved {
                self.server
                    .update(id, note(&format!("the rule could not be saved: {e}")));
            }
        }
        let runs = self.server.service.runs();
        // The run may have ended meanwhile (cancelled): nothing waits any more.
        if let Err(e) = runs.approve(root, id, &self.request_id, answer.decision) {
            tracing::debug!("acp: approval not delivered: {e}");
        }
    }
}
