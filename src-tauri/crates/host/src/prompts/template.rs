//! A saved prompt's text: the front-matter (`---` lines of `key: value`) and the body, and
//! the body filled in with the arguments (`$ARGUMENTS`, `$1`…`$9`). Plain text in, plain
//! text out: nothing here runs, reads or chooses anything.

/// What the front-matter says that Paddock uses. Every other key (`model`, `allowed-tools`,
/// …) is ignored: a saved prompt is only text the user sends.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Template {
    pub description: Option<String>,
    pub argument_hint: Option<String>,
    pub body: String,
}

/// `text` split into front-matter and body; `Err` says what is wrong with the front-matter.
pub fn parse(text: &str) -> Result<Template, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok(Template {
            body: text.to_owned(),
            ..Template::default()
        });
    };
    let mut template = Template::default();
    let mut offset = 0;
    for (n, line) in rest.split_inclusive('\n').enumerate() {
        offset += line.len();
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim_end() == "---" {
            template.body = rest[offset..].to_owned();
            return Ok(template);
        }
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(format!(
                "front-matter line {} is not `key: value`: {}",
                n + 2,
                crate::one_line(line, 60)
            ));
        };
        let value = unquote(value.trim());
        match key.trim() {
            "description" => template.description = Some(value).filter(|v| !v.is_empty()),
            "argument-hint" => template.argument_hint = Some(value).filter(|v| !v.is_empty()),
            _ => {}
        }
    }
    Err(
        "the front-matter opened by `---` on the first line is never closed by another `---`"
            .to_owned(),
    )
}

fn unquote(value: &str) -> String {
    for q in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(q)
            .and_then(|v| v.strip_suffix(q))
            .filter(|_| value.len() >= 2)
        {
            return inner.to_owned();
        }
    }
    value.to_owned()
}

/// The arguments as words, the way a shell splits them: whitespace separates, quotes
/// ('…' or "…") group and are removed, a backslash takes the next character as is (outside
/// single quotes). An unclosed quote runs to the end.
pub fn split_words(args: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = args.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"') | None, '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
                in_word = true;
            }
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// `body` with `$ARGUMENTS` replaced by the whole argument string and `$1`…`$9` by its
/// words (empty when missing), in one pass, so an argument's own `$1` stays as typed. A body
/// with no placeholder at all gets the arguments appended (`ARGUMENTS: …`, as Claude Code
/// does), so they are never dropped silently.
pub fn fill(body: &str, args: &str) -> String {
    let args = args.trim();
    let words = split_words(args);
    let mut out = String::with_capacity(body.len() + args.len());
    let mut used = false;
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(args);
            rest = tail;
            used = true;
        } else if let Some(d) = after.chars().next().filter(|c| matches!(c, '1'..='9')) {
            let index = d as usize - '1' as usize;
            out.push_str(words.get(index).map(String::as_str).unwrap_or(""));
            rest = &after[1..];
            used = true;
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    if !used && !args.is_empty() {
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        out.push_str("\n\nARGUMENTS: ");
        out.push_str(args);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_gives_description_and_hint_and_ignores_the_rest() {
        let t = parse(
            "---\ndescription: \"Review a file\"\nargument-hint: [file]\nmodel: evil\n\
             allowed-tools: Bash(rm:*)\n---\nReview $1.\n",
        )
        .unwrap();
        assert_eq!(t.description.as_deref(), Some("Review a file"));
        assert_eq!(t.argument_hint.as_deref(), Some("[file]"));
        assert_eq!(t.body, "Review $1.\n");
        assert_eq!(parse("plain\n").unwrap().body, "plain\n");
        assert!(
            parse("---\ndescription: x\n")
                .unwrap_err()
                .contains("never closed")
        );
        assert!(
            parse("---\nnot a pair\n---\n")
                .unwrap_err()
                .contains("line 2")
        );
    }

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(
            split_words(r#"a "b c" 'd "e"' f\ g """#),
            ["a", "b c", "d \"e\"", "f g", ""]
        );
        assert!(split_words("   ").is_empty());
    }

    #[test]
    fn arguments_are_filled_in_once() {
        assert_eq!(
            fill("Fix $1 in $2 ($ARGUMENTS)$3.", "\"the bug\" src/a.rs"),
            "Fix the bug in src/a.rs (\"the bug\" src/a.rs)."
        );
        assert_eq!(fill("Say $1", "$2 x"), "Say $2");
        assert_eq!(fill("Costs $5.", ""), "Costs .");
        assert_eq!(fill("Cost $ and $x", ""), "Cost $ and $x");
        assert_eq!(
            fill("Review.\n", "main.rs"),
            "Review.\n\nARGUMENTS: main.rs"
        );
        assert_eq!(fill("Review.\n", "  "), "Review.\n");
    }
}
