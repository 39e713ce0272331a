//! Issue 53: a machine's managed policy, in the window. Its deny rule refuses a call the
//! folder's own rule allows (the card says it is the policy's), and the Grants screen shows
//! the policy's file and what it fixes, with what it locks disabled.

use paddock_desktop_e2e::{Driver, Result, TestHome, testid};
use paddock_fake_model::{FakeServer, Reply};
use serde_json::json;

use crate::{fake_settings, open_project, sel, send, wait_for_text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn a_managed_policy_locks_what_it_fixes() -> Result<()> {
    let fake = FakeServer::start().await?;
    fake.push(Reply::tool_call(
        "bash",
        json!({ "command": "touch pwned" }),
    ));
    fake.push(Reply::text("Done."));
    let policy = tempfile::tempdir()?;
    let policy_file = policy.path().join("managed-settings.json");
    std::fs::write(
        &policy_file,
        json!({
            "version": 1,
            "denyRules": {"bash": ["touch *"]},
            "forbidBashNetwork": true,
            "maxPreset": "full"
        })
        .to_string(),
    )?;
    let home = TestHome::new()?.with_env("PADDOCK_MANAGED_DIR", policy.path());
    let settings = fake_settings(
        &fake,
        json!({"preset": "full", "rules": {"bash": [{"allow": "touch *"}]}}),
    );
    let root = home.project("managed", Some(&settings))?;
    std::fs::create_dir_all(root.join(".agent-workspace"))?;
    let driver = Driver::start(&home, "managed").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    send(&app, "Touch a file").await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    wait_for_text(&app, &testid("tool-card-why"), "managed policy").await?;
    assert!(!root.join(".agent-workspace/pwned").exists());
    app.screenshot("1-refused-by-the-policy").await?;

    app.click(&testid("tab-grants")).await?;
    wait_for_text(
        &app,
        &testid("managed-policy"),
        &policy_file.display().to_string(),
    )
    .await?;
    wait_for_text(&app, &testid("managed-deny-rule"), "deny bash: touch *").await?;
    let toggle = app.wait_for(&testid("bash-network-toggle")).await?;
    assert!(!toggle.is_enabled().await?, "bashNetwork is locked");
    app.screenshot("2-grants-locked").await?;
    app.quit().await?;
    driver.stop().await
}
