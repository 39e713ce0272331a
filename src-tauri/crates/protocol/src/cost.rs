use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::TokenUsage;

/// What one model's tokens cost, in US dollars per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Price {
    /// Input tokens not read from or written to the prompt cache.
    pub input: f64,
    pub output: f64,
    /// Input tokens written to the prompt cache (Anthropic; 0 where writing is free).
    #[serde(default)]
    pub cache_write: f64,
    /// Input tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read: f64,
}

impl Price {
    /// Dollars for `usage`: cached input at the cache rates, the rest of the input at the
    /// input rate.
    pub fn dollars(&self, usage: &TokenUsage) -> f64 {
        let cached = usage
            .cache_read_tokens
            .saturating_add(usage.cache_write_tokens);
        let plain = usage.input_tokens.saturating_sub(cached);
        let per = |tokens: u64, rate: f64| tokens as f64 * rate / 1_000_000.0;
        per(plain, self.input)
            + per(usage.cache_write_tokens, self.cache_write)
            + per(usage.cache_read_tokens, self.cache_read)
            + per(usage.output_tokens, self.output)
    }
}

/// How a run's model is priced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Pricing {
    /// At `price`, from `source` (the vendor's page and when it was read, or the user's
    /// `pricing` setting).
    Priced { price: Price, source: String },
    /// A model served on this machine or the local network: it costs nothing.
    Local,
    /// Neither the table nor the `pricing` setting knows the model: no guess is made.
    Unknown,
}

impl Pricing {
    /// What `usage` costs at this pricing.
    pub fn cost(&self, usage: &TokenUsage) -> Cost {
        match self {
            Self::Priced { price, .. } => Cost {
                usd: price.dollars(usage),
                complete: true,
                local: false,
            },
            Self::Local => Cost::NONE,
            Self::Unknown => Cost {
                usd: 0.0,
                complete: usage.is_zero(),
                local: false,
            },
        }
    }
}

/// Money spent, summed over model calls (a teammate's included).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, TS)]
pub struct Cost {
    /// Dollars for the calls whose price is known.
    pub usd: f64,
    /// Every call's price was known (false: `usd` is a lower bound, some price unknown).
    pub complete: bool,
    /// Every call went to a local model (which costs nothing).
    pub local: bool,
}

impl Cost {
    /// Nothing spent yet: adding it changes nothing.
    pub const NONE: Self = Self {
        usd: 0.0,
        complete: true,
        local: true,
    };

    /// The cost in words: "$0.0123", "$0 (local model)", "price unknown", or "at least
    /// $0.50 (some prices unknown)".
    pub fn describe(&self) -> String {
        match (self.complete, self.local) {
            (true, true) => "$0 (local model)".to_owned(),
            (true, false) => dollars(self.usd),
            (false, _) if self.usd > 0.0 => {
                format!("at least {} (some prices unknown)", dollars(self.usd))
            }
            (false, _) => "price unknown".to_owned(),
        }
    }
}

impl Default for Cost {
    fn default() -> Self {
        Self::NONE
    }
}

impl std::ops::Add for Cost {
    type Output = Self;
    fn add(self, rhs: Self) -> Self {
        Self {
            usd: self.usd + rhs.usd,
            complete: self.complete && rhs.complete,
            local: self.local && rhs.local,
        }
    }
}

impl std::ops::AddAssign for Cost {
    fn add_assign(&mut self, rhs: Self) {
        *self = *self + rhs;
    }
}

/// Dollars with the precision a small figure needs: "$0.0042", "$0.42", "$12.30".
pub fn dollars(usd: f64) -> String {
    if usd == 0.0 {
        "$0".to_owned()
    } else if usd < 0.01 {
        format!("${usd:.4}")
    } else {
        format!("${usd:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sonnet() -> Pricing {
        Pricing::Priced {
            price: Price {
                input: 3.0,
                output: 15.0,
                cache_write: 3.75,
                cache_read: 0.30,
            },
            source: "test".into(),
        }
    }

    #[test]
    fn cached_input_is_priced_at_the_cache_rates() {
        // 1M input of which 200k written to and 500k read from the cache, 100k output.
        let usage = TokenUsage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            cache_read_tokens: 500_000,
            cache_write_tokens: 200_000,
        };
        let cost = sonnet().cost(&usage);
        let want = 0.3 * 3.0 + 0.2 * 3.75 + 0.5 * 0.30 + 0.1 * 15.0;
        assert!((cost.usd - want).abs() < 1e-9, "{} != {want}", cost.usd);
        assert!(cost.complete && !cost.local);
        assert_eq!(cost.describe(), "$3.30");
    }

    #[test]
    fn local_is_free_and_unknown_is_never_a_guess() {
        let usage = TokenUsage::new(5000, 100);
        assert_eq!(Pricing::Local.cost(&usage).describe(), "$0 (local model)");
        let unknown = Pricing::Unknown.cost(&usage);
        assert_eq!(unknown.describe(), "price unknown");
        let mixed = sonnet().cost(&usage) + unknown;
        assert_eq!(mixed.describe(), "at least $0.02 (some prices unknown)");
        // Nothing used: nothing unknown either.
        assert!(Pricing::Unknown.cost(&TokenUsage::default()).complete);
        assert_eq!(Cost::NONE + sonnet().cost(&usage), sonnet().cost(&usage));
    }
}
