//! Two sessions side by side, each in its own worktree (issue 35): each is started with
//! "New in worktree", edits the same file its own way and shows its branch in the sidebar;
//! the main checkout is untouched until a merge; one is discarded after a confirmation that
//! names what is lost, the other merges into `main` from its worktree panel.

use std::path::Path;
use std::process::Command;

use paddock_desktop_e2e::axe::audit;
use paddock_desktop_e2e::{App, Driver, Result, TestHome, testid};
use paddock_fake_model::{FakeServer, Reply};
use serde_json::json;
use thirtyfour::prelude::*;

use crate::{fake_settings, open_project, sel, send, wait_for_text};

fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new("git")
        .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(dir)
        .output()?;
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Opens the sidebar's session whose branch is `branch`.
async fn open_branch(app: &App, branch: &str) -> Result<()> {
    for item in app.wd.find_all(By::Css(testid("session-item"))).await? {
        let named = item.find_all(By::Css(testid("session-branch"))).await?;
        for b in named {
            if b.text().await? == branch {
                item.find(By::Css(testid("session-open")))
                    .await?
                    .click()
                    .await?;
                return Ok(());
            }
        }
    }
    Err(format!("no session on {branch} in the sidebar").into())
}

/// Starts a new session in its own worktree with `prompt`, and waits for its run to end.
async fn start_in_worktree(app: &App, prompt: &str) -> Result<()> {
    app.click(&testid("new-worktree-session")).await?;
    app.wait_for(&testid("worktree-chip-cancel")).await?;
    send(app, prompt).await?;
    app.wait_for(&testid("worktree-panel")).await?;
    app.wait_for(&sel("run-banner", &[("data-exit", "end_turn")]))
        .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the built app, Xvfb, a keyring and tauri-driver: scripts/desktop-e2e.sh"]
async fn two_sessions_in_worktrees_one_merged_one_discarded() -> Result<()> {
    let fake = FakeServer::start().await?;
    for line in ["two from the left", "two from the right"] {
        fake.push(Reply::tool_call(
            "file_edit",
            json!({"path": "app.txt", "old_string": "two", "new_string": line}),
        ));
        fake.push(Reply::text("Changed."));
    }
    let home = TestHome::new()?;
    let settings = fake_settings(
        &fake,
        json!({"preset": "readwrite", "workspace": "project"}),
    );
    let root = home.project("worktrees", Some(&settings))?;
    std::fs::write(root.join("app.txt"), "one\ntwo\nthree\n")?;
    git(&root, &["init", "-q", "-b", "main"])?;
    git(&root, &["add", "."])?;
    git(&root, &["commit", "-qm", "base"])?;
    let driver = Driver::start(&home, "worktrees").await?;
    let app = driver.launch().await?;
    open_project(&app, &root).await?;

    start_in_worktree(&app, "Make the left change").await?;
    wait_for_text(
        &app,
        &testid("worktree-branch"),
        "paddock/make-the-left-change",
    )
    .await?;
    start_in_worktree(&app, "Make the right change").await?;
    wait_for_text(
        &app,
        &testid("worktree-branch"),
        "paddock/make-the-right-change",
    )
    .await?;
    // Both in the sidebar with their branch and state; the main checkout untouched.
    app.wait_until("both sessions show their branch, done", || async {
        let mut seen = Vec::new();
        for item in app.wd.find_all(By::Css(testid("session-item"))).await? {
            let branch = item
                .find(By::Css(testid("session-branch")))
                .await?
                .text()
                .await?;
            let state = item
                .find(By::Css(testid("session-state")))
                .await?
                .text()
                .await?;
            seen.push((branch, state));
        }
        seen.sort();
        Ok(seen
            == [
                ("paddock/make-the-left-change".to_owned(), "done".to_owned()),
                (
                    "paddock/make-the-right-change".to_owned(),
                    "done".to_owned(),
                ),
            ])
    })
    .await?;
    assert_eq!(
        std::fs::read_to_string(root.join("app.txt"))?,
        "one\ntwo\nthree\n"
    );
    wait_for_text(&app, &testid("worktree-file"), "app.txt").await?;
    app.screenshot("1-two-worktrees").await?;

    // Discard the right one: the confirmation names what goes with it.
    app.click(&testid("worktree-discard")).await?;
    wait_for_text(&app, &testid("worktree-discard-dialog"), "1 file").await?;
    wait_for_text(
        &app,
        &testid("worktree-discard-dialog"),
        "paddock/make-the-right-change",
    )
    .await?;
    app.screenshot("2-discard-asks").await?;
    let findings = audit(&app).await?;
    assert!(findings.is_empty(), "axe found:\n{}", findings.join("\n"));
    app.click(&testid("worktree-discard-confirm")).await?;
    app.wait_until("the right worktree is gone", || async {
        Ok(git(
            &root,
            &["branch", "--list", "paddock/make-the-right-change"],
        )?
        .is_empty()
            && app.count(&testid("worktree-panel")).await? == 0)
    })
    .await?;

    // Merge the left one into main: the main checkout gets its change.
    open_branch(&app, "paddock/make-the-left-change").await?;
    app.wait_for(&testid("worktree-panel")).await?;
    // Its file against the base, in the panel.
    app.click(&format!(
        "{} button[data-path=\"app.txt\"]",
        testid("worktree-file")
    ))
    .await?;
    wait_for_text(&app, &testid("worktree-diff"), "two from the left").await?;
    app.wait_for(&format!(
        "{} option[value=\"main\"]",
        testid("worktree-merge-into")
    ))
    .await?;
    app.click(&testid("worktree-merge")).await?;
    wait_for_text(&app, &testid("worktree-result"), "fast-forwarded").await?;
    assert_eq!(
        std::fs::read_to_string(root.join("app.txt"))?,
        "one\ntwo from the left\nthree\n"
    );
    assert_eq!(git(&root, &["status", "--porcelain"])?, "");
    wait_for_text(&app, &testid("session-state"), "merged").await?;
    app.screenshot("3-merged").await?;
    let findings = audit(&app).await?;
    assert!(findings.is_empty(), "axe found:\n{}", findings.join("\n"));
    app.quit().await?;
    driver.stop().await
}
