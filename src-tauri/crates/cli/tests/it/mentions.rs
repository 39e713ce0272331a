//! `@path` in a headless prompt (issue 36, part 2): the named file's content or folder's
//! listing arrives with the prompt in both wire formats, read through the path guard.

use paddock_fake_model::{FakeServer, Reply};
use serde_json::{Value, json};

use crate::common::{Env, chat_bodies};

fn workspace_with_notes(env: &Env) {
    let ws = env.workspace();
    std::fs::create_dir_all(ws.join("notes/old")).unwrap();
    std::fs::write(ws.join("notes/todo.md"), "- MENTIONED-CONTENT\n").unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_file_and_folder_arrive_with_the_prompt_in_chat_completions() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("Noted."));
    let env = Env::new(&server, json!({}));
    workspace_with_notes(&env);

    let run = env
        .run(&[
            "exec",
            "Summarize @notes/todo.md, and what else is in @notes/?",
        ])
        .await;
    run.expect_code(0);
    let body = &chat_bodies(&server)[0];
    let user = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "user")
        .unwrap();
    let text = user["content"].as_str().unwrap();
    assert!(text.starts_with("Summarize @notes/todo.md"), "{text}");
    assert!(
        text.contains("<mentioned file=\"notes/todo.md\">\n- MENTIONED-CONTENT\n"),
        "{text}"
    );
    assert!(
        text.contains("<mentioned folder=\"notes\">\nold/\ntodo.md\n</mentioned>"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_file_arrives_as_its_own_text_block_in_the_messages_api() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("Noted."));
    let mut env = Env::new(
        &server,
        json!({"provider": "anthropic", "model": "claude-haiku-4-5"}),
    );
    env.set_env("ANTHROPIC_API_KEY", "sk-ant-test-key-1234567890");
    workspace_with_notes(&env);

    let run = env.run(&["exec", "Summarize @notes/todo.md"]).await;
    run.expect_code(0);
    let body = server
        .requests()
        .into_iter()
        .find(|r| r.path.contains("messages"))
        .unwrap()
        .body;
    let blocks: Vec<&Value> = body["messages"][0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    assert_eq!(blocks[0]["text"], json!("Summarize @notes/todo.md"));
    assert_eq!(blocks[1]["type"], json!("text"));
    assert!(
        blocks[1]["text"]
            .as_str()
            .unwrap()
            .contains("- MENTIONED-CONTENT"),
        "{body}"
    );
}

/// A name that leads out of the workspace (by `..`, or a link a repository committed)
/// refuses the run before anything is sent; the outside file's words never show.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_leading_out_of_the_workspace_refuses_the_run_and_sends_nothing() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({}));
    workspace_with_notes(&env);
    let secret = env.home().join("secret.txt");
    std::fs::write(&secret, "OUTSIDE-SECRET").unwrap();
    std::os::unix::fs::symlink(&secret, env.workspace().join("link.txt")).unwrap();

    for name in ["@link.txt", "@../settings", "@missing.md"] {
        let run = env.run(&["exec", &format!("read {name}")]).await;
        assert_ne!(run.code, 0, "{name}: {}", run.stderr);
        assert!(run.stderr.contains(name), "{name}: {}", run.stderr);
        assert!(!run.stderr.contains("OUTSIDE-SECRET") && !run.stdout.contains("OUTSIDE-SECRET"));
    }
    assert!(chat_bodies(&server).is_empty(), "a prompt went out");
    assert!(
        env.store().list(&env.project()).unwrap().is_empty(),
        "a session was written"
    );
}
