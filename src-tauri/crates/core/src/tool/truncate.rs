use paddock_protocol::SharedText;

/// Share of the kept characters taken from the start; the rest comes from the end.
const HEAD_SHARE_PERCENT: usize = 70;

/// Cuts `text` to about `max_chars` characters, keeping ~70% head and ~30% tail around a
/// marker that says how many characters were cut. Counts characters, never splits one. The
/// same buffer comes back when it fits, as most outputs do.
pub fn truncate_shared(text: SharedText, max_chars: usize) -> SharedText {
    match cut_points(&text, max_chars) {
        Some(cut) => cut.join(&text).into(),
        None => text,
    }
}

/// Where a text over the limit is cut.
struct Cut {
    head_end: usize,
    tail_start: usize,
    cut_chars: usize,
}

impl Cut {
    /// The kept head and tail around the marker, written once into a buffer of their size.
    fn join(&self, text: &str) -> String {
        use std::fmt::Write;
        let (head, tail) = (&text[..self.head_end], &text[self.tail_start..]);
        // The marker is at most 56 bytes.
        let mut out = String::with_capacity(head.len() + 56 + tail.len());
        out.push_str(head);
        // Writing to a String cannot fail.
        let _ = write!(
            out,
            "\n\n[... {} characters truncated ...]\n\n",
            self.cut_chars
        );
        out.push_str(tail);
        out
    }
}

/// `None` when `text` fits. Each character is read at most once: the head forwards, the
/// tail backwards, the cut ones in between counted.
fn cut_points(text: &str, max_chars: usize) -> Option<Cut> {
    // Bytes bound characters: short texts need no counting at all.
    if text.len() <= max_chars {
        return None;
    }
    let head_chars = max_chars * HEAD_SHARE_PERCENT / 100;
    let tail_chars = max_chars - head_chars;
    let head_end = text
        .char_indices()
        .nth(head_chars)
        .map_or(text.len(), |(offset, _)| offset);
    let tail_start = match tail_chars.checked_sub(1) {
        None => text.len(),
        Some(last) => text
            .char_indices()
            .rev()
            .nth(last)
            .map_or(0, |(offset, _)| offset),
    };
    // Head and tail meet or overlap: the whole text is within the limit.
    if tail_start <= head_end {
        return None;
    }
    Some(Cut {
        head_end,
        tail_start,
        cut_chars: text[head_end..tail_start].chars().count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cut as a `String`, for the tests.
    fn truncate_middle(text: &str, max_chars: usize) -> String {
        match cut_points(text, max_chars) {
            Some(cut) => cut.join(text),
            None => text.to_owned(),
        }
    }

    #[test]
    fn shared_texts_that_fit_are_the_same_buffer() {
        let short = SharedText::from("héllo");
        let kept = truncate_shared(short.clone(), 5);
        assert!(SharedText::ptr_eq(&kept, &short), "no copy");
        let long = "é".repeat(50);
        let cut = truncate_shared(SharedText::from(long.as_str()), 10);
        assert_eq!(cut, truncate_middle(&long, 10));
    }

    #[test]
    fn the_limit_is_exact_at_every_size() {
        for max in 0..12 {
            for len in 0..15 {
                let text: String = "aé".chars().cycle().take(len).collect();
                let out = truncate_middle(&text, max);
                if len <= max {
                    assert_eq!(out, text);
                } else {
                    let head: String = text.chars().take(max * 7 / 10).collect();
                    let tail: String = text.chars().skip(len - (max - max * 7 / 10)).collect();
                    let cut = len - max;
                    let marker = format!("\n\n[... {cut} characters truncated ...]\n\n");
                    assert_eq!(out, format!("{head}{marker}{tail}"), "len {len} max {max}");
                }
            }
        }
    }

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(truncate_middle("hello", 5), "hello");
    }

    #[test]
    fn keeps_head_and_tail_and_says_how_much_was_cut() {
        let text: String = (0..1000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let out = truncate_middle(&text, 100);
        assert!(out.starts_with(&text[..70]));
        assert!(out.ends_with(&text[970..]));
        assert!(out.contains("[... 900 characters truncated ...]"));
    }

    #[test]
    fn never_splits_a_multibyte_character() {
        let text = "é".repeat(50) + &"ü".repeat(50);
        let out = truncate_middle(&text, 10);
        assert!(out.starts_with("ééééééé\n"));
        assert!(out.ends_with("\nüüü"));
        assert!(out.contains("90 characters"));
    }
}
