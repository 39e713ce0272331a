//! External agents on branches: two prompts to an external agent at once, each in its own
//! worktree (`exec --agent NAME --worktree`), write the same file differently; the main
//! checkout is untouched, each branch holds its own, and a resumed session goes back to its
//! worktree. Without the worktree, both would write the one workspace.

use std::path::Path;

use paddock_fake_model::FakeServer;
use serde_json::{Value, json};

use crate::acp_client::fixtures;
use crate::common::{Env, Run, git, read};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_agent_prompts_work_in_two_worktrees_and_a_resume_returns_to_its_own() {
    let Some(fixtures) = fixtures() else { return };
    let server = FakeServer::start().await.unwrap();
    let mut env = Env::new(&server, json!({"workspace": "project"}));
    env.set_env(
        "PADDOCK_WORKTREES_DIR",
        &env.home().join("worktrees").display().to_string(),
    );
    let agents =
        json!({"agents": {"tester": {"command": "node", "args": [fixtures.join("agent.mjs")]}}});
    std::fs::create_dir_all(env.config_dir()).unwrap();
    std::fs::write(env.config_dir().join("agents.json"), agents.to_string()).unwrap();
    let project = env.project();
    std::fs::write(project.join("app.txt"), "base\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "."]);
    git(&project, &["commit", "-qm", "base"]);

    let left = env
        .command(&[
            "exec",
            "--agent",
            "tester",
            "--worktree=left",
            "--ask-allows",
            "write notes.txt from left",
        ])
        .output();
    let right = env
        .command(&[
            "exec",
            "--agent",
            "tester",
            "--worktree=right",
            "--ask-allows",
            "write notes.txt from right",
        ])
        .output();
    let (left, right) = tokio::join!(left, right);
    let (left, right) = (Run::from(left.unwrap()), Run::from(right.unwrap()));
    left.expect_code(0);
    right.expect_code(0);
    assert!(
        left.stderr.contains("worktree left on branch paddock/left"),
        "{}",
        left.stderr
    );

    // The main checkout has neither; each worktree its own.
    assert!(
        !project.join("notes.txt").exists(),
        "the main checkout was written"
    );
    let listed = env.run(&["worktree", "list", "--json"]).await;
    listed.expect_code(0);
    let worktrees: Vec<Value> = serde_json::from_str(&listed.stdout).unwrap();
    let path_of = |name: &str| {
        let w = worktrees
            .iter()
            .find(|w| w["name"] == name)
            .unwrap_or_else(|| panic!("no worktree {name}: {}", listed.stdout));
        assert!(w["session"].is_string(), "bound to its session: {w}");
        (
            Path::new(w["path"].as_str().unwrap()).to_path_buf(),
            w["session"].as_str().unwrap().to_owned(),
        )
    };
    let ((left_dir, left_session), (right_dir, _)) = (path_of("left"), path_of("right"));
    assert_eq!(read(&left_dir.join("notes.txt")), "from left\n");
    assert_eq!(read(&right_dir.join("notes.txt")), "from right\n");

    // Resumed, the session works in its worktree again.
    let again = env
        .run(&[
            "resume",
            "--agent",
            "tester",
            "--ask-allows",
            &left_session,
            "write more.txt again",
        ])
        .await;
    again.expect_code(0);
    assert_eq!(read(&left_dir.join("more.txt")), "again\n");
    assert!(!project.join("more.txt").exists());
}
