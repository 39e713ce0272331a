//! A session in its own worktree through the app's functions: made for the first prompt,
//! the run writes only there, the sidebar's list knows its session, the Changes view's
//! merge lands it in the project.

use std::process::Command;
use std::sync::Arc;

use paddock_desktop::{runs, worktrees};
use paddock_fake_model::{FakeServer, Reply};
use paddock_protocol::{MergeOutcome, WorktreeLanding, WorktreeState};
use serde_json::json;
use tokio::sync::mpsc;

use crate::common::{events_until, finished, setup};

fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_session_in_a_worktree_writes_there_and_merges_back() {
    let fake = FakeServer::start().await.unwrap();
    fake.push(Reply::tool_call(
        "file_write",
        json!({"path": "notes.txt", "content": "from the session\n"}),
    ));
    fake.push(Reply::text("Done."));
    let s = setup(
        &fake,
        json!({"preset": "readwrite", "workspace": "project"}),
    );
    std::fs::write(s.root.join("README.md"), "hello\n").unwrap();
    git(&s.root, &["init", "-q", "-b", "main"]);
    git(&s.root, &["add", "."]);
    git(&s.root, &["commit", "-qm", "base"]);
    let layout = s.desktop.service.worktree_layout(&s.root);
    let cleanup = scopeguard(layout.checkouts.clone());

    let made = worktrees::create(
        &s.desktop,
        &s.root,
        None,
        Some("Write the notes".into()),
        false,
    )
    .await
    .unwrap();
    assert_eq!(made.worktree.branch, "paddock/write-the-notes");
    assert!(made.setup.is_none(), "no setup in the settings");
    let (tx, mut rx) = mpsc::unbounded_channel();
    let id = runs::send_prompt(
        &s.desktop,
        &s.root,
        None,
        "write",
        Some(made.worktree.name.clone()),
        Arc::new(tx),
    )
    .await
    .unwrap();
    events_until(&mut rx, finished).await;
    assert!(
        !s.root.join("notes.txt").exists(),
        "the main checkout waits for the merge"
    );
    let checkout = std::path::PathBuf::from(&made.worktree.path);
    assert_eq!(
        std::fs::read_to_string(checkout.join("notes.txt")).unwrap(),
        "from the session\n"
    );

    let project = s.root.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        runs::notice_name(&s.desktop, &s.root, Some(&id), None),
        format!("{project} (paddock/write-the-notes)"),
        "a notification names the session's branch"
    );
    let listed = s.desktop.service.worktrees(&s.root).unwrap();
    assert_eq!(listed[0].session.as_deref(), Some(id.as_str()));
    let changes = s.desktop.service.worktree_changes(&s.root, &id).unwrap();
    assert_eq!(changes.files, ["notes.txt"]);
    // The panel's diff of one file against the base; the same file is no diff; a path that
    // climbs out is refused.
    let diff = s
        .desktop
        .service
        .worktree_diff(&s.root, &id, "notes.txt")
        .unwrap()
        .unwrap();
    assert_eq!(diff.kind, paddock_protocol::ChangeKind::Created);
    assert_eq!(diff.added, 1);
    assert!(
        s.desktop
            .service
            .worktree_diff(&s.root, &id, "README.md")
            .unwrap()
            .is_none()
    );
    assert!(
        s.desktop
            .service
            .worktree_diff(&s.root, &id, "../README.md")
            .is_err()
    );
    std::os::unix::fs::symlink(s.root.join("README.md"), checkout.join("peek.md")).unwrap();
    assert!(
        s.desktop
            .service
            .worktree_diff(&s.root, &id, "peek.md")
            .is_err(),
        "a link in the checkout is not followed out"
    );
    std::fs::remove_file(checkout.join("peek.md")).unwrap();

    let landed = worktrees::land(
        &s.desktop,
        &s.root,
        id.clone(),
        WorktreeLanding::Merge {
            into: None,
            message: None,
            accept_trust_changes: false,
        },
    )
    .await
    .unwrap();
    assert!(
        matches!(landed.merge, Some(MergeOutcome::FastForward { .. })),
        "{landed:?}"
    );
    assert!(matches!(
        landed.worktree.unwrap().state,
        WorktreeState::Merged { .. }
    ));
    assert_eq!(
        std::fs::read_to_string(s.root.join("notes.txt")).unwrap(),
        "from the session\n"
    );
    // Paddock's commit of what was left carries the session's title.
    assert_eq!(git(&s.root, &["log", "-1", "--format=%s", "main"]), "write");
    let discarded = worktrees::land(&s.desktop, &s.root, id, WorktreeLanding::Discard)
        .await
        .unwrap();
    assert_eq!(
        discarded.lost.unwrap().commits,
        0,
        "merged work is not lost"
    );
    assert!(!checkout.exists());
    drop(cleanup);
}

/// Removes the checkouts folder (beside the test's data folder) when the test ends.
fn scopeguard(dir: std::path::PathBuf) -> impl Drop {
    struct Gone(std::path::PathBuf);
    impl Drop for Gone {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(self.0.parent().unwrap_or(&self.0));
        }
    }
    Gone(dir)
}
