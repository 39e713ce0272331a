//! An external ACP agent in the app (issue 39): the user's agent (added on the Sandbox
//! screen: the SDK-built test agent; then Claude Code's published ACP adapter against the
//! fake model server, from `agents.json`) is chosen for a new session, runs behind Paddock's wall, and its permission
//! request is an approval card like Paddock's own; approved, its file lands in the workspace
//! and the transcript shows the call (with its diff); the Sandbox screen says what its wall
//! enforces.

use paddock_desktop_e2e::{Driver, Result, TestHome, testid};
use paddock_fake_model::{FakeServer, Reply};
use serde_json::json;

use crate::{fake_settings, open_project, sel};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn an_external_agents_permission_request_is_an_approval_card() -> Result<()> {
    let fake = FakeServer::start().await?;
    let home = TestHome::new()?;
    let agent = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../acp-fixtures/agent.mjs");
    let agent = std::fs::canonicalize(agent)?;
    let settings = fake_settings(&fake, json!({"preset": "readonly"}));
    let root = home.project("external", Some(&settings))?;
    let driver = Driver::start(&home, "external_agent").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    // The user adds it on the Sandbox screen: a command line.
    app.click(&testid("tab-sandbox")).await?;
    app.click(&testid("agent-add-open")).await?;
    app.type_into(&testid("agent-name"), "tester").await?;
    app.type_into(&testid("agent-command"), "node").await?;
    app.type_into(&testid("agent-args"), &agent.to_string_lossy())
        .await?;
    app.screenshot("0-add-agent").await?;
    app.click(&testid("agent-save")).await?;
    app.wait_for(&sel("agent-wall", &[("data-agent", "tester")]))
        .await?;
    let saved = std::fs::read_to_string(home.path().join(".config/paddock/agents.json"))?;
    let saved: serde_json::Value = serde_json::from_str(&saved)?;
    assert_eq!(
        saved["agents"]["tester"],
        json!({"command": "node", "args": [agent]})
    );

    app.click(&testid("tab-transcript")).await?;
    app.wait_for(&testid("agent-picker")).await?;
    app.select(&testid("agent-picker"), "tester").await?;
    app.type_into(
        &testid("prompt-input"),
        "write notes.txt from the other agent",
    )
    .await?;
    app.click(&testid("send-button")).await?;
    app.wait_for(&testid("approval-card")).await?;
    app.wait_for(&sel("tool-card", &[("data-state", "waiting")]))
        .await?;
    app.screenshot("1-agent-asks").await?;
    app.click(&testid("approve-once")).await?;
    app.wait_for(&sel("tool-card", &[("data-state", "ok")]))
        .await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    app.screenshot("2-agent-wrote").await?;

    let written = root.join(".agent-workspace/notes.txt");
    assert_eq!(
        std::fs::read_to_string(&written)?,
        "from the other agent\n",
        "the approved write landed in the workspace"
    );
    // Paddock's own model was never asked: the prompt went to the external agent.
    assert!(fake.model_requests().is_empty());

    // The Sandbox screen says what its wall enforces.
    app.click(&testid("tab-sandbox")).await?;
    let wall = sel(
        "agent-wall",
        &[("data-agent", "tester"), ("data-runs", "true")],
    );
    app.wait_for(&wall).await?;
    crate::wait_for_text(&app, &testid("agent-wall-network"), "none").await?;
    app.wd
        .execute(
            "document.querySelector('[data-testid=\"agent-walls\"]').scrollIntoView()",
            Vec::new(),
        )
        .await?;
    app.screenshot("3-agent-wall").await?;

    app.quit().await?;
    driver.stop().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn claude_codes_edit_is_an_approval_card_with_its_diff() -> Result<()> {
    let packages = paddock_desktop_e2e::repo_root().join("tests/acp-agents/node_modules");
    let node = packages.join(".bin/node");
    let adapter = packages.join("@agentclientprotocol/claude-agent-acp/dist/index.js");
    assert!(
        node.exists() && adapter.exists(),
        "Claude Code's ACP adapter is not installed: npm ci --prefix tests/acp-agents"
    );
    let fake = FakeServer::start().await?;
    // Claude Code's API: another fake server, reached from inside the wall.
    let claude_api = FakeServer::start().await?;
    claude_api.set_side_reply(Some(Reply::text("Greeting")));
    let key = "sk-ant-e2e-walled";
    let home = TestHome::new()?.with_env("ANTHROPIC_API_KEY", key);
    let settings = fake_settings(&fake, json!({"preset": "readonly"}));
    let root = home.project("claude", Some(&settings))?;
    let target = std::fs::canonicalize(&root)?.join(".agent-workspace/hello.txt");
    let second = target.with_file_name("second.txt");
    claude_api.push_all([
        Reply::text("Writing the greeting.").with_tool_call(
            Some("toolu_write"),
            "Write",
            json!({"file_path": target, "content": "hello from Claude Code\n"}),
        ),
        Reply::text("Written."),
        Reply::text("Another.").with_tool_call(
            Some("toolu_write_2"),
            "Write",
            json!({"file_path": second, "content": "no question asked\n"}),
        ),
        Reply::text("Done again."),
    ]);
    let config = home.path().join(".config/paddock");
    std::fs::create_dir_all(&config)?;
    let agents = json!({"agents": {"claude": {
        "command": node,
        "args": [adapter],
        "env": {
            "ANTHROPIC_BASE_URL": claude_api.url(),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION": "false",
            "IS_SANDBOX": "1",
        },
        "hosts": [format!("127.0.0.1:{}", claude_api.addr().port())],
        "key": {"provider": "anthropic", "env": "ANTHROPIC_API_KEY"},
        "mode": "default",
    }}});
    std::fs::write(config.join("agents.json"), agents.to_string())?;
    let driver = Driver::start(&home, "external_agent_claude").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    app.click(&testid("tab-transcript")).await?;
    app.wait_for(&testid("agent-picker")).await?;
    app.select(&testid("agent-picker"), "claude").await?;
    app.type_into(&testid("prompt-input"), "write a greeting")
        .await?;
    app.click(&testid("send-button")).await?;
    // Its request, with the diff it would make, as Paddock's own edits ask.
    app.wait_for(&testid("approval-card")).await?;
    app.wait_for(&sel("approval-preview", &[("data-kind", "change")]))
        .await?;
    crate::wait_for_text(&app, &testid("approval-card"), "hello.txt").await?;
    app.screenshot("4-claude-asks").await?;
    assert!(!target.exists(), "nothing written before the answer");
    // "Always allow…": the rule is the agent's own, saved in its agents.json entry.
    app.click(&testid("approve-always")).await?;
    crate::wait_for_text(&app, &testid("always-note"), "claude's allow list").await?;
    app.click(&testid("always-save")).await?;
    app.wait_for(&sel("tool-card", &[("data-state", "ok")]))
        .await?;
    app.wait_for(&testid("tool-card-changes")).await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    crate::wait_for_text(&app, &testid("message-assistant"), "Written.").await?;
    // The session's agent is named where the model picker was: its model is its own.
    crate::wait_for_text(
        &app,
        &testid("external-agent-chip"),
        "claude (external agent)",
    )
    .await?;
    app.screenshot("5-claude-wrote").await?;
    assert_eq!(
        std::fs::read_to_string(&target)?,
        "hello from Claude Code\n"
    );
    assert!(fake.model_requests().is_empty(), "Paddock's model unasked");
    for r in claude_api.model_requests() {
        assert_eq!(r.headers.get("x-api-key").map(String::as_str), Some(key));
    }
    let saved = std::fs::read_to_string(config.join("agents.json"))?;
    let saved: serde_json::Value = serde_json::from_str(&saved)?;
    assert_eq!(saved["agents"]["claude"]["allow"], json!(["Write"]));

    // The next prompt of the session: its Write is answered by the rule, no card.
    app.type_into(&testid("prompt-input"), "write another")
        .await?;
    app.click(&testid("send-button")).await?;
    app.wait_until("the second file is written", || async {
        Ok(second.exists())
    })
    .await?;
    crate::wait_for_text(&app, &testid("message-assistant"), "Done again.").await?;
    crate::wait_for_text(
        &app,
        &testid("tool-card-why"),
        "allowed by your rule for claude",
    )
    .await?;
    assert_eq!(app.count(&testid("approval-card")).await?, 0);
    app.screenshot("6-claude-allowed-by-rule").await?;

    app.quit().await?;
    driver.stop().await
}
