//! The context meter moves as the conversation grows; a manual compaction shows its divider
//! with the summary and the summarized turns collapsed; undo brings the turns back.

use paddock_desktop_e2e::{Driver, Result, TestHome, testid};
use paddock_fake_model::{FakeServer, Reply};
use serde_json::json;
use thirtyfour::prelude::*;

use crate::{fake_settings, open_project, sel, send, wait_for_text};

/// The meter's `data-used`, in tokens.
async fn used(app: &paddock_desktop_e2e::App) -> Result<u64> {
    let meter = app.wd.find(By::Css(testid("context-meter"))).await?;
    let value = meter.attr("data-used").await?.unwrap_or_default();
    Ok(value.parse().unwrap_or(0))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn the_meter_moves_and_a_compaction_is_shown_and_undone() -> Result<()> {
    let fake = FakeServer::start().await?;
    for i in 0..4 {
        fake.push(Reply::tool_call(
            "file_write",
            json!({"path": format!("notes/{i}.md"), "content": format!("# Note {i}\n{}\n", "text ".repeat(300))}),
        ));
    }
    fake.push(Reply::text("Wrote four notes."));
    fake.push(Reply::text("Second answer."));
    fake.push(Reply::text("SUMMARY: four notes were written in notes/."));
    let home = TestHome::new()?;
    let settings = fake_settings(
        &fake,
        json!({"preset": "readwrite", "contextWindow": 100000}),
    );
    let root = home.project("context", Some(&settings))?;
    let driver = Driver::start(&home, "context").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    send(&app, "Write four notes").await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    app.wait_for(&sel("context-meter", &[("data-window", "100000")]))
        .await?;
    let first = used(&app).await?;
    assert!(first > 0, "the meter shows the context");
    send(&app, "And now?").await?;
    wait_for_text(&app, &testid("message-assistant"), "Second answer.").await?;
    app.wait_until("the meter moved", || async {
        Ok(used(&app).await? > first)
    })
    .await?;
    app.screenshot("1-meter").await?;

    // Compact by hand: a divider with the summary, the older turns collapsed.
    app.click(&testid("compact-button")).await?;
    app.wait_for(&sel("compaction-divider", &[("data-reason", "asked")]))
        .await?;
    app.wait_for(&testid("summarized-marker")).await?;
    app.click(&testid("compaction-toggle")).await?;
    wait_for_text(
        &app,
        &testid("compaction-summary"),
        "four notes were written",
    )
    .await?;
    app.screenshot("2-compacted").await?;

    // Undo: the turns come back.
    app.click(&testid("compaction-undo")).await?;
    app.wait_until("no turn is summarized", || async {
        Ok(app.count(&testid("summarized-marker")).await? == 0)
    })
    .await?;
    app.screenshot("3-undone").await?;

    app.quit().await?;
    driver.stop().await
}
