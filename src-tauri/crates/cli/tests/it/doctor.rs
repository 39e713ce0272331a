//! `paddock doctor`: one ok / warn / fail line per check, non-zero when something is broken.

use paddock_fake_model::{FakeServer, Script};
use serde_json::json;

use crate::common::{Env, Run, closed_port};

/// The line of the check named `what` (e.g. "provider").
fn line<'a>(run: &'a Run, what: &str) -> &'a str {
    run.stdout
        .lines()
        .find(|l| {
            l.get(6..)
                .is_some_and(|rest| rest.starts_with(&format!("{what}:")))
        })
        .unwrap_or_else(|| panic!("no {what} line:\n{}", run.stdout))
}

async fn server_with_models(models: &[&str]) -> FakeServer {
    let server = FakeServer::start().await.unwrap();
    server.load(Script {
        models: models.iter().map(|m| (*m).to_owned()).collect(),
        ..Script::default()
    });
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_healthy_project_passes() {
    let server = server_with_models(&["fake-model", "other"]).await;
    let env = Env::new(&server, json!({}));
    let run = env.run(&["doctor"]).await;
    run.expect_code(0);
    assert!(line(&run, "settings").starts_with("ok"), "{}", run.stdout);
    assert!(line(&run, "provider").starts_with("ok"), "{}", run.stdout);
    assert!(
        line(&run, "provider").contains("2 model(s) listed"),
        "{}",
        run.stdout
    );
    assert!(line(&run, "model").starts_with("ok"), "{}", run.stdout);
    assert!(line(&run, "api key").starts_with("ok"), "{}", run.stdout);
    assert!(line(&run, "mcp").starts_with("ok"), "{}", run.stdout);
    // The sandbox and the keychain depend on the machine; neither fails this project.
    assert!(!line(&run, "sandbox").starts_with("fail"), "{}", run.stdout);
    assert!(
        !line(&run, "keychain").starts_with("fail"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("workspace: "),
        "sandbox details: {}",
        run.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_model_is_a_warning() {
    let server = server_with_models(&["llama3"]).await;
    let env = Env::new(&server, json!({}));
    let run = env.run(&["doctor"]).await;
    run.expect_code(0);
    let model = line(&run, "model");
    assert!(model.starts_with("warn"), "{model}");
    assert!(
        model.contains("'fake-model' is not among the server's models (llama3)"),
        "{model}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_pieces_fail_with_a_fix() {
    let server = server_with_models(&[]).await;
    let env = Env::new(
        &server,
        json!({"mcpServers": {"tools": {"command": "/nonexistent/paddock-test-mcp"}}}),
    );
    let url = format!("http://127.0.0.1:{}/v1", closed_port());
    let run = env.run(&["doctor", "--base-url", &url]).await;
    run.expect_code(1);
    let provider = line(&run, "provider");
    assert!(provider.starts_with("fail"), "{provider}");
    assert!(provider.contains("Check the base URL"), "{provider}");
    let mcp = line(&run, "mcp server 'tools'");
    assert!(mcp.starts_with("fail"), "{mcp}");
    assert!(mcp.contains("mcpServers"), "{mcp}");

    env.write_settings("{\"version\": 1,,}");
    let broken = env.run(&["doctor"]).await;
    broken.expect_code(1);
    let settings = line(&broken, "settings");
    assert!(settings.starts_with("fail"), "{settings}");
    assert!(settings.contains("line 1"), "{settings}");
    assert!(settings.contains("Fix the file"), "{settings}");

    let anthropic = env.run(&["doctor", "--provider", "anthropic"]).await;
    anthropic.expect_code(1);
    assert!(
        line(&anthropic, "api key").starts_with("fail"),
        "{}",
        anthropic.stdout
    );
    assert!(
        line(&anthropic, "api key").contains("ANTHROPIC_API_KEY"),
        "{}",
        anthropic.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probe_tells_native_text_and_no_tool_calls_apart() {
    use paddock_fake_model::Reply;
    for (reply, level, mode) in [
        (Reply::tool_call("get_time", json!({})), "ok", "native"),
        (
            Reply::text("<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>"),
            "warn",
            "read from the text",
        ),
        (Reply::text("It is probably noon."), "warn", "none"),
    ] {
        let server = server_with_models(&["fake-model"]).await;
        server.push(reply);
        let env = Env::new(&server, json!({}));
        let run = env.run(&["doctor", "--probe"]).await;
        let probe = line(&run, "tool calls");
        assert!(probe.starts_with(level), "{mode}: {}", run.stdout);
        assert!(probe.contains(mode), "{mode}: {}", run.stdout);
        assert!(run.stdout.contains("context window:"), "{}", run.stdout);
        // The request offered exactly one harmless tool.
        let body = server.model_requests().pop().unwrap().body;
        assert_eq!(body["tools"].as_array().map(Vec::len), Some(1), "{body}");
        if mode == "none" {
            assert!(run.stdout.contains("advice:"), "{}", run.stdout);
        }
    }
}
