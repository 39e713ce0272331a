use std::sync::Arc;

use paddock_desktop::error::ToAppError;
use paddock_desktop::{runs, sessions};
use paddock_fake_model::{FakeServer, Fault, Outcome, Reply};
use paddock_protocol::{AgentEvent, AppErrorCode, ApprovalDecision, ExitReason};
use serde_json::json;
use tokio::sync::mpsc;

use crate::common::{events_until, finished, setup, write_settings};

fn exit_of(events: &[AgentEvent]) -> Option<ExitReason> {
    events.iter().find_map(|e| match e {
        AgentEvent::RunFinished { exit, .. } => Some(*exit),
        _ => None,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_runs_in_the_background_and_its_session_continues() {
    let fake = FakeServer::start().await.unwrap();
    fake.push(Reply::tool_call(
        "file_write",
        json!({"path": "notes/a.txt", "content": "alpha"}),
    ));
    fake.push(Reply::text("Wrote it."));
    fake.push(Reply::text("Second answer."));
    let s = setup(&fake, json!({"preset": "readwrite"}));
    let (tx, mut rx) = mpsc::unbounded_channel();

    let id = runs::send_prompt(
        &s.desktop,
        &s.root,
        None,
        "write a",
        None,
        Arc::new(tx.clone()),
    )
    .await
    .unwrap();
    let events = events_until(&mut rx, finished).await;
    assert_eq!(exit_of(&events), Some(ExitReason::EndTurn));
    assert!(events.iter().any(|e| matches!(e,
        AgentEvent::ToolCallFinished { name, is_error: false, .. } if name == "file_write")));
    let written = s.root.join(".agent-workspace/notes/a.txt");
    assert_eq!(std::fs::read_to_string(written).unwrap(), "alpha");

    // Listed, loadable, and a second prompt continues it with the history.
    let listed = sessions::list(s.desktop.store(), &s.root).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0].id.as_str(), listed[0].title.as_str()),
        (id.as_str(), "write a")
    );
    let again = runs::send_prompt(
        &s.desktop,
        &s.root,
        Some(id.clone()),
        "and then?",
        None,
        Arc::new(tx),
    )
    .await
    .unwrap();
    assert_eq!(again, id);
    events_until(&mut rx, finished).await;
    let body = fake.model_requests()[2].body.to_string();
    assert!(
        body.contains("write a") && body.contains("Wrote it."),
        "{body}"
    );
    let t = sessions::load(s.desktop.store(), &s.root, &id).unwrap();
    assert_eq!(t.messages.len(), 6, "{:#?}", t.messages);
    assert!(t.events.iter().filter(|e| finished(e)).count() == 2);
    assert_eq!(t.omitted, None);
    // Opened on its last turn: the second prompt's run, the first counted as left out.
    let tail = sessions::load_tail(s.desktop.store(), &s.root, &id, Some(1)).unwrap();
    let omitted = tail.omitted.expect("the first run left out");
    assert_eq!(
        (omitted.runs, omitted.turns, omitted.hidden_turns),
        (1, 0, 2)
    );
    assert_eq!(tail.messages[0].text(), "and then?");
    assert_eq!(tail.messages.len(), 2, "{:#?}", tail.messages);
    assert!(matches!(tail.events[0], AgentEvent::RunStarted { .. }));
    assert!(tail.events.iter().filter(|e| finished(e)).count() == 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_session_is_busy_until_stopped() {
    let fake = FakeServer::start().await.unwrap();
    fake.push(
        Reply::text("thinking hard")
            .with_chunk_chars(2)
            .with_fault(Fault::Hang { after: 3 }),
    );
    fake.push(Reply::text("back"));
    let s = setup(&fake, json!({}));
    let (tx, mut rx) = mpsc::unbounded_channel();
    let id = runs::send_prompt(&s.desktop, &s.root, None, "go", None, Arc::new(tx.clone()))
        .await
        .unwrap();
    events_until(&mut rx, |e| matches!(e, AgentEvent::TextDelta { .. })).await;
    assert!(s.desktop.runs().is_running(&s.root, &id));

    let busy = runs::send_prompt(
        &s.desktop,
        &s.root,
        Some(id.clone()),
        "again",
        None,
        Arc::new(tx.clone()),
    )
    .await
    .unwrap_err();
    assert_eq!(busy.code, AppErrorCode::Busy);
    let delete = sessions::delete(&s.desktop.service, &s.root, &id).unwrap_err();
    assert_eq!(delete.code, AppErrorCode::Busy);

    s.desktop.runs().stop(&s.root, &id);
    let events = events_until(&mut rx, finished).await;
    assert_eq!(exit_of(&events), Some(ExitReason::Aborted));
    // The first model call (the context-window probes come before it).
    let call = fake
        .requests()
        .iter()
        .position(|r| r.path.ends_with("/chat/completions"))
        .unwrap();
    assert_eq!(
        fake.wait_until_closed(call, std::time::Duration::from_secs(10))
            .await,
        Some(Outcome::ClientClosed)
    );
    assert!(
        !s.desktop.runs().is_running(&s.root, &id),
        "idle once run_finished is out"
    );
    // Stopping an idle session is harmless; the next prompt runs.
    s.desktop.runs().stop(&s.root, &id);
    runs::send_prompt(&s.desktop, &s.root, Some(id), "again", None, Arc::new(tx))
        .await
        .unwrap();
    let events = events_until(&mut rx, finished).await;
    assert_eq!(exit_of(&events), Some(ExitReason::EndTurn));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_tools_wait_for_the_user() {
    let fake = FakeServer::start().await.unwrap();
    fake.push(Reply::tool_call(
        "file_write",
        json!({"path": "yes.txt", "content": "1"}),
    ));
    fake.push(Reply::tool_call(
        "file_write",
        json!({"path": "no.txt", "content": "2"}),
    ));
    fake.push(Reply::text("done"));
    let s = setup(&fake, json!({"tools": {"file_write": "ask"}}));
    let (tx, mut rx) = mpsc::unbounded_channel();
    let id = runs::send_prompt(&s.desktop, &s.root, None, "two files", None, Arc::new(tx))
        .await
        .unwrap();

    for (decision, file, ok) in [
        (ApprovalDecision::Once, "yes.txt", true),
        (ApprovalDecision::Deny, "no.txt", false),
    ] {
        let events = events_until(&mut rx, |e| {
            matches!(e, AgentEvent::ApprovalRequested { .. })
        })
        .await;
        let Some(AgentEvent::ApprovalRequested { request_id, .. }) = events.last() else {
            unreachable!()
        };
        let wrong = s
            .desktop
            .runs()
            .approve(&s.root, &id, "approval-999", decision)
            .unwrap_err();
        assert_eq!(wrong.app_error().code, AppErrorCode::NotFound);
        s.desktop
            .runs()
            .approve(&s.root, &id, request_id, decision)
            .unwrap();
        let events = events_until(&mut rx, |e| {
            matches!(e, AgentEvent::ToolCallFinished { .. })
        })
        .await;
        let Some(AgentEvent::ToolCallFinished { is_error, .. }) = events.last() else {
            unreachable!()
        };
        assert_eq!(*is_error, !ok);
        assert_eq!(s.root.join(".agent-workspace").join(file).exists(), ok);
    }
    events_until(&mut rx, finished).await;
    let none = s
        .desktop
        .runs()
        .approve(&s.root, &id, "approval-1", ApprovalDecision::Once);
    assert_eq!(none.unwrap_err().app_error().code, AppErrorCode::NotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_that_cannot_start_say_why_and_leave_no_session() {
    let fake = FakeServer::start().await.unwrap();
    let s = setup(&fake, json!({"provider": "anthropic"}));
    let (tx, _rx) = mpsc::unbounded_channel();
    let err = runs::send_prompt(&s.desktop, &s.root, None, "hi", None, Arc::new(tx.clone()))
        .await
        .unwrap_err();
    assert_eq!(err.code, AppErrorCode::Provider, "{err:?}");
    assert!(err.message.contains("API key"), "{}", err.message);
    assert!(
        sessions::list(s.desktop.store(), &s.root)
            .unwrap()
            .is_empty()
    );

    let empty = runs::send_prompt(&s.desktop, &s.root, None, "  ", None, Arc::new(tx.clone()))
        .await
        .unwrap_err();
    assert_eq!(empty.code, AppErrorCode::Invalid);
    // With a usable provider, an unknown session is reported as such.
    write_settings(
        &s.root,
        &json!({"version": 1, "provider": "openai-compatible", "baseUrl": fake.url(), "model": "m"}),
    );
    let missing = runs::send_prompt(
        &s.desktop,
        &s.root,
        Some("20250101-nope".into()),
        "hi",
        None,
        Arc::new(tx),
    )
    .await
    .unwrap_err();
    assert_eq!(missing.code, AppErrorCode::NotFound, "{missing:?}");
}

/// A base URL the user has not trusted is left out; the error for the missing one says why,
/// instead of asking for what the settings screen shows as set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_missing_an_untrusted_setting_says_it_waits_for_trust() {
    let fake = FakeServer::start().await.unwrap();
    let s = setup(&fake, json!({}));
    write_settings(
        &s.root,
        &json!({"version": 1, "provider": "openai-compatible",
                "baseUrl": "http://127.0.0.1:9/v1", "model": "fake-model"}),
    );
    let (tx, _rx) = mpsc::unbounded_channel();
    let err = runs::send_prompt(&s.desktop, &s.root, None, "hi", None, Arc::new(tx))
        .await
        .unwrap_err();
    assert!(
        err.message.contains("no base URL is set"),
        "{}",
        err.message
    );
    assert!(
        err.message
            .contains("also sets baseUrl, not applied until you trust the folder"),
        "{}",
        err.message
    );
    // The kind is the underlying error's.
    assert_eq!(err.code, AppErrorCode::Provider, "{err:?}");
    assert!(fake.requests().is_empty(), "nothing reached any server");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_key_reaches_the_model_and_a_new_key_rebuilds_the_runtime() {
    let fake = FakeServer::start().await.unwrap();
    fake.load(paddock_fake_model::Script {
        api_key: Some("sk-second".into()),
        replies: vec![Reply::text("first"), Reply::text("second")],
        ..Default::default()
    });
    let s = setup(
        &fake,
        json!({"provider": "openai", "baseUrl": format!("{}/v1", fake.url())}),
    );
    let keys = s.desktop.keys();
    paddock_desktop::keys::set(
        keys.clone(),
        paddock_protocol::ProviderKind::OpenAi,
        "sk-first".into(),
    )
    .await
    .unwrap();
    let (tx, mut rx) = mpsc::unbounded_channel();
    runs::send_prompt(&s.desktop, &s.root, None, "one", None, Arc::new(tx.clone()))
        .await
        .unwrap();
    let events = events_until(&mut rx, finished).await;
    assert_eq!(
        exit_of(&events),
        Some(ExitReason::Error),
        "the fake wants the other key"
    );

    paddock_desktop::keys::set(
        keys,
        paddock_protocol::ProviderKind::OpenAi,
        "sk-second".into(),
    )
    .await
    .unwrap();
    s.desktop.service.keys_changed();
    runs::send_prompt(&s.desktop, &s.root, None, "two", None, Arc::new(tx))
        .await
        .unwrap();
    let events = events_until(&mut rx, finished).await;
    assert_eq!(exit_of(&events), Some(ExitReason::EndTurn), "{events:#?}");
    let last = fake.model_requests().last().cloned().unwrap();
    assert_eq!(last.header("authorization"), Some("Bearer sk-second"));
}

/// The app resumes a session with the model it was started with when the settings no longer
/// name one (as `paddock resume` does); a model named in the settings wins.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_session_keeps_its_model_unless_the_settings_name_another() {
    let fake = FakeServer::start().await.unwrap();
    fake.push_all([Reply::text("one"), Reply::text("two"), Reply::text("three")]);
    let s = setup(&fake, json!({"model": "first-model"}));
    let (tx, mut rx) = mpsc::unbounded_channel();
    let id = runs::send_prompt(&s.desktop, &s.root, None, "hi", None, Arc::new(tx.clone()))
        .await
        .unwrap();
    events_until(&mut rx, finished).await;

    let base = format!("{}/v1", fake.url());
    write_settings(
        &s.root,
        &json!({"version": 1, "provider": "openai-compatible", "baseUrl": base}),
    );
    let again = Some(id.clone());
    runs::send_prompt(
        &s.desktop,
        &s.root,
        again,
        "more",
        None,
        Arc::new(tx.clone()),
    )
    .await
    .unwrap();
    events_until(&mut rx, finished).await;

    write_settings(
        &s.root,
        &json!({"version": 1, "provider": "openai-compatible", "baseUrl": base, "model": "other-model"}),
    );
    runs::send_prompt(&s.desktop, &s.root, Some(id), "last", None, Arc::new(tx))
        .await
        .unwrap();
    events_until(&mut rx, finished).await;

    let models: Vec<String> = fake
        .model_requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(models, ["first-model", "first-model", "other-model"]);
}

fn mcp_notices(events: &[AgentEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Warning { message, .. } if message.starts_with("MCP server") => {
                Some(message.as_str())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_did_not_start_is_said_once_in_each_session() {
    let fake = FakeServer::start().await.unwrap();
    for answer in ["one", "two", "three"] {
        fake.push(Reply::text(answer));
    }
    let s = setup(
        &fake,
        json!({"mcpServers": {"broken": {"command": "/nonexistent/paddock-test-mcp"}}}),
    );
    let (tx, mut rx) = mpsc::unbounded_channel();
    let send = |session: Option<String>, prompt: &str| {
        runs::send_prompt(
            &s.desktop,
            &s.root,
            session,
            prompt.to_owned(),
            None,
            Arc::new(tx.clone()),
        )
    };

    let id = send(None, "one").await.unwrap();
    let first = events_until(&mut rx, finished).await;
    assert_eq!(exit_of(&first), Some(ExitReason::EndTurn));
    let said = mcp_notices(&first);
    assert_eq!(said.len(), 1, "{first:#?}");
    assert!(
        said[0].starts_with("MCP server 'broken' did not start: ")
            && said[0].ends_with("; its tools are not available"),
        "{}",
        said[0]
    );
    // Said before the model is asked, and kept in the session for when it is reopened.
    let at = |f: fn(&AgentEvent) -> bool| first.iter().position(f).unwrap();
    assert!(
        at(|e| matches!(e, AgentEvent::Warning { .. }))
            < at(|e| matches!(e, AgentEvent::TurnStarted { .. }))
    );
    let stored = sessions::load(s.desktop.store(), &s.root, &id).unwrap();
    assert_eq!(mcp_notices(&stored.events), said);

    // The same session's next run does not say it again; a new session does.
    send(Some(id), "two").await.unwrap();
    let second = events_until(&mut rx, finished).await;
    assert!(mcp_notices(&second).is_empty(), "{second:#?}");
    send(None, "three").await.unwrap();
    let other = events_until(&mut rx, finished).await;
    assert_eq!(mcp_notices(&other), said);
}
