//! `paddock exec --worktree` and `paddock worktree` (issue 35): two runs at once in two
//! worktrees of one repository edit the same file differently; the main checkout is
//! untouched until a merge; the first merges, the second reports its conflict and changes
//! nothing; discarding asks before losing work.

use std::process::Command;

use paddock_fake_model::{FakeServer, Reply};
use serde_json::{Value, json};

use crate::common::{Env, git};

/// The fake model of one run: edit app.txt's second line to `line`, commit with bash, end.
async fn model(line: &str, who: &str) -> FakeServer {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "file_edit",
            json!({"path": "app.txt", "old_string": "two", "new_string": line}),
        )
        .with_drip_ms(20),
        Reply::tool_call(
            "bash",
            json!({"command": format!("git add -A && git -c user.name={who} -c user.email={who}@example.invalid commit -qm 'work of {who}' && git log -1 --format=%s")}),
        ),
        Reply::text("Done."),
    ]);
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_runs_in_two_worktrees_one_merges_the_other_conflicts_and_the_main_checkout_waits() {
    let (a, b) = (
        model("two from a", "a").await,
        model("two from b", "b").await,
    );
    let mut env = Env::new(&a, json!({"workspace": "project"}));
    env.set_env(
        "PADDOCK_WORKTREES_DIR",
        &env.home().join("worktrees").display().to_string(),
    );
    let project = env.project();
    std::fs::write(project.join("app.txt"), "one\ntwo\nthree\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "."]);
    git(&project, &["commit", "-qm", "base"]);
    let base = git(&project, &["rev-parse", "HEAD"]);

    let (url_a, url_b) = (a.url(), b.url());
    let run_a = env
        .command(&[
            "exec",
            "--preset",
            "full",
            "--worktree=left",
            "--base-url",
            &url_a,
            "edit app.txt",
        ])
        .output();
    let run_b = env
        .command(&[
            "exec",
            "--preset",
            "full",
            "--worktree",
            "--base-url",
            &url_b,
            "Make app.txt say b",
        ])
        .output();
    let (run_a, run_b) = tokio::join!(run_a, run_b);
    let (run_a, run_b) = (
        crate::common::Run::from(run_a.unwrap()),
        crate::common::Run::from(run_b.unwrap()),
    );
    run_a.expect_code(0);
    run_b.expect_code(0);
    assert!(
        run_a
            .stderr
            .contains("paddock: worktree left on branch paddock/left"),
        "{}",
        run_a.stderr
    );
    assert!(
        run_b
            .stderr
            .contains("on branch paddock/make-app-txt-say-b"),
        "{}",
        run_b.stderr
    );

    // Nothing reached the main checkout; each branch holds its own commit.
    assert_eq!(
        std::fs::read_to_string(project.join("app.txt")).unwrap(),
        "one\ntwo\nthree\n"
    );
    assert_eq!(git(&project, &["rev-parse", "main"]), base);
    assert_eq!(
        git(&project, &["log", "-1", "--format=%s", "paddock/left"]),
        "work of a"
    );
    assert_eq!(
        git(&project, &["show", "paddock/make-app-txt-say-b:app.txt"]),
        "one\ntwo from b\nthree"
    );

    let listed = env.run(&["worktree", "list", "--json"]).await;
    listed.expect_code(0);
    let list: Value = serde_json::from_str(listed.stdout.trim()).unwrap();
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{list}");
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .all(|w| w["state"] == "active" && w["session"].is_string()),
        "{list}"
    );
    let session_b = run_b.session_id();

    // The first merges (a fast-forward: main has not moved); the checkout follows.
    let merged = env.run(&["worktree", "merge", "left"]).await;
    merged.expect_code(0);
    assert!(
        merged.stderr.contains("main fast-forwarded"),
        "{}",
        merged.stderr
    );
    assert_eq!(
        std::fs::read_to_string(project.join("app.txt")).unwrap(),
        "one\ntwo from a\nthree\n"
    );
    let after_a = git(&project, &["rev-parse", "main"]);

    // The second, named by its session, conflicts: listed, exit 1, nothing moved.
    let conflict = env.run(&["worktree", "merge", &session_b, "--json"]).await;
    conflict.expect_code(1);
    let outcome: Value = serde_json::from_str(conflict.stdout.trim()).unwrap();
    assert_eq!(
        outcome,
        json!({"outcome": "conflicts", "into": "main", "files": ["app.txt"]})
    );
    assert!(
        conflict.stderr.contains("nothing was changed"),
        "{}",
        conflict.stderr
    );
    assert_eq!(git(&project, &["rev-parse", "main"]), after_a);
    assert_eq!(git(&project, &["status", "--porcelain"]), "");

    // Discarding work not merged asks first, then removes the checkout and the branch.
    let refused = env.run(&["worktree", "discard", &session_b]).await;
    refused.expect_code(2);
    assert!(
        refused.stderr.contains("loses 1 commit(s) not merged"),
        "{}",
        refused.stderr
    );
    let checkout = env.home().join("worktrees");
    let discarded = env.run(&["worktree", "discard", &session_b, "--yes"]).await;
    discarded.expect_code(0);
    assert!(
        git(
            &project,
            &["branch", "--list", "paddock/make-app-txt-say-b"]
        )
        .is_empty()
    );
    let left: Vec<_> =
        std::fs::read_dir(checkout.read_dir().unwrap().next().unwrap().unwrap().path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
    assert_eq!(
        left,
        ["left"],
        "only the merged worktree's checkout is left"
    );
    // The discarded session is not resumed in the project's own folder.
    let resumed = env
        .run(&[
            "resume",
            "--preset",
            "full",
            "--base-url",
            &url_b,
            &session_b,
            "go on",
        ])
        .await;
    resumed.expect_code(2);
    assert!(
        resumed
            .stderr
            .contains("paddock/make-app-txt-say-b) was discarded"),
        "{}",
        resumed.stderr
    );
    // Its name is free again.
    let listed = env.run(&["worktree", "list", "--json"]).await;
    let list: Value = serde_json::from_str(listed.stdout.trim()).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");

    // The merged session goes on in its worktree.
    a.push_all([
        Reply::tool_call("file_read", json!({"path": "app.txt"})),
        Reply::text("Still here."),
    ]);
    let resumed = env
        .run(&[
            "resume",
            "--preset",
            "full",
            "--base-url",
            &url_a,
            &run_a.session_id(),
            "read it again",
        ])
        .await;
    resumed.expect_code(0);
    let listed = env.run(&["worktree", "list"]).await;
    assert!(
        listed.stdout.contains("left\tpaddock/left\tactive"),
        "{}",
        listed.stdout
    );
}

/// A project whose tests need an ignored `.env` and `node_modules` (a local package
/// installed by `npm ci`, offline): a new worktree runs them green with no manual step.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_and_copy_make_a_new_worktree_ready_for_the_project_tests() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("bash", json!({"command": "node test.js"})),
        Reply::text("Tests pass."),
    ]);
    let mut env = Env::new(
        &server,
        json!({
            "workspace": "project",
            "worktree": {"setup": "npm ci --offline --no-audit --no-fund", "copy": [".env", "config/*.local.json"]},
        }),
    );
    env.set_env(
        "PADDOCK_WORKTREES_DIR",
        &env.home().join("worktrees").display().to_string(),
    );
    let project = env.project();
    let write = |rel: &str, text: &str| {
        let path = project.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "vendor/greet/package.json",
        r#"{"name": "greet", "version": "1.0.0", "main": "index.js"}"#,
    );
    write(
        "vendor/greet/index.js",
        "module.exports = (who) => `hello ${who}`;\n",
    );
    write(
        "package.json",
        r#"{"name": "app", "version": "1.0.0", "dependencies": {"greet": "file:vendor/greet"}}"#,
    );
    write(
        "test.js",
        "const fs = require('fs');\nconst greet = require('greet');\nconst who = fs.readFileSync('.env', 'utf8').match(/WHO=(\\w+)/)[1];\nconst local = JSON.parse(fs.readFileSync('config/app.local.json', 'utf8'));\nif (greet(who) !== 'hello world' || !local.ok) { console.log('TESTS FAILED'); process.exit(1); }\nconsole.log('TESTS PASSED');\n",
    );
    write(".gitignore", "node_modules/\n.env\n*.local.json\n");
    write(".env", "WHO=world\n");
    write("config/app.local.json", "{\"ok\": true}\n");
    let npm = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--offline"])
        .current_dir(&project)
        .output()
        .unwrap();
    assert!(
        npm.status.success(),
        "{}",
        String::from_utf8_lossy(&npm.stderr)
    );
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "."]);
    git(&project, &["commit", "-qm", "base"]);
    assert!(git(&project, &["ls-files", "node_modules", ".env"]).is_empty());

    let run = env
        .run(&[
            "exec",
            "--preset",
            "full",
            "--worktree=ready",
            "run the tests",
        ])
        .await;
    run.expect_code(0);
    assert!(
        run.stderr
            .contains("paddock: copied in .env, config/app.local.json"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("paddock: setting up the worktree: npm ci"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("paddock: worktree setup done"),
        "{}",
        run.stderr
    );
    let session = env.load(&run.session_id());
    let results: Vec<String> = session
        .history
        .iter()
        .flat_map(|m| m.tool_results().map(|r| r.content.to_string()))
        .collect();
    assert!(
        results.iter().any(|r| r.contains("TESTS PASSED")),
        "{results:?}"
    );
    let checkout = env.home().join("worktrees");
    let ready = std::fs::read_dir(&checkout)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("ready");
    assert!(
        ready.join("node_modules/greet").exists(),
        "npm ci ran in the checkout"
    );

    // A failing setup is said, and the session still runs.
    let mut settings: Value = serde_json::from_str(
        &std::fs::read_to_string(project.join(".paddock/settings.json")).unwrap(),
    )
    .unwrap();
    settings["worktree"]["setup"] = json!("echo broken >&2; exit 3");
    env.write_settings(&settings.to_string());
    server.push_all([Reply::text("Fine.")]);
    let run = env.run(&["exec", "--worktree=broken", "hello"]).await;
    run.expect_code(0);
    assert!(run.stderr.contains("  | broken"), "{}", run.stderr);
    assert!(
        run.stderr.contains("the worktree setup failed"),
        "{}",
        run.stderr
    );
}

/// Rewind works per session in a worktree: the files are put back in its checkout, never in
/// the main checkout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worktree_session_rewinds_in_its_own_checkout() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "file_write",
            json!({"path": "app.txt", "content": "rewritten\n"}),
        ),
        Reply::text("Done."),
    ]);
    let mut env = Env::new(
        &server,
        json!({"workspace": "project", "preset": "readwrite"}),
    );
    env.set_env(
        "PADDOCK_WORKTREES_DIR",
        &env.home().join("worktrees").display().to_string(),
    );
    let project = env.project();
    std::fs::write(project.join("app.txt"), "original\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "."]);
    git(&project, &["commit", "-qm", "base"]);
    let run = env
        .run(&["exec", "--worktree=undo-me", "rewrite app.txt"])
        .await;
    run.expect_code(0);
    let id = run.session_id();
    let listed = env.run(&["worktree", "list", "--json"]).await;
    let list: Value = serde_json::from_str(listed.stdout.trim()).unwrap();
    let checkout = std::path::PathBuf::from(list[0]["path"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(checkout.join("app.txt")).unwrap(),
        "rewritten\n"
    );

    let rewound = env.run(&["rewind", &id, "--to", "1", "--files-only"]).await;
    rewound.expect_code(0);
    assert_eq!(
        std::fs::read_to_string(checkout.join("app.txt")).unwrap(),
        "original\n"
    );
    assert_eq!(
        std::fs::read_to_string(project.join("app.txt")).unwrap(),
        "original\n"
    );
    assert_eq!(git(&project, &["status", "--porcelain"]), "");
}

/// `worktree commit --propose`: the project's model writes the message from the diff.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_proposes_the_commit_message_from_the_diff() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "file_write",
            json!({"path": "app.txt", "content": "rewritten\n"}),
        ),
        Reply::text("Done."),
        Reply::text("```\nRewrite app.txt\n\nThe old text was wrong.\n```"),
    ]);
    let mut env = Env::new(
        &server,
        json!({"workspace": "project", "preset": "readwrite"}),
    );
    env.set_env(
        "PADDOCK_WORKTREES_DIR",
        &env.home().join("worktrees").display().to_string(),
    );
    let project = env.project();
    std::fs::write(project.join("app.txt"), "original\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "."]);
    git(&project, &["commit", "-qm", "base"]);
    env.run(&["exec", "--worktree=msg", "rewrite app.txt"])
        .await
        .expect_code(0);
    let committed = env.run(&["worktree", "commit", "msg", "--propose"]).await;
    committed.expect_code(0);
    assert!(
        committed
            .stderr
            .contains("the model proposes:\nRewrite app.txt"),
        "{}",
        committed.stderr
    );
    assert_eq!(
        git(&project, &["log", "-1", "--format=%B", "paddock/msg"]),
        "Rewrite app.txt\n\nThe old text was wrong."
    );
    let asked = server.model_requests().last().unwrap().body.to_string();
    assert!(
        asked.contains("+rewritten") && asked.contains("-original"),
        "the diff went to the model: {asked}"
    );
    assert!(
        asked.contains("rewrite app.txt"),
        "with the session's task: {asked}"
    );
    // Nothing left: asked again, it says so instead of calling the model.
    let again = env.run(&["worktree", "commit", "msg", "--propose"]).await;
    again.expect_code(2);
    assert!(
        again.stderr.contains("nothing to commit"),
        "{}",
        again.stderr
    );
}

/// A folder outside git is told so, and `--copy` works in a plain copy whose changed files
/// `worktree merge` writes back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_outside_git_is_offered_a_plain_copy() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "file_write",
            json!({"path": "notes.txt", "content": "from the copy\n"}),
        ),
        Reply::text("Done."),
    ]);
    let mut env = Env::new(
        &server,
        json!({"workspace": "project", "preset": "readwrite"}),
    );
    env.set_env(
        "PADDOCK_WORKTREES_DIR",
        &env.home().join("worktrees").display().to_string(),
    );
    let project = env.project();
    std::fs::write(project.join("notes.txt"), "original\n").unwrap();
    let refused = env.run(&["exec", "--worktree", "write notes"]).await;
    refused.expect_code(2);
    assert!(
        refused
            .stderr
            .contains("is not in a git repository: work in a plain copy"),
        "{}",
        refused.stderr
    );
    let run = env
        .run(&["exec", "--worktree=copy", "--copy", "write notes"])
        .await;
    run.expect_code(0);
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt")).unwrap(),
        "original\n"
    );
    let merged = env.run(&["worktree", "merge", "copy"]).await;
    merged.expect_code(0);
    assert!(
        merged.stderr.contains("merged into the project folder"),
        "{}",
        merged.stderr
    );
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt")).unwrap(),
        "from the copy\n"
    );
    assert!(!project.join(".git").exists());
}
