//! API keys and provider checks for the settings screen. Keys go into the OS keychain and
//! never come back out: the UI only learns whether one is stored.

use std::sync::Arc;

use paddock_host::{Connection, KeyStore};
use paddock_protocol::{ConnectionReport, KeyStatus, ModelInfo, ProviderKind, ToolProbeReport};

use crate::error::blocking;
use crate::error::{AppResult, ToAppError, invalid};

/// Whether a key is stored (or why the keychain cannot say), and whether the environment
/// variable that would be used instead is set.
pub async fn status(keys: Arc<dyn KeyStore>, provider: ProviderKind) -> AppResult<KeyStatus> {
    // Keychain calls block on D-Bus: off the async threads.
    let stored = blocking(move || Ok(keys.get(provider))).await?;
    let env_var = provider.key_env_var();
    let (stored, keychain_error) = match stored {
        Ok(key) => (key.is_some_and(|k| !k.is_empty()), None),
        Err(e) => (false, Some(e.to_string())),
    };
    Ok(KeyStatus {
        provider,
        stored,
        env_var: std::env::var_os(env_var)
            .filter(|v| !v.is_empty())
            .map(|_| env_var.to_owned()),
        keychain_error,
    })
}

/// Stores the key in the keychain. No keychain is an error that says how to get one; there is
/// no plain-text fallback.
pub async fn set(
    keys: Arc<dyn KeyStore>,
    provider: ProviderKind,
    key: String,
) -> AppResult<KeyStatus> {
    let key = key.trim().to_owned();
    if key.is_empty() {
        return Err(invalid("the API key is empty"));
    }
    if key.chars().any(char::is_control) {
        return Err(invalid("the API key contains control characters"));
    }
    let store = keys.clone();
    blocking(move || Ok(store.set(provider, &key)))
        .await?
        .map_err(ToAppError::app_error)?;
    tracing::info!(
        provider = provider.as_str(),
        "API key stored in the keychain"
    );
    status(keys, provider).await
}

pub async fn delete(keys: Arc<dyn KeyStore>, provider: ProviderKind) -> AppResult<KeyStatus> {
    let store = keys.clone();
    blocking(move || Ok(store.delete(provider)))
        .await?
        .map_err(ToAppError::app_error)?;
    tracing::info!(
        provider = provider.as_str(),
        "API key removed from the keychain"
    );
    status(keys, provider).await
}

pub async fn list_models(
    keys: Arc<dyn KeyStore>,
    kind: ProviderKind,
    base_url: Option<String>,
) -> AppResult<Vec<ModelInfo>> {
    let c = Connection::with_stored_key(keys, kind, base_url.as_deref())
        .await
        .map_err(ToAppError::app_error)?;
    c.list_models().await.map_err(ToAppError::app_error)
}

/// "Test tool calling": how the model answers a request offering one harmless tool.
pub async fn probe_tools(
    keys: Arc<dyn KeyStore>,
    kind: ProviderKind,
    base_url: Option<String>,
    model: String,
) -> AppResult<ToolProbeReport> {
    let c = Connection::with_stored_key(keys, kind, base_url.as_deref())
        .await
        .map_err(ToAppError::app_error)?;
    c.probe_tools(&model).await.map_err(ToAppError::app_error)
}

pub async fn test_connection(
    keys: Arc<dyn KeyStore>,
    kind: ProviderKind,
    base_url: Option<String>,
    model: Option<String>,
) -> AppResult<ConnectionReport> {
    let c = Connection::with_stored_key(keys, kind, base_url.as_deref())
        .await
        .map_err(ToAppError::app_error)?;
    c.test(model.as_deref())
        .await
        .map_err(ToAppError::app_error)
}
