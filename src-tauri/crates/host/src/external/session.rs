//! One prompt to an external agent, start to end: the wall and the program, ACP's
//! initialize / session/new / session/prompt, the agent's updates as the session's events,
//! its permission requests as Paddock approvals, checkpoints around it, and its stop.

use std::sync::Arc;

use paddock_acp::client::Events;
use paddock_acp::peer::{Incoming, Peer, RpcError, connect};
use paddock_core::approval::Verdict;
use paddock_core::{AgentHandle, AgentResult, Approvals, EventSink, Fanout, WorkspaceRecorder};
use paddock_protocol::{
    AgentEvent, CheckpointInfo, ContentBlock, ExitReason, Message, Role, TokenUsage, ToolStatus,
};
use serde_json::{Value, json};

use super::{EXIT_GRACE, START_TIMEOUT, config};
use crate::checkpoints::Recorder;
use crate::{Approver, HostError, LiveProject, RunReport, RunRequest, RunService, SessionTarget};

impl RunService {
    /// Runs one prompt with the external agent `agent` (its name in the user's
    /// `agents.json`), behind the wall.
    pub async fn run_external(
        &self,
        project: &LiveProject,
        agent: &str,
        request: RunRequest,
    ) -> Result<RunReport, HostError> {
        Ok(self.prepare_external(project, agent, request)?.run().await)
    }

    /// Everything up to starting the agent: checks, the session, the wall's settings; the
    /// run is registered as live from here (the app answers with the session id at once).
    pub fn prepare_external(
        &self,
        project: &LiveProject,
        name: &str,
        request: RunRequest,
    ) -> Result<PreparedExternal, HostError> {
        let root = project.root().to_path_buf();
        if request.output_schema.is_some() {
            return Err(crate::error::RequestError::SchemaForExternal {
                agent: name.to_owned(),
            }
            .into());
        }
        if let SessionTarget::Resume(id) = &request.target {
            self.refuse_busy(&root, id)?;
        }
        let agent = config::agent(self.trust().config_dir(), name)?;
        if request.prompt.trim().is_empty() {
            return Err(crate::error::RequestError::EmptyPrompt.into());
        }
        let resolved = self.resolve(&root, &request.options, request.trust)?;
        resolved.policy().check_agent(name, &agent)?;
        // The user's hosts for this agent, never the folder's: from the user's own file.
        let resolved = resolved
            .with_options(&request.options)?
            .narrowed(|s| s.network.allow.extend(agent.hosts.iter().cloned()));
        let (named, vars, secrets) = self.agent_vars(name, &agent)?;
        let (project_in, mut worktree) = super::place::place(
            self,
            &root,
            &request.target,
            request.worktree.clone(),
            &resolved,
        )?;
        let env = project_in.tool_env(secrets);
        // An API address its wall refuses: said now, not after minutes of retries.
        let reach_note = super::reach::check(name, &named, &env)
            .map_err(crate::error::RequestError::Unreachable)?;
        // The prompt with its files and images, read now through the guard (an agent that
        // takes no images is told apart once it says so).
        let vision = crate::attach::Vision {
            provider: paddock_protocol::ProviderKind::Anthropic,
            model: name,
            takes: None,
        };
        let message = crate::attach::prompt_message(
            &env.guard(),
            &request.prompt,
            &request.attachments,
            vision,
        )?;
        // What can fail is done before the session is written and the run registered.
        // A worktree's checkpoints are its own (a checkpoint is put back only where taken).
        let checkpoints = self.checkpoints(project_in.root())?;
        let home = super::agent_home(&root, name)?;
        super::make_home(&home)?;
        let (writer, history) =
            self.external_session(&root, &request.target, name, &request.prompt)?;
        let writer = Arc::new(writer);
        let session_id = writer.id().to_owned();
        if let Some(w) = worktree.as_mut() {
            w.bind_session(&session_id)?;
        }
        let approvals = match request.approver {
            Approver::Person => self.runs().approvals(&root, &session_id),
            Approver::Headless(policy) => Arc::new(Approvals::new(policy)),
        };
        let cancel = request.cancel.unwrap_or_default();
        let run = self.runs().start(
            &root,
            &session_id,
            AgentHandle::new(cancel.clone(), approvals.clone()),
        );
        let events: Arc<dyn EventSink> =
            Arc::new(Fanout(vec![writer.clone(), request.events.clone()]));
        let guard = env.guard();
        checkpoints.begin_base(guard.clone());
        let recorder_events = Arc::new(std::sync::OnceLock::new());
        let _ = recorder_events.set(events.clone());
        let recorder = Recorder {
            checkpoints,
            guard,
            events: recorder_events,
        };
        let turn = Turn {
            agent_session: writer.path().with_extension("acp"),
            env,
            agent,
            name: name.to_owned(),
            home,
            vars,
            events: events.clone(),
            approvals,
            cancel,
            recorder,
            reach_note,
            config_dir: self.trust().config_dir().to_path_buf(),
        };
        Ok(PreparedExternal {
            session_id,
            turn,
            prompt: message,
            history,
            writer,
            events,
            root,
            runs: self.runs().clone(),
            run,
            worktree,
        })
    }
}

/// An external agent's prompt ready to start, registered as live.
pub struct PreparedExternal {
    pub session_id: String,
    turn: Turn,
    /// The user's message, with its files and images.
    prompt: Message,
    history: Vec<Message>,
    writer: Arc<paddock_session::SessionWriter>,
    events: Arc<dyn EventSink>,
    root: std::path::PathBuf,
    runs: Arc<crate::LiveRuns>,
    run: u64,
    worktree: Option<paddock_worktree::Worktree>,
}

impl PreparedExternal {
    pub async fn run(self) -> RunReport {
        let Self {
            session_id,
            turn,
            prompt,
            history,
            writer,
            events,
            root,
            runs,
            run,
            worktree,
        } = self;
        let outcome = turn.run(&prompt, history.len()).await;
        let mut messages = history;
        messages.push(prompt);
        if !outcome.text.is_empty() {
            messages.push(Message {
                role: Role::Assistant,
                content: vec![ContentBlock::Text {
                    text: outcome.text.clone(),
                }],
            });
        }
        paddock_core::HistoryLog::save(writer.as_ref(), &messages);
        if let Some(w) = worktree {
            super::place::sync(w, &session_id).await;
        }
        events.emit(AgentEvent::RunFinished {
            exit: outcome.exit,
            turns: outcome.turns,
            usage: outcome.usage,
            cost: None,
        });
        writer.flush();
        runs.finish(&root, &session_id, run);
        RunReport {
            session_path: writer.path().to_path_buf(),
            session_id,
            result: AgentResult {
                exit: outcome.exit,
                output: outcome.text,
                structured: None,
                success: outcome.exit == ExitReason::EndTurn,
                new_from: 0,
                usage: outcome.usage,
                cost: paddock_protocol::Cost::NONE,
                turns: outcome.turns,
                error: None,
                output_error: None,
            },
            save_error: writer.error(),
        }
    }
}

/// What one prompt needs.
struct Turn {
    /// Where the agent's own id for this session is kept (beside the session, out of the
    /// wall's view), so the next prompt loads it.
    agent_session: std::path::PathBuf,
    env: Arc<paddock_tools::ToolEnv>,
    agent: config::ExternalAgentConfig,
    name: String,
    home: std::path::PathBuf,
    vars: Vec<(String, String)>,
    events: Arc<dyn EventSink>,
    approvals: Arc<Approvals>,
    cancel: tokio_util::sync::CancellationToken,
    recorder: Recorder,
    /// Said when it starts (its wall has no network).
    reach_note: Option<String>,
    /// The user's config folder: the agent's "Always allow" rules are read from there.
    config_dir: std::path::PathBuf,
}

struct Outcome {
    exit: ExitReason,
    text: String,
    /// What the agent said its prompt took (its answer's `usage`; none when it says none).
    usage: TokenUsage,
    turns: u32,
}

impl Turn {
    async fn run(&self, prompt: &Message, prompt_at: usize) -> Outcome {
        let events = &self.events;
        events.emit(AgentEvent::RunStarted {
            agent: self.name.to_owned(),
            model: format!("{} (external agent)", self.name),
            // The agent decides how many turns it takes.
            max_turns: 0,
            pricing: None,
        });
        if let Some(note) = &self.reach_note {
            events.emit(AgentEvent::warning(note.clone()));
        }
        let before = self.record(0, prompt_at).await;
        let args: Vec<std::ffi::OsString> = self.agent.args.iter().map(Into::into).collect();
        // Its questions about hosts are the user's, on an approval card naming the agent.
        let itself = Arc::new(paddock_protocol::ToolCall {
            id: self.name.clone(),
            name: self.name.clone(),
            input: Value::Null,
            parsed_from_text: false,
        });
        let asker = paddock_wall::network::asker(
            itself,
            self.approvals.clone(),
            events.clone(),
            Arc::new(self.cancel.clone()),
        );
        let refused = Arc::new(super::reach::RefusedHosts::new(&self.name, events.clone()));
        let spec = paddock_wall::program::ProgramSpec {
            program: self.agent.command.as_ref(),
            args: &args,
            home: &self.home,
            vars: &self.vars,
            id: &self.name,
            asker: Some(asker),
            events: Some(refused.clone()),
        };
        let started = paddock_wall::program::start(&self.env.wall(), &spec, &self.cancel).await;
        let mut program = match started {
            Ok(p) => p,
            Err(why) => return self.failed(&format!("{} could not start: {why}", self.name)),
        };
        for note in std::mem::take(&mut program.notes) {
            events.emit(AgentEvent::warning(note));
        }
        let (Some(stdout), Some(stdin)) = (program.stdout.take(), program.stdin.take()) else {
            return self.failed("the agent's pipes could not be opened");
        };
        let (peer, incoming) = connect(stdout, stdin);
        let mut mapped = Events::default();
        let exit = self.converse(&peer, incoming, prompt, &mut mapped).await;
        for e in mapped.unfinished(ToolStatus::Aborted) {
            events.emit(e);
        }
        let stopped = program.stop(EXIT_GRACE).await;
        if let Some(lines) = stopped.connections {
            events.emit(AgentEvent::warning(format!(
                "the agent's connections: {lines}"
            )));
        }
        let (exit, usage) = match exit {
            Ok(done) => done,
            Err(why) => {
                let stderr = stopped.stderr.trim();
                let mut tail = if stderr.is_empty() {
                    String::new()
                } else {
                    format!("; it said: {stderr}")
                };
                let hosts = refused.refused();
                if !hosts.is_empty() {
                    tail = format!(" (its wall refused {}){tail}", hosts.join(", "));
                }
                events.emit(AgentEvent::Error {
                    kind: paddock_protocol::ErrorKind::Other,
                    message: format!("{}: {why}{tail}", self.name),
                });
                (ExitReason::Error, TokenUsage::default())
            }
        };
        if let Some(from) = before {
            self.report_changes(&from).await;
        }
        Outcome {
            exit,
            turns: mapped.turns().max(1),
            text: mapped.text,
            usage,
        }
    }

    fn failed(&self, message: &str) -> Outcome {
        self.events.emit(AgentEvent::Error {
            kind: paddock_protocol::ErrorKind::Other,
            message: message.to_owned(),
        });
        Outcome {
            exit: ExitReason::Error,
            text: String::new(),
            usage: TokenUsage::default(),
            turns: 1,
        }
    }

    /// initialize, session/new, session/prompt; the agent's messages handled meanwhile.
    async fn converse(
        &self,
        peer: &Arc<Peer>,
        mut incoming: tokio::sync::mpsc::UnboundedReceiver<Incoming>,
        prompt: &Message,
        mapped: &mut Events,
    ) -> Result<(ExitReason, TokenUsage), String> {
        let cwd = self.env.workspace_root.to_string_lossy().into_owned();
        let setup = async {
            let init = peer
                .request(
                    "initialize",
                    json!({
                        "protocolVersion": paddock_acp::PROTOCOL_VERSION,
                        // No file system, no terminal: all it does goes through the wall.
                        "clientCapabilities": {},
                        "clientInfo": {"name": "paddock", "version": env!("CARGO_PKG_VERSION")},
                    }),
                )
                .await?;
            let loads = init["agentCapabilities"]["loadSession"] == true;
            let mode = self.agent.mode.as_deref();
            let opened =
                super::open::open_session(peer, &cwd, loads, &self.agent_session, mode).await?;
            Ok::<_, RpcError>((opened, paddock_acp::outgoing::Takes::of(&init)))
        };
        let ((session, loaded), takes) = tokio::select! {
            r = tokio::time::timeout(START_TIMEOUT, setup) => match r {
                Ok(Ok(v)) => v,
                Ok(Err(e)) => return Err(format!("it refused to start a session: {}", e.message)),
                Err(_) => return Err(format!("it did not start within {} s", START_TIMEOUT.as_secs())),
            },
            () = self.cancel.cancelled() => return Ok((ExitReason::Aborted, TokenUsage::default())),
        };
        // A load replays the conversation first: the session already holds it.
        while let Ok(m) = incoming.try_recv() {
            if let Incoming::Request { id, .. } = m {
                peer.respond(id, Err(RpcError::internal("not while loading")));
            }
        }
        if let Some(note) = loaded.note() {
            self.events.emit(AgentEvent::warning(note));
        }
        let blocks = paddock_acp::outgoing::blocks(prompt, &self.env.workspace_root, takes)?;
        let prompt_call = peer.request(
            "session/prompt",
            json!({"sessionId": session, "prompt": blocks}),
        );
        tokio::pin!(prompt_call);
        let mut cancelled = false;
        loop {
            tokio::select! {
                answer = &mut prompt_call => {
                    // What the agent sent before its answer is already queued: take it all.
                    while let Ok(m) = incoming.try_recv() {
                        self.handle(peer, m, mapped);
                    }
                    return match answer {
                        Ok(r) => Ok((exit_of(&r, cancelled), paddock_acp::client::answer_usage(&r))),
                        Err(e) => Err(e.message),
                    };
                }
                message = incoming.recv() => match message {
                    Some(m) => self.handle(peer, m, mapped),
                    None => return Err("it exited during the prompt".to_owned()),
                },
                () = self.cancel.cancelled(), if !cancelled => {
                    cancelled = true;
                    peer.notify("session/cancel", json!({"sessionId": session}));
                }
            }
        }
    }

    fn handle(&self, peer: &Arc<Peer>, message: Incoming, mapped: &mut Events) {
        match message {
            Incoming::Notification { method, params } if method == "session/update" => {
                for mut event in mapped.of(&params["update"]) {
                    if let AgentEvent::ToolCallFinished { id, changes, .. } = &mut event
                        && changes.is_empty()
                    {
                        *changes = super::claims::changes(mapped.diffs(id), self.workspace());
                    }
                    self.events.emit(event);
                }
            }
            Incoming::Notification { .. } => {}
            Incoming::Request { id, method, params } if method == "session/request_permission" => {
                let (call, title) = mapped.call_for(&params["toolCall"]);
                // The user's "Always allow" for this agent, as their file says now (a rule
                // saved during this prompt counts).
                let rule = config::agent(&self.config_dir, &self.name)
                    .ok()
                    .and_then(|a| a.allowed(&call.name).map(str::to_owned));
                if let Some(rule) = rule {
                    let why = format!("allowed by your rule for {}: {rule}", self.name);
                    mapped.set_why(&call.id, &why);
                    peer.respond(
                        id,
                        Ok(paddock_acp::permission::outcome(&params["options"], true)),
                    );
                    return;
                }
                // The request's own word first, then what the call's updates said.
                let mut claimed = paddock_acp::client::diffs_in(&params["toolCall"]["content"]);
                claimed.extend(mapped.diffs(&call.id).iter().cloned());
                let preview = super::claims::preview(&claimed, self.workspace());
                let why = format!("the external agent {} asked first", self.name);
                let agent = self.name.clone();
                let (peer, approvals, events, cancel) = (
                    peer.clone(),
                    self.approvals.clone(),
                    self.events.clone(),
                    self.cancel.clone(),
                );
                tokio::spawn(async move {
                    let verdict = approvals
                        .request(
                            &call,
                            &title,
                            preview.as_ref(),
                            paddock_core::approval::Reason {
                                why: &why,
                                rules: Some(vec![call.name.clone()]),
                                rules_for_agent: Some(agent),
                            },
                            events.as_ref(),
                            &cancel,
                        )
                        .await;
                    let allowed = verdict == Verdict::Approved;
                    let outcome = match verdict {
                        Verdict::Aborted => json!({"outcome": {"outcome": "cancelled"}}),
                        _ => paddock_acp::permission::outcome(&params["options"], allowed),
                    };
                    peer.respond(id, Ok(outcome));
                });
            }
            Incoming::Request { id, method, .. } => {
                // fs/*, terminal/*: never offered; anything else is unknown.
                peer.respond(
                    id,
                    Err(RpcError::new(
                        paddock_acp::codes::METHOD_NOT_FOUND,
                        format!("Paddock does not offer {method}: work through your own tools"),
                    )),
                );
            }
        }
    }

    fn workspace(&self) -> &std::path::Path {
        &self.env.workspace_root
    }

    /// Records the workspace before the prompt (turn 0 and 1, as the kernel does).
    async fn record(&self, turn: u32, prompt_at: usize) -> Option<String> {
        let recorded = match self.recorder.record().await {
            Ok(r) => r,
            Err(e) => {
                self.events.emit(AgentEvent::warning(format!(
                    "the workspace could not be recorded ({e}); this prompt cannot be rewound"
                )));
                return None;
            }
        };
        for notice in recorded.notices {
            self.events.emit(AgentEvent::warning(notice));
        }
        let messages = u32::try_from(prompt_at).unwrap_or(u32::MAX);
        for t in [turn, turn + 1] {
            self.events
                .emit(AgentEvent::CheckpointSaved(CheckpointInfo {
                    checkpoint: recorded.id.clone(),
                    workspace: recorded.workspace.clone(),
                    turn: t,
                    messages,
                }));
        }
        Some(recorded.id)
    }

    /// Every file the agent changed, from the checkpoint before the prompt to now.
    async fn report_changes(&self, from: &str) {
        let to = match self.recorder.record().await {
            Ok(to) => to,
            Err(e) => {
                self.events.emit(AgentEvent::warning(format!(
                    "the agent's changes could not be listed: {e}"
                )));
                return;
            }
        };
        if to.id == from {
            return;
        }
        match self.recorder.changes(from, &to.id).await {
            Ok(files) => self.events.emit(AgentEvent::RunChanges {
                from: from.to_owned(),
                to: to.id,
                files,
            }),
            Err(e) => self.events.emit(AgentEvent::warning(format!(
                "the agent's changes could not be listed: {e}"
            ))),
        }
    }
}

fn exit_of(response: &Value, cancelled: bool) -> ExitReason {
    match response["stopReason"].as_str() {
        Some("cancelled") => ExitReason::Aborted,
        Some("max_turn_requests") => ExitReason::MaxTurns,
        Some("max_tokens") => ExitReason::BudgetExceeded,
        _ if cancelled => ExitReason::Aborted,
        _ => ExitReason::EndTurn,
    }
}
