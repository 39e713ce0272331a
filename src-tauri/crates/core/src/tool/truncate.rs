/// Share of the kept characters taken from the start; the rest comes from the end.
const HEAD_SHARE_PERCENT: usize = 70;

/// Cuts `text` to about `max_chars` characters, keeping ~70% head and ~30% tail around a
/// marker that says how many characters were cut. Counts characters, never splits one.
pub fn truncate_middle(text: &str, max_chars: usize) -> String {
    if text.len() <= max_chars {
        return text.to_owned();
    }
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_owned();
    }
    let head_chars = max_chars * HEAD_SHARE_PERCENT / 100;
    let tail_chars = max_chars - head_chars;
    let cut = total - head_chars - tail_chars;
    let head_end = byte_offset(text, head_chars);
    let tail_start = byte_offset(text, total - tail_chars);
    format!(
        "{}\n\n[... {cut} characters truncated ...]\n\n{}",
        &text[..head_end],
        &text[tail_start..]
    )
}

/// [`truncate_middle`] for an owned text: returned as it is (no copy, no count past the
/// limit) when it fits, as most outputs do.
pub fn truncate_middle_owned(text: String, max_chars: usize) -> String {
    // Bytes bound characters: short texts need no counting at all.
    if text.len() <= max_chars || text.chars().nth(max_chars).is_none() {
        return text;
    }
    truncate_middle(&text, max_chars)
}

fn byte_offset(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(offset, _)| offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_texts_that_fit_are_kept_and_long_ones_cut_like_borrowed() {
        let short = "héllo".to_owned();
        let ptr = short.as_ptr();
        let kept = truncate_middle_owned(short, 5);
        assert_eq!((kept.as_str(), kept.as_ptr()), ("héllo", ptr), "no copy");
        let long = "é".repeat(50);
        assert_eq!(
            truncate_middle_owned(long.clone(), 10),
            truncate_middle(&long, 10)
        );
        assert_ne!(truncate_middle(&long, 10), long);
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
