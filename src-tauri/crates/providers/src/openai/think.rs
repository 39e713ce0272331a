//! Splits `<think>...</think>` reasoning out of streamed content. Local servers running
//! reasoning models without a reasoning parser (llama.cpp `--reasoning-format none`, older
//! Ollama, vLLM without `--reasoning-parser`) put the reasoning in the answer text; shown as
//! thinking it stays out of the answer and out of the tool-call scan.

/// One piece of content, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    Thinking(String),
    Text(String),
}

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

#[derive(Debug, Default)]
pub(crate) struct ThinkSplitter {
    inside: bool,
    /// The end of the last delta when it could be the start of a tag.
    held: String,
    /// Visible text was emitted: an opening tag now is just text (models write reasoning
    /// first, so a tag later on is more likely an example in the answer).
    answered: bool,
}

impl ThinkSplitter {
    pub fn push(&mut self, delta: &str) -> Vec<Part> {
        let mut buf = std::mem::take(&mut self.held);
        buf.push_str(delta);
        let mut parts = Vec::new();
        loop {
            let tag = if self.inside { CLOSE } else { OPEN };
            let looking = self.inside || !self.answered;
            if looking {
                if let Some(i) = buf.find(tag) {
                    self.emit(&buf[..i], &mut parts);
                    self.inside = !self.inside;
                    buf.drain(..i + tag.len());
                    continue;
                }
                let keep = partial_tag_len(&buf, tag);
                self.held = buf.split_off(buf.len() - keep);
            }
            self.emit(&buf, &mut parts);
            return parts;
        }
    }

    /// The stream ended: whatever was held back is content after all.
    pub fn finish(&mut self) -> Vec<Part> {
        let held = std::mem::take(&mut self.held);
        let mut parts = Vec::new();
        self.emit(&held, &mut parts);
        parts
    }

    fn emit(&mut self, s: &str, parts: &mut Vec<Part>) {
        if s.is_empty() {
            return;
        }
        if self.inside {
            parts.push(Part::Thinking(s.to_owned()));
        } else {
            // Whitespace between the reasoning and the answer is not worth showing.
            let s = if self.answered { s } else { s.trim_start() };
            if s.is_empty() {
                return;
            }
            self.answered = true;
            parts.push(Part::Text(s.to_owned()));
        }
    }
}

/// Length of the longest end of `buf` that begins `tag` (a tag split across deltas).
fn partial_tag_len(buf: &str, tag: &str) -> usize {
    (1..tag.len())
        .rev()
        .find(|&n| {
            buf.len() >= n
                && buf.is_char_boundary(buf.len() - n)
                && tag.starts_with(&buf[buf.len() - n..])
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(pieces: &[&str]) -> (String, String) {
        let mut s = ThinkSplitter::default();
        let mut parts = Vec::new();
        for p in pieces {
            parts.extend(s.push(p));
        }
        parts.extend(s.finish());
        let mut thinking = String::new();
        let mut text = String::new();
        for p in parts {
            match p {
                Part::Thinking(t) => thinking.push_str(&t),
                Part::Text(t) => text.push_str(&t),
            }
        }
        (thinking, text)
    }

    #[test]
    fn splits_reasoning_from_the_answer_at_any_chunking() {
        let whole = "<think>\nplan é</think>\n\nThe answer.";
        for n in 1..whole.len() {
            let pieces: Vec<&str> = whole
                .char_indices()
                .collect::<Vec<_>>()
                .chunks(n)
                .map(|c| {
                    let start = c[0].0;
                    let end = c.last().map(|(i, ch)| i + ch.len_utf8()).unwrap_or(start);
                    &whole[start..end]
                })
                .collect();
            assert_eq!(
                split(&pieces),
                ("\nplan é".into(), "The answer.".into()),
                "n={n}"
            );
        }
    }

    #[test]
    fn text_without_tags_passes_through() {
        assert_eq!(
            split(&["Hello ", "<thin", "gs>"]),
            (String::new(), "Hello <things>".into())
        );
        assert_eq!(
            split(&["a <", "think> in an answer"]),
            (String::new(), "a <think> in an answer".into())
        );
    }

    #[test]
    fn an_unclosed_block_is_all_reasoning() {
        assert_eq!(
            split(&["<think>still going</th"]),
            ("still going</th".into(), String::new())
        );
    }
}
