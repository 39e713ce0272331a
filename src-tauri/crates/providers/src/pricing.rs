//! What a model's tokens cost: the built-in table of hosted models' list prices, each row
//! with its source, and the rule for local servers. A model the table does not know is
//! `Unknown`, never a guess; the `pricing` setting (the host's) adds or overrides rows.
//!
//! Prices in US dollars per million tokens, standard tier, read on 2026-12-06:
//! - Anthropic: the pricing page, platform.claude.com/docs/en/about-claude/pricing (and its
//!   zh-CN copy, which lists every row below; it names Opus 4.6 and Sonnet 4.6, so it is
//!   from 2026-02 or later), and the model pages of the 5-series
//!   (platform.claude.com/docs/en/models/<model>/overview). Cache writes at the 5-minute
//!   rate: Paddock's cache control asks for no longer, so the 1-hour rate never applies.
//!   Sonnet 4 and 4.5 bill input over 200K tokens at a long-context rate only with the
//!   1M-context beta header, which Paddock does not send: their requests stay under 200K.
//! - OpenAI: the model pages, developers.openai.com/api/docs/models/<model> (gpt-5.1,
//!   gpt-5-mini, gpt-5-nano). Rows OpenAI's pages no longer show are from secondary
//!   sources and say so in their source. OpenAI bills no cache writes.

use paddock_protocol::{Price, Pricing, ProviderKind};

const ANTHROPIC_SOURCE: &str =
    "Anthropic's pricing page (platform.claude.com/docs/en/about-claude/pricing), read 2026-12-06";
const ANTHROPIC_MODEL_PAGE: &str = "Anthropic's model page (platform.claude.com/docs/en/models/<model>/overview; cache rates there, else the pricing page's 1.25x and 0.1x of input), read 2026-12-06";
const OPENAI_SOURCE: &str =
    "OpenAI's model page (developers.openai.com/api/docs/models), read 2026-12-06";
const OPENAI_SECONDARY: &str = "OpenAI's published price as listed by secondary sources (simonw/llm-prices, Vercel AI Gateway), read 2026-12-06; OpenAI's own pages no longer show it";

struct Row {
    id: &'static str,
    price: Price,
    source: &'static str,
}

const fn claude(
    id: &'static str,
    input: f64,
    output: f64,
    cache_write: f64,
    cache_read: f64,
) -> Row {
    Row {
        id,
        price: Price {
            input,
            output,
            cache_write,
            cache_read,
        },
        source: ANTHROPIC_SOURCE,
    }
}

const fn openai(
    id: &'static str,
    input: f64,
    cached: f64,
    output: f64,
    source: &'static str,
) -> Row {
    Row {
        id,
        price: Price {
            input,
            output,
            cache_write: 0.0,
            cache_read: cached,
        },
        source,
    }
}

const fn claude_5(
    id: &'static str,
    input: f64,
    output: f64,
    cache_write: f64,
    cache_read: f64,
) -> Row {
    let mut row = claude(id, input, output, cache_write, cache_read);
    row.source = ANTHROPIC_MODEL_PAGE;
    row
}

const ANTHROPIC: &[Row] = &[
    claude_5("claude-opus-5-5", 4.0, 20.0, 5.0, 0.40),
    claude_5("claude-opus-5", 5.0, 25.0, 6.25, 0.50),
    claude_5("claude-sonnet-5-5", 2.0, 10.0, 2.50, 0.20),
    claude_5("claude-sonnet-5", 2.0, 10.0, 2.50, 0.20),
    claude("claude-opus-4-6", 5.0, 25.0, 6.25, 0.50),
    claude("claude-sonnet-4-6", 3.0, 15.0, 3.75, 0.30),
    claude("claude-opus-4-5", 5.0, 25.0, 6.25, 0.50),
    claude("claude-sonnet-4-5", 3.0, 15.0, 3.75, 0.30),
    claude("claude-haiku-4-5", 1.0, 5.0, 1.25, 0.10),
    claude("claude-opus-4-1", 15.0, 75.0, 18.75, 1.50),
    claude("claude-opus-4-0", 15.0, 75.0, 18.75, 1.50),
    claude("claude-opus-4", 15.0, 75.0, 18.75, 1.50),
    claude("claude-sonnet-4-0", 3.0, 15.0, 3.75, 0.30),
    claude("claude-sonnet-4", 3.0, 15.0, 3.75, 0.30),
    claude("claude-3-7-sonnet", 3.0, 15.0, 3.75, 0.30),
    claude("claude-3-5-haiku", 0.80, 4.0, 1.0, 0.08),
    claude("claude-3-haiku", 0.25, 1.25, 0.30, 0.03),
];

const OPENAI: &[Row] = &[
    openai("gpt-5.1", 1.25, 0.125, 10.0, OPENAI_SOURCE),
    openai("gpt-5-mini", 0.25, 0.025, 2.0, OPENAI_SOURCE),
    openai("gpt-5-nano", 0.05, 0.005, 0.40, OPENAI_SOURCE),
    openai("gpt-5", 1.25, 0.125, 10.0, OPENAI_SECONDARY),
    openai("gpt-4.1", 2.0, 0.50, 8.0, OPENAI_SECONDARY),
    openai("gpt-4o", 2.50, 1.25, 10.0, OPENAI_SECONDARY),
    openai("gpt-4o-mini", 0.15, 0.075, 0.60, OPENAI_SECONDARY),
    openai("o4-mini", 1.10, 0.275, 4.40, OPENAI_SECONDARY),
    openai("o1", 15.0, 7.50, 60.0, OPENAI_SECONDARY),
];

/// A row names one model and its dated snapshots: "claude-sonnet-4-5" is also
/// "claude-sonnet-4-5-20250929", "gpt-4o" also "gpt-4o-2024-08-06", but "gpt-5" is not
/// "gpt-5.2" or "gpt-5-codex" (other models, other prices).
fn names(row: &str, id: &str) -> bool {
    match id.strip_prefix(row) {
        Some("") => true,
        Some(rest) => rest.strip_prefix('-').is_some_and(|d| {
            d.len() >= 8 && d.bytes().take(8).all(|b| b.is_ascii_digit() || b == b'-')
        }),
        None => false,
    }
}

/// The table's pricing for `model` at `kind`, or `None` when it has no row.
pub fn listed_price(kind: ProviderKind, model: &str) -> Option<Pricing> {
    let id = model.trim().to_ascii_lowercase();
    let table = match kind {
        ProviderKind::Anthropic => ANTHROPIC,
        ProviderKind::OpenAi => OPENAI,
        // A compatible server sets its own prices, whatever models it serves.
        ProviderKind::OpenAiCompatible => return None,
    };
    table
        .iter()
        .find(|r| names(r.id, &id))
        .map(|r| Pricing::Priced {
            price: r.price,
            source: r.source.to_owned(),
        })
}

/// How `model` is priced: local when a compatible server runs on this machine or the local
/// network, the table's row when it has one, else unknown.
pub fn pricing_for(kind: ProviderKind, model: &str, base_url: Option<&str>) -> Pricing {
    if kind == ProviderKind::OpenAiCompatible && base_url.is_some_and(is_local) {
        return Pricing::Local;
    }
    listed_price(kind, model).unwrap_or(Pricing::Unknown)
}

/// A URL whose host is this machine or a private network (a server the user runs).
fn is_local(url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(url) else {
        return false;
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") || host.ends_with(".local") {
        return true;
    }
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => ip.is_loopback() || ip.is_private() || ip.is_link_local(),
        Ok(std::net::IpAddr::V6(ip)) => {
            ip.is_loopback() || ip.is_unique_local() || ip.is_unicast_link_local()
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProviderKind::*;

    fn input_rate(p: &Pricing) -> Option<f64> {
        match p {
            Pricing::Priced { price, .. } => Some(price.input),
            _ => None,
        }
    }

    #[test]
    fn a_row_names_its_model_and_dated_snapshots_only() {
        let rate = |kind, id| input_rate(&pricing_for(kind, id, None));
        assert_eq!(rate(Anthropic, "claude-sonnet-4-5-20250929"), Some(3.0));
        assert_eq!(rate(Anthropic, "claude-opus-4-20250514"), Some(15.0));
        assert_eq!(rate(Anthropic, "claude-opus-4-5"), Some(5.0));
        assert_eq!(rate(Anthropic, "Claude-Haiku-4-5"), Some(1.0));
        assert_eq!(rate(Anthropic, "claude-opus-5-5"), Some(4.0));
        assert_eq!(rate(Anthropic, "claude-opus-5"), Some(5.0));
        assert_eq!(rate(Anthropic, "claude-sonnet-5-5"), Some(2.0));
        // A newer model the table does not know is unknown, never its family's price.
        assert_eq!(rate(Anthropic, "claude-fable-5-1"), None);
        assert_eq!(rate(Anthropic, "claude-haiku-5-5"), None);
        assert_eq!(rate(OpenAi, "gpt-4o-2024-08-06"), Some(2.5));
        assert_eq!(rate(OpenAi, "gpt-4o-mini"), Some(0.15));
        assert_eq!(rate(OpenAi, "gpt-5"), Some(1.25));
        // Other models with a shared prefix are not priced as the shorter one.
        assert_eq!(rate(OpenAi, "gpt-5.2"), None);
        assert_eq!(rate(OpenAi, "gpt-5-codex"), None);
        assert_eq!(rate(Anthropic, "claude-opus-4-7"), None);
        // Each vendor's API, its own models only.
        assert_eq!(rate(Anthropic, "gpt-4o"), None);
    }

    #[test]
    fn local_servers_cost_nothing_and_hosted_compatible_ones_are_unknown() {
        for url in [
            "http://127.0.0.1:11434/v1",
            "http://localhost:8080",
            "http://192.168.1.20:1234/v1",
            "http://[::1]:8000/v1",
            "http://gpu-box.local:8000/v1",
        ] {
            assert_eq!(
                pricing_for(OpenAiCompatible, "qwen3", Some(url)),
                Pricing::Local,
                "{url}"
            );
        }
        assert_eq!(
            pricing_for(
                OpenAiCompatible,
                "gpt-4o",
                Some("https://openrouter.ai/api/v1")
            ),
            Pricing::Unknown,
            "a proxy's prices are its own"
        );
        assert_eq!(pricing_for(OpenAi, "llama3", None), Pricing::Unknown);
    }

    #[test]
    fn every_row_cites_a_source_and_has_sane_rates() {
        for row in ANTHROPIC.iter().chain(OPENAI) {
            let p = row.price;
            assert!(row.source.contains("read 2026-12-06"), "{}", row.id);
            assert!(p.input > 0.0 && p.output > p.input, "{}", row.id);
            assert!(p.cache_read < p.input, "{}", row.id);
        }
    }
}
