//! Paddock as an ACP agent (`paddock acp`): an editor drives the project's fenced agent over
//! stdio. Each ACP session is a Paddock session of the folder the client names as `cwd`,
//! under the same trust, grants, path guard and wall as the app's; approvals become the
//! client's permission requests. Prompts run on tasks of their own, so a prompt under way
//! never blocks a cancel; the other requests are quick and answered in the order they come,
//! so a prompt sent right behind `session/load` finds its session. When the client closes
//! its end, every request it sent is still answered (prompts run to their end) before
//! `serve` returns.

mod commands;
mod turn;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};

use paddock_acp::codes;
use paddock_acp::peer::{Incoming, Peer, RpcError, connect};
use paddock_protocol::ToolPreset;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use paddock_host::KeyStore;
use paddock_host::{HostError, HostErrorKind, LiveProject, RunService, ServerPath, canonical_dir};

/// The mode that leaves the grants to the project's settings.
const SETTINGS_MODE: &str = "settings";

/// One ACP session: a Paddock session id (its file is written with the first prompt), its
/// folder, and the preset chosen as its mode.
struct Session {
    id: String,
    root: PathBuf,
    live: Arc<LiveProject>,
    mode: Mutex<Option<ToolPreset>>,
    /// The prompt running now, to cancel.
    running: Mutex<Option<CancellationToken>>,
    /// Said once, with the first prompt: what waits for trust, what was not started.
    first_said: std::sync::atomic::AtomicBool,
    /// The MCP servers the client asked for (by name): not started, and said so.
    client_servers: Vec<String>,
    /// Project prompts shown in this session (name -> digest): sent when sent again.
    shown: Mutex<HashMap<String, String>>,
    /// What the session has cost so far, in dollars (`None`: some price unknown).
    spent: Mutex<Option<f64>>,
}

/// What one connection shares between its requests.
struct Server {
    service: Arc<RunService>,
    keys: Arc<dyn KeyStore>,
    peer: Arc<Peer>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    projects: Mutex<HashMap<PathBuf, Arc<LiveProject>>>,
}

/// Serves one client on `reader`/`writer` until it closes its end and every request it sent
/// is answered; stops the MCP servers it started on the way out.
pub async fn serve<R, W>(service: Arc<RunService>, keys: Arc<dyn KeyStore>, reader: R, writer: W)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (peer, mut incoming) = connect(reader, writer);
    let server = Arc::new(Server {
        service,
        keys,
        peer,
        sessions: Mutex::default(),
        projects: Mutex::default(),
    });
    let mut prompts = JoinSet::new();
    while let Some(message) = incoming.recv().await {
        match message {
            Incoming::Request { id, method, params } if method == "session/prompt" => {
                let server = server.clone();
                prompts.spawn(async move { server.serve_request(id, &method, params).await });
            }
            Incoming::Request { id, method, params } => {
                server.serve_request(id, &method, params).await;
            }
            Incoming::Notification { method, params } => server.notified(&method, &params),
        }
        while prompts.try_join_next().is_some() {}
    }
    // No more requests: the prompts under way still run to their end and are answered,
    // unless nobody reads any more (then they stop).
    let mut stopped = false;
    loop {
        tokio::select! {
            next = prompts.join_next() => if next.is_none() { break },
            () = server.peer.closed(), if !stopped => {
                stopped = true;
                server.cancel_all();
            }
        }
    }
    // Every answer written before the process may exit; then the servers the prompts used.
    server.peer.close().await;
    let projects: Vec<Arc<LiveProject>> = lock(&server.projects).values().cloned().collect();
    for live in projects {
        live.shutdown().await;
    }
}

impl Server {
    /// Handles one request and answers it.
    async fn serve_request(self: &Arc<Self>, id: Value, method: &str, params: Value) {
        let asked = params["sessionId"].as_str().map(str::to_owned);
        let answer = self.handle(method, params).await;
        let opened = match (&answer, method) {
            (Ok(r), "session/new") => r["sessionId"].as_str().map(str::to_owned),
            (Ok(_), "session/load") => asked,
            _ => None,
        };
        if let Err(e) = &answer {
            tracing::debug!(method, "acp: refused: {}", e.message);
        }
        self.peer.respond(id, answer);
        // After the answer: the client knows the session by then.
        if let Some(id) = opened {
            self.opened(&id);
        }
    }

    /// Stops every prompt under way.
    fn cancel_all(&self) {
        for session in lock(&self.sessions).values() {
            if let Some(token) = lock(&session.running).as_ref() {
                tracing::info!(session = %session.id, "acp: the client stopped reading; prompt cancelled");
                token.cancel();
            }
        }
    }

    async fn handle(self: &Arc<Self>, method: &str, params: Value) -> Result<Value, RpcError> {
        match method {
            "initialize" => Ok(initialize(&params)),
            "authenticate" => Err(RpcError::invalid_params(
                "Paddock needs no sign-in: it reads API keys from the keychain or the environment",
            )),
            "session/new" => self.new_session(&params),
            "session/load" => self.load_session(&params),
            "session/prompt" => {
                let session = self.session(&params)?;
                turn::prompt(self.clone(), session, &params["prompt"]).await
            }
            "session/set_mode" => self.set_mode(&params),
            "session/list" => self.list(&params),
            _ => Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                format!("Paddock does not offer {method}"),
            )),
        }
    }

    fn notified(&self, method: &str, params: &Value) {
        if method == "session/cancel"
            && let Ok(session) = self.session(params)
            && let Some(token) = lock(&session.running).as_ref()
        {
            tracing::info!(session = %session.id, "acp: prompt cancelled by the client");
            token.cancel();
        }
    }

    fn session(&self, params: &Value) -> Result<Arc<Session>, RpcError> {
        let id = params["sessionId"].as_str().unwrap_or_default();
        lock(&self.sessions).get(id).cloned().ok_or_else(|| {
            RpcError::new(
                codes::RESOURCE_NOT_FOUND,
                format!("no session {id} in this connection: create or load it first"),
            )
        })
    }

    /// The folder the client named, resolved, with its live project (one per folder).
    fn project(&self, params: &Value) -> Result<(PathBuf, Arc<LiveProject>), RpcError> {
        let cwd = params["cwd"].as_str().unwrap_or_default();
        if !Path::new(cwd).is_absolute() {
            return Err(RpcError::invalid_params(format!(
                "cwd must be an absolute path (got {cwd:?})"
            )));
        }
        let root = canonical_dir(Path::new(cwd)).map_err(rpc)?;
        let live = lock(&self.projects)
            .entry(root.clone())
            .or_insert_with(|| {
                // Started by an editor: its PATH as is; provider keys stay out of servers.
                Arc::new(
                    LiveProject::new(root.clone(), ServerPath::Inherit)
                        .with_keys(self.keys.clone()),
                )
            })
            .clone();
        Ok((root, live))
    }

    fn new_session(&self, params: &Value) -> Result<Value, RpcError> {
        let (root, live) = self.project(params)?;
        let id = paddock_host::session::new_session_id();
        self.open(id.clone(), root.clone(), live, params, Some(0.0));
        tracing::info!(session = %id, project = %root.display(), "acp: session created");
        Ok(json!({"sessionId": id, "modes": self.modes(&root, None)}))
    }

    /// Replays a stored session, then answers (ACP: the whole conversation comes first).
    fn load_session(&self, params: &Value) -> Result<Value, RpcError> {
        let (root, live) = self.project(params)?;
        let id = params["sessionId"].as_str().unwrap_or_default().to_owned();
        let stored =
            self.service.store().load(&root, &id).map_err(|e| {
                RpcError::new(codes::RESOURCE_NOT_FOUND, format!("session {id}: {e}"))
            })?;
        let workspace = turn::workspace(self.service.trust(), &root);
        let spent = paddock_host::session::session_cost(&stored.events).map(|c| c.usd);
        let updates = paddock_acp::updates::Updates::new(&workspace, spent);
        for update in paddock_acp::replay::replay(&stored.messages, &stored.events, &updates) {
            self.update(&id, update);
        }
        self.open(id.clone(), root.clone(), live, params, spent);
        Ok(json!({"modes": self.modes(&root, None)}))
    }

    fn open(
        &self,
        id: String,
        root: PathBuf,
        live: Arc<LiveProject>,
        params: &Value,
        spent: Option<f64>,
    ) {
        let client_servers = params["mcpServers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["name"].as_str().map(str::to_owned))
            .collect();
        let session = Session {
            id: id.clone(),
            root,
            live,
            mode: Mutex::default(),
            running: Mutex::default(),
            first_said: std::sync::atomic::AtomicBool::new(false),
            client_servers,
            shown: Mutex::default(),
            spent: Mutex::new(spent),
        };
        lock(&self.sessions).insert(id, Arc::new(session));
    }

    /// What a client learns once a session is open: the saved prompts it may invoke.
    fn opened(&self, id: &str) {
        let Some(session) = lock(&self.sessions).get(id).cloned() else {
            return;
        };
        self.update(id, commands::available(self.service.trust(), &session.root));
    }

    /// The stored sessions of the folder named (or of the folders this connection opened),
    /// newest first.
    fn list(&self, params: &Value) -> Result<Value, RpcError> {
        let roots: Vec<PathBuf> = match params["cwd"].as_str() {
            Some(_) => vec![self.project(params)?.0],
            None => lock(&self.projects).keys().cloned().collect(),
        };
        let mut sessions = Vec::new();
        for root in roots {
            let cwd = root.to_string_lossy();
            for s in self
                .service
                .store()
                .list(&root)
                .map_err(|e| rpc(e.into()))?
            {
                sessions.push(json!({
                    "sessionId": s.id,
                    "cwd": cwd,
                    "title": s.title,
                    "updatedAt": s.updated,
                }));
            }
        }
        Ok(json!({"sessions": sessions}))
    }

    fn set_mode(&self, params: &Value) -> Result<Value, RpcError> {
        let session = self.session(params)?;
        let mode = params["modeId"].as_str().unwrap_or_default();
        let preset = match mode {
            SETTINGS_MODE => None,
            other => Some(ToolPreset::from_str(other).map_err(RpcError::invalid_params)?),
        };
        *lock(&session.mode) = preset;
        tracing::info!(session = %session.id, mode, "acp: mode set");
        self.update(
            &session.id,
            json!({"sessionUpdate": "current_mode_update", "currentModeId": mode}),
        );
        Ok(json!({}))
    }

    /// The modes: the project's own grants, or one preset for the session's runs (a
    /// ceiling, as `--preset` is).
    fn modes(&self, root: &Path, chosen: Option<ToolPreset>) -> Value {
        let preset = paddock_host::edit::in_effect(self.service.trust(), root)
            .ok()
            .and_then(|e| e.settings().preset);
        let settings_name = match preset {
            Some(p) => format!("Project settings ({})", p.as_str()),
            None => "Project settings".to_owned(),
        };
        let mut available = vec![json!({
            "id": SETTINGS_MODE,
            "name": settings_name,
            "description": "The tools the project's settings grant, with their rules",
        })];
        for p in ToolPreset::ALL {
            available.push(json!({
                "id": p.as_str(),
                "name": p.as_str(),
                "description": preset_description(p),
            }));
        }
        let current = chosen.map_or(SETTINGS_MODE, ToolPreset::as_str);
        json!({"currentModeId": current, "availableModes": available})
    }

    /// Sends one `session/update`.
    fn update(&self, session: &str, update: Value) {
        self.peer.notify(
            "session/update",
            json!({"sessionId": session, "update": update}),
        );
    }
}

fn preset_description(p: ToolPreset) -> &'static str {
    match p {
        ToolPreset::Readonly => "Reads and searches the workspace; changes nothing",
        ToolPreset::Readwrite => "Reads and edits files in the workspace; no commands",
        ToolPreset::Full => "Edits files and runs commands, behind the wall",
    }
}

fn initialize(params: &Value) -> Value {
    // The client's latest version, or ours when it is newer.
    let asked = params["protocolVersion"]
        .as_u64()
        .unwrap_or(paddock_acp::PROTOCOL_VERSION);
    json!({
        "protocolVersion": asked.min(paddock_acp::PROTOCOL_VERSION),
        "agentCapabilities": {
            "loadSession": true,
            "promptCapabilities": {"image": true, "audio": false, "embeddedContext": true},
            "mcpCapabilities": {"http": false, "sse": false},
            "sessionCapabilities": {"list": {}},
        },
        "agentInfo": {"name": "paddock", "title": "Paddock", "version": env!("CARGO_PKG_VERSION")},
        "authMethods": [],
    })
}

/// A host error as the client sees it.
fn rpc(e: HostError) -> RpcError {
    let code = match e.kind() {
        HostErrorKind::NotFound => codes::RESOURCE_NOT_FOUND,
        HostErrorKind::Usage | HostErrorKind::Path => codes::INVALID_PARAMS,
        _ => codes::INTERNAL_ERROR,
    };
    RpcError::new(code, e.to_string())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
