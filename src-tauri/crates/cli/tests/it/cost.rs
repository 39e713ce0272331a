//! What a run costs (issue 36, part 5): scripted usage in both wire formats against the
//! price table, the `pricing` setting, local and unknown models; in `--json`, on stderr, in
//! the session list, `sessions show` and exports.

use paddock_fake_model::{FakeServer, Reply};
use paddock_protocol::{AgentEvent, Pricing};
use serde_json::{Value, json};

use crate::common::Env;

/// One Anthropic reply, as the Messages API streams it, with prompt-cache counts: 1,000 plain
/// input tokens, 2,000 written to the cache, 10,000 read from it, 500 out.
const ANTHROPIC_SSE: &str = concat!(
    "event: message_start\n",
    r#"data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1000,"cache_creation_input_tokens":2000,"cache_read_input_tokens":10000,"output_tokens":1}}}"#,
    "\n\nevent: content_block_start\n",
    r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    "\n\nevent: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Done."}}"#,
    "\n\nevent: content_block_stop\n",
    r#"data: {"type":"content_block_stop","index":0}"#,
    "\n\nevent: message_delta\n",
    r#"data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":500}}"#,
    "\n\nevent: message_stop\n",
    r#"data: {"type":"message_stop"}"#,
    "\n\n"
);

/// One Chat Completions reply with its usage chunk: 20,000 prompt tokens of which 10,000
/// cached, 1,000 completion tokens.
fn openai_sse(model: &str) -> String {
    let chunk = |choices: Value, usage: Value| {
        let mut c = json!({"id": "c1", "object": "chat.completion.chunk", "created": 1,
            "model": model, "choices": choices});
        if !usage.is_null() {
            c["usage"] = usage;
        }
        format!("data: {c}\n\n")
    };
    [
        chunk(
            json!([{"index": 0, "delta": {"role": "assistant", "content": "Done."}, "finish_reason": null}]),
            Value::Null,
        ),
        chunk(
            json!([{"index": 0, "delta": {}, "finish_reason": "stop"}]),
            Value::Null,
        ),
        chunk(
            json!([]),
            json!({"prompt_tokens": 20000, "completion_tokens": 1000, "total_tokens": 21000,
                "prompt_tokens_details": {"cached_tokens": 10000}}),
        ),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat()
}

fn usd(v: &Value) -> f64 {
    v["usd"].as_f64().unwrap_or(f64::NAN)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_anthropic_run_is_priced_at_the_tables_cache_rates_everywhere_it_is_shown() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::raw_sse(ANTHROPIC_SSE));
    let mut env = Env::new(
        &server,
        json!({"provider": "anthropic", "model": "claude-sonnet-4-5"}),
    );
    env.set_env("ANTHROPIC_API_KEY", "sk-ant-test-key-1234567890");
    std::fs::create_dir_all(env.workspace()).unwrap();

    let run = env.run(&["exec", "--json", "Finish it"]).await;
    run.expect_code(0);
    let out = run.json();
    // $3 in, $3.75 cache write, $0.30 cache read, $15 out per million.
    let want = 1000.0 * 3.0 / 1e6 + 2000.0 * 3.75 / 1e6 + 10000.0 * 0.30 / 1e6 + 500.0 * 15.0 / 1e6;
    assert!(close(usd(&out.exit["cost"]), want), "{}", out.exit);
    assert_eq!(out.exit["cost"]["complete"], json!(true));
    assert_eq!(out.exit["usage"]["cache_write_tokens"], json!(2000));
    let pricing = out.events.iter().find_map(|e| match e {
        AgentEvent::RunStarted { pricing, .. } => pricing.clone(),
        _ => None,
    });
    match pricing {
        Some(Pricing::Priced { price, source }) => {
            assert_eq!(price.cache_write, 3.75);
            assert!(source.contains("Anthropic's pricing page"), "{source}");
        }
        other => panic!("not priced: {other:?}"),
    }
    assert!(out.events.iter().any(|e| matches!(
        e,
        AgentEvent::Usage { total_cost: Some(c), .. } if close(c.usd, want)
    )));

    // The session list, `sessions show` and the exports say it too.
    let list = env.run(&["sessions", "list"]).await;
    assert!(list.stdout.contains("$0.02"), "{}", list.stdout);
    let listed = env.run(&["sessions", "list", "--json"]).await;
    let sessions: Value = serde_json::from_str(listed.stdout.trim()).unwrap();
    assert!(close(usd(&sessions[0]["cost"]), want), "{sessions}");
    let id = run.session_id();
    let shown = env.run(&["sessions", "show", &id]).await;
    assert!(
        shown
            .stdout
            .contains("end_turn after 1 turn(s), 13000 tokens in, 500 out, $0.02"),
        "{}",
        shown.stdout
    );
    assert!(shown.stdout.contains("\nCost: $0.02\n"), "{}", shown.stdout);
    let exported = env.run(&["sessions", "show", "--json", &id]).await;
    let whole: Value = serde_json::from_str(exported.stdout.trim()).unwrap();
    assert!(close(usd(&whole["cost"]), want), "{}", whole["cost"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_openai_run_prices_cached_input_at_the_cached_rate_and_says_it_on_stderr() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::raw_sse(openai_sse("gpt-4o-mini")));
    let mut env = Env::new(
        &server,
        json!({"provider": "openai", "model": "gpt-4o-mini"}),
    );
    env.set_env("OPENAI_API_KEY", "sk-test-key-1234567890");
    std::fs::create_dir_all(env.workspace()).unwrap();

    let run = env.run(&["exec", "--json", "Finish it"]).await;
    run.expect_code(0);
    // $0.15 in, $0.075 cached, $0.60 out per million.
    let want = 10000.0 * 0.15 / 1e6 + 10000.0 * 0.075 / 1e6 + 1000.0 * 0.60 / 1e6;
    let out = run.json();
    assert!(close(usd(&out.exit["cost"]), want), "{}", out.exit);

    server.push(Reply::raw_sse(openai_sse("gpt-4o-mini")));
    let text = env.run(&["exec", "Finish it"]).await;
    text.expect_code(0);
    assert!(
        text.stderr
            .contains("paddock: 20000 tokens in, 1000 out; cost $0.0028")
            || text
                .stderr
                .contains("paddock: 20000 tokens in, 1000 out; cost $0.0029"),
        "{}",
        text.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_models_cost_nothing_unknown_ones_are_never_guessed_and_the_setting_prices_them() {
    // The default test project: an OpenAI-compatible server on 127.0.0.1.
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("Done.").with_usage(100, 10));
    let env = Env::new(&server, json!({}));
    std::fs::create_dir_all(env.workspace()).unwrap();
    let local = env.run(&["exec", "hi"]).await;
    local.expect_code(0);
    assert!(
        local.stderr.contains("cost $0 (local model)"),
        "{}",
        local.stderr
    );

    // OpenAI's API, a model the table does not list.
    server.push(Reply::raw_sse(openai_sse("gpt-9-preview")));
    let mut env = Env::new(
        &server,
        json!({"provider": "openai", "model": "gpt-9-preview"}),
    );
    env.set_env("OPENAI_API_KEY", "sk-test-key-1234567890");
    std::fs::create_dir_all(env.workspace()).unwrap();
    let unknown = env.run(&["exec", "--json", "hi"]).await;
    unknown.expect_code(0);
    let out = unknown.json();
    assert_eq!(
        out.exit["cost"],
        json!({"usd": 0.0, "complete": false, "local": false})
    );
    server.push(Reply::raw_sse(openai_sse("gpt-9-preview")));
    let said = env.run(&["exec", "hi"]).await;
    assert!(
        said.stderr.contains("cost price unknown"),
        "{}",
        said.stderr
    );

    // The user's price for it (a trusted setting).
    let mut priced = Env::new(
        &server,
        json!({"provider": "openai", "model": "gpt-9-preview",
            "pricing": {"gpt-9-preview": {"input": 1.0, "output": 2.0, "cacheRead": 0.5}}}),
    );
    priced.set_env("OPENAI_API_KEY", "sk-test-key-1234567890");
    std::fs::create_dir_all(priced.workspace()).unwrap();
    server.push(Reply::raw_sse(openai_sse("gpt-9-preview")));
    let run = priced.run(&["exec", "--json", "hi"]).await;
    run.expect_code(0);
    let want = 10000.0 * 1.0 / 1e6 + 10000.0 * 0.5 / 1e6 + 1000.0 * 2.0 / 1e6;
    let out = run.json();
    assert!(close(usd(&out.exit["cost"]), want), "{}", out.exit);
    assert!(out.events.iter().any(|e| matches!(
        e,
        AgentEvent::RunStarted { pricing: Some(Pricing::Priced { source, .. }), .. }
            if source == "the project's pricing setting"
    )));
}
