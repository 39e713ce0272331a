//! The composer beyond plain text (issue 36): a pasted image shown as a thumbnail and sent
//! as an image part; a workspace file named with `@`, picked with the keyboard only and sent
//! along; the agent's plan pinned above the composer, updated
//! while the run goes; what the run cost, per turn, per run and for the session; in the
//! light and the dark theme.

use paddock_desktop_e2e::{Result, TestHome, testid};
use paddock_fake_model::{FakeServer, Reply};
use serde_json::{Value, json};
use thirtyfour::prelude::*;

use crate::{fake_settings, open_project, sel, wait_for_text};

/// A 1x1 PNG.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// Pastes a PNG into the prompt box as a clipboard with one image file would.
const PASTE: &str = r#"
const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
const file = new File([bytes], 'shot.png', { type: 'image/png' });
const data = new DataTransfer();
data.items.add(file);
const box = document.querySelector('[data-testid="prompt-input"]');
box.focus();
box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
"#;

fn plan(steps: [&str; 3]) -> Value {
    let names = ["Read the notes", "Summarize them", "Say what is left"];
    json!({"todos": names.iter().zip(steps).map(|(n, s)| json!({"content": n, "status": s})).collect::<Vec<_>>()})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn mention_plan_and_cost() -> Result<()> {
    let fake = FakeServer::start().await?;
    fake.push_all([
        Reply::tool_call("todo_write", plan(["in_progress", "pending", "pending"]))
            .with_usage(1000, 500),
        // Streamed slowly, so the first plan is on screen while the run goes on.
        Reply::text("Reading the notes, one moment...")
            .with_tool_call(
                None,
                "todo_write",
                plan(["completed", "in_progress", "pending"]),
            )
            .with_chunk_chars(2)
            .with_drip_ms(120)
            .with_usage(1000, 500),
        Reply::text("The notes say: buy milk.").with_usage(1000, 500),
    ]);
    let home = TestHome::new()?;
    let settings = fake_settings(
        &fake,
        json!({"preset": "readonly", "pricing": {"fake-model": {"input": 2.0, "output": 8.0}}}),
    );
    let root = home.project("composer_extras", Some(&settings))?;
    let notes = root.join(".agent-workspace/notes");
    std::fs::create_dir_all(&notes)?;
    std::fs::write(notes.join("todo.md"), "- buy milk (MENTIONED)\n")?;
    let driver = paddock_desktop_e2e::Driver::start(&home, "composer_extras").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    // @ with the keyboard only: type, pick with Enter, send with Ctrl+Enter.
    app.click(&testid("tab-transcript")).await?;
    let input = app.wait_for(&testid("prompt-input")).await?;
    app.wd.execute(PASTE, vec![json!(PNG_BASE64)]).await?;
    app.wait_for(&testid("image-thumb")).await?;
    input.send_keys("Summarize @notes/to").await?;
    app.wait_for(&sel("mention-item", &[("data-path", "notes/todo.md")]))
        .await?;
    app.screenshot("1-mention-list").await?;
    input.send_keys(Key::Enter).await?;
    app.wait_for(&sel("mention-chip", &[("data-path", "notes/todo.md")]))
        .await?;
    app.wait_until("the name is written out", || async {
        Ok(input.prop("value").await?.as_deref() == Some("Summarize @notes/todo.md "))
    })
    .await?;
    input.send_keys(Key::Control + Key::Enter).await?;

    // The plan, live: the first one while the second turn still streams.
    wait_for_text(&app, &testid("plan-progress"), "0 of 3 done").await?;
    assert!(
        app.count(&testid("run-progress")).await? > 0,
        "the plan showed while the run went on"
    );
    app.screenshot("2-plan-during-the-run").await?;
    wait_for_text(&app, &testid("plan-progress"), "1 of 3 done").await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    wait_for_text(&app, &testid("message-assistant"), "buy milk").await?;

    // The image and the file went with the prompt.
    let body = fake.model_requests()[0].body.to_string();
    assert!(
        body.contains("\"image_url\"") && body.contains("data:image/png;base64,"),
        "the pasted image reached the model: {body}"
    );
    assert!(
        body.contains(r#"<mentioned file=\"notes/todo.md\">"#)
            && body.contains("buy milk (MENTIONED)"),
        "the file reached the model: {body}"
    );

    // Money: $2 in, $8 out per million; 1,000 in and 500 out a turn is $0.006.
    wait_for_text(&app, &testid("cost-total"), "$0.02").await?;
    wait_for_text(&app, &testid("run-cost"), "$0.02").await?;
    wait_for_text(&app, &testid("usage-turn"), "$0.0060").await?;
    let title = app
        .wait_for(&testid("cost-total"))
        .await?
        .attr("title")
        .await?
        .unwrap_or_default();
    assert!(title.contains("pricing setting"), "{title}");
    app.screenshot("3-done-light").await?;
    app.select(&testid("theme-select"), "dark").await?;
    app.screenshot("4-done-dark").await?;

    // Reopened from the session file, the prompt still shows what went with it: the image
    // (read back from where the session keeps it) and the file with the text that was sent.
    app.click(&testid("new-session")).await?;
    app.wait_until("the new session is empty", || async {
        Ok(app.count(&testid("prompt-attached")).await? == 0)
    })
    .await?;
    app.click(&testid("session-open")).await?;
    let image = app
        .wait_for(&format!("{} img", testid("prompt-image")))
        .await?;
    app.wait_until("the stored image is shown", || async {
        let src = image.attr("src").await?.unwrap_or_default();
        Ok(src.starts_with("data:image/png;base64,"))
    })
    .await?;
    app.click(&sel("prompt-mention", &[("data-path", "notes/todo.md")]))
        .await?;
    wait_for_text(
        &app,
        &testid("prompt-attached-preview"),
        "buy milk (MENTIONED)",
    )
    .await?;
    app.screenshot("5-stored-prompt-dark").await?;

    app.quit().await?;
    driver.stop().await
}
