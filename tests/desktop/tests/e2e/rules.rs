//! Grants by argument, in the window: "Always allow" on an approval card saves the proposed
//! rule, the next identical call runs without asking (its card says which rule), a chained
//! call with a part the rule does not cover still asks and says why, and the Grants screen
//! lists the rule and tests a call against it.

use paddock_desktop_e2e::{Driver, Result, TestHome, testid};
use paddock_fake_model::{FakeServer, Reply};
use serde_json::json;

use crate::{fake_settings, open_project, sel, send, settings_on_disk, wait_for_text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn always_allow_makes_a_rule_that_covers_only_what_it_names() -> Result<()> {
    let fake = FakeServer::start().await?;
    for command in ["echo one", "echo one", "echo one && touch pwned"] {
        fake.push(Reply::tool_call("bash", json!({ "command": command })));
    }
    fake.push(Reply::text("Done."));
    let home = TestHome::new()?;
    let settings = fake_settings(&fake, json!({"tools": {"bash": "ask"}}));
    let root = home.project("rules", Some(&settings))?;
    std::fs::create_dir_all(root.join(".agent-workspace"))?;
    let driver = Driver::start(&home, "rules").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    send(&app, "Say one, three times").await?;
    app.wait_for(&testid("approval-card")).await?;
    wait_for_text(&app, &testid("approval-why"), "ask").await?;
    app.click(&testid("approve-always")).await?;
    let rule = app.wait_for(&testid("always-rule")).await?;
    assert_eq!(rule.value().await?.as_deref(), Some("echo one"));
    app.screenshot("1-always-allow").await?;
    app.click(&testid("always-save")).await?;
    app.wait_until("the rule saved to settings.json", || async {
        Ok(settings_on_disk(&root)?["rules"] == json!({"bash": [{"allow": "echo one"}]}))
    })
    .await?;

    // The identical call runs without a card asking; the chained one asks, saying why.
    let asking = sel("tool-card", &[("data-state", "waiting")]);
    app.wait_until("two calls done and the third asking", || async {
        let done = app
            .count(&sel(
                "tool-card",
                &[("data-tool-name", "bash"), ("data-state", "ok")],
            ))
            .await?;
        Ok(done == 2 && app.count(&asking).await? == 1)
    })
    .await?;
    wait_for_text(&app, &testid("tool-card-why"), "rules.bash[0]").await?;
    wait_for_text(
        &app,
        &format!("{asking} {}", testid("approval-why")),
        "touch pwned",
    )
    .await?;
    app.screenshot("2-chained-call-asks").await?;
    app.click(&format!("{asking} {}", testid("approve-deny")))
        .await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    assert!(!root.join(".agent-workspace/pwned").exists());

    // The Grants screen lists the rule and tests calls against it without running them.
    app.click(&testid("tab-grants")).await?;
    wait_for_text(&app, &testid("rule-row"), "echo one").await?;
    app.type_into(&testid("test-call"), "echo one; rm -rf x")
        .await?;
    app.click(&testid("test-run")).await?;
    app.wait_for(&sel("test-result", &[("data-decision", "ask")]))
        .await?;
    wait_for_text(&app, &testid("test-why"), "rm -rf x").await?;
    app.screenshot("3-grants-rules").await?;
    app.quit().await?;
    driver.stop().await
}
