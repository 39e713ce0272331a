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

    /// One POST of a JSON body asking for an event stream (or, `streamed` false, one JSON
    /// document); a non-success status becomes a classified failure.
    pub async fn post_once(
        &self,
        url: &str,
        body: &[u8],
        streamed: bool,
    ) -> Result<Response, Failure> {
        let accept = if streamed {
            "text/event-stream"
        } else {
            "application/json"
        };
        let request = self
            .client
            .post(url)
            .headers(self.headers.clone())
            .header("content-type", "application/json")
            .header("accept", accept)
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
    /// is final. Tells the log and the host's hook (the user hears of it from the stream's
    /// retry warning, so the log's line is info, not a second warning).
    pub fn retry_delay(&self, attempt: u32, failure: &Failure) -> Option<Duration> {
        let delay = retry::delay_before_retry(&self.retry, attempt, failure)?;
        tracing::info!(
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

    /// One request to a side endpoint that may tell something about a model (a context
    /// window): never retried, given up after `timeout` (connecting and reading included),
    /// the body read only up to `cap` bytes. A POST when `json` is given, else a GET.
    ///
    /// The key goes only to the origin of the base URL, which every request gets anyway;
    /// for any other origin the secret headers are left out. Redirects are not followed
    /// (see [`Transport::new`]).
    pub async fn probe(
        &self,
        url: &Url,
        json: Option<Vec<u8>>,
        timeout: Duration,
        cap: usize,
    ) -> Probed {
        let headers: HeaderMap = if same_origin(url, &self.base) {
            self.headers.clone()
        } else {
            self.headers
                .iter()
                .filter(|(_, v)| !v.is_sensitive())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
        let request = match json {
            Some(body) => self
                .client
                .post(url.clone())
                .header("content-type", "application/json")
                .body(body),
            None => self.client.get(url.clone()),
        }
        .headers(headers)
        .header("accept", "application/json");
        let exchange = async {
            let response = request.send().await.ok()?;
            let status = response.status();
            let body = read_capped(response, cap).await;
            Some((status, body))
        };
        match tokio::time::timeout(timeout, exchange).await {
            Err(_) | Ok(None) => Probed::Unsure,
            Ok(Some((status, body))) => classify(status, body),
        }
    }
}

/// What a probe learned from one endpoint.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Probed {
    /// A JSON document.
    Json(Value),
    /// The server answered and will answer the same next time: no such endpoint, a
    /// redirect, a body too large or not JSON.
    Absent,
    /// Nothing definite: timed out, unreachable, overloaded, refused the key.
    Unsure,
}

/// A response body read with a size limit.
#[derive(Debug, PartialEq)]
enum Capped {
    Whole(Vec<u8>),
    TooLarge,
    Broken,
}

/// Reads at most `cap` bytes; a larger body is abandoned as soon as that is known.
async fn read_capped(mut response: Response, cap: usize) -> Capped {
    let declared = response.content_length().unwrap_or(0);
    if !usize::try_from(declared).is_ok_and(|n| n <= cap) {
        return Capped::TooLarge;
    }
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Err(_) => return Capped::Broken,
            Ok(None) => return Capped::Whole(body),
            // Dropping the response closes the connection: the rest is never read.
            Ok(Some(chunk)) if body.len() + chunk.len() > cap => return Capped::TooLarge,
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
        }
    }
}

fn classify(status: reqwest::StatusCode, body: Capped) -> Probed {
    if status.is_success() {
        return match body {
            Capped::Broken => Probed::Unsure,
            Capped::TooLarge => Probed::Absent,
            Capped::Whole(bytes) => {
                serde_json::from_slice(&bytes).map_or(Probed::Absent, Probed::Json)
            }
        };
    }
    match status.as_u16() {
        // Auth, rate limits and server trouble may pass; everything else is an answer.
        401 | 403 | 408 | 429 | 500 | 502..=599 => Probed::Unsure,
        _ => Probed::Absent,
    }
}

/// Same scheme, host and port.
fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str().map(str::to_ascii_lowercase) == b.host_str().map(str::to_ascii_lowercase)
        && a.port_or_known_default() == b.port_or_known_default()
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

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::StatusCode;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn origins_compare_scheme_host_and_port() {
        let base = url("http://LocalHost:11434/v1");
        assert!(same_origin(&url("http://localhost:11434/api/show"), &base));
        assert!(!same_origin(&url("http://localhost:11435/api/show"), &base));
        assert!(!same_origin(
            &url("https://localhost:11434/api/show"),
            &base
        ));
        assert!(!same_origin(&url("http://127.0.0.1:11434/api/show"), &base));
        assert!(same_origin(
            &url("https://api.openai.com:443/v1/models"),
            &url("https://api.openai.com/v1")
        ));
    }

    #[test]
    fn probe_answers_are_classified() {
        let ok = |body: Capped| classify(StatusCode::OK, body);
        assert_eq!(
            ok(Capped::Whole(br#"{"n_ctx": 1}"#.to_vec())),
            Probed::Json(serde_json::json!({"n_ctx": 1}))
        );
        assert_eq!(ok(Capped::Whole(b"<html>".to_vec())), Probed::Absent);
        assert_eq!(ok(Capped::TooLarge), Probed::Absent);
        assert_eq!(ok(Capped::Broken), Probed::Unsure);
        for code in [400, 404, 405, 301, 307, 501] {
            let status = StatusCode::from_u16(code).unwrap();
            assert_eq!(classify(status, Capped::Broken), Probed::Absent, "{code}");
        }
        for code in [401, 403, 408, 429, 500, 503] {
            let status = StatusCode::from_u16(code).unwrap();
            assert_eq!(classify(status, Capped::Broken), Probed::Unsure, "{code}");
        }
    }
}
