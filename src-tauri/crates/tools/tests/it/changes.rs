//! Diffs as data: file_write and file_edit results carry the change they made; an Ask shows
//! the change before it is made (and that is the change made); calls on one file in one turn
//! all land.

use std::sync::Arc;
use std::time::Duration;

use paddock_core::protocol::{
    AgentEvent, ApprovalDecision, CallPreview, ChangeKind, DiffBody, FileChange, LineEnd, LineOp,
    ToolPreset, ToolStatus,
};
use paddock_core::scripted::{ScriptedModel, ScriptedTurn};
use paddock_core::{Agent, AgentConfig, Approvals, AskPolicy, CollectSink, GrantPolicy};
use paddock_tools::{ToolEnv, register_builtin_tools};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::tools_support::{context, workspace};

/// The change a direct call made.
async fn changed(env: &ToolEnv, tool: &str, input: Value) -> FileChange {
    let kit = context(env.clone(), CancellationToken::new());
    let out = kit
        .registry
        .get(tool)
        .unwrap()
        .call(&input, &kit.ctx)
        .await
        .unwrap();
    assert!(!out.is_error(), "{}", out.content);
    assert_eq!(out.changes.len(), 1, "{}", out.content);
    out.changes.into_iter().next().unwrap()
}

fn lines(change: &FileChange) -> Vec<(LineOp, String, Option<LineEnd>)> {
    let DiffBody::Text { hunks } = &change.diff else {
        panic!("a text diff: {change:?}")
    };
    hunks
        .iter()
        .flat_map(|h| h.lines.iter().map(|l| (l.op, l.text.clone(), l.end)))
        .collect()
}

#[tokio::test]
async fn writes_and_edits_carry_their_diff() {
    let (_dir, env) = workspace();
    let created = changed(
        &env,
        "file_write",
        json!({"path": "src/a.txt", "content": "one\ntwo\n"}),
    )
    .await;
    assert_eq!(created.path, "src/a.txt");
    assert_eq!(created.kind, ChangeKind::Created);
    assert_eq!((created.added, created.removed), (2, 0));

    let modified = changed(
        &env,
        "file_write",
        json!({"path": "./src/../src/a.txt", "content": "one\n2\n"}),
    )
    .await;
    assert_eq!(modified.path, "src/a.txt", "named by where it is");
    assert_eq!(modified.kind, ChangeKind::Modified);
    assert_eq!(
        lines(&modified),
        [
            (LineOp::Context, "one".into(), None),
            (LineOp::Removed, "two".into(), None),
            (LineOp::Added, "2".into(), None),
        ]
    );

    // No newline at the end: the last line says so.
    let bare = changed(
        &env,
        "file_edit",
        json!({"path": "src/a.txt", "old_string": "2\n", "new_string": "2"}),
    )
    .await;
    assert_eq!(
        lines(&bare),
        [
            (LineOp::Context, "one".into(), None),
            (LineOp::Removed, "2".into(), None),
            (LineOp::Added, "2".into(), Some(LineEnd::Missing)),
        ]
    );

    // CRLF files keep their endings, and the diff shows them.
    std::fs::write(env.workspace_root.join("w.txt"), "a\r\nb\r\n").unwrap();
    let crlf = changed(
        &env,
        "file_edit",
        json!({"path": "w.txt", "old_string": "b", "new_string": "B"}),
    )
    .await;
    assert_eq!(
        lines(&crlf),
        [
            (LineOp::Context, "a".into(), Some(LineEnd::Crlf)),
            (LineOp::Removed, "b".into(), Some(LineEnd::Crlf)),
            (LineOp::Added, "B".into(), Some(LineEnd::Crlf)),
        ]
    );

    // Overwriting a binary file: sizes, not lines.
    std::fs::write(env.workspace_root.join("img.bin"), [0u8, 1, 2, 3]).unwrap();
    let binary = changed(
        &env,
        "file_write",
        json!({"path": "img.bin", "content": "text now"}),
    )
    .await;
    assert_eq!(
        binary.diff,
        DiffBody::Binary {
            old_bytes: 4,
            new_bytes: 8
        }
    );
}

#[tokio::test]
async fn failed_calls_carry_no_change() {
    let (_dir, env) = workspace();
    let kit = context(env.clone(), CancellationToken::new());
    let edit = kit.registry.get("file_edit").unwrap();
    let missing = edit
        .call(
            &json!({"path": "nope.txt", "old_string": "a", "new_string": "b"}),
            &kit.ctx,
        )
        .await;
    assert!(missing.is_err());
    let refused = kit
        .registry
        .get("file_write")
        .unwrap()
        .preview(&json!({"path": ".git/hooks/pre-commit", "content": "evil"}))
        .await;
    let Some(CallPreview::WouldFail { message }) = refused else {
        panic!("a refusal preview: {refused:?}")
    };
    assert!(message.contains("read-only"), "{message}");
    assert!(
        !env.workspace_root.join(".git").exists(),
        "a preview writes nothing"
    );
}

/// An agent over the real file tools, with `ask` needing approval.
fn asking_agent(env: ToolEnv, ask: &[&str], turns: Vec<ScriptedTurn>) -> (Agent, Arc<CollectSink>) {
    let mut registry = paddock_core::ToolRegistry::new();
    register_builtin_tools(&mut registry, &Arc::new(env)).unwrap();
    let mut config = AgentConfig::new("main", "m");
    config.grants = GrantPolicy::with_preset(ToolPreset::Full);
    config.grants.ask = ask.iter().map(|s| (*s).to_owned()).collect();
    let events = CollectSink::new();
    let agent = Agent::new(
        config,
        Arc::new(ScriptedModel::new(turns)),
        Arc::new(registry),
    )
    .with_events(events.clone())
    .with_approvals(Arc::new(Approvals::new(AskPolicy::Interactive)));
    (agent, events)
}

fn preview_of(events: &[AgentEvent]) -> Option<(String, Option<CallPreview>)> {
    events.iter().find_map(|e| match e {
        AgentEvent::ApprovalRequested {
            request_id,
            preview,
            ..
        } => Some((request_id.clone(), preview.clone())),
        _ => None,
    })
}

fn finished(events: &[AgentEvent]) -> Vec<(ToolStatus, String, Vec<FileChange>)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCallFinished {
                status,
                output,
                changes,
                ..
            } => Some((*status, output.to_string(), changes.clone())),
            _ => None,
        })
        .collect()
}

/// Approves the first request once it arrives, after `meanwhile` (someone editing the file
/// while the question waits).
fn approve_after(
    agent: &Agent,
    events: Arc<CollectSink>,
    meanwhile: impl FnOnce() + Send + 'static,
) {
    let handle = agent.handle();
    tokio::spawn(async move {
        events.wait_until(|e| preview_of(e).is_some()).await;
        meanwhile();
        let (id, _) = preview_of(&events.events()).unwrap();
        handle.approve(&id, ApprovalDecision::Once).unwrap();
    });
}

#[tokio::test]
async fn an_ask_shows_the_diff_that_approval_then_makes() {
    let (_dir, env) = workspace();
    let file = env.workspace_root.join("notes.md");
    std::fs::write(&file, "# Notes\nold line\n").unwrap();
    let (mut agent, events) = asking_agent(
        env,
        &["file_edit"],
        vec![
            ScriptedTurn::tools(&[(
                "file_edit",
                json!({"path": "notes.md", "old_string": "old line", "new_string": "new line"}),
            )]),
            ScriptedTurn::text("done"),
        ],
    );
    approve_after(&agent, events.clone(), || {});
    tokio::time::timeout(Duration::from_secs(10), agent.run("edit"))
        .await
        .unwrap();
    let all = events.events();
    let Some((_, Some(CallPreview::Change { change: asked }))) = preview_of(&all) else {
        panic!("the approval shows the change: {all:?}")
    };
    assert_eq!(asked.kind, ChangeKind::Modified);
    assert_eq!((asked.added, asked.removed), (1, 1));
    let done = finished(&all);
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].0, ToolStatus::Ok, "{}", done[0].1);
    assert_eq!(
        done[0].2,
        vec![asked],
        "the change made is the change shown"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "# Notes\nnew line\n"
    );
}

#[tokio::test]
async fn a_file_changed_while_asking_is_not_overwritten() {
    let (_dir, env) = workspace();
    let file = env.workspace_root.join("notes.md");
    std::fs::write(&file, "draft\n").unwrap();
    let (mut agent, events) = asking_agent(
        env,
        &["file_write"],
        vec![
            ScriptedTurn::tools(&[(
                "file_write",
                json!({"path": "notes.md", "content": "the model's text\n"}),
            )]),
            ScriptedTurn::text("done"),
        ],
    );
    let edited = file.clone();
    approve_after(&agent, events.clone(), move || {
        std::fs::write(edited, "the user's edit\n").unwrap();
    });
    tokio::time::timeout(Duration::from_secs(10), agent.run("write"))
        .await
        .unwrap();
    let done = finished(&events.events());
    assert_eq!(done[0].0, ToolStatus::Failed);
    assert!(
        done[0].1.contains("changed while this call waited"),
        "{}",
        done[0].1
    );
    assert!(done[0].2.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "the user's edit\n");
}

#[tokio::test]
async fn bash_asks_with_its_command_where_it_runs_and_its_network() {
    let (_dir, env) = workspace();
    let root = env.workspace_root.display().to_string();
    let status = env.sandbox_status();
    let unfenced = status
        .protection(paddock_core::protocol::ProtectionKind::Network)
        .is_none_or(|p| p.state != paddock_core::protocol::ProtectionState::Enforced);
    let (mut agent, events) = asking_agent(
        env,
        &["bash"],
        vec![
            ScriptedTurn::tools(&[("bash", json!({"command": "ls -la", "timeout_secs": 5}))]),
            ScriptedTurn::text("done"),
        ],
    );
    let handle = agent.handle();
    let watch = events.clone();
    tokio::spawn(async move {
        watch.wait_until(|e| preview_of(e).is_some()).await;
        let (id, _) = preview_of(&watch.events()).unwrap();
        handle.approve(&id, ApprovalDecision::Deny).unwrap();
    });
    tokio::time::timeout(Duration::from_secs(10), agent.run("list"))
        .await
        .unwrap();
    let Some((
        _,
        Some(CallPreview::Command {
            command,
            cwd,
            network,
            confinement,
            timeout_secs,
        }),
    )) = preview_of(&events.events())
    else {
        panic!("bash previews its command")
    };
    assert_eq!(command, "ls -la");
    assert_eq!(cwd, root);
    assert_eq!(network, unfenced, "no network unless granted or unfenced");
    assert!(!confinement.is_empty());
    assert_eq!(timeout_secs, 5);
}

/// Many edits of one file in one turn, run at once: each must see the ones before it, or
/// all but the last are lost (proven: with the executor's write lock removed, this fails).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn edits_of_one_file_in_one_turn_all_land() {
    const EDITS: usize = 24;
    let (_dir, env) = workspace();
    let file = env.workspace_root.join("list.txt");
    let original: String = (0..EDITS).map(|i| format!("item {i}: todo\n")).collect();
    std::fs::write(&file, &original).unwrap();
    let calls: Vec<(String, Value)> = (0..EDITS)
        .map(|i| {
            // Spelled differently each time: the lock is on the file, not the string.
            let path = if i % 2 == 0 { "list.txt" } else { "./list.txt" };
            (
                "file_edit".to_owned(),
                json!({"path": path, "old_string": format!("item {i}: todo"), "new_string": format!("item {i}: done")}),
            )
        })
        .collect();
    let calls: Vec<(&str, Value)> = calls.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
    let mut registry = paddock_core::ToolRegistry::new();
    register_builtin_tools(&mut registry, &Arc::new(env)).unwrap();
    let mut config = AgentConfig::new("main", "m");
    config.grants = GrantPolicy::with_preset(ToolPreset::Full);
    config.limits.max_concurrency = EDITS;
    let mut agent = Agent::new(
        config,
        Arc::new(ScriptedModel::new(vec![
            ScriptedTurn::tools(&calls),
            ScriptedTurn::text("done"),
        ])),
        Arc::new(registry),
    );
    let r = agent.run("mark all done").await;
    let failed: Vec<_> = agent
        .new_messages(&r)
        .iter()
        .flat_map(|m| m.tool_results())
        .filter(|r| r.is_error)
        .map(|r| r.content.clone())
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    let expected: String = (0..EDITS).map(|i| format!("item {i}: done\n")).collect();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), expected);
}
