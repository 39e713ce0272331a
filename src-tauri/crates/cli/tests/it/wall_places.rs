//! What a worktree session's bash can see must not depend on where folders happen to lie
//! (issue 50, class 3). The project, Paddock's data (and so every worktree checkout and agent
//! home beside it) are put outside any home, as under `/opt` or `/data`, and then inside the
//! runs' HOME. From a session in the worktree `mine`, bash reads the main checkout's
//! untracked `.env`, a file of the worktree `other`, a file in an agent's home, and its own
//! checkout's copy of a file the settings' `hiddenPaths` hide in the project. On main
//! (d242b3a) the outside-a-home case read all four (only the emptied homes hid them); now
//! the wall masks each explicitly wherever it lies.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};

use paddock_fake_model::{FakeServer, Reply};
use serde_json::json;

use crate::common::{Env, chat_bodies, git, tool_contents};

const SECRETS: [&str; 4] = [
    "main-env-secret",
    "other-secret",
    "agent-secret",
    "hidden-secret",
];

async fn reads_nothing_it_should_not(base: &Path, under_home: bool) {
    let setup = FakeServer::start().await.unwrap();
    setup.push_all([Reply::text("ok.")]);
    let probe = FakeServer::start().await.unwrap();
    let mut env = Env::new_in(&setup, json!({}), base);
    if under_home {
        // Everything below the runs' HOME, as with a home-based project and data folder.
        env.set_env("HOME", &base.display().to_string());
    }
    let main = env.project();
    let hidden = main.join("secret.txt");
    env.write_settings(
        &json!({
            "version": 1,
            "provider": "openai-compatible",
            "baseUrl": setup.url(),
            "model": "fake-model",
            "workspace": "project",
            "hiddenPaths": [hidden.display().to_string()],
        })
        .to_string(),
    );
    std::fs::write(main.join(".gitignore"), ".env\n").unwrap();
    std::fs::write(main.join(".env"), "TOKEN=main-env-secret\n").unwrap();
    std::fs::write(&hidden, "hidden-secret\n").unwrap();
    git(&main, &["init", "-q", "-b", "main"]);
    git(&main, &["add", "."]);
    git(&main, &["commit", "-qm", "base"]);
    env.run(&["exec", "--worktree=other", "--base-url", &setup.url(), "hi"])
        .await
        .expect_code(0);
    let worktrees = sibling(&env.data_dir(), "worktrees");
    let other = find_checkout(&worktrees, "other");
    std::fs::write(other.join("notes.txt"), "other-secret\n").unwrap();
    let agent = sibling(&env.data_dir(), "agents").join("p/claude");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(agent.join("notes.txt"), "agent-secret\n").unwrap();
    let command = format!(
        "cat {}/.env {}/notes.txt {}/notes.txt secret.txt; echo END",
        main.display(),
        other.display(),
        agent.display()
    );
    probe.push_all([
        Reply::tool_call("bash", json!({ "command": command })),
        Reply::text("Done."),
    ]);
    let run = env
        .run(&[
            "exec",
            "--preset",
            "full",
            "--worktree=mine",
            "--base-url",
            &probe.url(),
            "look around",
        ])
        .await;
    run.expect_code(0);
    let results: Vec<String> = chat_bodies(&probe).iter().flat_map(tool_contents).collect();
    let seen = results.join("\n");
    assert!(
        seen.contains("END"),
        "bash did not run: {seen}\n{}",
        run.stderr
    );
    for secret in SECRETS {
        assert!(
            !seen.contains(secret),
            "{secret} reached the model (under a home: {under_home}):\n{seen}"
        );
    }
}

/// `<data>-<suffix>`, where Paddock keeps checkouts and agent homes beside its data.
fn sibling(data: &Path, suffix: &str) -> PathBuf {
    let name = data.file_name().unwrap().to_string_lossy().into_owned();
    data.with_file_name(format!("{name}-{suffix}"))
}

fn find_checkout(worktrees: &Path, name: &str) -> PathBuf {
    for project in std::fs::read_dir(worktrees).unwrap().flatten() {
        let at = project.path().join(name);
        if at.is_dir() {
            return at;
        }
    }
    panic!("no checkout named {name} in {}", worktrees.display());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worktree_session_sees_no_other_session_agent_or_hidden_file_outside_a_home() {
    let base = tempfile::tempdir_in(outside_a_home()).unwrap();
    let base = base.path().canonicalize().unwrap().join("opt");
    reads_nothing_it_should_not(&base, false).await;
}

/// A folder the wall neither empties (`/tmp`…) nor hides as people's files (the homes): the
/// target folder, unless the clone lies under one of those (as in `/tmp`), where the case
/// would pass whatever the wall's fences did; then `/opt` or `/var/lib`.
fn outside_a_home() -> PathBuf {
    let covered = |p: &Path| {
        paddock_sandbox::policy::EMPTIED
            .iter()
            .chain(&["/home", "/root", "/mnt", "/media"])
            .any(|e| p.starts_with(e))
    };
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .canonicalize()
        .unwrap();
    if !covered(&target) {
        return target;
    }
    for place in ["/opt/paddock-tests", "/var/lib/paddock-tests"] {
        if std::fs::create_dir_all(place).is_ok() {
            return PathBuf::from(place);
        }
    }
    panic!(
        "the clone lies under {} and neither /opt nor /var/lib is writable: no folder outside \
         a home to test the fences in",
        target.display()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worktree_session_sees_no_other_session_agent_or_hidden_file_under_a_home() {
    let base = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let base = base.path().canonicalize().unwrap().join("home");
    reads_nothing_it_should_not(&base, true).await;
}
