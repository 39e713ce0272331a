//! When and how long to wait before trying a failed call again.

use std::time::{Duration, SystemTime};

use paddock_core::ModelError;
use reqwest::header::HeaderMap;

use crate::config::RetryPolicy;
use crate::refusals::ToolsRefusal;

/// A classified failure and whether trying again could help.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Failure {
    pub error: ModelError,
    pub retryable: bool,
    /// The server refused to stream a call with tools: worth asking again unstreamed.
    pub stream_refused: bool,
    /// The server refused the `tools` parameter: worth asking again with the tools
    /// described in the prompt.
    pub tools_refused: Option<ToolsRefusal>,
}

impl Failure {
    pub fn retryable(error: ModelError) -> Self {
        Self {
            error,
            retryable: true,
            stream_refused: false,
            tools_refused: None,
        }
    }

    pub fn fatal(error: ModelError) -> Self {
        Self {
            error,
            retryable: false,
            stream_refused: false,
            tools_refused: None,
        }
    }
}

/// The wait before the next attempt, or `None` when the failure is final. `attempt` is the
/// 1-based number of the attempt that just failed.
pub(crate) fn delay_before_retry(
    policy: &RetryPolicy,
    attempt: u32,
    failure: &Failure,
) -> Option<Duration> {
    if !failure.retryable || attempt >= policy.max_attempts {
        return None;
    }
    match failure.error.retry_after {
        // The vendor said how long: honour it exactly, unless it is too long to wait in a chat.
        Some(wait) if wait > policy.max_retry_after => None,
        Some(wait) => Some(wait),
        None => Some(backoff(policy, attempt)),
    }
}

/// Exponential backoff with "equal jitter": half fixed, half random, so that many clients
/// failing together do not retry together.
pub(crate) fn backoff(policy: &RetryPolicy, attempt: u32) -> Duration {
    let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
    let full = policy
        .base_delay
        .saturating_mul(factor)
        .min(policy.max_delay);
    let half = full / 2;
    half + half.mul_f64(fastrand::f64())
}

/// `retry-after-ms` (OpenAI), then `retry-after` in seconds or as an HTTP date.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return secs(ms / 1000.0);
    }
    let value = header("retry-after")?;
    if let Ok(s) = value.parse::<f64>() {
        return secs(s);
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

fn secs(s: f64) -> Option<Duration> {
    (s.is_finite() && (0.0..1e9).contains(&s)).then(|| Duration::from_secs_f64(s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::ErrorKind;
    use reqwest::header::HeaderValue;

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(500),
            max_retry_after: Duration::from_secs(30),
        }
    }

    #[test]
    fn backoff_grows_is_jittered_and_capped() {
        let p = policy();
        for _ in 0..200 {
            let d1 = backoff(&p, 1);
            assert!(d1 >= Duration::from_millis(50) && d1 <= Duration::from_millis(100));
            let d3 = backoff(&p, 3);
            assert!(d3 >= Duration::from_millis(200) && d3 <= Duration::from_millis(400));
            let d9 = backoff(&p, 9);
            assert!(d9 >= Duration::from_millis(250) && d9 <= Duration::from_millis(500));
        }
        assert!(backoff(&p, u32::MAX) <= p.max_delay);
    }

    #[test]
    fn retries_are_bounded_and_honour_retry_after() {
        let p = policy();
        let mut err = ModelError::new(ErrorKind::RateLimited, "slow down");
        err.retry_after = Some(Duration::from_secs(7));
        let f = Failure::retryable(err.clone());
        assert_eq!(delay_before_retry(&p, 1, &f), Some(Duration::from_secs(7)));
        assert_eq!(delay_before_retry(&p, 4, &f), None, "attempts exhausted");
        err.retry_after = Some(Duration::from_secs(31));
        assert_eq!(
            delay_before_retry(&p, 1, &Failure::retryable(err)),
            None,
            "too long"
        );
        let fatal = Failure::fatal(ModelError::new(ErrorKind::Auth, "no"));
        assert_eq!(delay_before_retry(&p, 1, &fatal), None);
    }

    #[test]
    fn parses_retry_after_forms() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(3)));
        h.insert("retry-after-ms", HeaderValue::from_static("1500"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(1500)));
        h.remove("retry-after-ms");
        let later = SystemTime::now() + Duration::from_secs(120);
        let date = httpdate::fmt_http_date(later);
        h.insert("retry-after", HeaderValue::from_str(&date).unwrap());
        let d = retry_after(&h).unwrap();
        assert!(
            d > Duration::from_secs(110) && d <= Duration::from_secs(120),
            "{d:?}"
        );
        h.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("-1"));
        assert_eq!(retry_after(&h), None);
    }
}
