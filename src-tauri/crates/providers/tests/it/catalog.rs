//! Model listing and "test connection" for the settings screen.

use paddock_fake_model::{FakeServer, Reply, Script};
use paddock_protocol::ErrorKind;
use paddock_providers::{ModelInfo, Provider, ProviderConfig, ProviderKind};

use crate::support::*;

fn models(names: &[&str]) -> Script {
    Script {
        models: names.iter().map(|s| s.to_string()).collect(),
        ..Script::default()
    }
}

#[tokio::test]
async fn anthropic_lists_models_with_display_names() {
    let server = FakeServer::start().await.unwrap();
    server.load(models(&["claude-b", "claude-a"]));
    let listed = provider(ProviderKind::Anthropic, &server)
        .list_models()
        .await
        .unwrap();
    assert_eq!(
        listed,
        vec![
            ModelInfo {
                id: "claude-b".into(),
                display_name: Some("Fake claude-b".into()),
                context_window: None,
            },
            ModelInfo {
                id: "claude-a".into(),
                display_name: Some("Fake claude-a".into()),
                context_window: None,
            },
        ]
    );
    let req = &server.requests()[0];
    assert_eq!(
        (req.method.as_str(), req.path.as_str()),
        ("GET", "/v1/models?limit=1000")
    );
    assert_eq!(req.header("x-api-key"), Some(KEY));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
}

#[tokio::test]
async fn openai_style_lists_are_sorted() {
    let server = FakeServer::start().await.unwrap();
    server.load(models(&["qwen3:8b", "llama3.2:3b"]));
    let p = Provider::new(
        ProviderConfig::new(ProviderKind::OpenAiCompatible)
            .with_base_url(format!("{}/v1/", server.url())),
    )
    .unwrap();
    let ids: Vec<String> = p
        .list_models()
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(ids, ["llama3.2:3b", "qwen3:8b"]);
    assert_eq!(server.requests()[0].path, "/v1/models");
}

#[tokio::test]
async fn test_connection_reports_whether_the_model_exists() {
    let server = FakeServer::start().await.unwrap();
    server.load(models(&["gpt-4o", "gpt-4o-mini"]));
    let p = provider(ProviderKind::OpenAi, &server);
    let report = p.test_connection(Some("gpt-4o-mini")).await.unwrap();
    assert_eq!(report.models.len(), 2);
    assert_eq!(report.model_available, Some(true));
    let report = p.test_connection(Some("gpt-5-turbo")).await.unwrap();
    assert_eq!(report.model_available, Some(false));
    assert_eq!(p.test_connection(None).await.unwrap().model_available, None);
}

#[tokio::test]
async fn test_connection_surfaces_a_rejected_key() {
    for kind in [ProviderKind::Anthropic, ProviderKind::OpenAi] {
        let server = FakeServer::start().await.unwrap();
        server.load(Script {
            api_key: Some("the-right-key".into()),
            ..Script::default()
        });
        let err = provider(kind, &server)
            .test_connection(None)
            .await
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Auth, "{kind}");
        assert!(
            err.message.contains("rejected the API key"),
            "{}",
            err.message
        );
        assert!(err.message.contains(kind.key_env_var()), "{}", err.message);
        assert_eq!(server.requests().len(), 1, "auth failures are not retried");
    }
}

#[tokio::test]
async fn test_connection_with_the_right_key_succeeds() {
    let server = FakeServer::start().await.unwrap();
    server.load(Script {
        api_key: Some(KEY.into()),
        replies: vec![Reply::text("hi")],
        ..Script::default()
    });
    let p = provider(ProviderKind::Anthropic, &server);
    assert_eq!(p.test_connection(None).await.unwrap().models.len(), 1);
    assert_eq!(ask(&p, "hi").await.text(), "hi");
}

#[tokio::test]
async fn a_wrong_base_url_says_so() {
    let server = FakeServer::start().await.unwrap();
    let cfg =
        config(ProviderKind::OpenAi, &server).with_base_url(format!("{}/nowhere", server.url()));
    let err = Provider::new(cfg)
        .unwrap()
        .test_connection(None)
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidRequest);
    assert!(
        err.message.contains("check the base URL"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn test_connection_to_nothing_is_a_network_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let p = Provider::new(
        ProviderConfig::new(ProviderKind::OpenAiCompatible)
            .with_base_url(format!("http://127.0.0.1:{port}"))
            .with_retry(fast_retry()),
    )
    .unwrap();
    let err = p.test_connection(None).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Network);
    assert!(
        err.message.contains(&format!("127.0.0.1:{port}")),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn an_openai_compatible_provider_needs_a_base_url() {
    let err = Provider::new(ProviderConfig::new(ProviderKind::OpenAiCompatible)).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidRequest);
    assert!(
        err.message.contains("http://localhost:11434/v1"),
        "{}",
        err.message
    );
}
