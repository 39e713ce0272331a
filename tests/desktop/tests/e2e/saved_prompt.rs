//! A project's saved prompt run from the composer's `/` menu: picked with the keyboard, given
//! its arguments, shown in full before its first send (a cloned repository wrote it), then
//! sent filled in.

use paddock_desktop_e2e::{Driver, Result, TestHome, testid};
use paddock_fake_model::{FakeServer, Reply};
use serde_json::json;
use thirtyfour::prelude::*;

use crate::{fake_settings, open_project, sel, wait_for_text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn run_a_saved_prompt() -> Result<()> {
    let fake = FakeServer::start().await?;
    fake.push(Reply::text("Reviewed."));
    let home = TestHome::new()?;
    let root = home.project("saved_prompt", Some(&fake_settings(&fake, json!({}))))?;
    let prompts = root.join(".paddock/prompts");
    std::fs::create_dir_all(&prompts)?;
    std::fs::write(
        prompts.join("review.md"),
        "---\ndescription: Review a file\nargument-hint: [file] [focus]\n---\n\
         Review $ARGUMENTS and list what to fix.\n",
    )?;
    let driver = Driver::start(&home, "saved_prompt").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    app.click(&testid("tab-transcript")).await?;
    let input = app.wait_for(&testid("prompt-input")).await?;
    input.send_keys("/rev").await?;
    let item = app
        .wait_for(&sel("slash-item", &[("data-name", "review")]))
        .await?;
    let html = item.outer_html().await?;
    assert!(
        html.contains("Review a file"),
        "the description is listed: {html}"
    );
    app.screenshot("1-menu").await?;
    input.send_keys(Key::Enter).await?;
    app.wait_until("the prompt is written out", || async {
        Ok(input.prop("value").await?.as_deref() == Some("/review "))
    })
    .await?;
    input.send_keys("src/main.rs").await?;
    app.click(&testid("send-button")).await?;

    // Shown in full first; nothing sent yet.
    wait_for_text(&app, &testid("prompt-confirm-text"), "Review $ARGUMENTS").await?;
    wait_for_text(&app, &testid("prompt-confirm-path"), "review.md").await?;
    assert!(
        fake.model_requests().is_empty(),
        "nothing sent before the confirmation"
    );
    app.screenshot("2-confirm").await?;
    app.click(&testid("prompt-confirm-send")).await?;

    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    wait_for_text(&app, &testid("message-assistant"), "Reviewed.").await?;
    let body = fake.model_requests()[0].body.to_string();
    assert!(
        body.contains("Review src/main.rs and list what to fix."),
        "the filled-in prompt reached the model: {body}"
    );
    app.screenshot("3-sent").await?;

    app.quit().await?;
    driver.stop().await
}
