//! The run's hooks: the user's own (`hooks.json` in the config folder) and the project's
//! (its trusted `hooks` setting), asked by the kernel at its hook points. Each matching hook
//! runs behind the same wall as bash (`run`); what they decide together (`paddock_hooks`)
//! becomes the kernel's verdict, which never widens the grants. A project hook runs only
//! while the files it runs are as trusted (`pins`), and its allow never skips an Ask: only
//! the user's own hooks', when they run no project file, do.

mod load;
mod pins;
mod run;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use paddock_core::hooks::{Hooks, PromptVerdict};
use paddock_core::{ToolContext, ToolOutput, WriteScope};
use paddock_hooks::{
    CallInfo, CompactTrigger, Decision, Hook, HookEffect, HookPoint, HooksConfig, SessionSource,
    Subject, combine,
};
use paddock_protocol::{AgentEvent, ToolCall};
use paddock_tools::ToolEnv;
use serde_json::{Map, Value, json};

pub use paddock_core::hooks::{HookVerdict, PreToolUse};

pub use load::{
    HookSource, USER_HOOKS_FILE, keep_trusted, project_hooks, sets_for, trust_key, trust_value,
    trust_words, user_hooks, user_hooks_path, validate,
};

pub use pins::{HookPins, ScriptPins};
use run::{Standing, Told, not_run, run_hook, stdin_json};

/// The hooks of one run, and what they need to run.
pub struct ProjectHooks {
    sets: Vec<(HookSource, HooksConfig)>,
    env: Arc<ToolEnv>,
    session_id: String,
    workspace: PathBuf,
    project: PathBuf,
    /// The session's start hooks, run before the first prompt this run sends.
    start: Mutex<Option<SessionSource>>,
    /// Times the stop hooks sent the agent on (`stop_hook_active` after the first).
    stops: AtomicU32,
    /// What each project hook's scripts were trusted as.
    pins: HookPins,
}

impl ProjectHooks {
    /// The hooks of `sets` for session `session_id`, run behind `env`'s wall; `start` says
    /// how the session began when its start hooks are to run (with the first prompt); a
    /// project hook runs only while its scripts match `pins`.
    pub fn new(
        sets: Vec<(HookSource, HooksConfig)>,
        env: Arc<ToolEnv>,
        session_id: String,
        start: Option<SessionSource>,
        pins: HookPins,
    ) -> Self {
        Self {
            workspace: env.workspace_root.clone(),
            project: env
                .project_root
                .clone()
                .unwrap_or_else(|| env.workspace_root.clone()),
            sets: sets.into_iter().filter(|(_, c)| !c.is_empty()).collect(),
            env,
            session_id,
            start: Mutex::new(start),
            stops: AtomicU32::new(0),
            pins,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    fn has(&self, event: HookPoint) -> bool {
        self.sets
            .iter()
            .any(|(_, c)| c.hooks().any(|h| h.event() == event))
    }

    /// The hooks of `event` for `subject`, the user's first.
    fn matching(&self, event: HookPoint, subject: &Subject<'_>) -> Vec<(HookSource, &Hook)> {
        self.sets
            .iter()
            .flat_map(|(source, c)| c.matching(event, subject).into_iter().map(|h| (*source, h)))
            .collect()
    }

    /// Runs the hooks of `event` for `subject` (at once), with `fields` on their stdin.
    async fn run_all(
        &self,
        event: HookPoint,
        subject: &Subject<'_>,
        fields: Map<String, Value>,
        call_id: Option<&str>,
        ctx: &ToolContext,
    ) -> Option<HookEffect> {
        let hooks = self.matching(event, subject);
        if hooks.is_empty() {
            return None;
        }
        // A project hook's scripts are checked, run and checked again while no tool that
        // writes (bash, file_write, a teammate's, a subagent's) runs: a parallel call could
        // otherwise rewrite a checked script before its interpreter reads it.
        let _quiet = if hooks.iter().any(|(s, _)| *s == HookSource::Project) {
            tokio::select! {
                biased;
                guard = ctx.writes.lock(&WriteScope::Workspace) => Some(guard),
                () = ctx.cancel.cancelled() => return None,
            }
        } else {
            None
        };
        let runs = hooks.iter().map(|(source, hook)| {
            let told = Told {
                session_id: &self.session_id,
                workspace: &self.workspace,
                project: &self.project,
                call_id,
                source: *source,
            };
            let stdin = stdin_json(hook, &told, fields.clone());
            async move {
                match self.standing(*source, hook) {
                    Ok(standing) => run_hook(hook, &self.env, &stdin, &told, &standing, ctx).await,
                    Err(why) => not_run(hook, &why, &told, ctx),
                }
            }
        });
        let outcome = combine(futures_util::future::join_all(runs).await);
        if let Some(end) = &outcome.stop {
            // `continue: false`: the run ends here, saying why.
            ctx.events.emit(AgentEvent::warning(format!(
                "a hook ended the run: {}",
                end.reason
            )));
            ctx.cancel.cancel();
        }
        Some(outcome)
    }

    /// Whether `hook` may run now and what its answer may do. A project hook's files must
    /// be as trusted (`Err`: why not); a hook whose command runs or reads a project file
    /// (the agent can write there) gives no allow, only the user's own other hooks do.
    fn standing(&self, source: HookSource, hook: &Hook) -> Result<Standing, String> {
        let now = ScriptPins::scan(hook, &self.project);
        match source {
            HookSource::User => Ok(Standing {
                may_allow: !now.names_project(),
                pinned: None,
            }),
            HookSource::Project => match self.pins.of(hook).refusal(&now) {
                Some(why) => Err(why),
                None => Ok(Standing {
                    may_allow: false,
                    pinned: Some(now),
                }),
            },
        }
    }

    /// The session's start hooks, once: their context.
    async fn session_start(&self, ctx: &ToolContext) -> Option<String> {
        let source = self
            .start
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()?;
        let fields = Map::from_iter([("source".to_owned(), json!(source.word()))]);
        let subject = Subject::Session(source);
        let outcome = self
            .run_all(HookPoint::SessionStart, &subject, fields, None, ctx)
            .await?;
        outcome.added_context
    }
}

/// The titles of the `pre_tool_use` hooks that would run before `tool` with `input`: the
/// user's, then the project's its settings carry (as trust left them).
pub fn before_call(
    config_dir: &std::path::Path,
    project: &crate::Project,
    tool: &str,
    input: &Value,
) -> Result<Vec<String>, crate::HostError> {
    let workspace = project.workspace_root();
    let subject = Subject::Call(CallInfo {
        tool,
        input,
        workspace: &workspace,
    });
    let sets = sets_for(config_dir, project)?;
    Ok(sets
        .iter()
        .flat_map(|(source, c)| {
            c.matching(HookPoint::PreToolUse, &subject)
                .into_iter()
                .map(move |h| format!("{} · {}", source.as_str(), h.title()))
        })
        .collect())
}

/// A context for hooks run outside a run (a compaction asked for, `rules explain
/// --run-hooks`): their events go to `events`, nobody answers a question (a network ask is
/// refused), nothing else is shared.
pub fn detached_context(events: Arc<dyn paddock_core::EventSink>, what: &str) -> ToolContext {
    ToolContext {
        call: None,
        agent: what.into(),
        chain: Arc::from(vec![what.to_owned()]),
        cancel: tokio_util::sync::CancellationToken::new().into(),
        events,
        approvals: Arc::new(paddock_core::Approvals::new(
            paddock_core::AskPolicy::HeadlessDeny,
        )),
        grants: Arc::default(),
        writes: Arc::default(),
        approved: None,
        told: Arc::default(),
        hooks: Arc::new(paddock_core::hooks::NoHooks),
    }
}

/// What the `pre_tool_use` hooks decide of a call, run now behind the project's wall (as
/// `rules explain --run-hooks` shows it): each hook's run, and their verdict together.
pub async fn try_call(
    config_dir: &std::path::Path,
    project: &crate::Project,
    call: &ToolCall,
) -> Result<(Vec<paddock_protocol::HookRun>, PreToolUse), crate::HostError> {
    let sets = sets_for(config_dir, project)?;
    let store = crate::trust::TrustStore::new(config_dir.join(crate::trust::TRUST_FILE));
    let pins = HookPins::recorded(&store, project.root());
    let hooks = ProjectHooks::new(
        sets,
        project.tool_env(Vec::new()),
        "explain".into(),
        None,
        pins,
    );
    let events = paddock_core::CollectSink::new();
    let ctx = detached_context(events.clone(), "rules explain");
    let verdict = hooks.pre_tool_use(call, &ctx).await;
    let runs = events
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::Hook(run) => Some(run),
            _ => None,
        })
        .collect();
    Ok((runs, verdict))
}

/// A call as hooks are told of it: Paddock's input, plus `file_path` (absolute, in the
/// workspace) where the input names a `path`, as Claude Code's file tools give it.
fn tool_fields(call: &ToolCall, workspace: &std::path::Path) -> Map<String, Value> {
    let mut input = call.input.clone();
    if let Some(obj) = input.as_object_mut()
        && let Some(path) = obj.get("path").and_then(Value::as_str)
        && !obj.contains_key("file_path")
    {
        let full = workspace.join(path);
        obj.insert("file_path".into(), json!(full));
    }
    Map::from_iter([
        ("tool_name".to_owned(), json!(call.name)),
        ("tool_input".to_owned(), input),
        ("tool_use_id".to_owned(), json!(call.id)),
    ])
}

fn event_of(point: HookPoint) -> &'static [HookPoint] {
    match point {
        HookPoint::PreToolUse => &[HookPoint::PreToolUse],
        HookPoint::PostToolUse => &[HookPoint::PostToolUse],
        HookPoint::UserPromptSubmit => &[HookPoint::UserPromptSubmit, HookPoint::SessionStart],
        HookPoint::Stop | HookPoint::SubagentStop => &[HookPoint::Stop, HookPoint::SubagentStop],
        HookPoint::SessionStart => &[HookPoint::SessionStart],
        HookPoint::PreCompact => &[HookPoint::PreCompact],
    }
}

#[async_trait]
impl Hooks for ProjectHooks {
    fn acts_at(&self, point: HookPoint) -> bool {
        event_of(point).iter().any(|e| self.has(*e))
    }

    async fn pre_tool_use(&self, call: &ToolCall, ctx: &ToolContext) -> PreToolUse {
        let subject = Subject::Call(CallInfo {
            tool: &call.name,
            input: &call.input,
            workspace: &self.workspace,
        });
        let fields = tool_fields(call, &self.workspace);
        let Some(o) = self
            .run_all(HookPoint::PreToolUse, &subject, fields, Some(&call.id), ctx)
            .await
        else {
            return PreToolUse::default();
        };
        let verdict = match o.decision {
            Decision::Deny { reason } | Decision::Block { reason } => {
                Some(HookVerdict::Deny(reason))
            }
            Decision::Ask { reason } => Some(HookVerdict::Ask(
                reason.unwrap_or_else(|| "a hook asks first".into()),
            )),
            Decision::Allow { .. } => Some(HookVerdict::Allow),
            Decision::Continue => None,
        };
        // A hook that ended the run: the call does not run either.
        let verdict = match (&o.stop, verdict) {
            (Some(end), _) => Some(HookVerdict::Deny(end.reason.clone())),
            (None, v) => v,
        };
        PreToolUse {
            verdict,
            input: o.rewritten_input,
        }
    }

    async fn post_tool_use(
        &self,
        call: &ToolCall,
        output: &ToolOutput,
        ctx: &ToolContext,
    ) -> Option<String> {
        let subject = Subject::Call(CallInfo {
            tool: &call.name,
            input: &call.input,
            workspace: &self.workspace,
        });
        let mut fields = tool_fields(call, &self.workspace);
        let changed: Vec<&str> = output.changes.iter().map(|c| c.path.as_str()).collect();
        fields.insert(
            "tool_response".into(),
            json!({
                "output": output.content.as_str(),
                "success": !output.is_error(),
                "changed_files": changed,
            }),
        );
        let o = self
            .run_all(
                HookPoint::PostToolUse,
                &subject,
                fields,
                Some(&call.id),
                ctx,
            )
            .await?;
        let feedback = match o.decision {
            Decision::Block { reason } => Some(reason),
            _ => None,
        };
        let text: Vec<String> = feedback.into_iter().chain(o.added_context).collect();
        (!text.is_empty()).then(|| text.join("\n\n"))
    }

    async fn user_prompt_submit(&self, prompt: &str, ctx: &ToolContext) -> PromptVerdict {
        let started = self.session_start(ctx).await;
        let fields = Map::from_iter([("prompt".to_owned(), json!(prompt))]);
        let o = self
            .run_all(
                HookPoint::UserPromptSubmit,
                &Subject::Nothing,
                fields,
                None,
                ctx,
            )
            .await
            .unwrap_or_default();
        if let Decision::Block { reason } | Decision::Deny { reason } = o.decision {
            return PromptVerdict::Block(reason);
        }
        let context: Vec<String> = started.into_iter().chain(o.added_context).collect();
        PromptVerdict::Go((!context.is_empty()).then(|| context.join("\n\n")))
    }

    async fn pre_compact(&self, auto: bool, ctx: &ToolContext) {
        let trigger = if auto {
            CompactTrigger::Auto
        } else {
            CompactTrigger::Manual
        };
        let fields = Map::from_iter([
            ("trigger".to_owned(), json!(trigger.word())),
            ("custom_instructions".to_owned(), json!("")),
        ]);
        let subject = Subject::Compaction(trigger);
        let _ = self
            .run_all(HookPoint::PreCompact, &subject, fields, None, ctx)
            .await;
    }

    async fn stop(&self, answer: &str, ctx: &ToolContext) -> Option<String> {
        let event = if ctx.chain.len() > 1 {
            HookPoint::SubagentStop
        } else {
            HookPoint::Stop
        };
        let active = self.stops.load(Ordering::Relaxed) > 0;
        let fields = Map::from_iter([
            ("stop_hook_active".to_owned(), json!(active)),
            ("last_assistant_message".to_owned(), json!(answer)),
        ]);
        let o = self
            .run_all(event, &Subject::Nothing, fields, None, ctx)
            .await?;
        match o.decision {
            Decision::Block { reason } if o.stop.is_none() => {
                self.stops.fetch_add(1, Ordering::Relaxed);
                Some(reason)
            }
            _ => None,
        }
    }
}
