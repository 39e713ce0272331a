//! The context window mode: a chat request whose estimated size passes the window is
//! refused with the vendor's documented context-overflow error, as a real model server
//! would, so tests can check that a client never sends one.

use serde_json::{Value, json};

/// The fake server's token estimate for a request of `chars` characters: a quarter,
/// rounded up. It counts the characters of the request body's JSON as sent (all of it:
/// system prompt, tool schemas, messages, field names). The kernel's estimate follows the
/// same rule (about 4 characters a token), so a client that keeps its own estimate under
/// the window is never refused here.
pub fn estimate_tokens(chars: usize) -> u32 {
    u32::try_from(chars.div_ceil(4)).unwrap_or(u32::MAX)
}

/// The estimate for a raw request body (invalid UTF-8 counts as replacement characters).
pub(crate) fn estimate_body(bytes: &[u8]) -> u32 {
    estimate_tokens(String::from_utf8_lossy(bytes).chars().count())
}

/// OpenAI's answer to a prompt over the window: HTTP 400 with
/// `code: "context_length_exceeded"` and the message its API sends.
pub(crate) fn openai_overflow(estimated: u32, limit: u32) -> Value {
    json!({"error": {
        "message": format!(
            "This model's maximum context length is {limit} tokens. However, your messages \
             resulted in {estimated} tokens. Please reduce the length of the messages."
        ),
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded"
    }})
}

/// Anthropic's answer to a prompt over the window: HTTP 400 `invalid_request_error`,
/// "prompt is too long: X tokens > N maximum".
pub(crate) fn anthropic_overflow(estimated: u32, limit: u32) -> Value {
    json!({"type": "error", "error": {
        "type": "invalid_request_error",
        "message": format!("prompt is too long: {estimated} tokens > {limit} maximum")
    }})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quarter_rounded_up() {
        assert_eq!(estimate_tokens(0), 0);
        assert_eq!(estimate_tokens(1), 1);
        assert_eq!(estimate_tokens(4), 1);
        assert_eq!(estimate_tokens(5), 2);
        assert_eq!(estimate_tokens(4000), 1000);
        assert_eq!(estimate_tokens(usize::MAX), u32::MAX);
        // Characters, not bytes.
        assert_eq!(estimate_body("ééééé".as_bytes()), 2);
    }

    #[test]
    fn overflow_bodies_say_both_numbers() {
        let o = openai_overflow(9000, 8192);
        assert_eq!(o["error"]["code"], "context_length_exceeded");
        let m = o["error"]["message"].as_str().unwrap();
        assert!(m.contains("8192") && m.contains("9000"), "{m}");
        let a = anthropic_overflow(210_000, 200_000);
        assert_eq!(a["error"]["type"], "invalid_request_error");
        assert_eq!(
            a["error"]["message"],
            "prompt is too long: 210000 tokens > 200000 maximum"
        );
    }
}
