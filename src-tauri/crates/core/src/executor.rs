//! Runs one turn's tool calls concurrently under a cap. Nothing escapes: every failure is a
//! result with `is_error` that the model sees.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use paddock_protocol::{AgentEvent, DenyReason, HookPoint, SharedText, ToolCall, ToolStatus};
use tokio::sync::{Semaphore, TryAcquireError};

use crate::approval::Verdict;
use crate::grants::{Gate, ResolvedTools};
use crate::tool::hooks::HookVerdict;
use crate::tool::{
    PreparedCall, ToolContext, ToolError, ToolOutput, summarize_input, truncate_shared,
};
use crate::write_locks::{WriteGuard, WriteScope};

/// Calls of one turn running at once, unless configured otherwise.
pub const DEFAULT_MAX_CONCURRENCY: usize = 4;
/// Per-call time limit for tools that do not set their own.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);
/// Output cut for tools that do not set their own.
pub const DEFAULT_MAX_OUTPUT_CHARS: usize = 30_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecutorLimits {
    pub max_concurrency: usize,
    pub timeout: Duration,
    pub max_output_chars: usize,
}

impl Default for ExecutorLimits {
    fn default() -> Self {
        Self {
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
            timeout: DEFAULT_TOOL_TIMEOUT,
            max_output_chars: DEFAULT_MAX_OUTPUT_CHARS,
        }
    }
}

/// The result of one call (in the order of the calls), with how long it took.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    pub output: ToolOutput,
    pub duration: Duration,
}

/// Runs tool calls. One per agent run: its semaphore is the turn's concurrency cap.
pub struct ToolExecutor {
    limits: ExecutorLimits,
    semaphore: Arc<Semaphore>,
}

impl ToolExecutor {
    pub fn new(limits: ExecutorLimits) -> Self {
        Self {
            limits,
            semaphore: Arc::new(Semaphore::new(limits.max_concurrency.max(1))),
        }
    }

    /// Runs every call of a turn concurrently (at most `max_concurrency` at once) and returns
    /// their outcomes in call order. `base` is cloned per call with its `call_id` filled in.
    pub async fn execute_batch(
        &self,
        calls: &[Arc<ToolCall>],
        gate: &ResolvedTools,
        base: &ToolContext,
    ) -> Vec<CallOutcome> {
        let runs = calls.iter().map(|call| async move {
            let ctx = base.for_call(call);
            let summary = match gate.tool(&call.name) {
                Some(tool) => tool.summary(&call.input),
                None => summarize_input(&call.input),
            };
            base.events.emit(AgentEvent::ToolCallStarted {
                call: Arc::clone(call),
                summary: summary.clone(),
            });
            let started = Instant::now();
            let mut output = self.execute_one(call, gate, &ctx, &summary).await;
            let duration = started.elapsed();
            // The why and the changes are the event's; the content is shared with the history.
            base.events.emit(AgentEvent::ToolCallFinished {
                id: call.id.clone(),
                name: call.name.clone(),
                summary,
                output: output.content.clone(),
                is_error: output.is_error(),
                status: output.status,
                duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
                why: std::mem::take(&mut output.why),
                changes: std::mem::take(&mut output.changes),
            });
            CallOutcome { output, duration }
        });
        futures_util::future::join_all(runs).await
    }

    /// One call through the gate, approval (with a preview of what it would do), its write
    /// lock, validation, the cap, the timeout and the output limit. `summary` is what an
    /// approval request shows.
    pub async fn execute_one(
        &self,
        call: &ToolCall,
        gate: &ResolvedTools,
        ctx: &ToolContext,
        summary: &str,
    ) -> ToolOutput {
        let mut decision = gate.check_call(&call.name, &call.input);
        let rewritten = match hooks_before(call, gate, ctx, &mut decision).await {
            Ok(rewritten) => rewritten,
            Err(mut refused) => {
                refused.why = decision.why;
                return refused;
            }
        };
        let call = rewritten.as_ref().unwrap_or(call);
        let mut output = self.run_decided(call, gate, ctx, summary, &decision).await;
        output.why = decision.why;
        let ran = matches!(output.status, ToolStatus::Ok | ToolStatus::Failed);
        if ran
            && ctx.hooks.acts_at(HookPoint::PostToolUse)
            && let Some(context) = ctx.hooks.post_tool_use(call, &output, ctx).await
        {
            output.content = SharedText::from(format!(
                "{}\n\n<hook-context>\n{context}\n</hook-context>",
                output.content.as_str()
            ));
        }
        output
    }

    /// The gate's decision on a call, with the user asked where it says Ask: the preview
    /// the user approved (if one was asked), or the refusal the model reads.
    async fn admit(
        call: &ToolCall,
        gate: &ResolvedTools,
        ctx: &ToolContext,
        summary: &str,
        decision: &crate::grants::Decision,
    ) -> Result<Option<Arc<paddock_protocol::CallPreview>>, ToolOutput> {
        match decision.gate {
            Gate::Allow => Ok(None),
            Gate::Ask => {
                let preview = match gate.tool(&call.name) {
                    Some(tool) => tool.preview(&call.input).await,
                    None => None,
                };
                let proposed = gate.propose(&call.name, &call.input);
                match ctx
                    .approvals
                    .request(
                        call,
                        summary,
                        preview.as_ref(),
                        (decision.why.as_str(), proposed).into(),
                        &*ctx.events,
                        &ctx.cancel,
                    )
                    .await
                {
                    Verdict::Approved => Ok(preview.map(Arc::new)),
                    Verdict::Denied(reason, why) => Err(ToolOutput::with_status(
                        ToolStatus::Denied { reason },
                        format!("Not run: {why}."),
                    )),
                    Verdict::Aborted => Err(aborted_before_start()),
                }
            }
            Gate::NotGranted if decision.by_rule => Err(ToolOutput::with_status(
                ToolStatus::Denied {
                    reason: DenyReason::Rule,
                },
                format!("Not run: {}.", decision.why),
            )),
            Gate::NotGranted => Err(ToolOutput::with_status(
                ToolStatus::Denied {
                    reason: DenyReason::NotGranted,
                },
                format!(
                    "Tool '{}' is not granted to this agent; it was not run.",
                    call.name
                ),
            )),
            Gate::Unknown => {
                let available: Vec<&str> = gate.granted_names().collect();
                let list = if available.is_empty() {
                    "none".to_owned()
                } else {
                    available.join(", ")
                };
                let meant = crate::tool::near_miss(&call.name, gate.granted_names())
                    .map(|m| format!(" Did you mean '{m}'? Call it by that name."))
                    .unwrap_or_default();
                Err(ToolOutput::with_status(
                    ToolStatus::UnknownTool,
                    format!(
                        "Unknown tool '{}'.{meant} Tools available to you: {list}.",
                        call.name
                    ),
                ))
            }
        }
    }

    async fn run_decided(
        &self,
        call: &ToolCall,
        gate: &ResolvedTools,
        ctx: &ToolContext,
        summary: &str,
        decision: &crate::grants::Decision,
    ) -> ToolOutput {
        if ctx.cancel.is_cancelled() {
            return aborted_before_start();
        }
        let approved = match Self::admit(call, gate, ctx, summary, decision).await {
            Ok(approved) => approved,
            Err(refused) => return refused,
        };
        let Some(tool) = gate.tool(&call.name).cloned() else {
            return ToolOutput::with_status(
                ToolStatus::UnknownTool,
                format!("Unknown tool '{}'.", call.name),
            );
        };
        let approved_ctx;
        let ctx = match approved {
            Some(preview) => {
                approved_ctx = ToolContext {
                    approved: Some(preview),
                    ..ctx.clone()
                };
                &approved_ctx
            }
            None => ctx,
        };
        // Nothing runs until polled, after the lock and a slot are held.
        let PreparedCall { scope, run } = tool.prepare(&call.input, ctx);
        // Waits race the run's cancellation; what is free at once is taken without a race.
        let _write = match scope {
            WriteScope::None => WriteGuard::default(),
            scope => tokio::select! {
                biased;
                guard = ctx.writes.lock(&scope) => guard,
                () = ctx.cancel.cancelled() => return aborted_before_start(),
            },
        };
        let permit = match self.semaphore.try_acquire() {
            Err(TryAcquireError::NoPermits) => tokio::select! {
                biased;
                permit = self.semaphore.acquire() => permit.ok(),
                () = ctx.cancel.cancelled() => return aborted_before_start(),
            },
            permit => permit.ok(),
        };
        let Some(_permit) = permit else {
            return ToolOutput::error("Internal error: the tool executor was shut down.");
        };
        // A cancellation that came while waiting for the lock or a slot: nothing starts.
        if ctx.cancel.is_cancelled() {
            return aborted_before_start();
        }
        let limit = tool.timeout().unwrap_or(self.limits.timeout);
        let run = AssertUnwindSafe(run).catch_unwind();
        // The call is polled first: one that finishes at once never registers for the
        // cancellation or arms its timer.
        let result = tokio::select! {
            biased;
            r = tokio::time::timeout(limit, run) => r,
            () = ctx.cancel.cancelled() => {
                return ToolOutput::with_status(
                    ToolStatus::Aborted,
                    "Aborted: the run was cancelled while this tool was running.",
                );
            }
        };
        let output = match result {
            Err(_elapsed) => ToolOutput::with_status(
                ToolStatus::TimedOut,
                format!(
                    "Tool '{}' timed out after {} and was stopped.",
                    call.name,
                    human_duration(limit)
                ),
            ),
            Ok(Err(panic)) => ToolOutput::with_status(
                ToolStatus::Panicked,
                format!(
                    "Tool '{}' crashed: {}. This is a bug in the tool, not in your input.",
                    call.name,
                    panic_message(&*panic)
                ),
            ),
            Ok(Ok(Err(ToolError::InvalidInput(why)))) => ToolOutput::with_status(
                ToolStatus::InvalidInput,
                format!(
                    "Invalid input for '{}': {why}. Fix the input and call it again.",
                    call.name
                ),
            ),
            Ok(Ok(Err(ToolError::Failed(why)))) => ToolOutput::error(format!("Error: {why}")),
            Ok(Ok(Ok(output))) => output,
        };
        let max_chars = tool
            .max_output_chars()
            .unwrap_or(self.limits.max_output_chars);
        ToolOutput {
            content: truncate_shared(output.content, max_chars),
            ..output
        }
    }
}

/// The `pre_tool_use` hooks over the gate's decision, for a call the gate did not refuse:
/// the call as a hook rewrote it (judged again by the gate), or the hook's refusal. An ask
/// or an allow only moves between Ask and Allow (an ask rule still asks); nothing a hook
/// says lifts a refusal.
async fn hooks_before(
    call: &ToolCall,
    gate: &ResolvedTools,
    ctx: &ToolContext,
    decision: &mut crate::grants::Decision,
) -> Result<Option<ToolCall>, ToolOutput> {
    let runs = |d: &crate::grants::Decision| matches!(d.gate, Gate::Allow | Gate::Ask);
    if !runs(decision) || !ctx.hooks.acts_at(HookPoint::PreToolUse) {
        return Ok(None);
    }
    let pre = ctx.hooks.pre_tool_use(call, ctx).await;
    let mut rewritten = None;
    if let Some(input) = pre.input {
        // As if the model had written it: a rewrite cannot get past a rule or a grant.
        *decision = gate.check_call(&call.name, &input);
        rewritten = Some(ToolCall {
            input,
            ..call.clone()
        });
        if !runs(decision) {
            return Ok(rewritten);
        }
    }
    match pre.verdict {
        Some(HookVerdict::Deny(why)) => Err(ToolOutput::with_status(
            ToolStatus::Denied {
                reason: DenyReason::Hook,
            },
            format!("Not run: a hook refused it: {why}"),
        )),
        Some(HookVerdict::Ask(why)) if decision.gate == Gate::Allow => {
            decision.gate = Gate::Ask;
            decision.why = format!("a hook asks: {why}");
            Ok(rewritten)
        }
        // An ask rule still asks: the person wrote it for this very call.
        Some(HookVerdict::Allow) if decision.gate == Gate::Ask && !decision.by_rule => {
            decision.gate = Gate::Allow;
            decision.why = format!("{}; a hook allowed it", decision.why);
            Ok(rewritten)
        }
        _ => Ok(rewritten),
    }
}

impl Default for ToolExecutor {
    fn default() -> Self {
        Self::new(ExecutorLimits::default())
    }
}

fn aborted_before_start() -> ToolOutput {
    ToolOutput::with_status(
        ToolStatus::Aborted,
        "Aborted: the run was cancelled before this tool ran.",
    )
}

pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_owned()
    }
}

fn human_duration(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{} ms", d.as_millis())
    } else {
        format!("{} s", d.as_secs_f64().round())
    }
}
