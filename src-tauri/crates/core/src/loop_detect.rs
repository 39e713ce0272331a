//! Notices a model repeating itself: the same tool calls (same names, same inputs, in any
//! order, keys in any order) or the same text, turn after turn.

use std::collections::VecDeque;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use paddock_protocol::{LoopKind, ToolCall};
use serde_json::Value;

/// Identical turns in a row that count as a loop.
pub const DEFAULT_MAX_REPETITIONS: u32 = 3;
/// Signatures remembered per kind.
pub const DEFAULT_WINDOW: usize = 4;

/// What to do when a loop is seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoopPolicy {
    /// Add a "you seem stuck" message; stop on the next detection. A clean turn forgives a
    /// loop, but not the same loop again: seen a second time in the run, it stops the run.
    #[default]
    Warn,
    Terminate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopConfig {
    pub max_repetitions: u32,
    pub window: usize,
    pub policy: LoopPolicy,
}

impl Default for LoopConfig {
    fn default() -> Self {
        Self {
            max_repetitions: DEFAULT_MAX_REPETITIONS,
            window: DEFAULT_WINDOW,
            policy: LoopPolicy::Warn,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    pub kind: LoopKind,
    pub repetitions: u32,
    pub detail: String,
    /// Which turn repeated (its calls' or its text's signature).
    pub signature: u64,
}

/// What a run was warned about: whether the last turn was a loop, and each loop warned of
/// (a model that breaks a loop with one other call and goes back to it — the same edit,
/// a read, the same edit — is not warned again).
#[derive(Debug, Default)]
pub(crate) struct Warnings {
    last: bool,
    seen: Vec<u64>,
}

impl Warnings {
    /// A turn without a loop: the next new loop is warned about.
    pub(crate) fn clean(&mut self) {
        self.last = false;
    }

    /// Whether `d` ends the run: a loop right after a warning, or one warned of before.
    pub(crate) fn ends(&mut self, d: &Detection) -> bool {
        let ends = self.last || self.seen.contains(&d.signature);
        self.last = true;
        if !ends {
            self.seen.push(d.signature);
        }
        ends
    }
}

/// Sliding windows of tool and text signatures, tracked separately.
#[derive(Debug, Clone)]
pub struct LoopDetector {
    max_repetitions: u32,
    window: usize,
    /// Hashes of the turns' signatures: a turn costs no strings (a false match needs a
    /// 64-bit collision within the window).
    tools: VecDeque<u64>,
    texts: VecDeque<u64>,
}

impl LoopDetector {
    pub fn new(config: &LoopConfig) -> Self {
        let max_repetitions = config.max_repetitions.max(2);
        Self {
            max_repetitions,
            // The window must hold a full run of repetitions, or nothing is ever detected.
            window: config
                .window
                .max(usize::try_from(max_repetitions).unwrap_or(usize::MAX)),
            tools: VecDeque::new(),
            texts: VecDeque::new(),
        }
    }

    /// Records one turn; returns a detection when either kind repeated enough.
    pub fn record_turn<C: Deref<Target = ToolCall>>(
        &mut self,
        text: &str,
        calls: &[C],
    ) -> Option<Detection> {
        let tool_hit = if calls.is_empty() {
            None
        } else {
            let sig = tool_signature(calls);
            let count = push_and_count(&mut self.tools, sig, self.window);
            (count >= self.max_repetitions).then(|| {
                let mut names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
                names.sort_unstable();
                Detection {
                    signature: sig,
                    kind: LoopKind::ToolRepetition,
                    repetitions: count,
                    detail: format!(
                        "the same call to {} with identical input was made {count} times in a row",
                        names.join(", ")
                    ),
                }
            })
        };
        let text_hit = if text.trim().is_empty() {
            None
        } else {
            let sig = text_signature(text);
            let count = push_and_count(&mut self.texts, sig, self.window);
            (count >= self.max_repetitions).then(|| Detection {
                signature: sig,
                kind: LoopKind::TextRepetition,
                repetitions: count,
                detail: format!("the same text was produced {count} times in a row"),
            })
        };
        tool_hit.or(text_hit)
    }
}

fn push_and_count(buf: &mut VecDeque<u64>, sig: u64, window: usize) -> u32 {
    buf.push_back(sig);
    while buf.len() > window {
        buf.pop_front();
    }
    let Some(last) = buf.back() else { return 0 };
    let n = buf.iter().rev().take_while(|s| *s == last).count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The text with runs of white space taken as one, hashed.
fn text_signature(text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    for word in text.split_whitespace() {
        word.hash(&mut h);
    }
    h.finish()
}

/// Names plus canonical inputs, hashed: call order and key order do not matter, array
/// order does.
pub fn tool_signature<C: Deref<Target = ToolCall>>(calls: &[C]) -> u64 {
    let hash_one = |c: &C| {
        let mut h = DefaultHasher::new();
        c.name.hash(&mut h);
        hash_canonical(&c.input, &mut h);
        h.finish()
    };
    // Turns of a few calls sort on the stack.
    let mut few = [0u64; 8];
    let mut many;
    let items: &mut [u64] = if calls.len() <= few.len() {
        for (slot, call) in few.iter_mut().zip(calls) {
            *slot = hash_one(call);
        }
        &mut few[..calls.len()]
    } else {
        many = calls.iter().map(hash_one).collect::<Vec<u64>>();
        &mut many
    };
    items.sort_unstable();
    let mut h = DefaultHasher::new();
    items.hash(&mut h);
    h.finish()
}

/// Hashes JSON with object keys in sorted order at every depth; each kind is tagged, so
/// `"1"` and `1`, or `[]` and `{}`, differ.
fn hash_canonical(value: &Value, h: &mut DefaultHasher) {
    match value {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Number(n) => {
            2u8.hash(h);
            // Integers by value; other numbers by their JSON text (1.0 is not 1).
            match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => (0u8, i).hash(h),
                (None, Some(u)) => (1u8, u).hash(h),
                _ => (2u8, n.to_string()).hash(h),
            }
        }
        Value::String(s) => (3u8, s).hash(h),
        Value::Array(items) => {
            (4u8, items.len()).hash(h);
            for v in items {
                hash_canonical(v, h);
            }
        }
        Value::Object(map) => {
            (5u8, map.len()).hash(h);
            // Maps keep the model's key order (serde_json's preserve_order, set for the
            // workspace): sort only when they are not sorted already.
            if map.keys().zip(map.keys().skip(1)).all(|(a, b)| a <= b) {
                for (k, v) in map {
                    k.hash(h);
                    hash_canonical(v, h);
                }
                return;
            }
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            for k in keys {
                k.hash(h);
                if let Some(v) = map.get(k) {
                    hash_canonical(v, h);
                }
            }
        }
    }
}
