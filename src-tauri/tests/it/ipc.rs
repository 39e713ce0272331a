//! The commands as the webview calls them (camelCase arguments, `{code, message}` errors),
//! on Tauri's mock runtime.

use std::sync::Arc;

use paddock_desktop::commands;
use paddock_desktop::state::Desktop;
use paddock_fake_model::{FakeServer, Reply};
use paddock_protocol::AgentEvent;
use serde_json::{Value, json};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{
    INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder, mock_context, noop_assets,
};
use tauri::webview::InvokeRequest;
use tauri::{Manager, WebviewWindow, WebviewWindowBuilder};

use crate::common::{MemoryKeys, setup};

struct Ipc {
    app: tauri::App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
    _data: tempfile::TempDir,
}

fn app() -> Ipc {
    let data = tempfile::tempdir().unwrap();
    let (app, window) = mock_app(Desktop::new(
        data.path(),
        crate::common::trust_store(data.path()),
        Arc::new(MemoryKeys::default()),
    ));
    Ipc {
        app,
        window,
        _data: data,
    }
}

/// The commands over `desktop` on the mock runtime, and its "main" window.
fn mock_app(desktop: Desktop) -> (tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
    // A run's end in an unfocused window is a desktop notification.
    let app = mock_builder()
        .plugin(tauri_plugin_notification::init())
        .invoke_handler(commands::handler())
        .build(mock_context(noop_assets()))
        .unwrap();
    app.manage(desktop);
    app.manage(Arc::new(paddock_desktop::notify::Notifier::default()));
    let window = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .unwrap();
    (app, window)
}

impl Ipc {
    fn call(&self, cmd: &str, args: Value) -> Result<Value, Value> {
        call(&self.window, cmd, args)
    }
}

/// `cmd` as the page in `window` calls it.
fn call(window: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(window, request).map(|b| b.deserialize::<Value>().unwrap())
}

#[test]
fn project_commands_take_the_documented_arguments() {
    let ipc = app();
    let project = tempfile::tempdir().unwrap();
    let path = project.path().canonicalize().unwrap();
    let path = path.to_str().unwrap();

    let info = ipc.call("project_info", json!({"project": path})).unwrap();
    assert_eq!(info["path"], path);
    assert!(info["sandbox"]["summary"].is_string(), "{info}");

    let grants = ipc
        .call(
            "set_preset",
            json!({"project": path, "preset": "readwrite"}),
        )
        .unwrap();
    let file_write = grants
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "file_write")
        .unwrap();
    assert_eq!(file_write["grant"], "allow");
    let grants = ipc
        .call(
            "set_tool_grant",
            json!({"project": path, "tool": "file_write", "grant": "ask"}),
        )
        .unwrap();
    assert!(
        grants
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["name"] == "file_write" && g["grant"] == "ask")
    );
    let saved = std::fs::read_to_string(project.path().join(".paddock/settings.json")).unwrap();
    assert!(
        saved.contains("\"readwrite\"") && saved.contains("\"ask\""),
        "{saved}"
    );
    ipc.call(
        "set_tool_grant",
        json!({"project": path, "tool": "file_write", "grant": null}),
    )
    .unwrap();
    let saved = std::fs::read_to_string(project.path().join(".paddock/settings.json")).unwrap();
    assert!(
        !saved.contains("\"ask\""),
        "null removes the override: {saved}"
    );

    ipc.call(
        "set_tool_rules",
        json!({"project": path, "tool": "bash", "rules": [{"allow": "git status"}]}),
    )
    .unwrap();
    let explained = ipc
        .call(
            "explain_call",
            json!({"project": path, "tool": "bash", "call": "git status"}),
        )
        .unwrap();
    assert_eq!(explained["byRule"], true, "{explained}");
    assert!(explained["why"].as_str().unwrap().contains("rules.bash[0]"));
    let err = ipc
        .call(
            "always_allow",
            json!({"project": path, "sessionId": "s", "requestId": "r", "tool": "bash",
                   "patterns": ["ls"]}),
        )
        .unwrap_err();
    assert_eq!(err["code"], "not_found", "no run waits: {err}");

    // The Network section: a bad rule is named and nothing saved; a good list comes back.
    let err = ipc
        .call(
            "set_network",
            json!({"project": path, "network": {"allow": ["ok.example", "a b"]}}),
        )
        .unwrap_err();
    assert_eq!(err["code"], "invalid", "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("network.allow[1]"),
        "{err}"
    );
    let view = ipc
        .call(
            "set_network",
            json!({"project": path, "network": {"allow": ["docs.rs"], "presets": ["npm"]}}),
        )
        .unwrap();
    assert_eq!(view["bash"], "allow_list", "{view}");
    assert_eq!(view["written"]["allow"], json!(["docs.rs"]));
    assert_eq!(
        ipc.call("network_view", json!({"project": path})).unwrap(),
        view
    );
    let err = ipc
        .call(
            "always_allow_host",
            json!({"project": path, "sessionId": "s", "requestId": "r", "rule": "x.example:443"}),
        )
        .unwrap_err();
    assert_eq!(err["code"], "not_found", "no run waits: {err}");

    assert_eq!(
        ipc.call("list_sessions", json!({"project": path})).unwrap(),
        json!([])
    );
    let tree = ipc
        .call("workspace_tree", json!({"project": path}))
        .unwrap();
    assert_eq!(tree["exists"], false);
    assert_eq!(ipc.call("recent_projects", json!({})).unwrap(), json!([]));
}

/// Trust given on the trust screen can be taken back from the app: the folder's fields are
/// pending again and the trust screen asks again (a run without them: runs.rs).
#[test]
fn trust_is_revoked_and_the_settings_wait_again() {
    let ipc = app();
    let project = tempfile::tempdir().unwrap();
    let path = project.path().canonicalize().unwrap();
    crate::common::write_settings(
        &path,
        &json!({"version": 1, "provider": "openai-compatible",
                "baseUrl": "http://127.0.0.1:9/v1", "model": "m"}),
    );
    let path = path.to_str().unwrap();
    let pending = |info: &Value| info["trust"]["pending"].as_array().unwrap().len();
    let trusted = |info: &Value| info["trust"]["trusted"].as_array().unwrap().len();

    let before = ipc.call("project_info", json!({"project": path})).unwrap();
    assert!(pending(&before) > 0, "{before}");
    let after = ipc.call("trust_project", json!({"project": path})).unwrap();
    assert_eq!(pending(&after), 0, "{after}");
    assert!(trusted(&after) > 0, "{after}");

    let revoked = ipc.call("revoke_trust", json!({"project": path})).unwrap();
    assert_eq!(trusted(&revoked), 0, "{revoked}");
    assert_eq!(pending(&revoked), pending(&before), "{revoked}");
    assert_eq!(
        revoked["trust"]["declined"], false,
        "the trust screen asks again"
    );
    let again = ipc.call("project_info", json!({"project": path})).unwrap();
    assert_eq!(trusted(&again), 0, "kept: {again}");
}

/// Hostile: a folder whose settings send the key and the conversation to their own address.
/// Once its trust is revoked, a run must not reach that address (without the revoke, or with
/// a revoke that left the record in place, the fake server would record the request).
#[test]
fn a_revoked_folder_address_gets_no_request() {
    let fake = tauri::async_runtime::block_on(FakeServer::start()).unwrap();
    fake.push(Reply::text("should never be asked"));
    let s = setup(&fake, json!({}));
    let root = s.root.to_str().unwrap().to_owned();
    let (_app, window) = mock_app(s.desktop);
    call(&window, "revoke_trust", json!({"project": root})).unwrap();
    let err = call(
        &window,
        "send_prompt",
        json!({"project": root, "sessionId": null, "prompt": {"text": "hi"}}),
    )
    .unwrap_err();
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("not applied until you trust"),
        "{err}"
    );
    assert!(fake.requests().is_empty(), "{:?}", fake.requests());
}

#[test]
fn errors_are_code_and_message() {
    let ipc = app();
    let project = tempfile::tempdir().unwrap();
    let path = project.path().to_str().unwrap();

    let err = ipc
        .call("project_info", json!({"project": "not/absolute"}))
        .unwrap_err();
    assert_eq!(err["code"], "invalid", "{err}");
    assert!(err["message"].as_str().unwrap().contains("full path"));

    let err = ipc
        .call(
            "load_session",
            json!({"project": path, "sessionId": "../../etc"}),
        )
        .unwrap_err();
    assert_eq!(err["code"], "invalid", "{err}");
    let err = ipc
        .call(
            "load_session",
            json!({"project": path, "sessionId": "20250101-0000"}),
        )
        .unwrap_err();
    assert_eq!(err["code"], "not_found", "{err}");

    let err = ipc
        .call(
            "approve",
            json!({"project": path, "sessionId": "s1", "requestId": "approval-1", "decision": "once"}),
        )
        .unwrap_err();
    assert_eq!(err["code"], "not_found", "{err}");

    std::fs::create_dir_all(project.path().join(".agent-workspace")).unwrap();
    let err = ipc
        .call(
            "read_workspace_file",
            json!({"project": path, "path": "../secret"}),
        )
        .unwrap_err();
    assert_eq!(err["code"], "path_refused", "{err}");

    let status = ipc
        .call("key_status", json!({"provider": "anthropic"}))
        .unwrap();
    assert_eq!(status["stored"], false);
    let err = ipc
        .call("set_api_key", json!({"provider": "anthropic", "key": ""}))
        .unwrap_err();
    assert_eq!(err["code"], "invalid");
}

#[test]
fn one_window_per_project() {
    let ipc = app();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let open = |dir: &tempfile::TempDir| {
        ipc.call(
            "open_project",
            json!({"path": dir.path().to_str().unwrap()}),
        )
        .unwrap()
    };
    let info = open(&a);
    assert_eq!(
        info["path"],
        a.path().canonicalize().unwrap().to_str().unwrap()
    );
    open(&a);
    assert_eq!(
        ipc.app.webview_windows().len(),
        2,
        "reopening focuses the window"
    );
    open(&b);
    let labels: Vec<String> = ipc.app.webview_windows().into_keys().collect();
    assert_eq!(labels.len(), 3, "{labels:?}");
    assert!(labels.iter().filter(|l| l.starts_with("project-")).count() == 2);
    let recent = ipc.call("recent_projects", json!({})).unwrap();
    let paths: Vec<&str> = recent
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    let canon = |d: &tempfile::TempDir| {
        d.path()
            .canonicalize()
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(paths, [canon(&b), canon(&a)], "newest first");
}

#[test]
fn a_notification_click_reaches_the_window_that_asks() {
    let ipc = app();
    let notifier = ipc
        .app
        .state::<Arc<paddock_desktop::notify::Notifier>>()
        .inner()
        .clone();
    notifier.clicked("main", "call-3".into());
    notifier.clicked("project-0123", "call-elsewhere".into());
    let click = ipc
        .call("next_notification_click", json!({"after": 0}))
        .unwrap();
    assert_eq!(click, json!({"seq": 1, "call_id": "call-3"}));

    // Asked from now on, it waits for the next click.
    let answered = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !answered.load(std::sync::atomic::Ordering::SeqCst) {
                std::thread::sleep(std::time::Duration::from_millis(20));
                notifier.clicked("main", "call-4".into());
            }
        });
        let click = ipc
            .call("next_notification_click", json!({"after": null}))
            .unwrap();
        answered.store(true, std::sync::atomic::Ordering::SeqCst);
        assert_eq!(click["call_id"], "call-4");
        assert!(click["seq"].as_u64().unwrap() >= 2, "{click}");
    });
}

/// A run's events reach the page that asks, in batches, in order, ending with `run_finished`;
/// hostile: another window asking for the same feed gets nothing and takes nothing.
#[test]
fn a_run_streams_to_the_window_that_started_it_and_no_other() {
    let fake = tauri::async_runtime::block_on(FakeServer::start()).unwrap();
    fake.push(Reply::text("one two three four five six").with_chunk_chars(4));
    let s = setup(&fake, json!({}));
    let root = s.root.to_str().unwrap().to_owned();
    let (app, window) = mock_app(s.desktop);
    let other = WebviewWindowBuilder::new(&app, "project-0123", Default::default())
        .build()
        .unwrap();

    let started = call(
        &window,
        "send_prompt",
        json!({"project": root, "sessionId": null, "prompt": {"text": "count"}}),
    )
    .unwrap();
    let feed = started["feed"].clone();
    assert!(started["session_id"].is_string(), "{started}");
    let stolen = call(&other, "next_run_events", json!({"feed": feed})).unwrap();
    assert_eq!(stolen, json!({"items": [], "done": true}));

    let mut events: Vec<AgentEvent> = Vec::new();
    loop {
        let batch = call(&window, "next_run_events", json!({"feed": feed})).unwrap();
        let items: Vec<AgentEvent> = serde_json::from_value(batch["items"].clone()).unwrap();
        events.extend(items);
        if batch["done"] == json!(true) {
            break;
        }
    }
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "one two three four five six");
    assert!(
        matches!(events.last(), Some(AgentEvent::RunFinished { .. })),
        "{events:#?}"
    );
    // Read to its end, the feed is gone: asking again answers done at once.
    let after = call(&window, "next_run_events", json!({"feed": feed})).unwrap();
    assert_eq!(after, json!({"items": [], "done": true}));
    assert!(app.state::<Desktop>().events.is_empty());
}

/// A refused prompt leaves no feed behind.
#[test]
fn a_refused_prompt_opens_no_feed() {
    let ipc = app();
    let err = ipc
        .call(
            "send_prompt",
            json!({"project": "/no/such/project", "sessionId": null, "prompt": {"text": "hi"}}),
        )
        .unwrap_err();
    assert!(err["code"].is_string(), "{err}");
    assert!(ipc.app.state::<Desktop>().events.is_empty());
}

/// The workspace watcher's changes come on the feed `watch_workspace` returns; watching again
/// ends the old feed.
#[test]
fn workspace_changes_come_on_the_watch_feed() {
    let ipc = app();
    let project = tempfile::tempdir().unwrap();
    let root = project.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".agent-workspace")).unwrap();
    let path = root.to_str().unwrap();
    let first = ipc
        .call("watch_workspace", json!({"project": path}))
        .unwrap();
    std::fs::write(root.join(".agent-workspace/new.txt"), "hi").unwrap();
    let batch = ipc
        .call("next_workspace_changes", json!({"feed": first}))
        .unwrap();
    let paths = batch["items"][0]["paths"].clone();
    assert_eq!(paths, json!(["new.txt"]), "{batch}");

    let second = ipc
        .call("watch_workspace", json!({"project": path}))
        .unwrap();
    assert_ne!(first, second);
    let old = ipc
        .call("next_workspace_changes", json!({"feed": first}))
        .unwrap();
    assert_eq!(old["done"], json!(true), "{old}");
}

/// Hostile: a project's saved prompt (a cloned repository wrote it) gives no text to send
/// until the page confirms the content it showed; a changed file is shown again.
#[test]
fn a_project_prompt_has_no_text_to_send_until_confirmed() {
    let ipc = app();
    let project = tempfile::tempdir().unwrap();
    let root = project.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".paddock/prompts")).unwrap();
    let file = root.join(".paddock/prompts/review.md");
    std::fs::write(&file, "---\ndescription: Review\n---\nReview $ARGUMENTS.\n").unwrap();
    let path = root.to_str().unwrap();

    let list = ipc.call("saved_prompts", json!({"project": path})).unwrap();
    assert_eq!(list[0]["name"], "review");
    assert_eq!(list[0]["status"], "unconfirmed");
    let args = json!({"project": path, "name": "review", "args": "main.rs"});
    let shown = ipc.call("expand_prompt", args.clone()).unwrap();
    assert_eq!(shown["needs_confirmation"], true);
    assert_eq!(shown["text"], "", "nothing to send before the confirmation");
    assert!(
        shown["file_text"]
            .as_str()
            .unwrap()
            .contains("Review $ARGUMENTS.")
    );

    let mut wrong = args.clone();
    wrong["digest"] = json!("00");
    let err = ipc.call("confirm_prompt", wrong).unwrap_err();
    assert_eq!(err["code"], "invalid", "{err}");
    let mut confirm = args.clone();
    confirm["digest"] = shown["digest"].clone();
    let sent = ipc.call("confirm_prompt", confirm.clone()).unwrap();
    assert_eq!(sent["text"], "Review main.rs.\n");
    let again = ipc.call("expand_prompt", args.clone()).unwrap();
    assert_eq!(again["needs_confirmation"], false);
    assert_eq!(again["text"], "Review main.rs.\n");

    std::fs::write(&file, "Review $ARGUMENTS and mail it out.\n").unwrap();
    let changed = ipc.call("expand_prompt", args).unwrap();
    assert_eq!(changed["needs_confirmation"], true);
    assert_eq!(changed["text"], "");
    let stale = ipc.call("confirm_prompt", confirm).unwrap_err();
    assert_eq!(stale["code"], "invalid", "{stale}");
}
