//! What the model is told: Paddock's system prompt, then the project's `systemPrompt`, then
//! AGENTS.md (CLAUDE.md as a fallback), in both wire formats; a bad instructions file is a
//! notice, never a failed run.

use paddock_fake_model::{FakeServer, Reply};
use serde_json::{Value, json};

use crate::common::{Env, chat_bodies};

/// The system text of a request in either wire format.
fn system_of(body: &Value) -> String {
    match &body["system"] {
        // Anthropic: a string or text blocks (with a cache breakpoint).
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => body["messages"]
            .as_array()
            .and_then(|m| m.first())
            .filter(|m| m["role"] == "system")
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_owned(),
    }
}

fn in_order(text: &str, parts: &[&str]) {
    let mut at = 0;
    for part in parts {
        match text[at..].find(part) {
            Some(i) => at += i + part.len(),
            None => panic!("{part:?} missing or out of order in:\n{text}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_prompt_then_project_text_then_agents_md_in_both_wire_formats() {
    for provider in ["openai-compatible", "anthropic"] {
        let server = FakeServer::start().await.unwrap();
        server.push(Reply::text("ok"));
        let mut env = Env::new(
            &server,
            json!({"provider": provider, "systemPrompt": "PROJECT-TEXT: answer in French."}),
        );
        env.set_env("ANTHROPIC_API_KEY", "sk-ant-test-key-1234567890");
        std::fs::write(
            env.project().join("AGENTS.md"),
            "AGENTS-RULES: run make test.",
        )
        .unwrap();
        std::fs::write(env.project().join("CLAUDE.md"), "CLAUDE-RULES").unwrap();
        env.run(&["exec", "--preset", "readonly", "hi"])
            .await
            .expect_code(0);
        // Chat Completions or Messages, whichever the provider speaks.
        let body = server
            .requests()
            .into_iter()
            .rfind(|r| r.path.contains("chat/completions") || r.path.ends_with("/messages"))
            .map(|r| r.body)
            .unwrap();
        let system = system_of(&body);
        in_order(
            &system,
            &[
                "You are main, a coding agent",
                &env.workspace().display().to_string(),
                "- file_read:",
                "PROJECT-TEXT: answer in French.",
                "# Project instructions (AGENTS.md)",
                "AGENTS-RULES: run make test.",
            ],
        );
        assert!(
            !system.contains("CLAUDE-RULES"),
            "{provider}: AGENTS.md wins"
        );
        assert!(
            !system.contains("- bash:"),
            "{provider}: bash is not granted in readonly"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replace_system_prompt_sends_only_the_projects_text() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("ok"));
    let env = Env::new(
        &server,
        json!({"systemPrompt": "ONLY THIS", "replaceSystemPrompt": true}),
    );
    env.run(&["exec", "hi"]).await.expect_code(0);
    assert_eq!(system_of(&chat_bodies(&server)[0]), "ONLY THIS");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_instruction_files_are_notices_never_failures() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([Reply::text("one"), Reply::text("two"), Reply::text("three")]);
    let env = Env::new(&server, json!({}));
    let agents = env.project().join("AGENTS.md");

    // Oversized: the start is given, with a notice.
    std::fs::write(&agents, format!("FIRST-LINE\n{}", "x".repeat(100_000))).unwrap();
    let big = env.run(&["exec", "hi"]).await;
    big.expect_code(0);
    assert!(
        big.stderr.contains("only its first 32 KB"),
        "{}",
        big.stderr
    );
    assert!(system_of(&chat_bodies(&server)[0]).contains("FIRST-LINE"));

    // Not UTF-8: left out, with a notice.
    std::fs::write(&agents, [0xffu8, 0xfe, 0x41]).unwrap();
    let binary = env.run(&["exec", "hi"]).await;
    binary.expect_code(0);
    assert!(binary.stderr.contains("not UTF-8"), "{}", binary.stderr);

    // A FIFO: answered at once, not waited on.
    std::fs::remove_file(&agents).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&agents)
        .status()
        .unwrap();
    assert!(made.success());
    let fifo = env.run(&["exec", "hi"]).await;
    fifo.expect_code(0);
    assert!(
        fifo.stderr.contains("not a regular file"),
        "{}",
        fifo.stderr
    );
}
