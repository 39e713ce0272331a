//! A long answer in the window: the transcript follows it to its last line while the reader
//! is at the bottom, and stays where a reader who scrolled up left it. An answer reaches the
//! page a frame after the transcript that holds it (Markdown.svelte), so following watches
//! what the panel shows, not the transcript.

use paddock_desktop_e2e::{App, Driver, Result, TestHome, testid};
use paddock_fake_model::{FakeServer, Reply};
use serde_json::{Value, json};

use crate::{fake_settings, open_project, sel, send, wait_for_text};

/// 40 paragraphs of prose, each named by `label` and its number, then `last`.
fn long_answer(label: &str, last: &str) -> String {
    let para = "The parser allocates a **buffer** for each `token` and frees it after use. ";
    let mut text = String::new();
    for i in 1..40 {
        text.push_str(&format!("{label}, part {i}: {}\n\n", para.repeat(4)));
    }
    text.push_str(last);
    text
}

/// Pixels between the bottom of the transcript's view and the bottom of its content.
async fn below_view(app: &App) -> Result<f64> {
    let gap = app
        .wd
        .execute(
            "const s = document.querySelector('.scroll');
             return s.scrollHeight - s.scrollTop - s.clientHeight;",
            Vec::new(),
        )
        .await?;
    Ok(gap.json().as_f64().unwrap_or(f64::NAN))
}

async fn scroll_top(app: &App) -> Result<f64> {
    let top = app
        .wd
        .execute(
            "return document.querySelector('.scroll').scrollTop;",
            Vec::new(),
        )
        .await?;
    Ok(top.json().as_f64().unwrap_or(f64::NAN))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn a_long_answer_is_followed_to_its_last_line_unless_the_reader_scrolled_up() -> Result<()> {
    let fake = FakeServer::start().await?;
    fake.push(
        Reply::text(long_answer(
            "First",
            "The very last line of the first answer.",
        ))
        .with_chunk_chars(48)
        .with_drip_ms(2),
    );
    fake.push(
        Reply::text(long_answer(
            "Second",
            "The very last line of the second answer.",
        ))
        .with_chunk_chars(24)
        .with_drip_ms(4),
    );
    let home = TestHome::new()?;
    let root = home.project(
        "follower",
        Some(&fake_settings(&fake, json!({"preset": "readonly"}))),
    )?;
    let driver = Driver::start(&home, "follow").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    // At the bottom: the whole answer shows, and the view ends at its last line.
    send(&app, "Explain the parser").await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    wait_for_text(&app, &testid("message-assistant"), "last line of the first").await?;
    app.wait_until("the view is at the end of the answer", || async {
        Ok(below_view(&app).await? < 4.0)
    })
    .await?;
    let gap = below_view(&app).await?;
    assert!(gap < 4.0, "the last line is in view ({gap} px below)");
    app.screenshot("1-followed").await?;

    // Scrolled up while the next answer streams: the view stays where the reader put it.
    send(&app, "And the lexer?").await?;
    wait_for_text(&app, &testid("message-assistant"), "Second, part 2:").await?;
    app.wd
        .execute(
            "document.querySelector('.scroll').scrollTop = 200;",
            Vec::new(),
        )
        .await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    wait_for_text(
        &app,
        &testid("message-assistant"),
        "last line of the second",
    )
    .await?;
    let top = scroll_top(&app).await?;
    assert!(
        (top - 200.0).abs() < 2.0,
        "the reader's place is kept (scrollTop {top})"
    );
    let gap = below_view(&app).await?;
    assert!(gap > 1000.0, "the answer went on below the view ({gap} px)");
    app.screenshot("2-kept").await?;

    let answers: Value = app
        .wd
        .execute(
            "return [...document.querySelectorAll('[data-testid=message-assistant]')].length",
            Vec::new(),
        )
        .await?
        .json()
        .clone();
    assert_eq!(answers, json!(2), "two answers shown");
    app.quit().await?;
    driver.stop().await
}
