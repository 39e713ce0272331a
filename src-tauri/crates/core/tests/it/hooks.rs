//! Hooks at the kernel's points: a pre-call hook denies (the model sees its reason and
//! nothing runs), asks, allows only what the grants would have asked, and rewrites input the
//! gate then judges again; a post-call hook's context reaches the model; the prompt hook
//! adds context or blocks the prompt (not kept); the stop hook sends the agent back, bounded.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use paddock_core::hooks::{Hooks, MAX_STOP_CONTINUATIONS, PreToolUse, PromptVerdict};
use paddock_core::protocol::{
    AgentEvent, ContentBlock, DenyReason, ExitReason, HookPoint, ToolCall, ToolStatus,
};
use paddock_core::scripted::ScriptedTurn;
use paddock_core::{HookVerdict, ToolContext, ToolOutput};
use serde_json::{Value, json};

use paddock_core::testing::*;

/// Hooks scripted per test; every call they get is written down.
#[derive(Default)]
struct Scripted {
    pre: Option<HookVerdict>,
    rewrite: Option<Value>,
    post: Option<String>,
    prompt: Option<PromptVerdict>,
    stop: Option<String>,
    seen: Mutex<Vec<String>>,
}

#[async_trait]
impl Hooks for Scripted {
    fn acts_at(&self, _point: HookPoint) -> bool {
        true
    }
    async fn pre_tool_use(&self, call: &ToolCall, _ctx: &ToolContext) -> PreToolUse {
        self.seen
            .lock()
            .unwrap()
            .push(format!("pre {}", call.input));
        PreToolUse {
            verdict: self.pre.clone(),
            input: self.rewrite.clone(),
        }
    }
    async fn post_tool_use(
        &self,
        call: &ToolCall,
        output: &ToolOutput,
        _ctx: &ToolContext,
    ) -> Option<String> {
        let line = format!("post {} -> {}", call.input, output.content.as_str());
        self.seen.lock().unwrap().push(line);
        self.post.clone()
    }
    async fn user_prompt_submit(&self, prompt: &str, _ctx: &ToolContext) -> PromptVerdict {
        self.seen.lock().unwrap().push(format!("prompt {prompt}"));
        self.prompt.clone().unwrap_or(PromptVerdict::Go(None))
    }
    async fn stop(&self, answer: &str, _ctx: &ToolContext) -> Option<String> {
        self.seen.lock().unwrap().push(format!("stop {answer}"));
        self.stop.clone()
    }
}

fn finished(events: &[AgentEvent]) -> Vec<(ToolStatus, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCallFinished { status, output, .. } => {
                Some((*status, output.to_string()))
            }
            _ => None,
        })
        .collect()
}

fn echo_then(text: &str) -> Vec<ScriptedTurn> {
    vec![
        ScriptedTurn::tools(&[("echo", json!({"text": "hi"}))]),
        ScriptedTurn::text(text),
    ]
}

#[tokio::test(start_paused = true)]
async fn a_pre_call_deny_is_a_result_with_the_reason_and_nothing_runs() {
    let hooks = Arc::new(Scripted {
        pre: Some(HookVerdict::Deny("pushing is for humans".into())),
        ..Scripted::default()
    });
    let h = harness(
        config_allowing(&["act"]),
        vec![
            ScriptedTurn::tools(&[("act", json!({"action": "count"}))]),
            ScriptedTurn::text("ok"),
        ],
    );
    let mut agent = h.agent.with_hooks(hooks.clone());
    let result = agent.run("go").await;
    assert_eq!(result.exit, ExitReason::EndTurn);
    let calls = finished(&h.events.events());
    assert_eq!(
        calls[0].0,
        ToolStatus::Denied {
            reason: DenyReason::Hook
        }
    );
    assert!(calls[0].1.contains("pushing is for humans"), "{calls:?}");
    assert_eq!(
        h.act.runs.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "the tool did not run"
    );
    // No post hook for a call that did not run.
    assert!(
        hooks
            .seen
            .lock()
            .unwrap()
            .iter()
            .all(|s| !s.starts_with("post"))
    );
}

#[tokio::test(start_paused = true)]
async fn a_hook_allow_skips_an_ask_but_never_lifts_a_refusal() {
    // echo is not granted at all: the hook is not even asked, and the call is refused.
    let hooks = Arc::new(Scripted {
        pre: Some(HookVerdict::Allow),
        ..Scripted::default()
    });
    let h = harness(config_allowing(&[]), echo_then("done"));
    let mut agent = h.agent.with_hooks(hooks.clone());
    agent.run("go").await;
    let calls = finished(&h.events.events());
    assert_eq!(
        calls[0].0,
        ToolStatus::Denied {
            reason: DenyReason::NotGranted
        }
    );
    assert!(
        hooks
            .seen
            .lock()
            .unwrap()
            .iter()
            .all(|s| !s.starts_with("pre"))
    );

    // An Ask with nobody to answer is denied, unless a hook allows the call.
    let mut config = config_allowing(&["echo"]);
    config.grants.ask.push("echo".into());
    let h = harness(config.clone(), echo_then("done"));
    let mut agent = h.agent;
    agent.run("go").await;
    assert_eq!(
        finished(&h.events.events())[0].0,
        ToolStatus::Denied {
            reason: DenyReason::NoApprover
        }
    );
    let h = harness(config, echo_then("done"));
    let mut agent = h.agent.with_hooks(hooks.clone());
    agent.run("go").await;
    assert_eq!(
        finished(&h.events.events())[0],
        (ToolStatus::Ok, "hi".into())
    );

    // An ask rule still asks: the person wrote it for calls like this one.
    let mut config = config_allowing(&["echo"]);
    config.grants.rules = paddock_core::RuleBook::new(Some(Arc::new(AskEcho)));
    let h = harness(config, echo_then("done"));
    let mut agent = h.agent.with_hooks(hooks);
    agent.run("go").await;
    assert_eq!(
        finished(&h.events.events())[0].0,
        ToolStatus::Denied {
            reason: DenyReason::NoApprover
        }
    );
}

/// A rule asking about every echo.
struct AskEcho;

impl paddock_core::CallRules for AskEcho {
    fn decide(&self, tool: &str, _input: &Value) -> paddock_core::RuleVerdict {
        paddock_core::RuleVerdict {
            action: (tool == "echo").then_some(paddock_core::protocol::Grant::Ask),
            why: "rule: ask about echo".into(),
        }
    }
    fn may_allow(&self, _tool: &str) -> bool {
        false
    }
    fn propose(&self, _tool: &str, _input: &Value) -> Option<Vec<String>> {
        None
    }
}

#[tokio::test(start_paused = true)]
async fn a_hook_ask_makes_an_allowed_call_wait_for_a_person() {
    let hooks = Arc::new(Scripted {
        pre: Some(HookVerdict::Ask("this one is unusual".into())),
        ..Scripted::default()
    });
    let h = harness(config_allowing(&["echo"]), echo_then("done"));
    let mut agent = h.agent.with_hooks(hooks);
    agent.run("go").await;
    let calls = finished(&h.events.events());
    // Headless: the ask is a refusal, naming the hook's reason in the why.
    assert_eq!(
        calls[0].0,
        ToolStatus::Denied {
            reason: DenyReason::NoApprover
        }
    );
    let why = h
        .events
        .events()
        .into_iter()
        .find_map(|e| match e {
            AgentEvent::ToolCallFinished { why, .. } => Some(why),
            _ => None,
        })
        .unwrap();
    assert!(why.contains("this one is unusual"), "{why}");
}

#[tokio::test(start_paused = true)]
async fn a_rewritten_input_runs_and_is_judged_again() {
    let hooks = Arc::new(Scripted {
        rewrite: Some(json!({"text": "rewritten"})),
        ..Scripted::default()
    });
    let h = harness(config_allowing(&["echo"]), echo_then("done"));
    let mut agent = h.agent.with_hooks(hooks);
    agent.run("go").await;
    assert_eq!(
        finished(&h.events.events())[0],
        (ToolStatus::Ok, "rewritten".into())
    );

    // A rewrite into a call a rule denies is refused like the model's own would be.
    let hooks = Arc::new(Scripted {
        rewrite: Some(json!({"action": "count"})),
        ..Scripted::default()
    });
    let mut config = config_allowing(&["act"]);
    config.grants.rules = paddock_core::RuleBook::new(Some(Arc::new(DenyCount)));
    let h = harness(
        config,
        vec![
            ScriptedTurn::tools(&[("act", json!({"action": "echo"}))]),
            ScriptedTurn::text("ok"),
        ],
    );
    let mut agent = h.agent.with_hooks(hooks);
    agent.run("go").await;
    assert_eq!(
        finished(&h.events.events())[0].0,
        ToolStatus::Denied {
            reason: DenyReason::Rule
        }
    );
    assert_eq!(h.act.runs.load(std::sync::atomic::Ordering::SeqCst), 0);
}

/// A rule denying `act` calls whose action is "count".
struct DenyCount;

impl paddock_core::CallRules for DenyCount {
    fn decide(&self, tool: &str, input: &Value) -> paddock_core::RuleVerdict {
        let deny = tool == "act" && input["action"] == "count";
        paddock_core::RuleVerdict {
            action: deny.then_some(paddock_core::protocol::Grant::Deny),
            why: if deny {
                "rule: no counting".into()
            } else {
                "no rule".into()
            },
        }
    }
    fn may_allow(&self, _tool: &str) -> bool {
        false
    }
    fn propose(&self, _tool: &str, _input: &Value) -> Option<Vec<String>> {
        None
    }
}

#[tokio::test(start_paused = true)]
async fn post_call_context_reaches_the_model_with_the_result() {
    let hooks = Arc::new(Scripted {
        post: Some("formatted src/a.rs".into()),
        ..Scripted::default()
    });
    let h = harness(config_allowing(&["echo"]), echo_then("done"));
    let mut agent = h.agent.with_hooks(hooks.clone());
    agent.run("go").await;
    let second = &h.model.requests()[1];
    let result = second
        .messages
        .iter()
        .flat_map(|m| m.tool_results())
        .next()
        .unwrap()
        .content
        .to_string();
    assert!(
        result.starts_with("hi") && result.contains("<hook-context>\nformatted src/a.rs"),
        "{result}"
    );
    assert!(
        hooks
            .seen
            .lock()
            .unwrap()
            .contains(&"post {\"text\":\"hi\"} -> hi".to_owned())
    );
}

#[tokio::test(start_paused = true)]
async fn a_prompt_hook_adds_context_or_blocks_the_prompt_which_is_then_not_kept() {
    let hooks = Arc::new(Scripted {
        prompt: Some(PromptVerdict::Go(Some(
            "ticket PAD-12: fix the login".into(),
        ))),
        ..Scripted::default()
    });
    let h = harness(config_allowing(&[]), vec![ScriptedTurn::text("on it")]);
    let mut agent = h.agent.with_hooks(hooks.clone());
    agent.run("fix it").await;
    let sent = &h.model.requests()[0].messages[0];
    assert!(sent.content.iter().any(|b| matches!(
        b,
        ContentBlock::Text { text } if text.contains("ticket PAD-12")
    )));
    assert_eq!(hooks.seen.lock().unwrap()[0], "prompt fix it");

    let hooks = Arc::new(Scripted {
        prompt: Some(PromptVerdict::Block("no prompts on Fridays".into())),
        ..Scripted::default()
    });
    let h = harness(config_allowing(&[]), vec![ScriptedTurn::text("never")]);
    let mut agent = h.agent.with_hooks(hooks);
    let result = agent.run("deploy").await;
    assert_eq!(result.exit, ExitReason::Error);
    assert!(
        result
            .error
            .unwrap()
            .message
            .contains("no prompts on Fridays")
    );
    assert_eq!(h.model.calls(), 0, "nothing went to the model");
    assert!(agent.history().is_empty(), "the blocked prompt is not kept");
    let events = h.events.events();
    assert!(matches!(
        events.last(),
        Some(AgentEvent::RunFinished { .. })
    ));
}

#[tokio::test(start_paused = true)]
async fn a_stop_hook_sends_the_agent_back_a_bounded_number_of_times() {
    let hooks = Arc::new(Scripted {
        stop: Some("run the tests first".into()),
        ..Scripted::default()
    });
    let turns = (0..=MAX_STOP_CONTINUATIONS)
        .map(|i| ScriptedTurn::text(&format!("answer {i}")))
        .collect();
    let h = harness(config_allowing(&[]), turns);
    let mut agent = h.agent.with_hooks(hooks.clone());
    let result = agent.run("go").await;
    assert_eq!(result.exit, ExitReason::EndTurn);
    assert_eq!(result.output, format!("answer {MAX_STOP_CONTINUATIONS}"));
    assert_eq!(h.model.calls(), u64::from(MAX_STOP_CONTINUATIONS) + 1);
    let told = h.model.requests()[1].messages.last().unwrap().text();
    assert!(
        told.contains("<hook-feedback>\nrun the tests first"),
        "{told}"
    );
    assert_paired(agent.history());
}
