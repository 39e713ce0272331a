//! The fake server as another process sees it: the binary, a script file, the control API.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use paddock_fake_model::{
    FakeServer, Fault, LmStudioModel, OllamaModel, Outcome, ProbeOverride, Probes, RecordedRequest,
    Reply, estimate_tokens,
};
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

async fn get(url: &str) -> (u16, Value) {
    let resp = client().get(url).send().await.unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn side_endpoints_answer_only_when_configured() {
    let server = FakeServer::start().await.unwrap();
    let url = server.url();
    assert_eq!(get(&format!("{url}/props")).await.0, 404);
    assert_eq!(get(&format!("{url}/api/v0/models")).await.0, 404);
    let resp = client()
        .post(format!("{url}/api/show"))
        .json(&json!({"model": "qwen3:8b"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 404);

    server.set_probes(Probes {
        llama_cpp_n_ctx: Some(16384),
        ollama: [(
            "qwen3:8b".to_owned(),
            OllamaModel {
                architecture: "qwen3".into(),
                context_length: 40960,
                num_ctx: Some(8192),
                remote_host: None,
                vision: false,
            },
        )]
        .into(),
        lm_studio: vec![LmStudioModel {
            id: "m".into(),
            max_context_length: 32768,
            loaded_context_length: Some(4096),
            vlm: false,
        }],
        model_fields: [(
            "fake-model".to_owned(),
            json!({"max_model_len": 32768}).as_object().unwrap().clone(),
        )]
        .into(),
        ..Probes::default()
    });
    let (status, props) = get(&format!("{url}/props?model=x")).await;
    assert_eq!(status, 200);
    assert_eq!(props["default_generation_settings"]["n_ctx"], 16384);
    assert_eq!(props["n_ctx"], 16384);

    let show: Value = client()
        .post(format!("{url}/api/show"))
        .json(&json!({"model": "qwen3:8b"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(show["model_info"]["general.architecture"], "qwen3");
    assert_eq!(show["model_info"]["qwen3.context_length"], 40960);
    assert!(
        show["parameters"]
            .as_str()
            .unwrap()
            .starts_with("num_ctx                        8192\n"),
        "{show}"
    );
    let unknown = client()
        .post(format!("{url}/api/show"))
        .json(&json!({"model": "llama9"}))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status().as_u16(), 404);
    let err: Value = unknown.json().await.unwrap();
    assert_eq!(err["error"], "model 'llama9' not found");

    let (_, lms) = get(&format!("{url}/api/v0/models")).await;
    assert_eq!(lms["data"][0]["state"], "loaded");
    assert_eq!(lms["data"][0]["loaded_context_length"], 4096);
    let (_, models) = get(&format!("{url}/v1/models")).await;
    assert_eq!(models["data"][0]["id"], "fake-model");
    assert_eq!(models["data"][0]["max_model_len"], 32768);

    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert!(paths.contains(&"/props?model=x".to_owned()), "{paths:?}");
    assert!(paths.contains(&"/api/show".to_owned()), "{paths:?}");
}

#[tokio::test]
async fn side_endpoints_can_misbehave() {
    let server = FakeServer::start().await.unwrap();
    server.set_probes(Probes {
        llama_cpp_n_ctx: Some(4096),
        overrides: [
            ("/props".to_owned(), ProbeOverride::Hang),
            (
                "/api/v0/models".to_owned(),
                ProbeOverride::Raw {
                    status: 200,
                    body: "{\"data\": [".into(),
                },
            ),
            (
                "/v1/models".to_owned(),
                ProbeOverride::Huge { bytes: 3 << 20 },
            ),
        ]
        .into(),
        ..Probes::default()
    });
    let hung = tokio::time::timeout(
        std::time::Duration::from_millis(300),
        client().get(format!("{}/props", server.url())).send(),
    )
    .await;
    assert!(hung.is_err(), "a hanging endpoint never answers");
    let raw = client()
        .get(format!("{}/api/v0/models", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(raw.text().await.unwrap(), "{\"data\": [");
    let huge = client()
        .get(format!("{}/v1/models", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(huge.content_length(), None, "no length announced");
    let text = huge.text().await.unwrap();
    assert!(text.len() > 3 << 20);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["n_ctx"], 999, "valid JSON, just huge");
}

async fn chat(url: &str, anthropic: bool, content: &str) -> (u16, Value) {
    let mut req = if anthropic {
        client().post(format!("{url}/v1/messages"))
    } else {
        client().post(format!("{url}/v1/chat/completions"))
    };
    if anthropic {
        req = req.header("anthropic-version", "2023-06-01");
    }
    let resp = req
        .json(&json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": content}]}))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[tokio::test]
async fn the_context_window_mode_refuses_requests_over_the_window() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([Reply::text("small enough"), Reply::text("also fine")]);
    server.set_context_window(Some(100));

    let (status, _) = chat(&server.url(), false, "hi").await;
    assert_eq!(status, 200);
    let (status, err) = chat(&server.url(), false, &"x".repeat(1000)).await;
    assert_eq!(status, 400);
    assert_eq!(err["error"]["code"], "context_length_exceeded");
    assert_eq!(err["error"]["type"], "invalid_request_error");
    let (status, err) = chat(&server.url(), true, &"x".repeat(1000)).await;
    assert_eq!(status, 400);
    assert_eq!(err["type"], "error");
    assert_eq!(err["error"]["type"], "invalid_request_error");
    let message = err["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("prompt is too long: ") && message.ends_with(" tokens > 100 maximum"),
        "{message}"
    );
    assert_eq!(server.pending(), 1, "refused requests consume no reply");

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for r in &requests {
        let chars = serde_json::to_string(&r.body).unwrap().chars().count();
        assert_eq!(
            r.estimated_tokens,
            Some(estimate_tokens(chars)),
            "{}",
            r.path
        );
    }
    assert!(requests[0].estimated_tokens.unwrap() <= 100);
    assert!(requests[1].estimated_tokens.unwrap() > 100);
    assert_eq!(
        requests.iter().map(|r| r.status).collect::<Vec<_>>(),
        [200, 400, 400]
    );
    server.set_context_window(None);
    assert_eq!(chat(&server.url(), false, &"x".repeat(1000)).await.0, 200);
}

#[tokio::test]
async fn a_context_overflow_fault_fires_once() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::context_overflow(),
        Reply::fault(Fault::ContextOverflow { limit: Some(8192) }),
        Reply::text("after"),
    ]);
    let (status, err) = chat(&server.url(), true, "hello").await;
    assert_eq!(status, 400);
    let estimate = server.requests()[0].estimated_tokens.unwrap();
    assert_eq!(
        err["error"]["message"],
        format!(
            "prompt is too long: {estimate} tokens > {} maximum",
            estimate - 1
        )
    );
    let (status, err) = chat(&server.url(), false, "hello").await;
    assert_eq!(status, 400);
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("This model's maximum context length is 8192 tokens."),
        "{err}"
    );
    assert_eq!(chat(&server.url(), false, "hello").await.0, 200);
}

#[tokio::test]
async fn the_control_api_sets_the_context_window() {
    let server = spawn(&[]);
    let set = post(
        &format!("{}/_fake/context_window", server.url),
        json!({"tokens": 10}),
    )
    .await;
    assert_eq!(set, json!({"context_window": 10}));
    post(
        &format!("{}/_fake/replies", server.url),
        json!({"text": "never"}),
    )
    .await;
    let (status, err) = chat(&server.url, false, &"y".repeat(100)).await;
    assert_eq!(status, 400);
    assert_eq!(err["error"]["code"], "context_length_exceeded");
    let script = post(
        &format!("{}/_fake/script", server.url),
        json!({"context_window": 5000, "probes": {"llama_cpp_n_ctx": 2048}, "replies": [{"text": "ok"}]}),
    )
    .await;
    assert_eq!(script, json!({"pending": 1}));
    assert_eq!(get(&format!("{}/props", server.url)).await.1["n_ctx"], 2048);
    assert_eq!(chat(&server.url, false, &"y".repeat(100)).await.0, 200);
}

#[tokio::test]
async fn unstreamed_requests_get_one_json_document() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::text("Checking.")
            .with_thinking("plan", "")
            .with_tool_call(Some("call_9"), "grep", json!({"pattern": "x"}))
            .with_usage(11, 4),
        Reply::text("no stream field"),
        Reply::text("cut").with_fault(Fault::Drop { after: 0 }),
    ]);
    let url = format!("{}/v1/chat/completions", server.url());
    let resp = client()
        .post(&url)
        .json(&json!({"model": "m", "stream": false, "messages": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["content-type"], "application/json");
    let doc: Value = resp.json().await.unwrap();
    assert_eq!(doc["object"], "chat.completion");
    let choice = &doc["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["content"], "Checking.");
    assert_eq!(choice["message"]["reasoning_content"], "plan");
    assert_eq!(
        choice["message"]["tool_calls"][0],
        json!({"id": "call_9", "type": "function",
               "function": {"name": "grep", "arguments": "{\"pattern\":\"x\"}"}})
    );
    assert_eq!(doc["usage"]["prompt_tokens"], 11);
    // OpenAI's default is not to stream.
    let doc: Value = post(&url, json!({"model": "m", "messages": []})).await;
    assert_eq!(doc["choices"][0]["message"]["content"], "no stream field");
    let cut = client()
        .post(&url)
        .json(&json!({"model": "m", "stream": false, "messages": []}))
        .send()
        .await
        .unwrap()
        .text()
        .await;
    assert!(cut.is_err(), "a drop fault cuts the document: {cut:?}");
    let outcome = server.wait_until_closed(2, Duration::from_secs(5)).await;
    assert_eq!(outcome, Some(Outcome::ServerDropped));
    assert_eq!(server.requests()[0].outcome, Outcome::Completed);
}

#[tokio::test]
async fn the_streaming_refusal_mode_refuses_only_streams_with_tools() {
    let server = spawn(&[]);
    let url = format!("{}/v1/chat/completions", server.url);
    let tools = json!([{"type": "function", "function": {"name": "grep", "parameters": {}}}]);
    let on = post(
        &format!("{}/_fake/refuse_streaming_tools", server.url),
        json!({}),
    )
    .await;
    assert_eq!(on["refuse_streaming_tools"]["status"], 500);
    post(
        &format!("{}/_fake/replies", server.url),
        json!([{"text": "plain"}, {"text": "whole"}, {"text": "streamed again"}]),
    )
    .await;
    let with_tools =
        |stream: bool| json!({"model": "m", "stream": stream, "messages": [], "tools": tools});

    let (status, body) = sse_lines(&url, with_tools(true), &[]).await;
    assert_eq!(status, 500);
    let refusal: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        refusal["error"]["message"],
        "Automatic streaming tool choice is not supported"
    );
    let (status, body) = sse_lines(
        &url,
        json!({"model": "m", "stream": true, "messages": []}),
        &[],
    )
    .await;
    assert_eq!(status, 200);
    assert!(body.contains(r#""content":"plain""#), "{body}");
    let doc = post(&url, with_tools(false)).await;
    assert_eq!(doc["choices"][0]["message"]["content"], "whole");

    post(
        &format!("{}/_fake/refuse_streaming_tools", server.url),
        Value::Null,
    )
    .await;
    let (status, body) = sse_lines(&url, with_tools(true), &[]).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""content":"streamed""#), "{body}");
    let (_, requests) = get(&format!("{}/_fake/requests", server.url)).await;
    let statuses: Vec<u64> = requests
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_u64().unwrap())
        .collect();
    assert_eq!(statuses, vec![500, 200, 200, 200]);
}

#[tokio::test]
async fn the_side_reply_answers_requests_without_tools_and_leaves_the_queue() {
    let server = spawn(&[]);
    post(
        &format!("{}/_fake/replies", server.url),
        json!([{"text": "convo"}]),
    )
    .await;
    let set = post(
        &format!("{}/_fake/side_reply", server.url),
        json!({"text": "A title"}),
    )
    .await;
    assert_eq!(set["side_reply"]["text"], "A title");
    let tools = json!([{"name": "Write", "input_schema": {"type": "object"}}]);
    let ask = |with_tools: bool| {
        let mut body = json!({"model": "m", "stream": true, "messages": []});
        if with_tools {
            body["tools"] = tools.clone();
        }
        body
    };
    let anthropic = [("anthropic-version", "2023-06-01")];
    let url = format!("{}/v1/messages", server.url);
    // Twice: the side reply is not used up.
    for _ in 0..2 {
        let (status, body) = sse_lines(&url, ask(false), &anthropic).await;
        assert_eq!(status, 200);
        assert!(body.contains(r#""text":"A title""#), "{body}");
    }
    let (_, body) = sse_lines(&url, ask(true), &anthropic).await;
    assert!(body.contains(r#""text":"convo""#), "{body}");
    // Ended: a request without tools takes from the queue again (now empty).
    post(&format!("{}/_fake/side_reply", server.url), json!(null)).await;
    let (status, body) = sse_lines(&url, ask(false), &anthropic).await;
    assert_eq!(status, 400, "{body}");
}
