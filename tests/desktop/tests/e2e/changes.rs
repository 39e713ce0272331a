//! See and undo what the agent changed, in the window: the approval card shows the diff before
//! the edit, the edit card shows it after, the run lists its changes (bash included), and a
//! rewind (previewed) puts the files back and is undone.

use paddock_desktop_e2e::{Driver, Result, TestHome, testid};
use paddock_fake_model::{FakeServer, Reply};
use serde_json::json;
use thirtyfour::prelude::*;

use crate::{fake_settings, open_project, sel, send, settings_on_disk, wait_for_text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn edits_show_their_diff_and_a_rewind_is_previewed_and_undone() -> Result<()> {
    let fake = FakeServer::start().await?;
    fake.push(Reply::tool_call(
        "file_edit",
        json!({"path": "plan.md", "old_string": "step one", "new_string": "step one, done"}),
    ));
    fake.push(Reply::tool_call(
        "bash",
        json!({"command": "rm notes.txt && mkdir -p out && echo built > out/result.txt"}),
    ));
    fake.push(Reply::text("Edited the plan and built."));
    let home = TestHome::new()?;
    let settings = fake_settings(&fake, json!({"preset": "full"}));
    let root = home.project("changes", Some(&settings))?;
    let ws = root.join(".agent-workspace");
    std::fs::create_dir_all(&ws)?;
    std::fs::write(ws.join("plan.md"), "# Plan\nstep one\nstep two\n")?;
    std::fs::write(ws.join("notes.txt"), "keep me\n")?;
    let driver = Driver::start(&home, "changes").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    // file_edit needs approval: the card shows the diff before anything is written.
    app.click(&testid("tab-grants")).await?;
    let row = sel("grant-row", &[("data-tool", "file_edit")]);
    app.click(&format!("{row} {}", testid("grant-ask"))).await?;
    app.wait_until("ask saved to settings.json", || async {
        Ok(settings_on_disk(&root)?["tools"]["file_edit"] == "ask")
    })
    .await?;
    send(&app, "Mark step one done, then build").await?;
    app.wait_for(&testid("approval-card")).await?;
    let preview = format!("{} {}", testid("approval-preview"), testid("diff-view"));
    app.wait_for(&preview).await?;
    wait_for_text(
        &app,
        &format!("{preview} {}", sel("diff-line", &[("data-op", "added")])),
        "step one, done",
    )
    .await?;
    wait_for_text(
        &app,
        &format!("{preview} {}", sel("diff-line", &[("data-op", "removed")])),
        "step one",
    )
    .await?;
    assert_eq!(
        std::fs::read_to_string(ws.join("plan.md"))?,
        "# Plan\nstep one\nstep two\n",
        "nothing is written before approval"
    );
    app.screenshot("1-approval-diff").await?;
    app.click(&testid("approve-once")).await?;

    // The edit card shows the diff it made; the run lists every change, bash's too.
    let edit_card = sel(
        "tool-card",
        &[("data-tool-name", "file_edit"), ("data-state", "ok")],
    );
    app.wait_for(&format!("{edit_card} {}", testid("diff-view")))
        .await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    app.wait_for(&testid("run-changes")).await?;
    for path in ["plan.md", "notes.txt", "out/result.txt"] {
        app.wait_for(&sel("run-changes-file", &[("data-path", path)]))
            .await?;
    }
    app.click(&sel("run-changes-file", &[("data-path", "notes.txt")]))
        .await?;
    wait_for_text(
        &app,
        &format!(
            "{} {}",
            testid("run-changes"),
            sel("diff-line", &[("data-op", "removed")])
        ),
        "keep me",
    )
    .await?;
    app.screenshot("2-edit-and-changes").await?;
    assert!(!ws.join("notes.txt").exists());

    // Rewind to before the prompt: the dialog shows what will change, then does it.
    app.click(&sel(
        "rewind-button",
        &[("data-prompt", "1"), ("data-turn", "0")],
    ))
    .await?;
    app.wait_for(&testid("rewind-dialog")).await?;
    wait_for_text(&app, &testid("rewind-dialog"), "notes.txt").await?;
    app.screenshot("3-rewind-preview").await?;
    app.click(&testid("rewind-confirm")).await?;
    app.wait_for(&testid("rewound-marker")).await?;
    app.wait_until("the files are back", || async {
        Ok(ws.join("notes.txt").exists()
            && !ws.join("out").exists()
            && std::fs::read_to_string(ws.join("plan.md"))? == "# Plan\nstep one\nstep two\n")
    })
    .await?;
    // The prompt is back in the composer to edit and resend.
    let composer = app.wd.find(By::Css(testid("prompt-input"))).await?;
    let text = composer.prop("value").await?.unwrap_or_default();
    assert!(text.contains("Mark step one done"), "composer: {text:?}");
    app.screenshot("4-rewound").await?;

    // Undo: the later state again, and the turns no longer marked rewound.
    app.click(&testid("undo-rewind")).await?;
    app.wait_until("the rewind is undone", || async {
        Ok(!ws.join("notes.txt").exists()
            && std::fs::read_to_string(ws.join("out/result.txt")).is_ok()
            && std::fs::read_to_string(ws.join("plan.md"))?.contains("step one, done"))
    })
    .await?;
    app.wait_until("no turn is marked rewound", || async {
        Ok(app.count(&testid("rewound-marker")).await? == 0)
    })
    .await?;
    app.screenshot("5-undone").await?;

    app.quit().await?;
    driver.stop().await
}
