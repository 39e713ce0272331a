//! A fast reading of the commands agents send most: simple commands of plain, quoted and
//! `$NAME` words joined by `&&`, `||`, `;`, `|`, `&` and newlines, with file redirections.
//!
//! brush-parser spends ~140 µs on a 2,000-character chain of such commands (it tokenizes
//! character by character and allocates per token). This splits them into words and
//! operators in a few µs and hands each word to the same word reading and the same walker.
//! Only the splitting is new, and it takes nothing it is unsure of: substitutions, escapes,
//! comments, parentheses, here-docs, reserved words, unusual redirections and unquoted
//! non-ASCII all return `None`, and the full grammar reads the text. A differential test
//! (corpus, unit cases, random commands) holds the two readings to the same result.

/// Words that open or close bash's compound commands, or change how a pipeline runs, when
/// they stand where a command name would.
const RESERVED: [&str; 22] = [
    "!", "[[", "]]", "{", "}", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for",
    "function", "if", "in", "select", "then", "time", "until", "while",
];

/// One simple command, as slices of the text.
#[derive(Debug)]
pub(super) struct Simple<'a> {
    pub items: Vec<Item<'a>>,
    /// The byte span over its words and redirection targets (what brush-parser's word
    /// locations span), for quoting it in a `why`.
    pub start: usize,
    pub end: usize,
    /// The previous command's output is its input.
    pub piped: bool,
}

#[derive(Debug)]
pub(super) enum Item<'a> {
    /// `NAME=value` before the command name.
    Assign {
        name: &'a str,
        value: &'a str,
    },
    Word(&'a str),
    /// A file redirection's target; `dup` for `>&`/`<&`, whose number targets copy a
    /// descriptor.
    Redirect {
        target: &'a str,
        dup: bool,
    },
}

/// Splits `text` into simple commands, or `None` when it holds anything outside the subset
/// (or anything that does not parse, which the full grammar then reports).
pub(super) fn split(text: &str) -> Option<Vec<Simple<'_>>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut cur: Option<Simple<'_>> = None;
    // After `&&`, `||` or `|`, a command must follow (newlines may come first).
    let mut joined = false;
    let mut piped = false;
    let mut i = 0;
    loop {
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        let Some(&c) = b.get(i) else { break };
        let next = b.get(i + 1).copied();
        match c {
            b'\n' => {
                i += 1;
                if joined {
                    continue;
                }
                if let Some(cmd) = cur.take() {
                    out.push(check(cmd)?);
                }
            }
            b';' | b'|' | b'&' if !(c == b'&' && next == Some(b'>')) => {
                let (len, joins) = match (c, next) {
                    (b'&', Some(b'&')) | (b'|', Some(b'|')) => (2, true),
                    (b'|', Some(b'&')) | (b';', Some(b';' | b'&')) => return None,
                    (b'|', _) => (1, true),
                    _ => (1, false),
                };
                i += len;
                out.push(check(cur.take()?)?);
                joined = joins;
                piped = c == b'|' && len == 1;
            }
            b'<' | b'>' | b'&' => {
                let (target, dup, at, end) = redirect(text, i)?;
                let cmd = start(&mut cur, &mut joined, &mut piped, at);
                cmd.items.push(Item::Redirect { target, dup });
                cmd.end = end;
                i = end;
            }
            _ => {
                let end = word_end(b, i)?;
                let raw = &text[i..end];
                if matches!(b.get(end), Some(b'<' | b'>')) {
                    // `2>x` names a descriptor; `a>x` and `{fd}>x` are left to the grammar.
                    if !raw.bytes().all(|d| d.is_ascii_digit()) {
                        return None;
                    }
                    let (target, dup, at, after) = redirect(text, end)?;
                    let cmd = start(&mut cur, &mut joined, &mut piped, at);
                    cmd.items.push(Item::Redirect { target, dup });
                    cmd.end = after;
                    i = after;
                    continue;
                }
                let cmd = start(&mut cur, &mut joined, &mut piped, i);
                let before_name = cmd.items.iter().all(|item| !matches!(item, Item::Word(_)));
                let item = match before_name.then(|| assignment(raw)) {
                    Some(Some((name, value))) => Item::Assign { name, value },
                    // `A+=1`, `a[1]=x`, `'A'=x`: assignments the grammar reads its own way.
                    Some(None) if raw.contains('=') => return None,
                    Some(None) if RESERVED.contains(&raw) => return None,
                    _ => Item::Word(raw),
                };
                cmd.items.push(item);
                cmd.end = end;
                i = end;
            }
        }
    }
    if joined {
        return None;
    }
    if let Some(cmd) = cur {
        out.push(check(cmd)?);
    }
    Some(out)
}

/// The command being read, started at `at` if none is.
fn start<'s, 'a>(
    cur: &'s mut Option<Simple<'a>>,
    joined: &mut bool,
    piped: &mut bool,
    at: usize,
) -> &'s mut Simple<'a> {
    let was_piped = std::mem::take(piped);
    *joined = false;
    cur.get_or_insert_with(|| Simple {
        items: Vec::new(),
        start: at,
        end: at,
        piped: was_piped,
    })
}

/// A finished command must run or assign something (a bare redirection is left to the
/// grammar).
fn check(cmd: Simple<'_>) -> Option<Simple<'_>> {
    let runs = cmd
        .items
        .iter()
        .any(|item| matches!(item, Item::Word(_) | Item::Assign { .. }));
    runs.then_some(cmd)
}

/// Reads a redirection operator at `i` and its target: (target, dup, start and end of the
/// target).
fn redirect(text: &str, mut i: usize) -> Option<(&str, bool, usize, usize)> {
    let b = text.as_bytes();
    let op = |at: usize| b.get(at).copied();
    let dup = match (op(i), op(i + 1)) {
        (Some(b'&'), Some(b'>')) => {
            i += if op(i + 2) == Some(b'>') { 3 } else { 2 };
            false
        }
        (Some(b'>' | b'<'), Some(b'&')) => {
            i += 2;
            true
        }
        (Some(b'>'), Some(b'>')) => {
            i += 2;
            false
        }
        (Some(b'>'), Some(b'|' | b'(')) | (Some(b'<'), Some(b'<' | b'>' | b'(')) => return None,
        (Some(b'>' | b'<'), _) => {
            i += 1;
            false
        }
        _ => return None,
    };
    while matches!(op(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    let end = word_end(b, i)?;
    if end == i || matches!(op(end), Some(b'<' | b'>')) {
        return None;
    }
    Some((&text[i..end], dup, i, end))
}

/// The end of the word starting at `i`, or `None` when it holds anything this reader leaves
/// to the grammar.
fn word_end(b: &[u8], mut i: usize) -> Option<usize> {
    let start = i;
    while let Some(&c) = b.get(i) {
        match c {
            b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' => break,
            b'\'' => {
                i += 1 + b.get(i + 1..)?.iter().position(|&q| q == b'\'')?;
            }
            b'"' => loop {
                i += 1;
                match b.get(i)? {
                    b'"' => break,
                    b'`' | b'\\' => return None,
                    b'$' if !plain_dollar(b.get(i + 1).copied()) => return None,
                    _ => {}
                }
            },
            b'$' if !plain_dollar(b.get(i + 1).copied()) => return None,
            b'`' | b'\\' | b'(' | b')' | b'#' => return None,
            c if !(0x20..0x7f).contains(&c) => return None,
            _ => {}
        }
        i += 1;
    }
    (i > start).then_some(i)
}

/// Whether a `$` followed by `next` is a plain parameter or a literal dollar: not `$(`,
/// `${`, `$[`, `$'…'` or `$"…"`, which hold text this reader does not split.
fn plain_dollar(next: Option<u8>) -> bool {
    !matches!(next, Some(b'(' | b'{' | b'[' | b'\'' | b'"'))
}

/// `NAME=value` with a plain name (an unquoted, unsubscripted one), as (name, value).
fn assignment(raw: &str) -> Option<(&str, &str)> {
    let (name, value) = raw.split_once('=')?;
    let mut chars = name.bytes();
    let first = chars.next()?;
    let valid = (first.is_ascii_alphabetic() || first == b'_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == b'_');
    valid.then_some((name, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(text: &str) -> Option<Vec<(Vec<String>, bool, &str)>> {
        let cmds = split(text)?;
        Some(
            cmds.iter()
                .map(|c| {
                    let items = c
                        .items
                        .iter()
                        .map(|item| match item {
                            Item::Assign { name, value } => format!("{name}={value}"),
                            Item::Word(w) => (*w).to_owned(),
                            Item::Redirect { target, dup } => {
                                format!("{}{target}", if *dup { ">&" } else { ">" })
                            }
                        })
                        .collect();
                    (items, c.piped, &text[c.start..c.end])
                })
                .collect(),
        )
    }

    #[test]
    fn splits_chains_words_and_redirections() {
        let got =
            shape("A=1 cargo test 2>&1 | tail -n 5 && ls 'a b' >x; echo \"$HOME/x\" &").unwrap();
        let items: Vec<Vec<String>> = got.iter().map(|g| g.0.clone()).collect();
        assert_eq!(
            items,
            vec![
                vec!["A=1", "cargo", "test", ">&1"],
                vec!["tail", "-n", "5"],
                vec!["ls", "'a b'", ">x"],
                vec!["echo", "\"$HOME/x\""],
            ]
        );
        let piped: Vec<bool> = got.iter().map(|g| g.1).collect();
        assert_eq!(piped, [false, true, false, false]);
        assert_eq!(got[0].2, "A=1 cargo test 2>&1");
        assert_eq!(got[2].2, "ls 'a b' >x");
    }

    #[test]
    fn leaves_everything_else_to_the_grammar() {
        for text in [
            "echo $(date)",
            "echo `date`",
            "echo ${HOME}",
            "echo \"$(date)\"",
            "echo a\\ b",
            "(ls)",
            "f() { ls; }",
            "ls # comment",
            "cat <<EOF\nx\nEOF",
            "cat <<< x",
            "diff <(ls) x",
            "if true; then ls; fi",
            "{ ls; }",
            "! ls",
            "time ls",
            "A=1 for x in y; do ls; done",
            "ls |& cat",
            "ls &&",
            "&& ls",
            "ls ;; x",
            "ls; ; x",
            "ls | | x",
            "echo >",
            "echo a>x",
            "echo {fd}>x",
            "> x",
            "echo 'unclosed",
            "echo \"unclosed",
            "echo é",
            "echo a\rb",
            "echo $'x'",
            "a[1]=x ls",
            "A+=1 ls",
            "'A'=1 ls",
            "=x y",
            "echo $[1+2]",
            "x=(1 2)",
            "echo >| x",
            "echo <> x",
        ] {
            assert!(split(text).is_none(), "{text:?} was split");
        }
    }

    #[test]
    fn keeps_what_it_can_read() {
        for text in [
            "",
            "\n\n",
            "ls &&\n  cat x",
            "ls ; echo 'é ü' \"日本\"",
            "echo $HOME $1 $? $$ \"$x\" $",
            "echo if; echo then",
            "echo a=b; echo =x y",
            "ls &>/dev/null; ls &>> log",
            "ls >&2 2>&- <&0",
            "echo *.rs {a,b} ~/x [ab]",
            "ls &",
        ] {
            assert!(split(text).is_some(), "{text:?} was not split");
        }
    }
}
