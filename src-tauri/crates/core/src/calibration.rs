//! How far Paddock's token estimate is from a server's own count, learnt per run.

use paddock_protocol::ContextInfo;

/// Paddock's estimate (about 4 characters a token) against the server's own count of the
/// same request: servers that report the prompt's tokens teach the runner how far off the
/// estimate is for this model, and the context meter and the compaction threshold use the
/// corrected figure. Only ever corrected upwards (an estimate that runs high is the safe
/// side), and at most fourfold.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Calibration {
    /// The estimate of the request last sent, in tokens.
    pub(crate) sent: u32,
    /// Server tokens per estimated token.
    scale: f64,
}

impl Default for Calibration {
    fn default() -> Self {
        Self {
            sent: 0,
            scale: 1.0,
        }
    }
}

/// The most the estimate is scaled up by.
const MAX_SCALE: f64 = 4.0;

impl Calibration {
    /// The server counted `input_tokens` for the request last sent.
    pub fn learn(&mut self, input_tokens: u64) {
        if self.sent == 0 || input_tokens == 0 {
            return;
        }
        #[allow(clippy::cast_precision_loss)]
        let ratio = input_tokens as f64 / f64::from(self.sent);
        self.scale = ratio.clamp(1.0, MAX_SCALE);
    }

    /// An estimate in the server's terms.
    fn apply(&self, tokens: u32) -> u32 {
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let scaled = (f64::from(tokens) * self.scale)
            .ceil()
            .min(f64::from(u32::MAX)) as u32;
        scaled
    }

    pub(crate) fn info(&self, raw: ContextInfo) -> ContextInfo {
        ContextInfo {
            used: self.apply(raw.used),
            window: raw.window,
            instructions: self.apply(raw.instructions),
            tools: self.apply(raw.tools),
            history: self.apply(raw.history),
        }
    }
}
