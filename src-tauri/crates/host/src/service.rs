//! "Run a prompt in a new or resumed session", once for both shells: the session is created
//! or resumed, the runtime built (or reused), the run registered as live, and its events
//! recorded and passed to the shell's sink. The CLI adapts it to a terminal, the app to a
//! window.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use paddock_core::{Agent, AgentResult, Approvals, AskPolicy, EventSink, Fanout};
use paddock_protocol::{AgentEvent, CheckpointStatus, Message, PromptAttachment};
use paddock_session::{SessionStore, SessionWriter};
use tokio_util::sync::CancellationToken;

use crate::checkpoints::ProjectCheckpoints;
use crate::keys::KeyStore;
use crate::live::LiveProject;
use crate::resolved::Resolved;
use crate::runs::LiveRuns;
use crate::tools::RunLimits;
use crate::trust::{TrustPolicy, TrustStore};
use crate::{HostError, RunOptions};

/// Where a prompt goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionTarget {
    New,
    /// A new session under an id given out beforehand (`session::new_session_id`).
    NewAs(String),
    Resume(String),
}

/// Who answers the run's approval requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approver {
    /// A person, through [`LiveRuns::approve`] (the app); answers "for this session" last
    /// across the session's prompts.
    Person,
    /// Nobody: the policy decides (headless runs).
    Headless(AskPolicy),
}

/// One prompt to run.
pub struct RunRequest {
    pub target: SessionTarget,
    pub prompt: String,
    /// Files and folders the user named (and, later, images), read when the run starts.
    pub attachments: Vec<PromptAttachment>,
    /// Flags over the project's settings.
    pub options: RunOptions,
    pub approver: Approver,
    /// Gets every event of the run, ending with `run_finished`.
    pub events: Arc<dyn EventSink>,
    /// Cancels the run (the CLI's Ctrl-C); the app stops runs through [`LiveRuns::stop`].
    pub cancel: Option<CancellationToken>,
    /// What becomes of settings the user has not trusted.
    pub trust: TrustPolicy,
    /// A JSON schema the final answer must match (structured output, one retry).
    pub output_schema: Option<serde_json::Value>,
    /// For a new session: the worktree (made by [`RunService::create_worktree`]) to work
    /// in. A resumed session works where it always did.
    pub worktree: Option<String>,
}

/// Sessions, keys, folder trust and the live runs: what every run of a shell shares.
pub struct RunService {
    store: SessionStore,
    keys: Arc<dyn KeyStore>,
    trust: TrustStore,
    /// Bumped when a key is stored or deleted, so runtimes pick up the new key.
    keys_generation: AtomicU64,
    runs: Arc<LiveRuns>,
    /// Each project's checkpoint store, opened once (it caches what it has read).
    checkpoints: Mutex<HashMap<PathBuf, Arc<ProjectCheckpoints>>>,
    /// The `@` lists of the workspaces asked about.
    mentions: Arc<crate::mentions::MentionIndexes>,
    /// Sessions whose start hooks ran in this process (once per session opened, not per
    /// prompt).
    started: Mutex<std::collections::HashSet<String>>,
}

impl RunService {
    pub fn new(store: SessionStore, keys: Arc<dyn KeyStore>, trust: TrustStore) -> Self {
        Self {
            store,
            keys,
            trust,
            keys_generation: AtomicU64::new(0),
            runs: Arc::default(),
            checkpoints: Mutex::default(),
            mentions: Arc::default(),
            started: Mutex::default(),
        }
    }

    /// The composer's `@` list for `query` in the project's workspace (blocking: the first
    /// call walks it).
    pub fn mention_candidates(
        &self,
        root: &Path,
        query: &str,
    ) -> Result<Vec<paddock_protocol::MentionCandidate>, HostError> {
        let guard = crate::workspace::guard_for(&self.trust, root);
        self.mentions
            .search(&guard, query, crate::mentions::MAX_CANDIDATES)
    }

    /// The project's checkpoint store, beside the sessions in Paddock's data folder.
    pub fn checkpoints(&self, root: &Path) -> Result<Arc<ProjectCheckpoints>, HostError> {
        let mut open = self
            .checkpoints
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = open.get(root) {
            return Ok(found.clone());
        }
        let dir = self
            .store
            .root()
            .with_file_name("checkpoints")
            .join(paddock_session::project_key(root));
        let checkpoints = Arc::new(ProjectCheckpoints::open(dir)?);
        open.insert(root.to_path_buf(), checkpoints.clone());
        Ok(checkpoints)
    }

    pub fn store(&self) -> &SessionStore {
        &self.store
    }

    /// Starts recording the project's workspace in the background (its first checkpoint in
    /// this process reads every file), so the first prompt that writes does not wait for
    /// it. For a shell opening a project; a run starts it too. Returns at once.
    pub fn begin_checkpoints(&self, root: &Path) -> Result<(), HostError> {
        // A rewind a crash interrupted is finished before anything reads the files.
        self.recover_rewind(root)?;
        // Guarded as the run's tools are: a workspace holding the home folder is refused,
        // not copied.
        let defaults = paddock_sandbox::SandboxConfig::default();
        let guard = crate::workspace::guard_for(&self.trust, root).protecting(
            paddock_sandbox::private_folders(&defaults),
            paddock_sandbox::own_dirs(&defaults),
        );
        self.checkpoints(root)?.begin_base(guard);
        Ok(())
    }

    /// Where the project's checkpoints stand (the first snapshot's progress).
    pub fn checkpoint_status(&self, root: &Path) -> Result<CheckpointStatus, HostError> {
        Ok(self.checkpoints(root)?.status())
    }

    pub fn keys(&self) -> &Arc<dyn KeyStore> {
        &self.keys
    }

    pub fn runs(&self) -> &Arc<LiveRuns> {
        &self.runs
    }

    pub fn trust(&self) -> &TrustStore {
        &self.trust
    }

    /// The project's configuration as a run with `options` may use it under `policy`:
    /// what the user has not trusted is dropped (safe defaults) or refused with its list.
    /// The options are applied by [`Resolved::with_options`].
    pub fn resolve(
        &self,
        root: &std::path::Path,
        options: &RunOptions,
        policy: TrustPolicy,
    ) -> Result<Resolved, HostError> {
        Resolved::for_run(&self.trust, root, options, policy)
    }

    /// Whether this is the first run of `session` in this process (its start hooks run).
    pub(crate) fn first_run_of(&self, session: &str) -> bool {
        self.started
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(session.to_owned())
    }

    /// A key was stored or deleted: the next run rebuilds its provider.
    pub fn keys_changed(&self) {
        self.keys_generation.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn keys_generation(&self) -> u64 {
        self.keys_generation.load(Ordering::Relaxed)
    }

    /// Everything up to the first model call: checks, the session, the runtime, the agent.
    /// The run is registered as live from here; [`PreparedRun::run`] runs it.
    pub async fn prepare(
        &self,
        project: &LiveProject,
        request: RunRequest,
    ) -> Result<PreparedRun, HostError> {
        let RunRequest {
            target,
            prompt,
            attachments,
            mut options,
            approver,
            events,
            cancel,
            trust,
            output_schema,
            worktree,
        } = request;
        if prompt.trim().is_empty() {
            return Err(crate::error::RequestError::EmptyPrompt.into());
        }
        let root = project.root();
        let _starting = project.start_lock.lock().await;
        if let SessionTarget::Resume(id) = &target {
            self.refuse_busy(root, id)?;
        }
        let resolved = self.resolve(root, &options, trust)?;
        let ask_allows = approver == Approver::Headless(paddock_core::AskPolicy::HeadlessAllow);
        resolved.policy().check_options(&options, ask_allows)?;
        let stored = resolved.settings().clone();
        // A rewind a crash interrupted is finished before anything else touches the files.
        self.recover_rewind(root)?;
        let resumed = self.resumed(root, &target, &mut options, &stored)?;
        let mut worktree = self.worktree_for(root, &target, worktree)?;
        if let Some(w) = worktree.as_mut() {
            w.reopen()?;
        }
        let limits = RunLimits::from_options(&options, approver == Approver::Person);
        let effective = resolved.with_options(&options)?;
        let runtime = project
            .runtime_in(
                &effective,
                limits,
                self.keys.clone(),
                self.keys_generation.load(Ordering::Relaxed),
                worktree.as_ref(),
            )
            .await
            .map_err(|e| effective.not_applied(e))?;
        let (message, hook_sets) = self.read_before_writing(&runtime, &prompt, &attachments)?;
        let (history, warnings, writer) =
            self.session_for(root, &target, resumed, &runtime, &prompt)?;
        let writer = Arc::new(writer);
        let session_id = writer.id().to_owned();
        if let Some(w) = worktree.as_mut() {
            w.bind_session(&session_id)?;
        }
        let approvals = match approver {
            Approver::Person => self.runs.approvals(root, &session_id),
            Approver::Headless(policy) => Arc::new(Approvals::new(policy)),
        };
        let (recorder, recorder_events) = self.recorder_for(&runtime)?;
        let mut agent = runtime
            .agent()
            .with_notices(project.mcp(effective.settings()).notices_for(&session_id))
            .with_history(history)
            .with_history_log(writer.clone())
            .with_approvals(approvals)
            .with_write_locks(project.writes_for(worktree.as_ref()))
            .with_recorder(Arc::new(recorder));
        if let Some(cancel) = cancel {
            agent = agent.with_cancel(cancel);
        }
        let pins = crate::hooks::HookPins::for_run(&self.trust, root, trust, &stored);
        let hooks = self.hooks_for(&runtime, &session_id, &target, hook_sets, pins);
        if !hooks.is_empty() {
            agent = agent.with_hooks(Arc::new(hooks));
        }
        if let Some(schema) = output_schema {
            agent = agent.with_output_schema(schema);
        }
        let run = self.runs.start(root, &session_id, agent.handle());
        let end = Arc::new(RunEnd {
            runs: self.runs.clone(),
            root: root.to_path_buf(),
            session: session_id.clone(),
            run,
            events,
        });
        let fanout: Arc<dyn EventSink> = Arc::new(Fanout(vec![writer.clone(), end.clone()]));
        let _ = recorder_events.set(fanout.clone());
        let agent = agent.with_events(fanout);
        Ok(PreparedRun {
            session_id,
            model: runtime.model_name().to_owned(),
            resumed: matches!(target, SessionTarget::Resume(_)),
            warnings,
            agent,
            writer,
            prompt: message,
            end,
            worktree,
        })
    }

    /// The worktree a run works in: the one named for a new session, the session's own on
    /// resume. It must still have its checkout.
    pub(crate) fn worktree_for(
        &self,
        root: &Path,
        target: &SessionTarget,
        named: Option<String>,
    ) -> Result<Option<paddock_worktree::Worktree>, HostError> {
        let found = match (target, named) {
            (SessionTarget::New | SessionTarget::NewAs(_), None) => return Ok(None),
            (SessionTarget::New | SessionTarget::NewAs(_), Some(name)) => {
                let w = self.worktree(root, &name)?;
                if let Some(other) = &w.info().session {
                    return Err(crate::error::RequestError::WorktreeTaken {
                        name,
                        session: other.clone(),
                    }
                    .into());
                }
                w
            }
            (SessionTarget::Resume(id), named) => match self.session_worktree(root, id)? {
                Some(w) => w,
                None if named.is_some() => {
                    return Err(crate::error::RequestError::NotInWorktree {
                        session: id.clone(),
                    }
                    .into());
                }
                None => return Ok(None),
            },
        };
        if found.info().state == paddock_protocol::WorktreeState::Discarded {
            return Err(crate::error::RequestError::WorktreeDiscarded {
                branch: found.branch().to_owned(),
            }
            .into());
        }
        if !found.checkout().is_dir() {
            return Err(paddock_worktree::WorktreeError::NotActive {
                name: found.name().to_owned(),
                state: "its branch was kept and its checkout removed".into(),
            }
            .into());
        }
        Ok(Some(found))
    }
}

/// A run ready to start, registered as live.
pub struct PreparedRun {
    pub session_id: String,
    pub model: String,
    pub resumed: bool,
    /// What could not be read of a resumed session (a torn last line), said plainly.
    pub warnings: Vec<String>,
    agent: Agent,
    writer: Arc<SessionWriter>,
    prompt: Message,
    end: Arc<RunEnd>,
    /// The session's worktree: its branch is brought into the project after the run.
    worktree: Option<paddock_worktree::Worktree>,
}

/// How a run ended, and whether its session was saved.
pub struct RunReport {
    pub session_id: String,
    pub session_path: PathBuf,
    pub result: AgentResult,
    /// The first error writing the session file, if any.
    pub save_error: Option<String>,
}

impl PreparedRun {
    pub async fn run(self) -> RunReport {
        let Self {
            session_id,
            mut agent,
            writer,
            prompt,
            end,
            worktree,
            ..
        } = self;
        // Marks the session idle even if the run panics.
        let _idle = Idle(end);
        tracing::info!(session = %session_id, "run started");
        let result = agent.run_message(prompt).await;
        writer.flush();
        if let Some(w) = worktree {
            // What the agent committed shows as `paddock/<name>` in the project at once.
            match tokio::task::spawn_blocking(move || w.sync()).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => {
                    tracing::warn!(session = %session_id, "worktree branch not brought over: {e}")
                }
                Err(e) => tracing::warn!(session = %session_id, "worktree sync stopped: {e}"),
            }
        }
        let save_error = writer.error();
        if let Some(e) = &save_error {
            tracing::error!(session = %session_id, "session file write failed: {e}");
        }
        tracing::info!(
            session = %session_id,
            exit = result.exit.as_str(),
            turns = result.turns,
            "run finished"
        );
        RunReport {
            session_path: writer.path().to_path_buf(),
            session_id,
            result,
            save_error,
        }
    }
}

struct Idle(Arc<RunEnd>);

impl Drop for Idle {
    fn drop(&mut self) {
        self.0.finish();
    }
}

/// Forwards events to the shell and marks the session idle as `run_finished` goes by, so the
/// UI may send the next prompt as soon as it sees the event (the session file is flushed by
/// then: the writer comes first in the fan-out).
struct RunEnd {
    runs: Arc<LiveRuns>,
    root: PathBuf,
    session: String,
    run: u64,
    events: Arc<dyn EventSink>,
}

impl RunEnd {
    fn finish(&self) {
        self.runs.finish(&self.root, &self.session, self.run);
    }
}

impl EventSink for RunEnd {
    fn emit(&self, event: AgentEvent) {
        if matches!(event, AgentEvent::RunFinished { .. }) {
            self.finish();
        }
        self.events.emit(event);
    }
}
