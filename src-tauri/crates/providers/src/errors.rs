//! Turns HTTP statuses, vendor error bodies and transport failures into classified
//! [`ModelError`]s with messages a user can act on. Keys are scrubbed from every message.

use std::error::Error as _;
use std::time::Duration;

use paddock_core::ModelError;
use paddock_protocol::ErrorKind;
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::config::ProviderKind;
use crate::key::ApiKey;
use crate::refusals::{refuses_streaming_tools, refuses_tools};
use crate::retry::{self, Failure};

/// Vendor text is cut to this many characters in messages.
const MAX_DETAIL: usize = 500;

/// Who we were talking to, for messages.
#[derive(Debug, Clone)]
pub(crate) struct ErrorContext {
    pub kind: ProviderKind,
    pub base_url: String,
    pub key: Option<ApiKey>,
}

impl ErrorContext {
    fn who(&self) -> String {
        match self.kind {
            ProviderKind::OpenAiCompatible => format!("the server at {}", self.base_url),
            kind => kind.label().to_owned(),
        }
    }

    fn error(&self, kind: ErrorKind, message: String) -> ModelError {
        let message = match &self.key {
            Some(key) => key.redact(&message),
            None => message,
        };
        ModelError::new(kind, message)
    }

    /// What to do when the conversation does not fit: a local server's window is often
    /// set far below what the model can hold, so it says how to raise it.
    pub fn context_hint(&self) -> &'static str {
        match self.kind {
            ProviderKind::OpenAiCompatible => {
                "the server's context may be set too small for it: restart llama-server with a \
                 larger -c (e.g. -c 16384), raise num_ctx for Ollama (OLLAMA_CONTEXT_LENGTH), \
                 or load the model with a longer context in LM Studio; or start a new session"
            }
            _ => "start a new session or shorten it",
        }
    }

    fn key_hint(&self) -> String {
        format!(
            "check the key in Settings or the {} environment variable",
            self.kind.key_env_var()
        )
    }

    /// A non-success HTTP status with its body.
    pub fn status_failure(&self, status: StatusCode, headers: &HeaderMap, body: &str) -> Failure {
        let code = status.as_u16();
        let (etype, detail) = vendor_error(body);
        let tools_refused = refuses_tools(&etype, &detail);
        let (kind, retryable, text) = self.classify(code, headers, &etype, &detail);
        let mut error = self.error(kind, text);
        if kind == ErrorKind::RateLimited || code == 503 || code == 529 {
            error.retry_after = retry::retry_after(headers);
        }
        Failure {
            error,
            retryable,
            stream_refused: refuses_streaming_tools(&etype, &detail),
            tools_refused,
        }
    }

    /// What a status and its body mean: the kind, whether a retry may help, the words.
    fn classify(
        &self,
        code: u16,
        headers: &HeaderMap,
        etype: &str,
        detail: &str,
    ) -> (ErrorKind, bool, String) {
        let who = self.who();
        let said = if detail.is_empty() {
            String::new()
        } else {
            format!(": {detail}")
        };
        if refuses_tools(etype, detail).is_some() {
            return (
                ErrorKind::InvalidRequest,
                false,
                format!("{who} refused the tools parameter (HTTP {code}){said}"),
            );
        }
        if let Some(auth) = self.auth_failure(code, &who, &said) {
            return auth;
        }
        match code {
            300..=399 => {
                let target = headers
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("an address it did not give");
                (
                    ErrorKind::InvalidRequest,
                    false,
                    format!(
                        "{who} redirected the request to {target} (HTTP {code}); Paddock does \
                         not follow redirects, which would carry the API key and the \
                         conversation elsewhere. If that address is right, set it as the base \
                         URL"
                    ),
                )
            }
            429 if is_quota(etype, detail) => (
                ErrorKind::RateLimited,
                false,
                format!(
                    "{who} says the account is out of quota (HTTP 429){said}; check the plan and billing"
                ),
            ),
            429 => (
                ErrorKind::RateLimited,
                true,
                format!("{who} is rate limiting requests (HTTP 429){said}"),
            ),
            413 => (
                ErrorKind::ContextTooLong,
                false,
                format!(
                    "the request is too large for {who} (HTTP 413){said}; start a new session or shorten the conversation"
                ),
            ),
            404 if is_unknown_model(etype, detail) => (
                ErrorKind::InvalidRequest,
                false,
                format!(
                    "{who} does not know this model (HTTP 404){said}; pick one from the model list in Settings"
                ),
            ),
            404 => (
                ErrorKind::InvalidRequest,
                false,
                format!(
                    "{who} has no such endpoint (HTTP 404){said}; check the base URL ({})",
                    self.base_url
                ),
            ),
            408 => (
                ErrorKind::Network,
                true,
                format!("{who} timed out waiting for the request (HTTP 408)"),
            ),
            _ if is_context_error(etype, detail) => (
                ErrorKind::ContextTooLong,
                false,
                format!(
                    "the conversation no longer fits the model's context window (HTTP {code}){said}; {}",
                    self.context_hint()
                ),
            ),
            500..=599 => (
                ErrorKind::Server,
                true,
                format!("{who} had a server error (HTTP {code}){said}"),
            ),
            _ => (
                ErrorKind::InvalidRequest,
                false,
                format!("{who} rejected the request (HTTP {code}){said}"),
            ),
        }
    }

    /// A 401 or 403: no key where one is needed, a key rejected, or access refused.
    fn auth_failure(&self, code: u16, who: &str, said: &str) -> Option<(ErrorKind, bool, String)> {
        Some(match code {
            401 if self.key.is_none() && self.kind.requires_key() => (
                ErrorKind::Auth,
                false,
                format!(
                    "{who} needs an API key and none was given: add one in Settings or set {}",
                    self.kind.key_env_var()
                ),
            ),
            // A local server that wants a key after all: no key was sent, so none was rejected.
            401 if self.key.is_none() => (
                ErrorKind::Auth,
                false,
                format!(
                    "{who} asks for an API key (HTTP 401){said} and none is set for it: add one \
                     in Settings or set {}",
                    self.kind.key_env_var()
                ),
            ),
            401 => (
                ErrorKind::Auth,
                false,
                format!(
                    "{who} rejected the API key (HTTP 401){said}; {}",
                    self.key_hint()
                ),
            ),
            403 => (
                ErrorKind::Auth,
                false,
                format!(
                    "{who} refused access (HTTP 403){said}; the key may not be allowed to use \
                     this model"
                ),
            ),
            _ => return None,
        })
    }

    /// An error the vendor reported inside a 200 stream (Anthropic `error` events, OpenAI
    /// `{"error": ...}` chunks).
    pub fn stream_error(&self, payload: &Value) -> Failure {
        let (etype, detail) = vendor_error_value(payload);
        let who = self.who();
        let t = etype.to_ascii_lowercase();
        let tools_refused = refuses_tools(&etype, &detail);
        let (kind, retryable) = if tools_refused.is_some() {
            (ErrorKind::InvalidRequest, false)
        } else if is_context_error(&etype, &detail) {
            (ErrorKind::ContextTooLong, false)
        } else if t.contains("overloaded") || t.contains("api_error") || t.contains("server") {
            (ErrorKind::Server, true)
        } else if t.contains("rate_limit") {
            (ErrorKind::RateLimited, true)
        } else if t.contains("authentication") || t.contains("permission") {
            (ErrorKind::Auth, false)
        } else if t.contains("invalid") || t.contains("not_found") || t.contains("bad_request") {
            (ErrorKind::InvalidRequest, false)
        } else {
            (ErrorKind::Server, true)
        };
        let label = if etype.is_empty() {
            "error".to_owned()
        } else {
            etype
        };
        let stream_refused = refuses_streaming_tools(&label, &detail);
        Failure {
            error: self.error(
                kind,
                format!(
                    "{who} reported {label} mid-response: {detail}{}",
                    if kind == ErrorKind::ContextTooLong {
                        format!("; {}", self.context_hint())
                    } else {
                        String::new()
                    }
                ),
            ),
            retryable,
            stream_refused,
            tools_refused,
        }
    }

    /// Could not reach the server, or the connection broke.
    pub fn transport_failure(&self, err: &reqwest::Error, mid_body: bool) -> Failure {
        let cause = root_cause(err);
        let who = self.who();
        let text = if err.is_timeout() {
            format!("the connection to {who} timed out ({cause})")
        } else if err.is_connect() {
            let hint = if self.kind == ProviderKind::OpenAiCompatible {
                "; is the server running and is the base URL right?"
            } else {
                "; check the network connection"
            };
            format!("could not connect to {who}: {cause}{hint}")
        } else if mid_body {
            format!("the connection to {who} dropped mid-response: {cause}")
        } else {
            format!("the request to {who} failed: {cause}")
        };
        Failure::retryable(self.error(ErrorKind::Network, text))
    }

    pub fn idle_timeout(&self, idle: Duration, waiting_for: &str) -> Failure {
        let waited = if idle < Duration::from_secs(1) {
            format!("{} ms", idle.as_millis())
        } else {
            format!("{} s", idle.as_secs())
        };
        Failure::retryable(self.error(
            ErrorKind::Network,
            format!(
                "{} sent nothing for {waited} while we waited for {waiting_for}; the server may \
                 be overloaded or the model still loading (the idle timeout is configurable)",
                self.who()
            ),
        ))
    }

    /// The stream ended before the vendor's end marker.
    pub fn truncated(&self) -> Failure {
        Failure::retryable(self.error(
            ErrorKind::Network,
            format!(
                "the connection to {} closed before the response was complete",
                self.who()
            ),
        ))
    }

    pub fn invalid(&self, what: impl std::fmt::Display) -> Failure {
        Failure::fatal(self.error(
            ErrorKind::InvalidResponse,
            format!(
                "{} sent a response that is not in the expected format: {what}",
                self.who()
            ),
        ))
    }
}

/// The deepest cause's text ("Connection refused (os error 111)").
fn root_cause(err: &reqwest::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        text = s.to_string();
        source = s.source();
    }
    text
}

/// (type or code, message) from any of the error bodies vendors and local servers send.
pub(crate) fn vendor_error(body: &str) -> (String, String) {
    match serde_json::from_str::<Value>(body) {
        Ok(v) => vendor_error_value(&v),
        Err(_) => (String::new(), clip(body.trim())),
    }
}

fn vendor_error_value(v: &Value) -> (String, String) {
    let str_at = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let inner = match v.get("error") {
        Some(Value::String(s)) => return (String::new(), clip(s)),
        Some(e @ Value::Object(_)) => e,
        _ => v,
    };
    let etype = str_at(inner, "type")
        .filter(|t| t != "error")
        .or_else(|| str_at(inner, "code"))
        .unwrap_or_default();
    let message = str_at(inner, "message")
        .or_else(|| str_at(inner, "detail"))
        .or_else(|| str_at(v, "message"))
        .or_else(|| str_at(v, "detail"))
        .unwrap_or_else(|| v.to_string());
    (etype, clip(&message))
}

fn clip(s: &str) -> String {
    match s.char_indices().nth(MAX_DETAIL) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

fn is_context_error(etype: &str, detail: &str) -> bool {
    let d = detail.to_ascii_lowercase();
    etype == "context_length_exceeded"
        || etype == "request_too_large"
        || [
            "context length",
            "context_length",
            "context window",
            "context size",
            "prompt is too long",
            "maximum context",
            "too many tokens",
            "input is too long",
        ]
        .iter()
        .any(|p| d.contains(p))
}

fn is_quota(etype: &str, detail: &str) -> bool {
    let d = detail.to_ascii_lowercase();
    etype == "insufficient_quota" || d.contains("quota") || d.contains("billing")
}

/// A 404 about the model rather than the URL: Ollama says "model 'x' not found", OpenAI
/// "The model `x` does not exist", Anthropic sends `not_found_error` with "model: x".
fn is_unknown_model(etype: &str, detail: &str) -> bool {
    let d = detail.to_ascii_lowercase();
    d.contains("model")
        && (etype.contains("not_found") || d.contains("not found") || d.contains("does not exist"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn ctx(kind: ProviderKind, key: Option<&str>) -> ErrorContext {
        ErrorContext {
            kind,
            base_url: "http://127.0.0.1:9/v1".into(),
            key: key.map(ApiKey::new),
        }
    }

    fn status(c: &ErrorContext, code: u16, body: &str) -> Failure {
        c.status_failure(StatusCode::from_u16(code).unwrap(), &HeaderMap::new(), body)
    }

    #[test]
    fn a_401_without_a_key_asks_for_one_instead_of_blaming_it() {
        let local = status(&ctx(ProviderKind::OpenAiCompatible, None), 401, "{}");
        assert_eq!(local.error.kind, ErrorKind::Auth);
        assert!(
            local
                .error
                .message
                .contains("asks for an API key (HTTP 401)")
                && local
                    .error
                    .message
                    .contains("PADDOCK_OPENAI_COMPAT_API_KEY")
                && !local.error.message.contains("rejected"),
            "{}",
            local.error.message
        );
        let keyed = status(
            &ctx(ProviderKind::OpenAiCompatible, Some("k-123456")),
            401,
            "{}",
        );
        assert!(
            keyed.error.message.contains("rejected the API key"),
            "{}",
            keyed.error.message
        );
    }

    #[test]
    fn statuses_are_classified() {
        let c = ctx(ProviderKind::OpenAi, Some("sk-abcdef"));
        let cases = [
            (
                401,
                r#"{"error":{"message":"Incorrect API key provided: sk-abcdef","type":"invalid_request_error"}}"#,
                ErrorKind::Auth,
                false,
            ),
            (403, "{}", ErrorKind::Auth, false),
            (
                429,
                r#"{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}"#,
                ErrorKind::RateLimited,
                true,
            ),
            (
                429,
                r#"{"error":{"message":"You exceeded your current quota","code":"insufficient_quota"}}"#,
                ErrorKind::RateLimited,
                false,
            ),
            (
                400,
                r#"{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}"#,
                ErrorKind::ContextTooLong,
                false,
            ),
            (
                400,
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
                ErrorKind::ContextTooLong,
                false,
            ),
            (
                400,
                r#"{"error":"the request exceeds the available context size"}"#,
                ErrorKind::ContextTooLong,
                false,
            ),
            (413, "too big", ErrorKind::ContextTooLong, false),
            (
                404,
                r#"{"error":"model 'llama9' not found, try pulling it first"}"#,
                ErrorKind::InvalidRequest,
                false,
            ),
            (404, "404 page not found", ErrorKind::InvalidRequest, false),
            (
                422,
                r#"{"detail":"bad field"}"#,
                ErrorKind::InvalidRequest,
                false,
            ),
            (500, "oops", ErrorKind::Server, true),
            (
                529,
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                ErrorKind::Server,
                true,
            ),
            (408, "", ErrorKind::Network, true),
        ];
        for (code, body, kind, retryable) in cases {
            let f = status(&c, code, body);
            assert_eq!(
                (f.error.kind, f.retryable),
                (kind, retryable),
                "{code} {body}"
            );
            assert!(
                !f.error.message.contains("sk-abcdef"),
                "{}",
                f.error.message
            );
            assert!(
                f.error.message.contains(&code.to_string()),
                "{}",
                f.error.message
            );
        }
    }

    #[test]
    fn messages_tell_the_user_what_to_do() {
        let f = status(&ctx(ProviderKind::Anthropic, None), 401, "{}");
        assert!(
            f.error.message.contains("ANTHROPIC_API_KEY"),
            "{}",
            f.error.message
        );
        let f = status(&ctx(ProviderKind::OpenAiCompatible, None), 404, "nope");
        assert!(
            f.error
                .message
                .contains("check the base URL (http://127.0.0.1:9/v1)")
        );
        let f = status(
            &ctx(ProviderKind::OpenAi, None),
            404,
            r#"{"error":{"message":"The model `gpt-9` does not exist"}}"#,
        );
        assert!(
            f.error.message.contains("model list"),
            "{}",
            f.error.message
        );
    }

    #[test]
    fn rate_limits_carry_retry_after() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("2"));
        let f = ctx(ProviderKind::Anthropic, None).status_failure(
            StatusCode::TOO_MANY_REQUESTS,
            &h,
            "",
        );
        assert_eq!(f.error.retry_after, Some(Duration::from_secs(2)));
    }

    #[test]
    fn stream_errors_are_classified() {
        let c = ctx(ProviderKind::Anthropic, None);
        let over = serde_json::json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}});
        let f = c.stream_error(&over);
        assert_eq!((f.error.kind, f.retryable), (ErrorKind::Server, true));
        assert!(
            f.error.message.contains("overloaded_error") && f.error.message.contains("Overloaded")
        );
        let bad = serde_json::json!({"error":{"message":"bad tool schema","type":"invalid_request_error"}});
        assert_eq!(c.stream_error(&bad).error.kind, ErrorKind::InvalidRequest);
    }

    #[test]
    fn long_bodies_are_clipped() {
        let (_, m) = vendor_error(&"x".repeat(5000));
        assert!(m.chars().count() <= MAX_DETAIL + 1);
    }
}
