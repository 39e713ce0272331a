//! What a fetched body becomes for the model: text types only (the type named when it is
//! refused), gzip undone within a bound, the charset decoded, HTML converted to Markdown
//! (htmd) without scripts and styles, and the whole cut to a size a context can hold.

use std::cell::RefCell;
use std::io::Read;
use std::rc::Rc;
use std::time::{Duration, Instant};

use htmd::options::{BulletListMarker, Options};
use htmd::{HtmlToMarkdown, Node};
use html5ever::tendril::{StrTendril, TendrilSink};
use markup5ever_rcdom::{NodeData, RcDom};

/// Bytes a gzip body may grow to once undone (a small body can expand enormously).
pub const MAX_DECODED_BYTES: usize = 10 * 1024 * 1024;
/// Elements nested deeper than this are shown as their plain text: the converter walks the
/// tree recursively, and a page of thousands of nested `<div>`s must not overflow it.
pub const MAX_HTML_DEPTH: usize = 256;
/// How long parsing a page may take. The HTML parser's work grows with the square of how
/// deeply elements nest (every tag looks through the elements open around it), so a hostile
/// page of nested tags could hold a core for minutes; past this the page is shown as text
/// without its markup instead.
pub const PARSE_BUDGET: Duration = Duration::from_secs(5);
/// Bytes given to the parser at a time, between looks at the clock.
const PARSE_CHUNK: usize = 1024;
/// The converter's own thread's stack, comfortably above what `MAX_HTML_DEPTH` needs.
const CONVERT_STACK_BYTES: usize = 32 * 1024 * 1024;
/// Bytes looked at to tell binary from text when the server names no type.
const SNIFF_BYTES: usize = 8192;
/// Elements whose content is not reading matter.
const SKIPPED_TAGS: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed", "head",
];
/// Types outside `text/*` that are text.
const TEXT_TYPES: &[&str] = &[
    "application/json",
    "application/ld+json",
    "application/xml",
    "application/javascript",
    "application/x-javascript",
    "application/ecmascript",
    "application/x-ndjson",
    "application/jsonl",
    "application/yaml",
    "application/x-yaml",
    "application/toml",
    "application/x-toml",
    "application/x-sh",
    "application/x-shellscript",
    "application/sql",
    "application/graphql",
    "application/x-tex",
    "application/x-httpd-php",
];

/// How a body is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Converted to Markdown.
    Html,
    /// Returned as it is.
    Text,
}

/// The kind of a body of type `content_type` (a `Content-Type` value), or why web_fetch
/// does not return it. `None`: the server named no type; the body decides (`sniff`).
pub fn kind_of(content_type: &str) -> Result<Kind, String> {
    let essence = essence(content_type);
    if essence == "text/html" || essence == "application/xhtml+xml" {
        Ok(Kind::Html)
    } else if essence.starts_with("text/")
        || essence.ends_with("+json")
        || essence.ends_with("+xml")
        || TEXT_TYPES.contains(&essence.as_str())
    {
        Ok(Kind::Text)
    } else {
        Err(format!(
            "the content is `{essence}`, not text: web_fetch returns text only (HTML, plain \
             text, JSON, XML, source code)"
        ))
    }
}

/// The kind of a body the server named no type for: binary (a NUL byte early on) is
/// refused, a document that starts like HTML is HTML, the rest is text.
pub fn sniff(bytes: &[u8]) -> Result<Kind, String> {
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    if head.contains(&0) {
        return Err(
            "the server named no type and the content looks binary: web_fetch \
                    returns text only"
                .into(),
        );
    }
    let start = String::from_utf8_lossy(&head[..head.len().min(512)])
        .trim_start()
        .to_ascii_lowercase();
    match start.starts_with("<!doctype html") || start.starts_with("<html") {
        true => Ok(Kind::Html),
        false => Ok(Kind::Text),
    }
}

/// `text/html` of `Text/HTML; charset=UTF-8`.
fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// The body without its `Content-Encoding` (gzip, the only one asked for), bounded by
/// `MAX_DECODED_BYTES`; a note when it was cut or broken. Another encoding is refused.
pub fn undo_encoding(
    bytes: Vec<u8>,
    encoding: Option<&str>,
) -> Result<(Vec<u8>, Option<String>), String> {
    let encoding = encoding.map(|e| e.trim().to_ascii_lowercase());
    match encoding.as_deref() {
        None | Some("" | "identity") => Ok((bytes, None)),
        Some("gzip" | "x-gzip") => {
            let mut out = Vec::new();
            let limit = u64::try_from(MAX_DECODED_BYTES).unwrap_or(u64::MAX) + 1;
            let read = flate2::read::GzDecoder::new(bytes.as_slice())
                .take(limit)
                .read_to_end(&mut out);
            let note = match read {
                Err(e) if out.is_empty() => {
                    return Err(format!("the gzip body could not be read: {e}"));
                }
                Err(_) => Some("the gzip body ended early; what could be read is shown".to_owned()),
                Ok(_) if out.len() > MAX_DECODED_BYTES => {
                    out.truncate(MAX_DECODED_BYTES);
                    Some(format!(
                        "the body grows beyond {} MB once unzipped; the first {} MB are shown",
                        MAX_DECODED_BYTES / (1024 * 1024),
                        MAX_DECODED_BYTES / (1024 * 1024)
                    ))
                }
                Ok(_) => None,
            };
            Ok((out, note))
        }
        Some(other) => Err(format!(
            "the server sent the body encoded as `{other}`, which web_fetch did not ask for and \
             does not decode"
        )),
    }
}

/// Text of `bytes` in the charset `content_type` names (or an HTML page declares in its
/// first bytes, or a byte-order mark says), UTF-8 otherwise; bad sequences become U+FFFD.
pub fn decode(bytes: &[u8], content_type: Option<&str>, kind: Kind) -> String {
    let declared = content_type
        .and_then(charset_param)
        .or_else(|| (kind == Kind::Html).then(|| meta_charset(bytes)).flatten());
    let encoding = declared
        .and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8);
    encoding.decode(bytes).0.into_owned()
}

fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches(['"', '\'']).to_owned())
    })
}

/// `<meta charset="…">` or `<meta http-equiv content="…; charset=…">` in the first KB.
fn meta_charset(bytes: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(1024)]).to_ascii_lowercase();
    let at = head.find("charset=")? + "charset=".len();
    let value: String = head[at..]
        .trim_start_matches(['"', '\''])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
        .collect();
    (!value.is_empty()).then_some(value)
}

/// Markdown of an HTML page, on a thread of its own with a large stack (the converter
/// recurses); a failure or panic of the converter is an error, never a crash.
pub async fn html_to_markdown(html: String) -> Result<String, String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("web_fetch-markdown".into())
        .stack_size(CONVERT_STACK_BYTES)
        .spawn(move || {
            let _ = tx.send(convert(&html));
        })
        .map_err(|e| format!("could not start the HTML conversion: {e}"))?;
    rx.await
        .map_err(|_| "the HTML conversion stopped unexpectedly".to_owned())
}

fn convert(html: &str) -> String {
    let options = Options {
        bullet_list_marker: BulletListMarker::Dash,
        ul_bullet_spacing: 1,
        ol_number_spacing: 1,
        ..Options::default()
    };
    let converter = HtmlToMarkdown::builder()
        .options(options)
        .skip_tags(SKIPPED_TAGS.to_vec())
        .build();
    let Some(tree) = parse(html, PARSE_BUDGET) else {
        return format!(
            "[the page took longer than {} s to read as HTML (elements nested very deeply); it \
             is shown as text without its markup]\n\n{}",
            PARSE_BUDGET.as_secs(),
            strip_tags(html)
        );
    };
    let pruned = prune(&tree, MAX_HTML_DEPTH);
    let mut markdown = converter.tree_to_markdown(&tree);
    if pruned > 0 {
        let parts = if pruned == 1 { "part" } else { "parts" };
        markdown.push_str(&format!(
            "\n\n[{pruned} {parts} of the page nested deeper than {MAX_HTML_DEPTH} levels \
             shown as plain text]"
        ));
    }
    markdown
}

/// The document tree of `html`, or `None` when parsing takes longer than `budget`.
fn parse(html: &str, budget: Duration) -> Option<Rc<Node>> {
    let started = Instant::now();
    let mut parser = html5ever::parse_document(RcDom::default(), Default::default());
    let mut rest = html;
    while !rest.is_empty() {
        let mut end = rest.len().min(PARSE_CHUNK);
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (chunk, tail) = rest.split_at(end);
        parser.process(StrTendril::from_slice(chunk));
        rest = tail;
        if started.elapsed() > budget {
            return None;
        }
    }
    Some(parser.finish().document)
}

/// The text of `html` without tags, comments, scripts and styles, in one pass: what is
/// shown of a page too costly to parse.
fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let lower = html.to_ascii_lowercase();
    let mut at = 0;
    while let Some(open) = html[at..].find('<').map(|i| at + i) {
        out.push_str(&html[at..open]);
        let skip_to = |end: &str| lower[open..].find(end).map(|i| open + i + end.len());
        let next = if lower[open..].starts_with("<!--") {
            skip_to("-->")
        } else if lower[open..].starts_with("<script") {
            skip_to("</script>")
        } else if lower[open..].starts_with("<style") {
            skip_to("</style>")
        } else {
            out.push(' ');
            skip_to(">")
        };
        match next {
            Some(next) => at = next,
            None => return collapse(&out),
        }
    }
    out.push_str(&html[at..]);
    collapse(&out)
}

/// Runs of blank space as one space, runs of blank lines as one.
fn collapse(text: &str) -> String {
    let lines: Vec<String> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let mut out = String::new();
    for line in lines {
        if line.is_empty() {
            if !out.ends_with("\n\n") && !out.is_empty() {
                out.push('\n');
            }
            continue;
        }
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&line);
    }
    out.trim().to_owned()
}

/// Flattens what lies deeper than `depth` below `root` (without recursion) to its text;
/// how many nodes were flattened.
fn prune(root: &Rc<Node>, depth: usize) -> usize {
    let mut pruned = 0;
    let mut stack = vec![(root.clone(), 0usize)];
    while let Some((node, level)) = stack.pop() {
        if level < depth {
            stack.extend(
                node.children
                    .borrow()
                    .iter()
                    .map(|c| (c.clone(), level + 1)),
            );
            continue;
        }
        if node.children.borrow().is_empty() {
            continue;
        }
        let text = text_of(&node);
        let flat = Node::new(NodeData::Text {
            contents: RefCell::new(StrTendril::from_slice(&text)),
        });
        flat.parent.set(Some(Rc::downgrade(&node)));
        *node.children.borrow_mut() = vec![flat];
        pruned += 1;
    }
    pruned
}

/// The text below `node`, scripts and styles left out, without recursion.
fn text_of(node: &Rc<Node>) -> String {
    let mut text = String::new();
    let mut stack: Vec<Rc<Node>> = node.children.borrow().iter().rev().cloned().collect();
    while let Some(node) = stack.pop() {
        match &node.data {
            NodeData::Text { contents } => text.push_str(&contents.borrow()),
            NodeData::Element { name, .. } if SKIPPED_TAGS.contains(&name.local.as_ref()) => {}
            _ => stack.extend(node.children.borrow().iter().rev().cloned()),
        }
    }
    text
}

/// `text` cut to `max` characters, on a line break near the end when there is one, and
/// how many characters it had.
pub fn cut(text: &str, max: usize) -> Option<(String, usize)> {
    let total = text.chars().count();
    if total <= max {
        return None;
    }
    let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    let kept = &text[..end];
    let kept = match kept.rfind('\n') {
        Some(line) if line > end / 2 => &kept[..line],
        _ => kept,
    };
    Some((kept.to_owned(), total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_types_pass_and_others_are_named() {
        assert_eq!(kind_of("text/html; charset=utf-8"), Ok(Kind::Html));
        assert_eq!(kind_of("Application/XHTML+XML"), Ok(Kind::Html));
        for t in [
            "text/plain",
            "text/markdown",
            "application/json",
            "application/vnd.api+json",
            "application/atom+xml",
            "application/javascript",
            "application/x-yaml",
        ] {
            assert_eq!(kind_of(t), Ok(Kind::Text), "{t}");
        }
        for t in [
            "application/octet-stream",
            "image/png",
            "application/pdf",
            "application/zip",
            "",
        ] {
            let why = kind_of(t).unwrap_err();
            assert!(why.contains(&format!("`{t}`")), "{why}");
        }
        assert!(sniff(b"\x89PNG\r\n\x1a\n\0\0").is_err());
        assert_eq!(sniff(b"  <!DOCTYPE html><p>x"), Ok(Kind::Html));
        assert_eq!(sniff(b"just text"), Ok(Kind::Text));
    }

    #[test]
    fn charsets_and_gzip_are_undone_within_bounds() {
        assert_eq!(
            decode(
                b"caf\xe9",
                Some("text/plain; charset=ISO-8859-1"),
                Kind::Text
            ),
            "café"
        );
        let page = b"<html><head><meta charset=\"windows-1252\"></head><body>\x93hi\x94</body>";
        assert!(decode(page, Some("text/html"), Kind::Html).contains("\u{201c}hi\u{201d}"));
        assert_eq!(decode("é".as_bytes(), None, Kind::Text), "é");

        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&vec![b'a'; MAX_DECODED_BYTES + 100]).unwrap();
        let zipped = gz.finish().unwrap();
        let (out, note) = undo_encoding(zipped.clone(), Some("gzip")).unwrap();
        assert_eq!(out.len(), MAX_DECODED_BYTES);
        assert!(note.unwrap().contains("once unzipped"));
        let (out, note) = undo_encoding(zipped[..zipped.len() / 2].to_vec(), Some("gzip")).unwrap();
        assert!(!out.is_empty() && note.unwrap().contains("ended early"));
        assert!(
            undo_encoding(b"x".to_vec(), Some("br"))
                .unwrap_err()
                .contains("`br`")
        );
    }

    #[tokio::test]
    async fn html_becomes_markdown_without_scripts_and_survives_deep_nesting() {
        let page = "<html><head><title>T</title><style>p{}</style></head><body>\
                    <h1>Hello</h1><p>See <a href=\"/docs\">the docs</a>.</p>\
                    <script>alert('x')</script><ul><li>one</li><li>two</li></ul></body></html>";
        let md = html_to_markdown(page.to_owned()).await.unwrap();
        assert_eq!(md, "# Hello\n\nSee [the docs](/docs).\n\n- one\n- two");

        let deep = format!(
            "{}deep text{}",
            "<div><span>".repeat(2000),
            "</span></div>".repeat(2000)
        );
        let md = html_to_markdown(deep).await.unwrap();
        assert!(
            md.starts_with("deep text") && md.contains("plain text"),
            "{md}"
        );
        let shallow = format!("{}kept text{}", "<div>".repeat(100), "</div>".repeat(100));
        assert_eq!(html_to_markdown(shallow).await.unwrap(), "kept text");
    }

    /// The parser's work grows with the square of the nesting: a page of 300000 nested
    /// tags would hold a core for minutes (this test took over a minute with the whole
    /// page parsed at once); cut off by the budget, it is shown as text.
    #[test]
    fn a_page_too_costly_to_parse_is_shown_as_text_within_the_budget() {
        let deep = format!("<p>start</p>{}deep text", "<span><div>".repeat(150_000));
        let started = Instant::now();
        let md = convert(&deep);
        assert!(
            started.elapsed() < PARSE_BUDGET * 3,
            "{:?}",
            started.elapsed()
        );
        assert!(
            md.contains("shown as text") && md.contains("deep text"),
            "{}",
            &md[..300]
        );
        assert_eq!(
            strip_tags("<p>a <b>b</b></p><!-- <c> --><script>x<y</script>\n\n\n<i>d</i>"),
            "a b\n\nd"
        );
    }

    #[test]
    fn long_text_is_cut_on_a_line() {
        assert_eq!(cut("short", 10), None);
        let text = format!("{}\n{}", "a".repeat(80), "b".repeat(40));
        let (kept, total) = cut(&text, 100).unwrap();
        assert_eq!((kept.len(), total), (80, 121));
        let (kept, _) = cut(&"é".repeat(50), 10).unwrap();
        assert_eq!(kept, "é".repeat(10));
    }
}
