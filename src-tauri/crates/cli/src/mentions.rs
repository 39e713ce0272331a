//! `@path` in a headless prompt: the files and folders it names go with it, as the app's
//! composer attaches them.

use paddock_protocol::PromptAttachment;

/// Characters a sentence may put right after a path.
const TRAILING: &[char] = &[',', '.', ';', ':', ')', '!', '?', '"', '\''];

/// Every `@path` of `prompt` that starts a word (an address like `a@b.c` is not one).
pub fn attachments_in(prompt: &str) -> Vec<PromptAttachment> {
    let mut out: Vec<PromptAttachment> = Vec::new();
    for word in prompt.split_whitespace() {
        let Some(path) = word.strip_prefix('@') else {
            continue;
        };
        let path = path.trim_end_matches(TRAILING);
        if path.is_empty() || path.starts_with('@') {
            continue;
        }
        let attachment = PromptAttachment::Mention {
            path: path.to_owned(),
        };
        if !out.contains(&attachment) {
            out.push(attachment);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_starting_with_at_name_paths() {
        let paths: Vec<String> = attachments_in(
            "Explain @src/main.rs, then @docs/ (and @src/main.rs again); mail me@example.com @",
        )
        .into_iter()
        .filter_map(|a| match a {
            PromptAttachment::Mention { path } => Some(path),
            PromptAttachment::Image { .. } => None,
        })
        .collect();
        assert_eq!(paths, ["src/main.rs", "docs/"]);
    }
}
