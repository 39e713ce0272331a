//! The HTTP client a provider shares between calls: headers, timeouts, retries.

use std::time::Duration;

use paddock_core::ModelError;
use paddock_protocol::ErrorKind;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Response, Url};
use serde_json::Value;

use crate::config::{ProviderConfig, RetryHook, RetryNotice, RetryPolicy};
use crate::errors::ErrorContext;
use crate::retry::{self, Failure};

pub(crate) struct Transport {
    client: reqwest::Client,
    headers: HeaderMap,
    pub ctx: ErrorContext,
    pub base: Url,
    pub retry: RetryPolicy,
    pub idle: Duration,
    on_retry: Option<RetryHook>,
}

/// reqwest's rustls without a built-in provider uses the process default: ring.
fn ensure_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race to another thread installing one is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

/// A header whose value is a secret: hidden from reqwest's own debug output.
pub(crate) fn secret_header(
    name: &'static str,
    value: &str,
) -> Result<(HeaderName, HeaderValue), ModelError> {
    let mut v = HeaderValue::from_str(value).map_err(|_| {
        ModelError::new(
            ErrorKind::Auth,
            "the API key contains characters that cannot be sent in a header (a stray newline \
             or space in the middle?)",
        )
    })?;
    v.set_sensitive(true);
    Ok((HeaderName::from_static(name), v))
}

impl Transport {
    pub fn new(config: &ProviderConfig, headers: HeaderMap) -> Result<Self, ModelError> {
        let base = config.resolved_base_url()?;
        ensure_crypto_provider();
        let mut builder = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .user_agent(concat!("paddock/", env!("CARGO_PKG_VERSION")))
            .pool_idle_timeout(Duration::from_secs(60))
            // A redirect would resend the key (x-api-key survives reqwest's cross-host
            // stripping) and the body to another host: a 3xx is an error instead.
            .redirect(reqwest::redirect::Policy::none());
        if is_loopback(&base) {
            // A local model server is never reached through a corporate proxy.
            builder = builder.no_proxy();
        }
        let client = builder.build().map_err(|e| {
            ModelError::new(
                ErrorKind::Other,
                format!("could not set up the HTTP client: {e}"),
            )
        })?;
        Ok(Self {
            client,
            headers,
            ctx: ErrorContext {
                kind: config.kind,
                base_url: base.as_str().trim_end_matches('/').to_owned(),
                key: config.api_key.clone(),
            },
            base,
            retry: config.retry,
            idle: config.idle_timeout,
            on_retry: config.on_retry.clone(),
        })
    }

    /// One POST of a JSON body; a non-success status becomes a classified failure.
    pub async fn post_once(&self, url: &str, body: &[u8]) -> Result<Response, Failure> {
        let request = self
            .client
            .post(url)
            .headers(self.headers.clone())
            .header("content-type", "application/json")
            .header("accept", "text/event-stream")
            .body(body.to_vec());
        self.finish(request.send(), "the response to start").await
    }

    async fn get_once(&self, url: &str) -> Result<Value, Failure> {
        let request = self.client.get(url).headers(self.headers.clone());
        let response = self.finish(request.send(), "the model list").await?;
        let text = self.read_text(response).await?;
        serde_json::from_str(&text).map_err(|e| self.ctx.invalid(format!("bad JSON ({e})")))
    }

    /// GET a JSON document, retrying like a model call.
    pub async fn get_json(&self, url: &str) -> Result<Value, ModelError> {
        let mut attempt = 1;
        loop {
            match self.get_once(url).await {
                Ok(v) => return Ok(v),
                Err(f) => match self.retry_delay(attempt, &f) {
                    Some(delay) => {
                        tokio::time::sleep(delay).await;
                        attempt += 1;
                    }
                    None => return Err(final_error(f, attempt)),
                },
            }
        }
    }

    async fn finish(
        &self,
        send: impl Future<Output = reqwest::Result<Response>>,
        waiting_for: &str,
    ) -> Result<Response, Failure> {
        let response = match tokio::time::timeout(self.idle, send).await {
            Err(_) => return Err(self.ctx.idle_timeout(self.idle, waiting_for)),
            Ok(Err(e)) => return Err(self.ctx.transport_failure(&e, false)),
            Ok(Ok(r)) => r,
        };
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let headers = response.headers().clone();
        // The body only explains the status; a failure to read it must not hide the status.
        let body = self.read_text(response).await.unwrap_or_default();
        Err(self.ctx.status_failure(status, &headers, &body))
    }

    pub async fn read_text(&self, response: Response) -> Result<String, Failure> {
        match tokio::time::timeout(self.idle, response.text()).await {
            Err(_) => Err(self.ctx.idle_timeout(self.idle, "the response body")),
            Ok(Err(e)) => Err(self.ctx.transport_failure(&e, true)),
            Ok(Ok(t)) => Ok(t),
        }
    }

    /// How long to wait before the next attempt when `failure` deserves one; `None` when it
    /// is final. Tells the log and the host's hook.
    pub fn retry_delay(&self, attempt: u32, failure: &Failure) -> Option<Duration> {
        let delay = retry::delay_before_retry(&self.retry, attempt, failure)?;
        tracing::warn!(
            attempt,
            max_attempts = self.retry.max_attempts,
            delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            error = %failure.error.message,
            "model call failed, retrying"
        );
        if let Some(hook) = &self.on_retry {
            hook(&RetryNotice {
                attempt,
                max_attempts: self.retry.max_attempts,
                delay,
                error: failure.error.clone(),
            });
        }
        Some(delay)
    }

    pub fn max_attempts(&self) -> u32 {
        self.retry.max_attempts
    }
}

/// The error to surface once retrying is over, saying how hard we tried.
pub(crate) fn final_error(failure: Failure, attempts: u32) -> ModelError {
    let mut error = failure.error;
    if attempts > 1 {
        error.message = format!("{} (gave up after {attempts} attempts)", error.message);
    }
    error
}

fn is_loopback(url: &Url) -> bool {
    url.host_str().is_some_and(|h| {
        h.eq_ignore_ascii_case("localhost")
            || h.trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    })
}
