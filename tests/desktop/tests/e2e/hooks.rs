//! Hooks in the app (issue 37): a project hook refusing `git push` shows under the refused
//! call with its reason, the grants screen lists the hooks, and the model is told why; the
//! session's start hook runs with its first prompt only.

use paddock_desktop_e2e::{Driver, Result, TestHome, testid};
use paddock_fake_model::{FakeServer, Reply};
use serde_json::json;

use crate::{fake_settings, open_project, sel, wait_for_text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn a_hook_refuses_a_push_under_the_call() -> Result<()> {
    let fake = FakeServer::start().await?;
    fake.push_all([
        Reply::tool_call("bash", json!({"command": "git push origin main"})),
        Reply::text("The push was refused by the team's hook."),
        Reply::text("Nothing else to do."),
    ]);
    let home = TestHome::new()?;
    let hooks = json!({
        "PreToolUse": [{"matcher": "Bash", "hooks": [{
            "type": "command",
            "command": "echo 'pushing is for humans: ask Dana' >&2; exit 2",
            "rule": "bash(git push *)"
        }]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": "echo 'release freeze until Friday'"}]}]
    });
    let settings = fake_settings(&fake, json!({"preset": "full", "hooks": hooks}));
    let root = home.project("hooks", Some(&settings))?;
    let driver = Driver::start(&home, "hooks").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    app.click(&testid("tab-transcript")).await?;
    app.type_into(&testid("prompt-input"), "push it").await?;
    app.click(&testid("send-button")).await?;
    let line = sel(
        "hook-run",
        &[("data-outcome", "deny"), ("data-point", "pre_tool_use")],
    );
    app.wait_for(&line).await?;
    wait_for_text(&app, &line, "pushing is for humans").await?;
    wait_for_text(&app, &testid("tool-card"), "denied by a hook").await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    let told = fake.model_requests()[1].body.to_string();
    assert!(
        told.contains("pushing is for humans"),
        "the model was told why: {told}"
    );
    app.screenshot("1-refused-by-a-hook").await?;

    // The session's start hook ran once, with its first prompt, not with every prompt.
    assert!(
        fake.model_requests()[0]
            .body
            .to_string()
            .contains("release freeze")
    );
    app.type_into(&testid("prompt-input"), "anything else?")
        .await?;
    app.click(&testid("send-button")).await?;
    app.wait_until("the second prompt is answered", || async {
        Ok(fake.model_requests().len() == 3)
    })
    .await?;
    let last = fake.model_requests()[2].body["messages"]
        .as_array()
        .and_then(|m| m.last().cloned())
        .unwrap_or_default()
        .to_string();
    assert!(
        !last.contains("release freeze"),
        "the start hook ran again: {last}"
    );

    app.click(&testid("tab-grants")).await?;
    let item = sel(
        "hook-item",
        &[("data-source", "project"), ("data-waiting", "false")],
    );
    wait_for_text(&app, &item, "bash(git push *)").await?;
    app.screenshot("2-grants-hooks").await?;

    app.quit().await?;
    driver.stop().await
}
