use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Tokens a model call (or a whole run) consumed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TokenUsage {
    /// Every input token, cached ones included.
    #[ts(type = "number")]
    pub input_tokens: u64,
    #[ts(type = "number")]
    pub output_tokens: u64,
    /// The part of `input_tokens` read from the provider's prompt cache (billed at a
    /// fraction). Absent in sessions written before it was counted.
    #[serde(default)]
    #[ts(type = "number")]
    pub cache_read_tokens: u64,
    /// The part of `input_tokens` written to the prompt cache (Anthropic bills it above the
    /// input rate). Absent where none was.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[ts(type = "number", optional)]
    pub cache_write_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl TokenUsage {
    pub const fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Self {
            input_tokens,
            output_tokens,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
        }
    }

    /// The same usage, with `tokens` of its input read from the prompt cache.
    pub const fn with_cache_read(mut self, tokens: u64) -> Self {
        self.cache_read_tokens = tokens;
        self
    }

    /// The same usage, with `tokens` of its input written to the prompt cache.
    pub const fn with_cache_write(mut self, tokens: u64) -> Self {
        self.cache_write_tokens = tokens;
        self
    }

    /// Input plus output: what the token budget is measured against.
    pub const fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }

    pub const fn is_zero(&self) -> bool {
        self.input_tokens == 0
            && self.output_tokens == 0
            && self.cache_read_tokens == 0
            && self.cache_write_tokens == 0
    }
}

impl std::ops::Add for TokenUsage {
    type Output = Self;
    fn add(self, rhs: Self) -> Self {
        Self {
            input_tokens: self.input_tokens.saturating_add(rhs.input_tokens),
            output_tokens: self.output_tokens.saturating_add(rhs.output_tokens),
            cache_read_tokens: self.cache_read_tokens.saturating_add(rhs.cache_read_tokens),
            cache_write_tokens: self
                .cache_write_tokens
                .saturating_add(rhs.cache_write_tokens),
        }
    }
}

impl std::ops::AddAssign for TokenUsage {
    fn add_assign(&mut self, rhs: Self) {
        *self = *self + rhs;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_and_totals_without_overflow() {
        let mut u = TokenUsage::new(10, 5);
        u += TokenUsage::new(1, 2);
        assert_eq!(u, TokenUsage::new(11, 7));
        assert_eq!(u.total(), 18);
        let big = TokenUsage::new(u64::MAX, 1);
        assert_eq!(big.total(), u64::MAX);
        let cached = TokenUsage::new(100, 1).with_cache_read(80)
            + TokenUsage::new(50, 1).with_cache_read(40);
        assert_eq!(cached.cache_read_tokens, 120);
        assert_eq!(
            cached.total(),
            152,
            "cached input is input: the budget counts it once"
        );
    }

    #[test]
    fn older_sessions_without_cache_figures_still_read() {
        let old: TokenUsage =
            serde_json::from_str(r#"{"input_tokens":3,"output_tokens":4}"#).unwrap();
        assert_eq!(old, TokenUsage::new(3, 4));
    }
}
