//! The desktop app end to end: the real app in a real window (Xvfb), driven over WebDriver,
//! talking to the scripted fake model server. Run by `scripts/desktop-e2e.sh`; ignored by a
//! plain `cargo test` (they need the built app, a display, a keyring and tauri-driver).

// A scenario reads top to bottom; its length is its story.
#![allow(clippy::too_many_lines)]

use std::path::Path;

mod changes;
mod composer_extras;
mod context;
mod external_agent;
mod hooks;
mod managed;
mod network;
mod polish;
mod rules;
mod saved_prompt;
mod stream;
mod worktrees;

use paddock_desktop_e2e::{App, Driver, Result, TestHome, WAIT, repo_root, testid};
use paddock_fake_model::{FakeServer, Fault, Outcome, Reply};
use serde_json::{Value, json};
use thirtyfour::prelude::*;

/// Settings pointing the project at the fake server (no preset: the test sets one).
fn fake_settings(fake: &FakeServer, extra: Value) -> Value {
    let mut s = json!({
        "version": 1,
        "provider": "openai-compatible",
        "baseUrl": format!("{}/v1", fake.url()),
        "model": "fake-model",
    });
    if let (Some(s), Value::Object(extra)) = (s.as_object_mut(), extra) {
        s.extend(extra);
    }
    s
}

fn sel(id: &str, attrs: &[(&str, &str)]) -> String {
    let mut css = testid(id);
    for (k, v) in attrs {
        css.push_str(&format!("[{k}=\"{v}\"]"));
    }
    css
}

/// Types the folder into the picker, opens it, and switches to the project's window.
async fn open_project(app: &App, root: &Path) -> Result<()> {
    app.type_into(&testid("project-path-input"), &root.to_string_lossy())
        .await?;
    app.click_closing(&testid("open-path-button")).await?;
    app.switch_to_window_with("project=").await
}

async fn send(app: &App, prompt: &str) -> Result<()> {
    app.click(&testid("tab-transcript")).await?;
    app.type_into(&testid("prompt-input"), prompt).await?;
    app.click(&testid("send-button")).await
}

/// Waits for an element matching `css` whose text contains `needle`.
async fn wait_for_text(app: &App, css: &str, needle: &str) -> Result<()> {
    app.wait_until(&format!("{css} containing {needle:?}"), || async {
        for e in app.wd.find_all(By::Css(css)).await? {
            if e.text().await?.contains(needle) {
                return Ok(true);
            }
        }
        Ok(false)
    })
    .await
}

fn settings_on_disk(root: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(root.join(".paddock/settings.json"))?;
    Ok(serde_json::from_str(&text)?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn a_prompt_writes_a_file_and_the_session_survives_a_restart() -> Result<()> {
    let fake = FakeServer::start().await?;
    fake.push(
        Reply::default()
            .with_text("I'll write the file.")
            .with_tool_call(
                Some("call_write_1"),
                "file_write",
                json!({"path": "hello.txt", "content": "Hello from the agent\n"}),
            )
            .with_usage(120, 30),
    );
    fake.push(
        Reply::text(
            "Done: **hello.txt** is in the workspace. Check it with:\n\n```sh\ncat .agent-workspace/hello.txt\n```",
        )
        .with_usage(160, 12),
    );
    let home = TestHome::new()?;
    let root = home.project("greeter", Some(&fake_settings(&fake, json!({}))))?;
    let driver = Driver::start(&home, "write-and-restart").await?;

    let app = driver.launch().await?;
    app.wait_for(&testid("project-path-input")).await?;
    app.screenshot("1-picker").await?;
    open_project(&app, &root).await?;
    app.wait_until("the picker closed itself", || async {
        Ok(app.wd.windows().await?.len() == 1)
    })
    .await?;

    // Set a preset in the grants screen; it is saved to the project at once.
    app.click(&testid("tab-grants")).await?;
    app.select(&testid("preset-select"), "readwrite").await?;
    app.wait_for(&sel(
        "grant-row",
        &[("data-tool", "file_write"), ("data-grant", "allow")],
    ))
    .await?;
    app.wait_for(&sel(
        "grant-row",
        &[("data-tool", "bash"), ("data-grant", "deny")],
    ))
    .await?;
    app.wait_until("preset saved to settings.json", || async {
        Ok(settings_on_disk(&root)?["preset"] == "readwrite")
    })
    .await?;
    app.screenshot("2-grants").await?;

    send(&app, "Write a greeting to hello.txt").await?;
    app.wait_for(&sel(
        "tool-card",
        &[("data-tool-name", "file_write"), ("data-state", "ok")],
    ))
    .await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    wait_for_text(&app, &testid("message-assistant"), "is in the workspace").await?;
    app.wait_for(&testid("usage-total")).await?;
    let shot = app.screenshot("3-transcript").await?;
    if std::env::var_os("PADDOCK_README_SCREENSHOT").is_some() {
        std::fs::copy(&shot, repo_root().join("docs/screenshot.png"))?;
    }

    let written = root.join(".agent-workspace/hello.txt");
    assert_eq!(std::fs::read_to_string(&written)?, "Hello from the agent\n");
    let requests = fake.model_requests();
    assert_eq!(requests.len(), 2, "one model call per turn");
    let second = requests[1].body.to_string();
    assert!(
        second.contains("call_write_1"),
        "the tool result went back: {second}"
    );

    // The new file shows up in the workspace tree, and its preview comes through the guard.
    app.click(&testid("tab-workspace")).await?;
    app.click(&sel(
        "workspace-entry",
        &[("data-path", "hello.txt"), ("data-kind", "file")],
    ))
    .await?;
    wait_for_text(&app, &testid("file-preview"), "Hello from the agent").await?;
    app.screenshot("4-workspace").await?;

    // "Open project…" brings the picker back.
    app.click(&testid("open-other-project")).await?;
    app.switch_to_window_where("no project", |url| !url.contains("project="))
        .await?;
    app.wait_for(&testid("project-path-input")).await?;
    assert_eq!(app.wd.windows().await?.len(), 2, "picker + project window");

    // Every window lives in one WebKit web process (each further window costs ~8 MB instead
    // of ~45 for a process of its own): the picker joined the project window's, and so does
    // a second project's window; both pages stay live.
    assert_eq!(
        driver.web_processes()?,
        1,
        "the picker shares the web process"
    );
    let other = home.project("orchard", Some(&fake_settings(&fake, json!({}))))?;
    app.type_into(&testid("project-path-input"), &other.to_string_lossy())
        .await?;
    app.click_closing(&testid("open-path-button")).await?;
    app.switch_to_window_with("orchard").await?;
    app.wait_for(&testid("tab-transcript")).await?;
    app.wait_until("the picker closed itself", || async {
        Ok(app.wd.windows().await?.len() == 2)
    })
    .await?;
    assert_eq!(driver.web_processes()?, 1, "two projects, one web process");
    app.screenshot("5-second-project").await?;
    // A theme picked in one window applies in the other at once (and back to the system's).
    app.select(&testid("theme-select"), "dark").await?;
    app.switch_to_window_where("the first project", |url| {
        url.contains("project=") && !url.contains("orchard")
    })
    .await?;
    app.wait_until("the first window took the dark theme", || async {
        let theme = app
            .wd
            .execute("return document.documentElement.dataset.theme", Vec::new())
            .await?;
        Ok(theme.json() == "dark")
    })
    .await?;
    assert_eq!(
        app.wd
            .find(By::Css(testid("theme-select")))
            .await?
            .prop("value")
            .await?
            .as_deref(),
        Some("dark"),
        "its theme menu says so too"
    );
    app.select(&testid("theme-select"), "system").await?;
    app.click(&testid("tab-workspace")).await?;
    app.wait_for(&sel(
        "workspace-entry",
        &[("data-path", "hello.txt"), ("data-kind", "file")],
    ))
    .await?;

    // Restart: the session is still there and opens with its transcript.
    app.quit().await?;
    let app = driver.launch().await?;
    app.click_closing(&sel(
        "recent-project",
        &[("data-path", &root.to_string_lossy())],
    ))
    .await?;
    app.switch_to_window_with("project=").await?;
    let tab = app.wd.find_all(By::Css(testid("tab-sessions"))).await?;
    if let Some(tab) = tab.first() {
        tab.click().await?;
    }
    let item = app.wait_for(&testid("session-item")).await?;
    let id = item.attr("data-session-id").await?.unwrap_or_default();
    assert!(!id.is_empty(), "session-item has a data-session-id");
    item.click().await?;
    if let Ok(open) = item.find(By::Css(testid("session-open"))).await {
        open.click().await?;
    }
    app.click(&testid("tab-transcript")).await?;
    wait_for_text(&app, &testid("message-user"), "Write a greeting").await?;
    app.wait_for(&sel(
        "tool-card",
        &[("data-tool-name", "file_write"), ("data-state", "ok")],
    ))
    .await?;
    app.screenshot("6-after-restart").await?;
    assert_eq!(
        fake.model_requests().len(),
        2,
        "reopening a session calls no model"
    );

    app.quit().await?;
    driver.stop().await
}

/// As users run it (no GPU compositing; WebDriver cannot take screenshots then): the app's own
/// process never loads Mesa and its LLVM (~21 MB), the page's JavaScript runs without the JIT
/// compilers (~8 MB) and with a small nursery (src-tauri/src/main.rs), and the pages work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn by_default_the_app_process_loads_no_gpu_stack() -> Result<()> {
    let home = TestHome::new()?.as_users_run();
    let root = home.project("plain", None)?;
    let driver = Driver::start(&home, "no-gpu-stack").await?;
    let app = driver.launch().await?;
    app.wait_for(&testid("project-path-input")).await?;
    open_project(&app, &root).await?;
    app.wait_for(&testid("tab-transcript")).await?;
    assert_eq!(driver.app_mesa_libraries()?, Vec::<String>::new());
    assert_eq!(driver.web_processes()?, 1);
    assert_eq!(
        driver.web_process_env("JSC_useBaselineJIT")?,
        vec![Some("0".to_owned())]
    );
    assert_eq!(
        driver.web_process_env("JSC_largeHeapSize")?,
        vec![Some("8388608".to_owned())],
        "the JavaScript nursery is 8 MB (src-tauri/src/main.rs)"
    );
    app.quit().await?;
    driver.stop().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn an_ask_tool_is_approved_once_and_denied_once() -> Result<()> {
    let fake = FakeServer::start().await?;
    fake.push(Reply::tool_call(
        "file_write",
        json!({"path": "approved.txt", "content": "yes"}),
    ));
    fake.push(Reply::tool_call(
        "file_write",
        json!({"path": "denied.txt", "content": "no"}),
    ));
    fake.push(Reply::text("One written, one refused."));
    let home = TestHome::new()?;
    let settings = fake_settings(&fake, json!({"preset": "readonly"}));
    let root = home.project("asker", Some(&settings))?;
    let driver = Driver::start(&home, "approvals").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    // file_write is not in readonly; grant it as Ask.
    app.click(&testid("tab-grants")).await?;
    let row = sel("grant-row", &[("data-tool", "file_write")]);
    app.click(&format!("{row} {}", testid("grant-ask"))).await?;
    app.wait_for(&sel(
        "grant-row",
        &[("data-tool", "file_write"), ("data-grant", "ask")],
    ))
    .await?;
    app.wait_until("ask saved to settings.json", || async {
        Ok(settings_on_disk(&root)?["tools"]["file_write"] == "ask")
    })
    .await?;

    send(&app, "Write two files").await?;
    let waiting = sel(
        "tool-card",
        &[("data-tool-name", "file_write"), ("data-state", "waiting")],
    );
    app.wait_for(&testid("approval-card")).await?;
    app.wait_for(&waiting).await?;
    app.screenshot("1-approval").await?;
    app.click(&testid("approve-once")).await?;
    app.wait_for(&sel(
        "tool-card",
        &[("data-tool-name", "file_write"), ("data-state", "ok")],
    ))
    .await?;

    // The second call waits too (approved once, not for the session); deny it.
    app.wait_for(&waiting).await?;
    app.click(&testid("approve-deny")).await?;
    app.wait_for(&sel(
        "tool-card",
        &[("data-tool-name", "file_write"), ("data-state", "denied")],
    ))
    .await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    app.screenshot("2-approved-and-denied").await?;

    let ws = root.join(".agent-workspace");
    assert_eq!(std::fs::read_to_string(ws.join("approved.txt"))?, "yes");
    assert!(!ws.join("denied.txt").exists(), "a denied call never runs");
    let third = fake.model_requests()[2].body.to_string();
    assert!(
        third.contains("denied"),
        "the model is told about the denial: {third}"
    );

    app.quit().await?;
    driver.stop().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn a_running_prompt_is_stopped_and_the_session_goes_on() -> Result<()> {
    let fake = FakeServer::start().await?;
    // Streams a little, then hangs with the connection open until the client leaves.
    fake.push(
        Reply::text("Let me think about this for a very long time")
            .with_chunk_chars(4)
            .with_fault(Fault::Hang { after: 4 }),
    );
    fake.push(Reply::text("Still here after the stop."));
    let home = TestHome::new()?;
    let root = home.project(
        "stopper",
        Some(&fake_settings(&fake, json!({"preset": "readonly"}))),
    )?;
    let driver = Driver::start(&home, "stop").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    send(&app, "Take your time").await?;
    wait_for_text(&app, &testid("message-assistant"), "Let me").await?;
    app.screenshot("1-running").await?;
    app.click(&testid("stop-button")).await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "aborted")]))
        .await?;
    // The model call, after the context-window probes.
    let call = fake
        .requests()
        .iter()
        .position(|r| r.path.ends_with("/chat/completions"))
        .unwrap_or(0);
    let closed = fake.wait_until_closed(call, WAIT).await;
    assert_eq!(
        closed,
        Some(Outcome::ClientClosed),
        "the model stream was dropped"
    );
    app.screenshot("2-stopped").await?;

    // The same session takes the next prompt.
    send(&app, "Are you there?").await?;
    wait_for_text(
        &app,
        &testid("message-assistant"),
        "Still here after the stop.",
    )
    .await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    let second = fake.model_requests()[1].body.to_string();
    assert!(
        second.contains("Take your time"),
        "the stopped turn is in the history: {second}"
    );

    app.quit().await?;
    driver.stop().await
}

/// What the Secret Service holds for Paddock's `provider` entry (None when nothing).
fn keychain_lookup(provider: &str) -> Result<Option<String>> {
    let out = std::process::Command::new("secret-tool")
        .args(["lookup", "service", "paddock", "username", provider])
        .output()
        .map_err(|e| format!("secret-tool (libsecret-tools) is needed: {e}"))?;
    let secret = String::from_utf8(out.stdout)?;
    Ok(out
        .status
        .success()
        .then_some(secret)
        .filter(|s| !s.is_empty()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn an_api_key_lands_in_the_keychain_and_nowhere_on_disk() -> Result<()> {
    let fake = FakeServer::start().await?;
    let home = TestHome::new()?;
    let root = home.project("keyed", Some(&fake_settings(&fake, json!({}))))?;
    let key = format!(
        "sk-ant-e2e-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_nanos()
    );
    let driver = Driver::start(&home, "keychain").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    app.click(&testid("tab-settings")).await?;
    app.select(&testid("provider-select"), "anthropic").await?;
    app.type_into(&testid("api-key-input"), &key).await?;
    app.click(&testid("api-key-save")).await?;
    app.wait_until("the key is in the Secret Service", || async {
        Ok(keychain_lookup("anthropic")?.as_deref() == Some(key.as_str()))
    })
    .await?;
    wait_for_text(&app, &testid("key-status"), "keychain").await?;
    let shown = app
        .wait_for(&testid("api-key-input"))
        .await?
        .prop("value")
        .await?;
    assert_ne!(
        shown.as_deref(),
        Some(key.as_str()),
        "the key is never shown again"
    );
    assert!(
        !app.wd.source().await?.contains(&key),
        "the key is not anywhere in the page"
    );
    app.screenshot("1-key-stored").await?;

    // Quit so logs and WebKit storage are flushed, then search every file the app could
    // have written: home (config, data, cache, logs, WebKit), the data dir, the project.
    app.quit().await?;
    let hits = home.files_containing(&key)?;
    assert!(hits.is_empty(), "the key was written to disk: {hits:?}");
    assert!(home.file_count() > 3, "the search covered the app's files");
    // The same search does find what the app did write (the recent list names the project).
    let control = home.files_containing(&root.to_string_lossy())?;
    assert!(
        control.iter().any(|p| p.ends_with("recent-projects.json")),
        "the search finds written text: {control:?}"
    );
    let logs = home.path().join(".local/share/dev.paddock.app/logs");
    let logged = std::fs::read_dir(&logs)
        .map_err(|e| format!("no log folder at {}: {e}", logs.display()))?
        .flatten()
        .any(|f| std::fs::read_to_string(f.path()).is_ok_and(|t| t.contains("API key stored")));
    assert!(logged, "the app logged the save (without the key)");

    // Removing it from the settings screen empties the keychain entry.
    let app = driver.launch().await?;
    open_project(&app, &root).await?;
    app.click(&testid("tab-settings")).await?;
    app.select(&testid("provider-select"), "anthropic").await?;
    app.click(&testid("api-key-delete")).await?;
    app.wait_until("the key is gone from the Secret Service", || async {
        Ok(keychain_lookup("anthropic")?.is_none())
    })
    .await?;
    app.quit().await?;
    driver.stop().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn settings_list_the_servers_models_and_test_the_connection() -> Result<()> {
    let fake = FakeServer::start().await?;
    fake.load(paddock_fake_model::Script {
        models: vec!["qwen3:8b".into(), "llama3.2:3b".into()],
        ..Default::default()
    });
    let home = TestHome::new()?;
    let root = home.project("models", None)?;
    let driver = Driver::start(&home, "settings").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    app.click(&testid("tab-settings")).await?;
    app.select(&testid("provider-select"), "openai-compatible")
        .await?;
    app.type_into(&testid("base-url-input"), &format!("{}/v1", fake.url()))
        .await?;
    app.type_into(&testid("model-input"), "qwen3:8b").await?;
    app.click(&testid("test-connection")).await?;
    wait_for_text(&app, &testid("connection-result"), "2 models").await?;
    let result = app
        .wait_for(&sel("connection-result", &[("data-ok", "true")]))
        .await?;
    assert!(result.text().await?.contains("The model is offered"));
    let listed = app.count("datalist option[value=\"llama3.2:3b\"]").await?;
    assert_eq!(listed, 1, "the model dropdown offers the server's models");
    app.click(&testid("settings-save")).await?;
    app.wait_until("provider settings saved", || async {
        let s = settings_on_disk(&root)?;
        Ok(s["provider"] == "openai-compatible" && s["model"] == "qwen3:8b")
    })
    .await?;
    app.screenshot("1-settings").await?;
    app.click(&testid("tab-sandbox")).await?;
    let status = app.wait_for(&testid("sandbox-status")).await?;
    let confined = status.attr("data-fully-confined").await?;
    assert!(
        matches!(confined.as_deref(), Some("true" | "false")),
        "{confined:?}"
    );
    app.screenshot("2-sandbox").await?;

    app.quit().await?;
    driver.stop().await
}

/// A cloned folder whose settings start a program and send the key to another server: the
/// trust screen lists both before anything happens; opening without them applies neither;
/// trusting starts the program; a changed command asks again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn a_cloned_folder_asks_for_trust_before_its_settings_apply() -> Result<()> {
    let fake = FakeServer::start().await?;
    let home = TestHome::new()?;
    let marker = home.path().join("mcp-started");
    let server = |flag: &str| json!({"command": "sh", "args": ["-c", format!("touch '{}' {flag}", marker.display())]});
    let settings = |flag: &str| {
        fake_settings(
            &fake,
            json!({"preset": "readwrite", "mcpServers": {"helper": server(flag)}}),
        )
    };
    let root = home.untrusted_project("cloned", Some(&settings("")))?;
    let driver = Driver::start(&home, "trust").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    let screen = app.wait_for(&testid("trust-screen")).await?;
    for key in ["mcpServers.helper", "baseUrl", "preset"] {
        app.wait_for(&sel("trust-item", &[("data-key", key)]))
            .await?;
    }
    assert!(
        screen.text().await?.contains("touch"),
        "the command is shown"
    );
    app.screenshot("1-trust-screen").await?;
    assert!(!marker.exists(), "the MCP command ran before trust");

    // Without them: no MCP server, no preset; the banner says so.
    app.click(&testid("trust-decline")).await?;
    app.wait_for(&testid("trust-banner")).await?;
    app.click(&testid("tab-grants")).await?;
    app.wait_for(&sel(
        "grant-row",
        &[("data-tool", "file_write"), ("data-grant", "deny")],
    ))
    .await?;
    assert!(!marker.exists(), "the MCP command ran without trust");
    app.screenshot("2-opened-without").await?;

    // Nothing reached the folder's server before trust: no chat, not even its model list
    // (the composer's model picker once asked it).
    let before_trust = fake.requests();
    assert!(
        before_trust.is_empty(),
        "contacted before trust: {before_trust:?}"
    );

    // Trusted: the program starts (the check above could fail), the preset applies.
    app.click(&testid("trust-review")).await?;
    app.click(&testid("trust-accept")).await?;
    app.wait_until("the trusted MCP command ran", || async {
        Ok(marker.exists())
    })
    .await?;
    app.click(&testid("tab-transcript")).await?;
    app.click(&testid("tab-grants")).await?;
    app.wait_for(&sel(
        "grant-row",
        &[("data-tool", "file_write"), ("data-grant", "allow")],
    ))
    .await?;

    // The repository changes the command: asked again, showing the change.
    std::fs::remove_file(&marker)?;
    std::fs::write(
        root.join(".paddock/settings.json"),
        serde_json::to_string_pretty(&settings("--changed"))?,
    )?;
    app.wd.refresh().await?;
    app.wait_for(&sel(
        "trust-item",
        &[("data-key", "mcpServers.helper"), ("data-state", "changed")],
    ))
    .await?;
    app.screenshot("3-changed").await?;
    assert!(!marker.exists(), "the changed command ran before trust");
    // Trusted, its address may list models; no prompt was sent, so no model call.
    let requests = fake.model_requests();
    assert!(requests.is_empty(), "the model was called: {requests:?}");

    app.quit().await?;
    driver.stop().await
}
