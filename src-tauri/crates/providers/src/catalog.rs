//! What the settings screen needs: the models a server offers, and whether it answers.

use std::time::{Duration, Instant};

pub use paddock_protocol::{ConnectionReport, ModelInfo};

/// The report for `models`, listed in the time since `started`.
pub(crate) fn report(
    models: Vec<ModelInfo>,
    started: Instant,
    model: Option<&str>,
) -> ConnectionReport {
    let model_available = match model {
        Some(m) if !models.is_empty() => Some(models.iter().any(|i| i.id == m)),
        _ => None,
    };
    ConnectionReport {
        models,
        latency_ms: millis(started.elapsed()),
        model_available,
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
