//! The network fence in the window: bash's network is an allow-list through Paddock's proxy;
//! a host no rule names asks on a card ("bash wants to reach unknown.test:80"), "Always for
//! this project…" saves the proposed rule to `network.allow` and lets the connection through,
//! the connection shows as a line under the call (and again when the session is reopened),
//! and the grants screen's Network section lists the rule.

use paddock_desktop_e2e::axe::audit;
use paddock_desktop_e2e::{Driver, Result, TestHome, testid};
use paddock_fake_model::{FakeServer, Reply};
use serde_json::json;

use crate::{fake_settings, open_project, sel, send, settings_on_disk, wait_for_text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn network_always_for_this_project_saves_the_host_and_shows_the_connection() -> Result<()> {
    let fake = FakeServer::start().await?;
    fake.push(Reply::tool_call(
        "bash",
        json!({"command": "curl -sS --max-time 10 http://unknown.test/"}),
    ));
    fake.push(Reply::text("Fetched."));
    let home = TestHome::new()?;
    // A rule names a host: bash's network is the allow-list through the proxy.
    let settings = fake_settings(
        &fake,
        json!({"tools": {"bash": "allow"}, "network": {"allow": ["docs.rs"]}}),
    );
    let root = home.project("network", Some(&settings))?;
    std::fs::create_dir_all(root.join(".agent-workspace"))?;
    let driver = Driver::start(&home, "network").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    send(&app, "Fetch unknown.test").await?;
    let card = format!(
        "{} {}",
        sel("tool-card", &[("data-tool-name", "bash")]),
        sel("approval-preview", &[("data-kind", "network")])
    );
    app.wait_for(&card).await?;
    wait_for_text(
        &app,
        &testid("approval-host"),
        "bash wants to reach unknown.test:80",
    )
    .await?;
    app.click(&testid("approve-always")).await?;
    let rule = app.wait_for(&testid("always-rule")).await?;
    assert_eq!(rule.value().await?.as_deref(), Some("unknown.test:80"));
    wait_for_text(&app, &testid("always-note"), "network.allow").await?;
    app.screenshot("1-always-for-this-project").await?;
    app.click(&testid("always-save")).await?;
    app.wait_until("the host saved to settings.json", || async {
        Ok(settings_on_disk(&root)?["network"]["allow"] == json!(["docs.rs", "unknown.test:80"]))
    })
    .await?;

    // The connection went to the proxy and was allowed by the user's answer; the name does
    // not resolve here, so the line says why it failed (not refused: no rule refused it).
    let line = format!(
        "{}:not([data-outcome=\"refused\"])",
        sel("connection", &[("data-target", "unknown.test:80")])
    );
    app.wait_for(&line).await?;
    app.wait_for(&format!("{line} {}", testid("connection-error")))
        .await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    app.screenshot("2-connection-line").await?;
    let findings = audit(&app).await?;
    assert!(findings.is_empty(), "axe found:\n{}", findings.join("\n"));

    // Reopened from the session file, the call shows the same line.
    app.click(&testid("new-session")).await?;
    app.wait_until("the new session is empty", || async {
        Ok(app.count(&testid("connection")).await? == 0)
    })
    .await?;
    app.click(&testid("session-open")).await?;
    app.wait_for(&line).await?;

    // The grants screen's Network section lists the rule beside the one the folder had.
    app.click(&testid("tab-grants")).await?;
    app.wait_for(&sel("network-bash", &[("data-bash", "allow_list")]))
        .await?;
    let allow = sel("network-list", &[("data-list", "allow")]);
    app.wait_for(&format!(
        "{allow} {}",
        sel("network-rule", &[("data-rule", "unknown.test:80")])
    ))
    .await?;
    app.wait_for(&format!(
        "{allow} {}",
        sel("network-rule", &[("data-rule", "docs.rs")])
    ))
    .await?;
    app.wd
        .execute(
            "document.querySelector('[data-testid=\"network-section\"]').scrollIntoView()",
            Vec::new(),
        )
        .await?;
    app.screenshot("3-grants-network").await?;
    let findings = audit(&app).await?;
    assert!(findings.is_empty(), "axe found:\n{}", findings.join("\n"));
    app.quit().await?;
    driver.stop().await
}
