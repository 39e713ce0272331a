//! The fake server as another process sees it: the binary, a script file, the control API.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use paddock_fake_model::{FakeServer, RecordedRequest, Reply};
use serde_json::{Value, json};

/// A plain HTTP client. The workspace build gives reqwest rustls without a provider (for
/// the providers' TLS), so one is installed first even though these requests are plain HTTP.
fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

struct Running {
    child: Child,
    url: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn(args: &[&str]) -> Running {
    let mut child = Command::new(env!("CARGO_BIN_EXE_paddock-fake-model"))
        .args(args)
        .arg("--stdin")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    Running {
        child,
        url: line.trim().to_owned(),
    }
}

async fn post(url: &str, body: Value) -> Value {
    let client = client();
    let resp = client.post(url).json(&body).send().await.unwrap();
    resp.json().await.unwrap()
}

async fn sse_lines(url: &str, body: Value, headers: &[(&str, &str)]) -> (u16, String) {
    let mut req = client().post(url).json(&body);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req.send().await.unwrap();
    (resp.status().as_u16(), resp.text().await.unwrap())
}

#[tokio::test]
async fn the_binary_plays_a_script_file_and_reports_requests() {
    let dir = std::env::temp_dir().join(format!("fake-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        json!({"models": ["m1"], "replies": [{"text": "from the file", "usage": {"input_tokens": 3, "output_tokens": 2}}]}).to_string(),
    )
    .unwrap();
    let port_file = dir.join("port");
    let server = spawn(&[
        "--script",
        script.to_str().unwrap(),
        "--port-file",
        port_file.to_str().unwrap(),
    ]);
    assert!(
        server.url.starts_with("http://127.0.0.1:"),
        "{}",
        server.url
    );
    let port = std::fs::read_to_string(&port_file).unwrap();
    assert!(server.url.ends_with(&format!(":{port}")));

    let (status, body) = sse_lines(
        &format!("{}/v1/chat/completions", server.url),
        json!({"model": "m1", "stream": true, "messages": [], "stream_options": {"include_usage": true}}),
        &[],
    )
    .await;
    assert_eq!(status, 200);
    assert!(body.contains(r#""content":"from the"#), "{body}");
    assert!(body.contains(r#""prompt_tokens":3"#), "{body}");
    assert!(body.ends_with("data: [DONE]\n\n"), "{body}");

    let requests: Vec<RecordedRequest> = serde_json::from_value(
        client()
            .get(format!("{}/_fake/requests", server.url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].body["model"], "m1");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn the_control_api_scripts_a_running_process() {
    let server = spawn(&[]);
    let pending = post(
        &format!("{}/_fake/replies", server.url),
        json!([{"text": "one"}, {"fault": {"kind": "status", "status": 429, "retry_after": "7"}}]),
    )
    .await;
    assert_eq!(pending, json!({"pending": 2}));
    let (status, body) = sse_lines(
        &format!("{}/v1/messages", server.url),
        json!({"model": "claude", "stream": true, "messages": []}),
        &[("anthropic-version", "2023-06-01")],
    )
    .await;
    assert_eq!(status, 200);
    assert!(body.starts_with("event: message_start\n"), "{body}");
    assert!(body.contains(r#""text":"one""#), "{body}");
    assert!(
        body.ends_with("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"),
        "{body}"
    );

    let resp = client()
        .post(format!("{}/v1/messages", server.url))
        .json(&json!({"model": "claude"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 429);
    assert_eq!(resp.headers()["retry-after"], "7");
    let err: Value = resp.json().await.unwrap();
    assert_eq!(err["error"]["type"], "rate_limit_error");

    let bad = post(
        &format!("{}/_fake/replies", server.url),
        json!({"txt": "typo"}),
    )
    .await;
    assert!(bad["error"].as_str().unwrap().contains("txt"), "{bad}");
    assert_eq!(
        post(&format!("{}/_fake/reset", server.url), json!({})).await,
        json!({"ok": true})
    );
    let health: Value = client()
        .get(format!("{}/_fake/health", server.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health, json!({"ok": true, "pending": 0}));
}

#[tokio::test]
async fn an_empty_queue_answers_a_clear_error() {
    let server = FakeServer::start().await.unwrap();
    let (status, body) = sse_lines(
        &format!("{}/v1/chat/completions", server.url()),
        json!({"model": "x"}),
        &[],
    )
    .await;
    assert_eq!(status, 400);
    assert!(body.contains("no scripted reply left"), "{body}");
    assert_eq!(server.requests()[0].status, 400);
}

#[tokio::test]
async fn a_drop_fault_breaks_the_chunked_body() {
    let server = FakeServer::start().await.unwrap();
    server.push(
        Reply::text("abcdefghijklmnop")
            .with_chunk_chars(2)
            .with_fault(paddock_fake_model::Fault::Drop { after: 3 }),
    );
    let resp = client()
        .post(format!("{}/v1/chat/completions", server.url()))
        .json(&json!({"model": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let err = resp.text().await.unwrap_err();
    assert!(err.is_body() || err.is_decode(), "{err:?}");
    assert_eq!(
        server.requests()[0].outcome,
        paddock_fake_model::Outcome::ServerDropped
    );
}
