//! Whether a model reads images, as its server says: llama.cpp's modalities, Ollama's
//! capabilities, LM Studio's model type; hosted models from the table without a request.

use std::collections::BTreeMap;

use paddock_fake_model::{FakeServer, LmStudioModel, OllamaModel, ProbeOverride, Probes};
use paddock_providers::{Provider, ProviderKind};

use crate::support::*;

const COMPAT: ProviderKind = ProviderKind::OpenAiCompatible;

fn ollama_model(vision: bool) -> OllamaModel {
    OllamaModel {
        architecture: "gemma3".into(),
        context_length: 131_072,
        num_ctx: None,
        remote_host: None,
        vision,
    }
}

fn paths(server: &FakeServer) -> Vec<String> {
    server.requests().into_iter().map(|r| r.path).collect()
}

#[tokio::test]
async fn llama_cpp_says_whether_a_projector_is_loaded() {
    for vision in [true, false] {
        let server = FakeServer::start().await.unwrap();
        server.set_probes(Probes {
            llama_cpp_n_ctx: Some(8192),
            llama_cpp_vision: vision,
            ..Probes::default()
        });
        let p: Provider = provider(COMPAT, &server);
        assert_eq!(p.takes_images("gemma.gguf").await, Some(vision));
        assert_eq!(paths(&server), ["/props?model=gemma.gguf"]);
    }
}

#[tokio::test]
async fn ollama_lists_vision_among_capabilities_and_the_answer_is_kept() {
    let server = FakeServer::start().await.unwrap();
    server.set_probes(Probes {
        ollama: BTreeMap::from([
            ("gemma3:4b".to_owned(), ollama_model(true)),
            ("qwen3:8b".to_owned(), ollama_model(false)),
        ]),
        ..Probes::default()
    });
    let p = provider(COMPAT, &server);
    assert_eq!(p.takes_images("gemma3:4b").await, Some(true));
    assert_eq!(p.takes_images("qwen3:8b").await, Some(false));
    let asked = server.requests().len();
    assert_eq!(p.takes_images("gemma3:4b").await, Some(true));
    assert_eq!(
        server.requests().len(),
        asked,
        "remembered, not asked again"
    );
}

#[tokio::test]
async fn lm_studio_types_vision_models_vlm() {
    let server = FakeServer::start().await.unwrap();
    let model = |id: &str, vlm| LmStudioModel {
        id: id.into(),
        max_context_length: 32_768,
        loaded_context_length: Some(4096),
        vlm,
    };
    server.set_probes(Probes {
        lm_studio: vec![model("qwen2-vl-7b", true), model("llama-3.1-8b", false)],
        ..Probes::default()
    });
    let p = provider(COMPAT, &server);
    assert_eq!(p.takes_images("qwen2-vl-7b").await, Some(true));
    assert_eq!(p.takes_images("llama-3.1-8b").await, Some(false));
}

#[tokio::test]
async fn a_server_that_cannot_say_leaves_it_unknown() {
    let server = FakeServer::start().await.unwrap();
    let p = provider(COMPAT, &server);
    assert_eq!(p.takes_images("some-model").await, None);
    // A hostile answer is not believed either.
    let server = FakeServer::start().await.unwrap();
    server.set_probes(Probes {
        overrides: [(
            "/props".to_owned(),
            ProbeOverride::Raw {
                status: 200,
                body: r#"{"modalities": {"vision": "absolutely"}}"#.into(),
            },
        )]
        .into(),
        ..Probes::default()
    });
    let p = provider(COMPAT, &server);
    assert_eq!(p.takes_images("some-model").await, None);
}

#[tokio::test]
async fn hosted_models_are_answered_from_the_table_without_a_request() {
    let server = FakeServer::start().await.unwrap();
    let p = provider(ProviderKind::OpenAi, &server);
    assert_eq!(p.takes_images("gpt-4o").await, Some(true));
    assert_eq!(p.takes_images("gpt-3.5-turbo").await, Some(false));
    let p = provider(ProviderKind::Anthropic, &server);
    assert_eq!(p.takes_images("claude-sonnet-4-5").await, Some(true));
    assert!(server.requests().is_empty());
}
