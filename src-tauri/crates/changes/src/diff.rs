//! A file's change as data: line hunks with context for text, sizes for binary and very
//! large files. The same function serves an edit's result, its approval preview, a run's
//! changes and a rewind's preview, so they always agree.

use std::time::{Duration, Instant};

use paddock_protocol::{ChangeKind, DiffBody, DiffHunk, DiffLine, FileChange, LineEnd, LineOp};
use similar::{Algorithm, ChangeTag, TextDiff};

/// Files larger than this (either side) are summarized, not diffed.
pub const MAX_DIFF_BYTES: usize = 1024 * 1024;
/// A diff with more lines than this (context included) is summarized.
pub const MAX_DIFF_LINES: usize = 5_000;
/// Unchanged lines shown around each change.
pub const CONTEXT_LINES: usize = 3;
/// Time the line matcher may take before it settles for a coarser diff.
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// The change from `old` to `new` (`None`: the file does not exist on that side) of the file
/// at `path`. Both `None` reads as an empty modification.
pub fn file_change(path: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> FileChange {
    let kind = match (old, new) {
        (None, Some(_)) => ChangeKind::Created,
        (Some(_), None) => ChangeKind::Deleted,
        _ => ChangeKind::Modified,
    };
    let (old, new) = (old.unwrap_or_default(), new.unwrap_or_default());
    let (added, removed, diff) = body(old, new);
    FileChange {
        path: path.to_owned(),
        kind,
        added,
        removed,
        mode: None,
        diff,
    }
}

fn body(old: &[u8], new: &[u8]) -> (u32, u32, DiffBody) {
    let sizes = || (len64(old), len64(new));
    let (Some(old_text), Some(new_text)) = (as_text(old), as_text(new)) else {
        let (old_bytes, new_bytes) = sizes();
        return (
            0,
            0,
            DiffBody::Binary {
                old_bytes,
                new_bytes,
            },
        );
    };
    if old.len() > MAX_DIFF_BYTES || new.len() > MAX_DIFF_BYTES {
        let (old_bytes, new_bytes) = sizes();
        return (
            0,
            0,
            DiffBody::TooLarge {
                old_bytes,
                new_bytes,
            },
        );
    }
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .deadline(Instant::now() + DIFF_DEADLINE)
        .diff_lines(old_text, new_text);
    let (mut added, mut removed, mut shown) = (0u32, 0u32, 0usize);
    let mut hunks = Vec::new();
    for group in diff.grouped_ops(CONTEXT_LINES) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let mut lines = Vec::new();
        for op in &group {
            for change in diff.iter_changes(op) {
                let op = match change.tag() {
                    ChangeTag::Equal => LineOp::Context,
                    ChangeTag::Insert => {
                        added += 1;
                        LineOp::Added
                    }
                    ChangeTag::Delete => {
                        removed += 1;
                        LineOp::Removed
                    }
                };
                shown += 1;
                if shown <= MAX_DIFF_LINES {
                    lines.push(line(op, change.value()));
                }
            }
        }
        hunks.push(DiffHunk {
            old_start: start(&old_range),
            old_lines: count(old_range.len()),
            new_start: start(&new_range),
            new_lines: count(new_range.len()),
            lines,
        });
    }
    if shown > MAX_DIFF_LINES {
        let (old_bytes, new_bytes) = sizes();
        return (
            added,
            removed,
            DiffBody::TooLarge {
                old_bytes,
                new_bytes,
            },
        );
    }
    (added, removed, DiffBody::Text { hunks })
}

/// Text is valid UTF-8 without NUL bytes.
fn as_text(bytes: &[u8]) -> Option<&str> {
    if bytes.contains(&0) {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

fn line(op: LineOp, value: &str) -> DiffLine {
    let (text, end) = match value.strip_suffix('\n') {
        Some(body) => match body.strip_suffix('\r') {
            Some(body) => (body, Some(LineEnd::Crlf)),
            None => (body, None),
        },
        None => match value.strip_suffix('\r') {
            Some(body) => (body, Some(LineEnd::Cr)),
            None => (value, Some(LineEnd::Missing)),
        },
    };
    DiffLine {
        op,
        text: text.to_owned(),
        end,
    }
}

/// Unified-diff numbering: 1-based, and an empty side names the line before it.
fn start(range: &std::ops::Range<usize>) -> u32 {
    if range.is_empty() {
        count(range.start)
    } else {
        count(range.start + 1)
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn len64(bytes: &[u8]) -> u64 {
    u64::try_from(bytes.len()).unwrap_or(u64::MAX)
}

/// The change as a unified diff (`--- a/path`, `+++ b/path`, hunks), for the CLI and for
/// applying with other tools.
pub fn unified(change: &FileChange) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let (a, b) = match change.kind {
        ChangeKind::Created => ("/dev/null".to_owned(), format!("b/{}", change.path)),
        ChangeKind::Deleted => (format!("a/{}", change.path), "/dev/null".to_owned()),
        ChangeKind::Modified => (format!("a/{}", change.path), format!("b/{}", change.path)),
    };
    let _ = writeln!(out, "--- {a}\n+++ {b}");
    match &change.diff {
        DiffBody::Text { hunks } => {
            for h in hunks {
                let _ = writeln!(
                    out,
                    "@@ -{},{} +{},{} @@",
                    h.old_start, h.old_lines, h.new_start, h.new_lines
                );
                for l in &h.lines {
                    let sign = match l.op {
                        LineOp::Context => ' ',
                        LineOp::Added => '+',
                        LineOp::Removed => '-',
                    };
                    let end = match l.end {
                        Some(LineEnd::Crlf) => "\r\n",
                        Some(LineEnd::Cr) => "\r",
                        _ => "\n",
                    };
                    let _ = write!(out, "{sign}{}{end}", l.text);
                    if l.end == Some(LineEnd::Missing) {
                        out.push_str("\\ No newline at end of file\n");
                    }
                }
            }
        }
        DiffBody::Binary {
            old_bytes,
            new_bytes,
        } => {
            let _ = writeln!(out, "Binary file ({old_bytes} -> {new_bytes} bytes)");
        }
        DiffBody::TooLarge {
            old_bytes,
            new_bytes,
        } => {
            let _ = writeln!(
                out,
                "Too large to show ({old_bytes} -> {new_bytes} bytes, +{} -{} lines)",
                change.added, change.removed
            );
        }
        DiffBody::Link { old, new } => {
            let _ = writeln!(
                out,
                "Symbolic link: {} -> {}",
                old.as_deref().unwrap_or("(none)"),
                new.as_deref().unwrap_or("(none)")
            );
        }
        DiffBody::Folder => {
            let _ = writeln!(out, "Folder");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(change: &FileChange) -> String {
        unified(change)
    }

    #[test]
    fn created_file_is_one_hunk_of_additions() {
        let c = file_change("a.txt", None, Some(b"one\ntwo\n"));
        assert_eq!(c.kind, ChangeKind::Created);
        assert_eq!((c.added, c.removed), (2, 0));
        assert_eq!(
            text(&c),
            "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"
        );
    }

    #[test]
    fn deleted_file_is_one_hunk_of_removals() {
        let c = file_change("a.txt", Some(b"one\n"), None);
        assert_eq!(c.kind, ChangeKind::Deleted);
        assert_eq!((c.added, c.removed), (0, 1));
        assert_eq!(
            text(&c),
            "--- a/a.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-one\n"
        );
    }

    #[test]
    fn modification_keeps_three_lines_of_context_and_numbers() {
        let old: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 10\n", "line ten\n");
        let c = file_change("f", Some(old.as_bytes()), Some(new.as_bytes()));
        assert_eq!((c.added, c.removed), (1, 1));
        let DiffBody::Text { hunks } = &c.diff else {
            panic!("text diff expected")
        };
        assert_eq!(hunks.len(), 1);
        let h = &hunks[0];
        assert_eq!(
            (h.old_start, h.old_lines, h.new_start, h.new_lines),
            (7, 7, 7, 7)
        );
        assert_eq!(h.lines[3].op, LineOp::Removed);
        assert_eq!(h.lines[3].text, "line 10");
        assert_eq!(h.lines[4].op, LineOp::Added);
        assert_eq!(h.lines[4].text, "line ten");
    }

    #[test]
    fn crlf_lines_say_so_and_lose_no_bytes_in_the_unified_form() {
        let c = file_change("w", Some(b"a\r\nb\r\n"), Some(b"a\r\nB\r\n"));
        let DiffBody::Text { hunks } = &c.diff else {
            panic!("text diff expected")
        };
        assert!(
            hunks[0]
                .lines
                .iter()
                .all(|l| l.end == Some(LineEnd::Crlf) && !l.text.contains('\r'))
        );
        assert_eq!(
            text(&c),
            "--- a/w\n+++ b/w\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B\r\n"
        );
    }

    #[test]
    fn a_missing_final_newline_is_a_change_of_its_own() {
        let c = file_change("n", Some(b"a\nb"), Some(b"a\nb\n"));
        assert_eq!((c.added, c.removed), (1, 1));
        assert_eq!(
            text(&c),
            "--- a/n\n+++ b/n\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
        );
    }

    #[test]
    fn binary_and_huge_files_are_summarized() {
        let c = file_change("b", Some(b"\x00\x01"), Some(b"\x00\x02\x03"));
        assert_eq!(
            c.diff,
            DiffBody::Binary {
                old_bytes: 2,
                new_bytes: 3
            }
        );
        let not_utf8 = file_change("l", None, Some(&[0xff, 0xfe, b'a']));
        assert!(matches!(not_utf8.diff, DiffBody::Binary { .. }));
        let big = "x\n".repeat(MAX_DIFF_BYTES);
        let c = file_change("h", None, Some(big.as_bytes()));
        assert!(matches!(c.diff, DiffBody::TooLarge { .. }));
        let many: String = (0..MAX_DIFF_LINES + 1).map(|i| format!("{i}\n")).collect();
        let c = file_change("m", None, Some(many.as_bytes()));
        assert!(matches!(c.diff, DiffBody::TooLarge { .. }));
        assert_eq!(c.added as usize, MAX_DIFF_LINES + 1);
    }

    #[test]
    fn serializes_compactly() {
        let c = file_change("a", Some(b"x\n"), Some(b"y"));
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["diff"]["kind"], "text");
        assert!(v["diff"]["hunks"][0]["lines"][0].get("end").is_none());
        assert_eq!(v["diff"]["hunks"][0]["lines"][1]["end"], "missing");
        assert!(v.get("mode").is_none());
    }

    /// Lines as the matcher splits them: after `\n`, `\r\n` or a lone `\r`.
    fn lines_of(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let (b, mut from) = (text.as_bytes(), 0);
        for i in 0..b.len() {
            let ends = b[i] == b'\n' || (b[i] == b'\r' && b.get(i + 1) != Some(&b'\n'));
            if ends {
                out.push(&text[from..=i]);
                from = i + 1;
            }
        }
        if from < b.len() {
            out.push(&text[from..]);
        }
        out
    }

    /// Applies a text diff to `old` (test oracle): the hunks must rebuild `new` exactly.
    fn apply(old: &str, change: &FileChange) -> String {
        let DiffBody::Text { hunks } = &change.diff else {
            panic!("text diff expected")
        };
        let old_lines = lines_of(old);
        let mut out = String::new();
        let mut at = 0usize;
        for h in hunks {
            let from = if h.old_lines == 0 {
                h.old_start as usize
            } else {
                h.old_start as usize - 1
            };
            out.extend(old_lines[at..from].iter().copied());
            at = from;
            for l in &h.lines {
                let end = match l.end {
                    None => "\n",
                    Some(LineEnd::Crlf) => "\r\n",
                    Some(LineEnd::Cr) => "\r",
                    Some(LineEnd::Missing) => "",
                };
                match l.op {
                    LineOp::Context => {
                        out.push_str(&l.text);
                        out.push_str(end);
                        at += 1;
                    }
                    LineOp::Removed => at += 1,
                    LineOp::Added => {
                        out.push_str(&l.text);
                        out.push_str(end);
                    }
                }
            }
        }
        out.extend(old_lines[at..].iter().copied());
        out
    }

    proptest::proptest! {
        #[test]
        fn hunks_rebuild_the_new_text(
            old in proptest::collection::vec("[ab\\r]{0,3}\n?", 0..30),
            new in proptest::collection::vec("[ab\\r]{0,3}\n?", 0..30),
        ) {
            let (old, new) = (old.concat(), new.concat());
            let c = file_change("p", Some(old.as_bytes()), Some(new.as_bytes()));
            proptest::prop_assert_eq!(apply(&old, &c), new.clone());
            let plus = lines_of(&new).len();
            proptest::prop_assert!(c.added as usize <= plus);
        }
    }
}
