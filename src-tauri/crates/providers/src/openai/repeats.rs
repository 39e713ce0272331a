//! A bound on endless replies: a small model can fall into printing the same few lines
//! (one tool call after another, the same sentence) until its output limit, minutes on a
//! CPU, while the stall timer never fires because tokens keep coming. Once the last
//! [`WINDOW`] non-blank lines hold no more than [`MAX_DISTINCT`] different ones, the reply
//! is cut there.

use std::collections::VecDeque;
use std::hash::{DefaultHasher, Hash, Hasher};

/// Non-blank lines looked at.
pub(super) const WINDOW: usize = 48;
/// At most this many different lines among them is a loop.
pub(super) const MAX_DISTINCT: usize = 4;

/// Lines seen so far, as hashes of their trimmed text.
#[derive(Debug, Default)]
pub(super) struct Repeats {
    /// The line being written.
    partial: String,
    recent: VecDeque<u64>,
    tripped: bool,
}

impl Repeats {
    /// Adds streamed text; true once the reply is going round in circles.
    pub fn push(&mut self, text: &str) -> bool {
        if self.tripped {
            return true;
        }
        for piece in text.split_inclusive('\n') {
            self.partial.push_str(piece);
            if !self.partial.ends_with('\n') {
                continue;
            }
            let line = std::mem::take(&mut self.partial);
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let mut hasher = DefaultHasher::new();
            line.hash(&mut hasher);
            if self.recent.len() == WINDOW {
                self.recent.pop_front();
            }
            self.recent.push_back(hasher.finish());
            if self.recent.len() == WINDOW && self.distinct() <= MAX_DISTINCT {
                self.tripped = true;
                return true;
            }
        }
        // A line without an end that grows without bound is one long repeat too; keep
        // memory bounded either way.
        if self.partial.len() > 64 * 1024 {
            self.partial.clear();
        }
        false
    }

    fn distinct(&self) -> usize {
        let mut seen: Vec<u64> = Vec::with_capacity(MAX_DISTINCT + 1);
        for h in &self.recent {
            if !seen.contains(h) {
                seen.push(*h);
                if seen.len() > MAX_DISTINCT {
                    break;
                }
            }
        }
        seen.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cycle_of_calls_trips_it_and_varied_text_does_not() {
        let mut r = Repeats::default();
        let call = "<tool_call>\n{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*\"}}\n</tool_call>\n";
        let mut tripped_at = None;
        for n in 1..=40 {
            if r.push(call) {
                tripped_at = Some(n);
                break;
            }
        }
        // Three lines a call: the window fills after 16 calls.
        assert_eq!(tripped_at, Some(WINDOW / 3));

        let mut r = Repeats::default();
        for n in 0..500 {
            assert!(!r.push(&format!("line {n}\n\n}}\n")), "{n}");
        }
    }
}
