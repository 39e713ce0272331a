//! Context windows: each source a server can be asked, the table, the default, hostile
//! and slow answers, caching, where the key goes, and context overflows.

use std::time::{Duration, Instant};

use paddock_fake_model::{
    FakeServer, LmStudioModel, OllamaModel, ProbeOverride, Probes, Reply, Script,
};
use paddock_protocol::ErrorKind;
use paddock_providers::{
    ContextWindow, DEFAULT_WINDOW, PROBE_TIMEOUT, Provider, ProviderKind, WindowSource,
};
use serde_json::{Map, Value, json};

use crate::support::*;

const COMPAT: ProviderKind = ProviderKind::OpenAiCompatible;

fn server_says(tokens: u32) -> ContextWindow {
    ContextWindow {
        tokens,
        source: WindowSource::Server,
    }
}

fn table_says(tokens: u32) -> ContextWindow {
    ContextWindow {
        tokens,
        source: WindowSource::Table,
    }
}

fn default_window() -> ContextWindow {
    ContextWindow {
        tokens: DEFAULT_WINDOW,
        source: WindowSource::Default,
    }
}

fn fields(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

fn ollama(models: &[(&str, &str, u64, Option<u64>)]) -> Probes {
    Probes {
        ollama: models
            .iter()
            .map(|(name, arch, trained, num_ctx)| {
                let m = OllamaModel {
                    architecture: (*arch).to_owned(),
                    context_length: *trained,
                    num_ctx: *num_ctx,
                    remote_host: None,
                    vision: false,
                };
                ((*name).to_owned(), m)
            })
            .collect(),
        ..Probes::default()
    }
}

/// Paths the server saw, in order.
fn paths(server: &FakeServer) -> Vec<String> {
    server.requests().into_iter().map(|r| r.path).collect()
}

#[tokio::test]
async fn ollama_num_ctx_is_the_window_not_the_trained_length() {
    let server = FakeServer::start().await.unwrap();
    server.set_probes(ollama(&[
        ("qwen3:8b", "qwen3", 40_960, Some(16_384)),
        ("llama3.1", "llama", 131_072, None),
    ]));
    let p = provider(COMPAT, &server);
    assert_eq!(p.context_window("qwen3:8b").await, server_says(16_384));
    // Without num_ctx Ollama runs its default, not the 131072 the model was trained for.
    assert_eq!(p.context_window("llama3.1").await, server_says(4096));
    let show = &server.requests()[1];
    assert_eq!(
        (show.method.as_str(), show.path.as_str()),
        ("POST", "/api/show")
    );
    assert_eq!(show.body, json!({"model": "qwen3:8b"}));
    assert_eq!(
        paths(&server),
        [
            "/props?model=qwen3%3A8b",
            "/api/show",
            "/props?model=llama3.1",
            "/api/show"
        ]
    );
}

#[tokio::test]
async fn llama_cpp_props_give_the_slot_size() {
    let server = FakeServer::start().await.unwrap();
    server.set_probes(Probes {
        llama_cpp_n_ctx: Some(32_768),
        ..Probes::default()
    });
    let p = provider(COMPAT, &server);
    assert_eq!(p.context_window("any.gguf").await, server_says(32_768));
    assert_eq!(
        paths(&server),
        ["/props?model=any.gguf"],
        "nothing else asked"
    );
}

#[tokio::test]
async fn vllm_lists_max_model_len() {
    let server = FakeServer::start().await.unwrap();
    server.load(Script {
        models: vec!["Qwen/Qwen3-8B".into()],
        probes: Probes {
            model_fields: [(
                "Qwen/Qwen3-8B".to_owned(),
                fields(json!({"max_model_len": 32_768})),
            )]
            .into(),
            ..Probes::default()
        },
        ..Script::default()
    });
    let p = provider(COMPAT, &server);
    assert_eq!(p.context_window("Qwen/Qwen3-8B").await, server_says(32_768));
    assert_eq!(
        paths(&server),
        [
            "/props?model=Qwen%2FQwen3-8B",
            "/api/show",
            "/api/v0/models",
            "/v1/models"
        ]
    );
    // The settings dropdown shows it too.
    let listed = p.list_models().await.unwrap();
    assert_eq!(listed[0].context_window, Some(32_768));
}

#[tokio::test]
async fn lm_studio_gives_the_loaded_length_only() {
    let server = FakeServer::start().await.unwrap();
    server.set_probes(Probes {
        lm_studio: vec![
            LmStudioModel {
                id: "qwen3-8b".into(),
                max_context_length: 131_072,
                loaded_context_length: Some(8192),
                vlm: false,
            },
            LmStudioModel {
                id: "gemma-3-4b".into(),
                max_context_length: 131_072,
                loaded_context_length: None,
                vlm: false,
            },
        ],
        ..Probes::default()
    });
    let p = provider(COMPAT, &server);
    assert_eq!(p.context_window("qwen3-8b").await, server_says(8192));
    // Not loaded: the length it will be loaded with is unknown, the maximum is not it.
    assert_eq!(p.context_window("gemma-3-4b").await, default_window());
}

#[tokio::test]
async fn openrouter_lists_context_length() {
    let server = FakeServer::start().await.unwrap();
    let id = "anthropic/claude-sonnet-4";
    server.load(Script {
        models: vec![id.into(), "openai/gpt-4o".into()],
        probes: Probes {
            model_fields: [(
                id.to_owned(),
                fields(json!({"context_length": 1_000_000, "top_provider": {"context_length": 200_000, "max_completion_tokens": 64_000}})),
            )]
            .into(),
            ..Probes::default()
        },
        ..Script::default()
    });
    let p = provider(COMPAT, &server);
    assert_eq!(p.context_window(id).await, server_says(200_000));
    // Listed without a window: the table knows the hosted model behind the name.
    assert_eq!(p.context_window("openai/gpt-4o").await, table_says(128_000));
}

#[tokio::test]
async fn nothing_known_is_the_small_default() {
    let server = FakeServer::start().await.unwrap();
    let p = provider(COMPAT, &server);
    assert_eq!(p.context_window("mystery-7b").await, default_window());
    assert_eq!(server.requests().len(), 4, "every source asked once");
    assert_eq!(p.context_window("  ").await, default_window());
    assert_eq!(server.requests().len(), 4, "a blank name asks nobody");
}

#[tokio::test]
async fn hosted_models_in_the_table_cost_no_request() {
    let server = FakeServer::start().await.unwrap();
    let openai = provider(ProviderKind::OpenAi, &server);
    assert_eq!(openai.context_window("gpt-4o").await, table_says(128_000));
    assert_eq!(
        openai.context_window("gpt-4.1-mini").await,
        table_says(1_047_576)
    );
    let anthropic = provider(ProviderKind::Anthropic, &server);
    assert_eq!(
        anthropic.context_window("claude-sonnet-4-5-20250929").await,
        table_says(200_000)
    );
    assert_eq!(server.requests().len(), 0);
    // Not in the table: the model list is asked (OpenAI's says nothing), then the default.
    assert_eq!(openai.context_window("gpt-9").await, default_window());
    assert_eq!(paths(&server), ["/v1/models"]);
}

#[tokio::test]
async fn newer_claude_models_are_asked_of_the_models_api() {
    let server = FakeServer::start().await.unwrap();
    server.load(Script {
        models: vec!["claude-opus-4-8".into(), "claude-next".into()],
        probes: Probes {
            model_fields: [(
                "claude-opus-4-8".to_owned(),
                fields(json!({"max_input_tokens": 1_000_000, "max_tokens": 128_000})),
            )]
            .into(),
            ..Probes::default()
        },
        ..Script::default()
    });
    let p = provider(ProviderKind::Anthropic, &server);
    assert_eq!(
        p.context_window("claude-opus-4-8").await,
        server_says(1_000_000)
    );
    let listing = &server.requests()[0];
    assert_eq!(listing.path, "/v1/models?limit=1000");
    assert_eq!(listing.header("anthropic-version"), Some("2023-06-01"));
    // Listed without a window: the floor of the family.
    assert_eq!(p.context_window("claude-next").await, table_says(200_000));
    let listed = p.list_models().await.unwrap();
    assert_eq!(listed[0].context_window, Some(1_000_000));
    assert_eq!(listed[1].context_window, None);
}

#[tokio::test]
async fn answers_are_cached_per_model_and_shared_by_clones() {
    let server = FakeServer::start().await.unwrap();
    server.set_probes(ollama(&[("a", "llama", 8192, Some(2048))]));
    let p = provider(COMPAT, &server);
    assert_eq!(p.context_window("a").await, server_says(2048));
    let asked = server.requests().len();
    assert_eq!(p.context_window("a").await, server_says(2048));
    assert_eq!(p.clone().context_window("a").await, server_says(2048));
    assert_eq!(server.requests().len(), asked, "no request the second time");
    // Another model is asked; another provider has its own cache.
    assert_eq!(p.context_window("b").await, default_window());
    assert!(server.requests().len() > asked);
    let before = server.requests().len();
    let other = provider(COMPAT, &server);
    assert_eq!(other.context_window("a").await, server_says(2048));
    assert!(server.requests().len() > before);
}

#[tokio::test]
async fn a_hanging_probe_is_given_up_and_the_next_source_used() {
    let server = FakeServer::start().await.unwrap();
    let mut probes = ollama(&[("qwen3:8b", "qwen3", 40_960, Some(8192))]);
    probes.llama_cpp_n_ctx = Some(999);
    probes
        .overrides
        .insert("/props".into(), ProbeOverride::Hang);
    server.set_probes(probes);
    let p = provider(COMPAT, &server);
    let started = Instant::now();
    assert_eq!(p.context_window("qwen3:8b").await, server_says(8192));
    let took = started.elapsed();
    assert!(took >= PROBE_TIMEOUT, "{took:?}");
    assert!(
        took < PROBE_TIMEOUT + Duration::from_millis(1500),
        "{took:?}"
    );
}

#[tokio::test]
async fn a_hanging_listing_falls_back_to_the_table() {
    let server = FakeServer::start().await.unwrap();
    server.set_probes(Probes {
        overrides: [("/v1/models".to_owned(), ProbeOverride::Hang)].into(),
        ..Probes::default()
    });
    let p = provider(ProviderKind::OpenAi, &server);
    let started = Instant::now();
    assert_eq!(p.context_window("gpt-5.5").await, table_says(272_000));
    assert!(started.elapsed() < PROBE_TIMEOUT + Duration::from_millis(1500));
}

#[tokio::test]
async fn huge_answers_are_not_read_to_the_end() {
    let server = FakeServer::start().await.unwrap();
    let mut probes = ollama(&[("m", "llama", 32_768, Some(8192))]);
    probes.overrides.insert(
        "/props".into(),
        ProbeOverride::Huge {
            bytes: 1 << 30, // a gigabyte, never sent in full
        },
    );
    server.set_probes(probes);
    let p = provider(COMPAT, &server);
    let started = Instant::now();
    assert_eq!(p.context_window("m").await, server_says(8192), "not 999");
    assert!(started.elapsed() < PROBE_TIMEOUT, "{:?}", started.elapsed());
}

#[tokio::test]
async fn malformed_and_absurd_answers_are_ignored() {
    let server = FakeServer::start().await.unwrap();
    let raw = |body: &str| ProbeOverride::Raw {
        status: 200,
        body: body.into(),
    };
    server.load(Script {
        models: vec!["m".into()],
        probes: Probes {
            overrides: [
                ("/props".to_owned(), raw("{\"n_ctx\": 4096")),
                ("/api/show".to_owned(), raw(r#"{"model_info": {"general.architecture": "x", "x.context_length": 0}, "parameters": "num_ctx 99999999999"}"#)),
                ("/api/v0/models".to_owned(), raw(r#"{"data": [{"id": "m", "loaded_context_length": -4}]}"#)),
            ]
            .into(),
            model_fields: [("m".to_owned(), fields(json!({"max_model_len": 4_000_000_000u64})))].into(),
            ..Probes::default()
        },
        ..Script::default()
    });
    let p = provider(COMPAT, &server);
    // Ollama's shape with absurd numbers: its default, not 99999999999.
    assert_eq!(p.context_window("m").await, server_says(4096));
    server.load(Script {
        models: vec!["n".into()],
        probes: Probes {
            overrides: [
                ("/props".to_owned(), raw("[1, 2, 3]")),
                ("/api/show".to_owned(), raw("null")),
                ("/api/v0/models".to_owned(), raw("{\"data\": 7}")),
            ]
            .into(),
            model_fields: [("n".to_owned(), fields(json!({"max_model_len": 0})))].into(),
            ..Probes::default()
        },
        ..Script::default()
    });
    assert_eq!(p.context_window("n").await, default_window());
}

#[tokio::test]
async fn probes_never_follow_a_redirect_elsewhere() {
    let elsewhere = FakeServer::start().await.unwrap();
    elsewhere.set_probes(Probes {
        llama_cpp_n_ctx: Some(1_000_000),
        ..Probes::default()
    });
    let server = FakeServer::start().await.unwrap();
    server.set_probes(Probes {
        overrides: [(
            "/props".to_owned(),
            ProbeOverride::Redirect {
                status: 307,
                location: format!("{}/props", elsewhere.url()),
            },
        )]
        .into(),
        ..Probes::default()
    });
    let p = provider(COMPAT, &server);
    assert_eq!(p.context_window("m").await, default_window());
    assert!(elsewhere.requests().is_empty(), "the key went nowhere else");
}

#[tokio::test]
async fn probes_carry_the_key_only_to_the_providers_own_origin() {
    // Every probe URL is built from the base URL, so each goes to its origin, which
    // receives the key with every chat request anyway: the probes carry it as
    // list_models does, and servers that require it (vLLM --api-key, LM Studio with
    // auth) can answer. No probe goes anywhere else (see the redirect test).
    let server = FakeServer::start().await.unwrap();
    server.load(Script {
        api_key: Some(KEY.into()),
        models: vec!["m".into()],
        probes: Probes {
            model_fields: [("m".to_owned(), fields(json!({"max_model_len": 65_536})))].into(),
            ..Probes::default()
        },
        ..Script::default()
    });
    let p = provider(COMPAT, &server);
    assert_eq!(p.context_window("m").await, server_says(65_536));
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let origin = server.url();
    for r in &requests {
        assert_eq!(
            r.header("authorization"),
            Some(format!("Bearer {KEY}").as_str()),
            "{}",
            r.path
        );
        assert_eq!(
            r.header("host"),
            origin.strip_prefix("http://"),
            "{}",
            r.path
        );
    }
}

#[tokio::test]
async fn context_overflow_is_classified_in_both_wire_formats() {
    for kind in [ProviderKind::Anthropic, ProviderKind::OpenAi] {
        // The window mode: a request over the window is refused.
        let server = FakeServer::start().await.unwrap();
        server.push(Reply::text("never played"));
        server.set_context_window(Some(10));
        let err = ask(&provider(kind, &server), "hi").await.error.unwrap();
        assert_eq!(
            err.kind,
            ErrorKind::ContextTooLong,
            "{kind}: {}",
            err.message
        );
        assert!(err.message.contains("10"), "{kind}: {}", err.message);
        assert_eq!(server.requests().len(), 1, "{kind}: not retried");
        assert_eq!(server.pending(), 1);

        // The one-shot fault.
        let server = FakeServer::start().await.unwrap();
        server.push_all([Reply::context_overflow(), Reply::text("fits now")]);
        let p = provider(kind, &server);
        let err = ask(&p, "hi").await.error.unwrap();
        assert_eq!(
            err.kind,
            ErrorKind::ContextTooLong,
            "{kind}: {}",
            err.message
        );
        assert_eq!(ask(&p, "hi").await.text(), "fits now");
    }
}

#[tokio::test]
async fn requests_within_the_window_are_served_and_their_size_recorded() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([Reply::text("one"), Reply::text("two")]);
    server.set_context_window(Some(100_000));
    let p = provider(ProviderKind::OpenAi, &server);
    assert_eq!(ask(&p, "hi").await.text(), "one");
    assert_eq!(ask(&p, &"a long prompt ".repeat(100)).await.text(), "two");
    let sizes: Vec<u32> = server
        .requests()
        .iter()
        .map(|r| r.estimated_tokens.unwrap())
        .collect();
    assert!(sizes[1] > sizes[0] + 300, "{sizes:?}");
    assert!(sizes.iter().all(|&s| s <= 100_000), "none went over");
}

#[tokio::test]
async fn provider_without_a_reachable_server_still_answers() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let p = Provider::new(
        paddock_providers::ProviderConfig::new(COMPAT)
            .with_base_url(format!("http://127.0.0.1:{port}"))
            .with_retry(fast_retry()),
    )
    .unwrap();
    let started = Instant::now();
    assert_eq!(p.context_window("qwen3:8b").await, default_window());
    assert_eq!(p.context_window("gpt-4o").await, table_says(128_000));
    assert!(started.elapsed() < PROBE_TIMEOUT * 2, "refusals are quick");
}
