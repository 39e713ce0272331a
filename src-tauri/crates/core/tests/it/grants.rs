//! Default deny, presets, allow / ask / deny lists, runtime tools and the execution gate.

use std::sync::Arc;
use std::time::Duration;

use paddock_core::protocol::{AgentEvent, ApprovalDecision, ExitReason, Grant, ToolPreset};
use paddock_core::scripted::ScriptedTurn;
use paddock_core::tool::typed;
use paddock_core::{Agent, Approvals, AskPolicy, CollectSink, GrantPolicy, ToolRegistry};
use serde_json::json;

use paddock_core::testing::*;

fn visible(policy: GrantPolicy) -> Vec<String> {
    let act = Arc::new(Act::default());
    let reg = registry(&act);
    policy
        .resolve(&reg)
        .specs()
        .iter()
        .map(|s| s.name.clone())
        .collect()
}

fn sorted(names: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
    v.sort();
    v
}

#[test]
fn no_preset_and_no_allow_list_grants_nothing() {
    assert!(visible(GrantPolicy::default()).is_empty());
    // Deny or ask lists alone grant nothing either.
    let p = GrantPolicy {
        ask: vec!["bash".into()],
        deny: vec!["grep".into()],
        ..GrantPolicy::default()
    };
    assert!(visible(p).is_empty());
}

#[test]
fn presets_grant_their_tools_and_never_delegation() {
    assert_eq!(
        visible(GrantPolicy::with_preset(ToolPreset::Readonly)),
        sorted(&["file_read", "grep", "glob", "web_fetch"])
    );
    assert_eq!(
        visible(GrantPolicy::with_preset(ToolPreset::Readwrite)),
        sorted(&[
            "file_read",
            "grep",
            "glob",
            "web_fetch",
            "file_write",
            "file_edit"
        ])
    );
    assert_eq!(
        visible(GrantPolicy::with_preset(ToolPreset::Full)),
        sorted(&[
            "file_read",
            "grep",
            "glob",
            "web_fetch",
            "file_write",
            "file_edit",
            "bash"
        ])
    );
}

#[test]
fn allow_list_alone_grants_exactly_its_names() {
    assert_eq!(
        visible(GrantPolicy::allowing(&["echo", "bash"])),
        sorted(&["bash", "echo"])
    );
}

#[test]
fn preset_and_allow_list_intersect_with_a_warning() {
    let act = Arc::new(Act::default());
    let reg = registry(&act);
    let p = GrantPolicy {
        preset: Some(ToolPreset::Readonly),
        allow: vec!["grep".into(), "bash".into()],
        ..GrantPolicy::default()
    };
    let r = p.resolve(&reg);
    let names: Vec<&str> = r.specs().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, vec!["grep"]);
    assert!(
        r.warnings().iter().any(|w| w.contains("both set")),
        "{:?}",
        r.warnings()
    );
    let bash = r.info().iter().find(|i| i.name == "bash").unwrap();
    assert_eq!(bash.grant, Grant::Deny);
    assert_eq!(bash.reason, "denied — not in preset readonly");
}

#[test]
fn deny_list_wins_over_preset_and_allow_list() {
    let p = GrantPolicy {
        preset: Some(ToolPreset::Full),
        deny: vec!["bash".into()],
        ..GrantPolicy::default()
    };
    assert!(!visible(p).contains(&"bash".to_owned()));
    let p = GrantPolicy {
        allow: vec!["bash".into()],
        deny: vec!["bash".into()],
        ..GrantPolicy::default()
    };
    assert!(visible(p).is_empty());
}

#[test]
fn framework_deny_cannot_be_lifted() {
    let p = GrantPolicy {
        preset: Some(ToolPreset::Full),
        allow: vec!["bash".into()],
        framework_deny: vec![("bash".into(), "OS confinement is unavailable".into())],
        ..GrantPolicy::default()
    };
    let act = Arc::new(Act::default());
    let r = p.resolve(&registry(&act));
    assert!(r.specs().is_empty());
    let info = r.info().iter().find(|i| i.name == "bash").unwrap();
    assert!(
        info.reason.contains("OS confinement is unavailable"),
        "{}",
        info.reason
    );
}

fn registry_with_runtime() -> Arc<ToolRegistry> {
    let mut r = ToolRegistry::new();
    r.register(typed(Echo)).unwrap();
    r.register_runtime(Arc::new(Fake::new("mcp__srv__lookup")))
        .unwrap();
    r.register_runtime(Arc::new(Fake::new("mcp__srv__delete")))
        .unwrap();
    Arc::new(r)
}

#[test]
fn runtime_tools_skip_preset_and_allow_list_but_obey_deny_lists() {
    let reg = registry_with_runtime();
    let names = |p: GrantPolicy| -> Vec<String> {
        p.resolve(&reg)
            .specs()
            .iter()
            .map(|s| s.name.clone())
            .collect()
    };
    // No grants at all: runtime tools are still visible, built-ins are not.
    assert_eq!(
        names(GrantPolicy::default()),
        vec!["mcp__srv__delete", "mcp__srv__lookup"]
    );
    // An allow list does not hide them.
    assert_eq!(
        names(GrantPolicy::allowing(&["echo"])),
        vec!["echo", "mcp__srv__delete", "mcp__srv__lookup"]
    );
    // The deny lists do.
    let p = GrantPolicy {
        deny: vec!["mcp__srv__delete".into()],
        framework_deny: vec![("mcp__srv__lookup".into(), "blocked".into())],
        ..GrantPolicy::default()
    };
    assert!(names(p).is_empty());
    assert!(reg.is_runtime("mcp__srv__lookup"));
    assert!(!reg.is_runtime("echo"));
}

/// Server patterns, the headless default for runtime tools, a run's ceiling and a caller's
/// limit, each with the reason the grants screen shows.
#[test]
fn bounds_over_the_settings() {
    let mut r = ToolRegistry::new();
    for name in BUILTIN_NAMES {
        r.register(Arc::new(Fake::new(name))).unwrap();
    }
    for name in ["mcp__srv__do_read_x", "mcp__srv__delete", "mcp__other__x"] {
        r.register_runtime(Arc::new(Fake::new(name))).unwrap();
    }
    let grant = |p: &GrantPolicy, name: &str| -> (Grant, String) {
        let info = p.resolve(&r);
        let i = info.info().iter().find(|i| i.name == name).unwrap();
        (i.grant, i.reason.clone())
    };
    // A server pattern grants its tools; a denial by name still wins; headless, the other
    // server's tools are denied; interactively they ask.
    let mut p = GrantPolicy::from_overrides(
        Some(ToolPreset::Full),
        [
            ("mcp__srv__*", Grant::Allow),
            ("mcp__srv__delete", Grant::Deny),
        ],
    );
    p.runtime_default = Grant::Deny;
    assert_eq!(grant(&p, "mcp__srv__do_read_x").0, Grant::Allow);
    assert_eq!(grant(&p, "mcp__srv__delete").0, Grant::Deny);
    let (g, why) = grant(&p, "mcp__other__x");
    assert_eq!(g, Grant::Deny);
    assert!(why.contains("mcp__<server>__*"), "{why}");
    p.runtime_default = Grant::Ask;
    assert_eq!(grant(&p, "mcp__other__x").0, Grant::Ask);

    // A readonly ceiling: what changes things goes, read-only tools stay, the user's own
    // exception passes.
    p.ceiling = Some(ToolPreset::Readonly);
    p.ceiling_exceptions = vec!["bash".into()];
    let (g, why) = grant(&p, "file_write");
    assert_eq!(g, Grant::Deny);
    assert!(why.contains("limited to the readonly preset"), "{why}");
    assert_eq!(grant(&p, "file_read").0, Grant::Allow);
    assert_eq!(grant(&p, "bash").0, Grant::Allow);
    assert_eq!(grant(&p, "mcp__srv__do_read_x").0, Grant::Allow);
    assert_eq!(grant(&p, "mcp__other__x").0, Grant::Deny);

    // A caller's limit: missing means denied, its Ask stays Ask.
    let mut t = GrantPolicy::with_preset(ToolPreset::Full);
    t.limit = Some(Arc::new(
        [
            ("grep".to_owned(), Grant::Allow),
            ("bash".to_owned(), Grant::Ask),
        ]
        .into_iter()
        .collect(),
    ));
    assert_eq!(grant(&t, "grep").0, Grant::Allow);
    assert_eq!(grant(&t, "bash").0, Grant::Ask);
    let (g, why) = grant(&t, "file_write");
    assert_eq!(g, Grant::Deny);
    assert!(why.contains("the agent that started this one"), "{why}");
}

#[test]
fn registry_refuses_duplicates_and_bad_names() {
    let mut r = ToolRegistry::new();
    r.register(typed(Echo)).unwrap();
    let err = r.register(typed(Echo)).unwrap_err();
    assert!(err.to_string().contains("already registered"));
    let err = r
        .register_runtime(Arc::new(Fake::new("has space")))
        .unwrap_err();
    assert!(err.to_string().contains("invalid tool name"));
    let err = r
        .register(Arc::new(Fake::new(&"x".repeat(65))))
        .unwrap_err();
    assert!(err.to_string().contains("invalid tool name"));
}

#[test]
fn unknown_list_entries_warn() {
    let act = Arc::new(Act::default());
    let p = GrantPolicy {
        allow: vec!["echo".into(), "fiel_read".into()],
        ..GrantPolicy::default()
    };
    let r = p.resolve(&registry(&act));
    assert!(r.warnings().iter().any(|w| w.contains("'fiel_read'")));

    // Tools granted one by one (settings' "tools", --allow) are checked too, with the name
    // a typo most likely meant; a name far from any says no more than that it is unknown.
    let p = GrantPolicy {
        extra: vec!["ehco".into(), "zzzzzzzz".into(), "echo".into()],
        ..GrantPolicy::default()
    };
    let r = p.resolve(&registry(&act));
    assert_eq!(
        r.warnings(),
        [
            "the grant list names 'ehco', which is not a known tool (did you mean 'echo'?)",
            "the grant list names 'zzzzzzzz', which is not a known tool",
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn the_gate_refuses_a_name_the_model_was_never_told_about() {
    let mut h = harness(
        config_with_preset(ToolPreset::Readonly),
        vec![
            ScriptedTurn::tools(&[
                ("bash", json!({"command": "rm -rf /"})),
                ("grep", json!({})),
            ]),
            ScriptedTurn::text("ok"),
        ],
    );
    let r = h.agent.run("go").await;
    assert_eq!(r.exit, ExitReason::EndTurn);
    let told: Vec<String> = h.model.requests()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert!(!told.contains(&"bash".to_owned()));
    let results = last_results(h.agent.history());
    assert_eq!(
        results[0].0,
        "Tool 'bash' is not granted to this agent; it was not run."
    );
    assert!(results[0].1);
    assert_eq!(results[1], ("grep ran".to_owned(), false));
}

#[tokio::test(start_paused = true)]
async fn with_default_deny_nothing_runs() {
    let mut h = harness(
        paddock_core::AgentConfig::new("main", "m"),
        vec![
            ScriptedTurn::tools(&[("echo", json!({"text": "x"})), ("file_write", json!({}))]),
            ScriptedTurn::text("ok"),
        ],
    );
    h.agent.run("go").await;
    assert!(h.model.requests()[0].tools.is_empty());
    let results = last_results(h.agent.history());
    assert!(results.iter().all(|(c, e)| *e && c.contains("not granted")));
}

#[tokio::test(start_paused = true)]
async fn unknown_tools_get_an_error_listing_what_is_available() {
    let mut h = harness(
        config_allowing(&["echo"]),
        vec![
            ScriptedTurn::tools(&[("teleport", json!({}))]),
            ScriptedTurn::text("ok"),
        ],
    );
    h.agent.run("go").await;
    let results = last_results(h.agent.history());
    assert_eq!(
        results[0],
        (
            "Unknown tool 'teleport'. Tools available to you: echo.".to_owned(),
            true
        )
    );
}

/// Shown able to fail: before the near-miss hint the answer only listed the tools, and a
/// small model asked for `read_file` again.
#[tokio::test(start_paused = true)]
async fn a_near_miss_name_is_answered_with_the_right_one() {
    let mut h = harness(
        config_allowing(&["echo"]),
        vec![
            ScriptedTurn::tools(&[("Echo_", json!({"text": "x"}))]),
            ScriptedTurn::text("ok"),
        ],
    );
    h.agent.run("go").await;
    let results = last_results(h.agent.history());
    assert_eq!(
        results[0],
        (
            "Unknown tool 'Echo_'. Did you mean 'echo'? Call it by that name. Tools available \
             to you: echo."
                .to_owned(),
            true
        )
    );
}

fn ask_config() -> paddock_core::AgentConfig {
    let mut c = config_allowing(&["echo"]);
    c.grants.ask = vec!["echo".into()];
    c
}

fn ask_agent(policy: AskPolicy, turns: Vec<ScriptedTurn>) -> (Agent, Arc<CollectSink>) {
    let h = harness(ask_config(), turns);
    let events = h.events.clone();
    (
        h.agent.with_approvals(Arc::new(Approvals::new(policy))),
        events,
    )
}

/// Answers every approval request with `decisions` in order, as a UI would: each as soon as
/// its request arrives.
fn answer(agent: &Agent, events: Arc<CollectSink>, decisions: Vec<ApprovalDecision>) {
    let handle = agent.handle();
    tokio::spawn(async move {
        for (answered, decision) in decisions.into_iter().enumerate() {
            events.wait_until(|e| requests(e).len() > answered).await;
            let id = requests(&events.events())[answered].clone();
            handle.approve(&id, decision).unwrap();
        }
    });
}

fn requests(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ApprovalRequested { request_id, .. } => Some(request_id.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn ask_once_runs_one_call_and_asks_again_next_time() {
    let (mut agent, events) = ask_agent(
        AskPolicy::Interactive,
        vec![
            ScriptedTurn::tools(&[("echo", json!({"text": "one"}))]),
            ScriptedTurn::tools(&[("echo", json!({"text": "two"}))]),
            ScriptedTurn::text("done"),
        ],
    );
    answer(
        &agent,
        events.clone(),
        vec![ApprovalDecision::Once, ApprovalDecision::Deny],
    );
    let r = tokio::time::timeout(Duration::from_secs(5), agent.run("go"))
        .await
        .unwrap();
    assert_eq!(r.exit, ExitReason::EndTurn);
    let all = events.events();
    assert_eq!(
        count_events(&all, |e| matches!(e, AgentEvent::ApprovalRequested { .. })),
        2
    );
    assert_eq!(
        count_events(&all, |e| matches!(e, AgentEvent::ApprovalResolved { .. })),
        2
    );
    let results: Vec<_> = agent
        .history()
        .iter()
        .flat_map(|m| m.tool_results().cloned().collect::<Vec<_>>())
        .collect();
    assert_eq!(results[0].content, "one");
    assert!(results[1].is_error);
    assert!(
        results[1].content.contains("the user denied"),
        "{}",
        results[1].content
    );
}

#[tokio::test(start_paused = true)]
async fn ask_for_the_session_stops_asking() {
    let (mut agent, events) = ask_agent(
        AskPolicy::Interactive,
        vec![
            ScriptedTurn::tools(&[("echo", json!({"text": "one"}))]),
            ScriptedTurn::tools(&[("echo", json!({"text": "two"}))]),
            ScriptedTurn::text("done"),
        ],
    );
    answer(&agent, events.clone(), vec![ApprovalDecision::Session]);
    tokio::time::timeout(Duration::from_secs(5), agent.run("go"))
        .await
        .unwrap();
    assert_eq!(
        count_events(&events.events(), |e| matches!(
            e,
            AgentEvent::ApprovalRequested { .. }
        )),
        1
    );
    assert_eq!(
        last_results(agent.history()),
        vec![("two".to_owned(), false)]
    );
    assert_eq!(agent.handle().approvals().session_allowed(), vec!["echo"]);
}

#[tokio::test(start_paused = true)]
async fn headless_ask_is_deny_by_default_and_allow_when_told() {
    let turns = || {
        vec![
            ScriptedTurn::tools(&[("echo", json!({"text": "x"}))]),
            ScriptedTurn::text("ok"),
        ]
    };
    let (mut agent, events) = ask_agent(AskPolicy::HeadlessDeny, turns());
    agent.run("go").await;
    let (content, is_error) = last_results(agent.history()).remove(0);
    assert!(is_error);
    assert!(content.contains("headless"), "{content}");
    assert_eq!(
        count_events(&events.events(), |e| matches!(
            e,
            AgentEvent::ApprovalRequested { .. }
        )),
        0
    );

    let (mut agent, _) = ask_agent(AskPolicy::HeadlessAllow, turns());
    agent.run("go").await;
    assert_eq!(last_results(agent.history()), vec![("x".to_owned(), false)]);
}

#[tokio::test(start_paused = true)]
async fn cancel_while_waiting_for_approval_aborts_the_call() {
    let (mut agent, _events) = ask_agent(
        AskPolicy::Interactive,
        vec![
            ScriptedTurn::tools(&[("echo", json!({"text": "x"}))]),
            ScriptedTurn::text("never"),
        ],
    );
    let handle = agent.handle();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        handle.cancel();
    });
    let r = tokio::time::timeout(Duration::from_secs(5), agent.run("go"))
        .await
        .unwrap();
    assert_eq!(r.exit, ExitReason::Aborted);
    assert_paired(agent.history());
    assert!(agent.handle().approvals().pending().is_empty());
    let (content, _) = last_results(agent.history()).remove(0);
    assert!(content.contains("Aborted"));
}

#[test]
fn answering_an_unknown_request_is_an_error() {
    let approvals = Approvals::new(AskPolicy::Interactive);
    let err = approvals
        .resolve("approval-99", ApprovalDecision::Once)
        .unwrap_err();
    assert!(err.to_string().contains("approval-99"));
}

/// A held change (`Approvals::confirm`) is never kept unseen: no headless policy keeps it,
/// and an earlier "for this session" of the tool does not answer it.
#[tokio::test]
async fn confirmations_are_always_asked() {
    use paddock_core::approval::Verdict;
    use paddock_core::{EventSink, NullSink};
    let call = paddock_protocol::ToolCall {
        id: "c1".into(),
        name: "bash".into(),
        input: json!({}),
        parsed_from_text: false,
    };
    let cancel = tokio_util::sync::CancellationToken::new();
    for policy in [AskPolicy::HeadlessAllow, AskPolicy::HeadlessDeny] {
        let approvals = Approvals::new(policy);
        let v = approvals
            .confirm(&call, "keep", None, "why", &NullSink, &cancel)
            .await;
        assert!(matches!(v, Verdict::Denied(..)), "{policy:?}: {v:?}");
    }
    // The user allowed bash for the session; a held change still asks.
    struct Answer(Arc<Approvals>, ApprovalDecision, std::sync::Mutex<u32>);
    impl EventSink for Answer {
        fn emit(&self, event: paddock_protocol::AgentEvent) {
            if let paddock_protocol::AgentEvent::ApprovalRequested { request_id, .. } = event {
                *self.2.lock().unwrap() += 1;
                self.0.resolve(&request_id, self.1).unwrap();
            }
        }
    }
    let approvals = Arc::new(Approvals::new(AskPolicy::Interactive));
    let session = Answer(
        approvals.clone(),
        ApprovalDecision::Session,
        Default::default(),
    );
    let v = approvals
        .request(&call, "run", None, ("why", None).into(), &session, &cancel)
        .await;
    assert_eq!(v, Verdict::Approved);
    assert_eq!(approvals.session_allowed(), ["bash"]);
    let deny = Answer(
        approvals.clone(),
        ApprovalDecision::Deny,
        Default::default(),
    );
    let v = approvals
        .confirm(&call, "keep", None, "why", &deny, &cancel)
        .await;
    assert!(matches!(v, Verdict::Denied(..)), "{v:?}");
    assert_eq!(
        *deny.2.lock().unwrap(),
        1,
        "asked although bash was allowed for the session"
    );
}

#[test]
fn reasons_explain_each_state() {
    let act = Arc::new(Act::default());
    let p = GrantPolicy {
        preset: Some(ToolPreset::Full),
        ask: vec!["bash".into()],
        deny: vec!["file_write".into()],
        ..GrantPolicy::default()
    };
    let r = p.resolve(&registry(&act));
    let reason = |n: &str| {
        r.info()
            .iter()
            .find(|i| i.name == n)
            .map(|i| (i.grant, i.reason.clone()))
            .unwrap()
    };
    assert_eq!(
        reason("bash"),
        (Grant::Ask, "ask — preset full, on the ask list".into())
    );
    assert_eq!(
        reason("file_write"),
        (Grant::Deny, "denied — on the deny list".into())
    );
    assert_eq!(
        reason("grep"),
        (Grant::Allow, "allowed — preset full".into())
    );
    assert_eq!(
        reason("echo"),
        (Grant::Deny, "denied — not in preset full".into())
    );
    let none = GrantPolicy::default().resolve(&registry(&act));
    assert_eq!(
        none.info()[0].reason,
        "denied — no preset or allow list grants built-in tools"
    );
}

#[test]
fn per_tool_overrides_add_to_and_take_from_the_preset() {
    let act = Arc::new(Act::default());
    let reg = registry(&act);
    let p = GrantPolicy::from_overrides(
        Some(ToolPreset::Readonly),
        [
            ("bash", Grant::Ask),
            ("echo", Grant::Allow),
            ("grep", Grant::Deny),
        ],
    );
    let r = p.resolve(&reg);
    let names: Vec<&str> = r.specs().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        vec!["bash", "echo", "file_read", "glob", "web_fetch"]
    );
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    let info = |n: &str| {
        r.info()
            .iter()
            .find(|i| i.name == n)
            .map(|i| (i.grant, i.reason.clone()))
            .unwrap()
    };
    assert_eq!(
        info("bash"),
        (
            Grant::Ask,
            "ask — granted individually, on the ask list".into()
        )
    );
    assert_eq!(
        info("file_read"),
        (Grant::Allow, "allowed — preset readonly".into())
    );
    assert_eq!(
        info("file_write"),
        (Grant::Deny, "denied — not in preset readonly".into())
    );

    // Without a preset, only what is granted one by one.
    let p = GrantPolicy::from_overrides(None, [("echo", Grant::Allow)]);
    assert_eq!(p.resolve(&reg).specs().len(), 1);
    assert!(
        GrantPolicy::from_overrides(None, [])
            .resolve(&reg)
            .specs()
            .is_empty()
    );

    // Runtime tools: Ask and Deny apply, Allow changes nothing.
    let reg = registry_with_runtime();
    let p = GrantPolicy::from_overrides(
        None,
        [
            ("mcp__srv__lookup", Grant::Ask),
            ("mcp__srv__delete", Grant::Deny),
        ],
    );
    let r = p.resolve(&reg);
    let names: Vec<&str> = r.specs().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, vec!["mcp__srv__lookup"]);
    assert_eq!(r.check("mcp__srv__lookup"), paddock_core::Gate::Ask);
    assert_eq!(r.check("mcp__srv__delete"), paddock_core::Gate::NotGranted);
}
