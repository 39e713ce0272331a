//! Compactions as a session reads them back: the history is rebuilt with the same function
//! the run used, and the latest compaction can be undone (the replaced messages come back)
//! or its summary edited.

use paddock_core::compaction::{apply, summary_text};
use paddock_protocol::{CompactionInfo, ContentBlock, Message, Role};

use crate::point::RewindPoint;

/// A compaction in effect.
#[derive(Debug, Clone)]
struct Applied {
    info: CompactionInfo,
    /// The messages it replaced.
    prefix: Vec<Message>,
    /// The summary joined the first kept message (a user message) instead of opening the
    /// history on its own.
    merged: bool,
    /// Each rewind point's message count before it (points made later shift instead).
    points_before: Vec<Option<u32>>,
}

#[derive(Debug, Default)]
pub(crate) struct Compactions {
    /// In effect, oldest first; only the last can be undone or edited.
    stack: Vec<Applied>,
}

impl Compactions {
    pub(crate) fn latest(&self) -> Option<&CompactionInfo> {
        self.stack.last().map(|a| &a.info)
    }

    pub(crate) fn compacted(
        &mut self,
        info: &CompactionInfo,
        history: &mut Vec<Message>,
        points: &mut [RewindPoint],
    ) {
        let replaced = usize::try_from(info.replaced)
            .unwrap_or(usize::MAX)
            .min(history.len());
        let merged = history.get(replaced).is_some_and(|m| m.role == Role::User);
        let added = usize::from(!merged);
        let points_before = points.iter().map(|p| p.messages).collect();
        let prefix = history[..replaced].to_vec();
        *history = apply(history, replaced, &info.summary);
        for point in points.iter_mut() {
            point.messages = shrink(point.messages, replaced, added);
        }
        self.stack.push(Applied {
            info: info.clone(),
            prefix,
            merged,
            points_before,
        });
    }

    pub(crate) fn undone(
        &mut self,
        id: &str,
        history: &mut Vec<Message>,
        points: &mut [RewindPoint],
    ) {
        if self.stack.last().is_none_or(|a| a.info.id != id) || history.is_empty() {
            return;
        }
        let Some(applied) = self.stack.pop() else {
            return;
        };
        let replaced = applied.prefix.len();
        let mut rest = std::mem::take(history);
        if applied.merged {
            if let Some(first) = rest.first_mut() {
                first.content.remove(0);
            }
        } else {
            rest.remove(0);
        }
        let mut restored = applied.prefix;
        restored.extend(rest);
        *history = restored;
        let added = u32::from(!applied.merged);
        for (i, point) in points.iter_mut().enumerate() {
            point.messages = match applied.points_before.get(i) {
                Some(before) => *before,
                None => point
                    .messages
                    .map(|m| m + u32::try_from(replaced).unwrap_or(u32::MAX) - added),
            };
        }
    }

    pub(crate) fn edited(&mut self, id: &str, summary: &str, history: &mut [Message]) {
        let Some(applied) = self.stack.last_mut().filter(|a| a.info.id == id) else {
            return;
        };
        applied.info.summary = summary.to_owned();
        if let Some(ContentBlock::Text { text }) =
            history.first_mut().and_then(|m| m.content.first_mut())
        {
            *text = summary_text(summary, &applied.prefix);
        }
    }
}

/// A point's message count after `replaced` messages became `added` (0 or 1): a point inside
/// the replaced part can no longer be rewound to by conversation.
fn shrink(messages: Option<u32>, replaced: usize, added: usize) -> Option<u32> {
    let m = usize::try_from(messages?).ok()?;
    (m >= replaced).then(|| u32::try_from(m - replaced + added).unwrap_or(u32::MAX))
}
