//! What the settings screen needs: the models a server offers, and whether it answers.

use std::time::{Duration, Instant};

use serde::Serialize;

/// One entry of the model dropdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelInfo {
    pub id: String,
    /// A friendlier name when the vendor has one ("Claude Sonnet 4").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
}

/// The outcome of a successful "test connection".
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConnectionReport {
    pub models: Vec<ModelInfo>,
    pub latency_ms: u64,
    /// Whether the model the user picked is on the list (`None` when none was given, or
    /// the server lists nothing, as some local servers do).
    pub model_available: Option<bool>,
}

impl ConnectionReport {
    pub(crate) fn new(models: Vec<ModelInfo>, started: Instant, model: Option<&str>) -> Self {
        let model_available = match model {
            Some(m) if !models.is_empty() => Some(models.iter().any(|i| i.id == m)),
            _ => None,
        };
        Self {
            models,
            latency_ms: millis(started.elapsed()),
            model_available,
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
