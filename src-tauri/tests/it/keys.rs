use std::sync::Arc;

use paddock_desktop::keys;
use paddock_fake_model::{FakeServer, Script};
use paddock_host::KeyStore;
use paddock_protocol::{AppErrorCode, ProviderKind};

use crate::common::MemoryKeys;

#[tokio::test]
async fn keys_are_stored_and_never_returned() {
    let store: Arc<dyn KeyStore> = Arc::new(MemoryKeys::default());
    let status = keys::status(store.clone(), ProviderKind::Anthropic)
        .await
        .unwrap();
    assert!(!status.stored);
    let status = keys::set(
        store.clone(),
        ProviderKind::Anthropic,
        "  sk-ant-1  ".into(),
    )
    .await
    .unwrap();
    assert!(status.stored);
    assert!(!serde_json::to_string(&status).unwrap().contains("sk-ant-1"));
    assert_eq!(
        store.get(ProviderKind::Anthropic).unwrap().as_deref(),
        Some("sk-ant-1"),
        "stored trimmed"
    );
    let status = keys::delete(store.clone(), ProviderKind::Anthropic)
        .await
        .unwrap();
    assert!(!status.stored);
    let empty = keys::set(store.clone(), ProviderKind::OpenAi, " ".into()).await;
    assert_eq!(empty.unwrap_err().code, AppErrorCode::Invalid);
    let newline = keys::set(store, ProviderKind::OpenAi, "a\nb".into()).await;
    assert_eq!(newline.unwrap_err().code, AppErrorCode::Invalid);
}

#[tokio::test]
async fn no_keychain_is_an_error_that_says_how_to_fix_it() {
    let store: Arc<dyn KeyStore> = Arc::new(MemoryKeys {
        broken: true,
        ..MemoryKeys::default()
    });
    let status = keys::status(store.clone(), ProviderKind::OpenAi)
        .await
        .unwrap();
    assert!(!status.stored);
    let why = status.keychain_error.unwrap();
    assert!(
        why.contains("keyring daemon") && why.contains("plain text"),
        "{why}"
    );
    let err = keys::set(store, ProviderKind::OpenAi, "sk-x".into())
        .await
        .unwrap_err();
    assert_eq!(err.code, AppErrorCode::Keychain);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_and_connection_tests_reach_the_server() {
    let fake = FakeServer::start().await.unwrap();
    fake.load(Script {
        models: vec!["qwen3:8b".into(), "llama3.2:3b".into()],
        ..Script::default()
    });
    let store: Arc<dyn KeyStore> = Arc::new(MemoryKeys::default());
    let url = Some(format!("{}/v1", fake.url()));
    let models = keys::list_models(store.clone(), ProviderKind::OpenAiCompatible, url.clone())
        .await
        .unwrap();
    let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["llama3.2:3b", "qwen3:8b"], "sorted for the dropdown");
    let report = keys::test_connection(
        store.clone(),
        ProviderKind::OpenAiCompatible,
        url,
        Some("gpt-9".into()),
    )
    .await
    .unwrap();
    assert_eq!(report.model_available, Some(false));

    // Anthropic without a key: a provider error naming the fix, no request sent.
    let before = fake.requests().len();
    let err = keys::list_models(store, ProviderKind::Anthropic, Some(fake.url()))
        .await
        .unwrap_err();
    assert_eq!(err.code, AppErrorCode::Provider);
    assert!(err.message.contains("API key"), "{}", err.message);
    assert_eq!(fake.requests().len(), before);
}
