//! An external ACP agent in the app (issue 39): the user's agent (`agents.json`; here the
//! SDK-built test agent) is chosen for a new session, runs behind Paddock's wall, and its
//! permission request is an approval card like Paddock's own; approved, its file lands in
//! the workspace and the transcript shows the call; the Sandbox screen says what its wall
//! enforces.

use paddock_desktop_e2e::{Driver, Result, TestHome, testid};
use paddock_fake_model::FakeServer;
use serde_json::json;

use crate::{fake_settings, open_project, sel};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn an_external_agents_permission_request_is_an_approval_card() -> Result<()> {
    let fake = FakeServer::start().await?;
    let home = TestHome::new()?;
    let agent = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../acp-fixtures/agent.mjs");
    let config = home.path().join(".config/paddock");
    std::fs::create_dir_all(&config)?;
    std::fs::write(
        config.join("agents.json"),
        json!({"agents": {"tester": {"command": "node", "args": [agent]}}}).to_string(),
    )?;
    let settings = fake_settings(&fake, json!({"preset": "readonly"}));
    let root = home.project("external", Some(&settings))?;
    let driver = Driver::start(&home, "external_agent").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

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
