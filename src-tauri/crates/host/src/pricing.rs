//! The price a run's tokens are counted at: the project's `pricing` setting (once trusted),
//! else Paddock's table, else local (a server on this machine or network) or unknown.

use paddock_protocol::{Pricing, ProjectSettings, ProviderKind};

use crate::field_error::FieldError;

/// Where a price from the settings says it comes from.
pub const SETTING_SOURCE: &str = "the project's pricing setting";
/// The most a price may say (dollars per million tokens): a typo, not a model.
const MAX_RATE: f64 = 10_000.0;

/// How `model` is priced for a project with settings `s` (the ones in effect: a pending
/// `pricing` entry was already taken out).
pub fn pricing_of(s: &ProjectSettings, kind: ProviderKind, model: &str) -> Pricing {
    if let Some(price) = s.pricing.get(model) {
        return Pricing::Priced {
            price: *price,
            source: SETTING_SOURCE.to_owned(),
        };
    }
    paddock_providers::pricing_for(kind, model, s.base_url.as_deref())
}

/// Every rate a number from 0 to 10,000.
pub fn validate(s: &ProjectSettings) -> Result<(), FieldError> {
    for (model, p) in &s.pricing {
        let rates = [
            ("input", p.input),
            ("output", p.output),
            ("cacheWrite", p.cache_write),
            ("cacheRead", p.cache_read),
        ];
        for (field, rate) in rates {
            if !(rate.is_finite() && (0.0..=MAX_RATE).contains(&rate)) {
                return Err(FieldError::new(
                    format!("pricing.{model}.{field}"),
                    "dollars per million tokens, from 0 to 10000",
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::Price;

    #[test]
    fn the_setting_wins_then_the_table_then_local_or_unknown() {
        let mut s = ProjectSettings::default();
        let rate = |p: Pricing| match p {
            Pricing::Priced { price, source } => Some((price.input, source)),
            _ => None,
        };
        let (input, source) =
            rate(pricing_of(&s, ProviderKind::Anthropic, "claude-haiku-4-5")).unwrap();
        assert_eq!(input, 1.0);
        assert!(source.contains("Anthropic"));
        s.pricing.insert(
            "claude-haiku-4-5".into(),
            Price {
                input: 0.5,
                output: 2.5,
                ..Price::default()
            },
        );
        assert_eq!(
            rate(pricing_of(&s, ProviderKind::Anthropic, "claude-haiku-4-5")),
            Some((0.5, SETTING_SOURCE.to_owned()))
        );
        s.base_url = Some("http://127.0.0.1:11434/v1".into());
        assert_eq!(
            pricing_of(&s, ProviderKind::OpenAiCompatible, "qwen3"),
            Pricing::Local
        );
        s.base_url = Some("https://api.example.com/v1".into());
        assert_eq!(
            pricing_of(&s, ProviderKind::OpenAiCompatible, "qwen3"),
            Pricing::Unknown
        );
        s.pricing.insert(
            "qwen3".into(),
            Price {
                input: -1.0,
                ..Price::default()
            },
        );
        assert_eq!(validate(&s).unwrap_err().field, "pricing.qwen3.input");
    }

    /// Hostile: a cloned repository's `pricing` (a model made to look free) is not applied
    /// until the user trusts it, and the trust screen names it.
    #[test]
    fn a_folders_price_waits_for_trust() {
        let mut s = ProjectSettings::default();
        s.pricing
            .insert("claude-haiku-4-5".into(), Price::default());
        let gated = crate::trust::gated(&s);
        assert!(gated.iter().any(|g| g.key == "pricing.claude-haiku-4-5"));
        let untrusted = crate::trust::restrict(&s, |_| false);
        match pricing_of(&untrusted, ProviderKind::Anthropic, "claude-haiku-4-5") {
            Pricing::Priced { price, source } => {
                assert_eq!(price.input, 1.0);
                assert_ne!(source, SETTING_SOURCE);
            }
            other => panic!("{other:?}"),
        }
        let trusted = crate::trust::restrict(&s, |_| true);
        assert!(matches!(
            pricing_of(&trusted, ProviderKind::Anthropic, "claude-haiku-4-5"),
            Pricing::Priced { source, .. } if source == SETTING_SOURCE
        ));
    }
}
