//! `grep`: search file contents in the workspace with a regex, in process, on ripgrep's
//! crates (ignore for the walk, grep-regex + grep-searcher for the search).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use async_trait::async_trait;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::walk::{PathMatcher, Screen, Walk, relative_to};
use super::{blocking, path_error};
use paddock_core::{CallRules, ToolContext, ToolError, ToolOutput, TypedTool};
use paddock_guard::{PathGuard, Root, display_rel};
use paddock_sandbox::Redactor;

use crate::ToolEnv;

/// Matches returned when the call gives no limit.
pub const DEFAULT_LIMIT: usize = 100;
/// Most matches one call may ask for.
pub const MAX_LIMIT: usize = 10_000;
/// Characters kept of one matching line.
pub const MAX_LINE_CHARS: usize = 500;

/// Search the contents of files in the workspace with a regular expression (Rust regex
/// syntax, like ripgrep). Returns `path:line:text` for each matching line, paths relative
/// to the workspace root, sorted. .gitignore is honoured; .git, node_modules and binary
/// files are skipped. At most `limit` matches in total (default 100); zero matches is a
/// normal answer.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GrepInput {
    /// Regular expression to search for, e.g. `fn\s+main` or `TODO`.
    pub pattern: String,
    /// File or folder to search, relative to the workspace root (default: the whole
    /// workspace).
    pub path: Option<String>,
    /// Only search files matching this glob: `*.rs` matches file names anywhere,
    /// `src/**/*.rs` matches paths under the searched folder.
    pub include: Option<String>,
    /// Match case-insensitively (default false).
    #[serde(default)]
    pub ignore_case: bool,
    /// Treat the pattern as literal text, not a regex (default false).
    #[serde(default)]
    pub literal: bool,
    /// List only the paths of matching files, not the lines (default false).
    #[serde(default)]
    pub files_only: bool,
    /// Most matches to return in total (default 100, at most 10000).
    pub limit: Option<usize>,
}

pub struct GrepTool {
    env: Arc<ToolEnv>,
}

impl GrepTool {
    pub fn new(env: Arc<ToolEnv>) -> Self {
        Self { env }
    }
}

#[async_trait]
impl TypedTool for GrepTool {
    type Input = GrepInput;
    const NAME: &'static str = "grep";

    fn mutates(&self) -> bool {
        false
    }

    fn summary(&self, input: &Value) -> String {
        super::pattern_summary(input)
    }

    async fn run(&self, input: GrepInput, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let guard = self.env.guard();
        let redactor = Redactor::new(self.env.secrets.clone());
        let rules = self.env.rules.current();
        blocking(move || {
            grep_screened(&guard, &input, rules)
                .map(|text| ToolOutput::ok(redactor.redact_exact(&text)))
        })
        .await
    }
}

/// One matching line (or, with files_only, one matching file).
struct Hit {
    path: PathBuf,
    line: u64,
    text: String,
}

/// Runs a search and formats the answer. Public so benchmarks can call it directly.
pub fn grep(guard: &PathGuard, input: &GrepInput) -> Result<String, ToolError> {
    grep_screened(guard, input, None)
}

/// As [`grep`], leaving out what `rules` keep from the tool.
fn grep_screened(
    guard: &PathGuard,
    input: &GrepInput,
    rules: Option<Arc<dyn CallRules>>,
) -> Result<String, ToolError> {
    let limit = input.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(input.ignore_case)
        .fixed_strings(input.literal)
        .line_terminator(Some(b'\n'))
        .build(&input.pattern)
        .map_err(|e| ToolError::InvalidInput(format!("invalid regex: {e}")))?;
    let include = input
        .include
        .as_deref()
        .map(PathMatcher::new)
        .transpose()
        .map_err(ToolError::InvalidInput)?;
    let root = Arc::new(guard.open_root().map_err(path_error)?);
    let target = root
        .resolve(super::folder_or_root(input.path.as_deref()))
        .map_err(path_error)?;
    if !target.exists {
        return Err(ToolError::Failed(format!(
            "'{}' does not exist",
            target.display()
        )));
    }
    let search_dir = root.real_path().join(&target.rel);
    let found = AtomicUsize::new(0);
    let capped = AtomicBool::new(false);
    let files_only = input.files_only;
    let screen = Screen::for_tool(rules, "grep", root.real_path());
    let walk = Walk::new(&search_dir, screen).map_err(ToolError::Failed)?;
    let mut hits: Vec<Hit> = walk.collect(|| {
        let root = root.clone();
        let matcher = matcher.clone();
        let include = include.clone();
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .build();
        let (found, capped, search_dir) = (&found, &capped, &search_dir);
        move |entry, hits: &mut Vec<Hit>| {
            if let Some(include) = &include {
                let rel = relative_to(entry.path(), search_dir);
                if !include.is_match(&rel, entry.file_name()) {
                    return true;
                }
            }
            let rel = relative_to(entry.path(), root.real_path());
            search_file(
                &root,
                &rel,
                &mut searcher,
                &matcher,
                files_only,
                hits,
                found,
            );
            if found.load(Ordering::Relaxed) > limit {
                capped.store(true, Ordering::Relaxed);
                return false;
            }
            true
        }
    });
    hits.sort_unstable_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
    let capped = capped.load(Ordering::Relaxed) || hits.len() > limit;
    hits.truncate(limit);
    let mut out = format_hits(&hits, input, &target.display(), limit, capped);
    if let Some(note) = walk.skipped_note() {
        out.push_str(&format!("\n{note}"));
    }
    Ok(out)
}

fn search_file(
    root: &Root,
    rel: &std::path::Path,
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    files_only: bool,
    hits: &mut Vec<Hit>,
    found: &AtomicUsize,
) {
    // Opened beneath the root's descriptor: a file swapped for a link cannot lead out.
    let Ok(file) = root.open_rel_read(rel) else {
        return;
    };
    let mut sink = FileSink {
        path: rel,
        files_only,
        hits: Vec::new(),
        binary: false,
    };
    if searcher.search_file(matcher, &file, &mut sink).is_err() || sink.binary {
        return;
    }
    found.fetch_add(sink.hits.len(), Ordering::Relaxed);
    hits.append(&mut sink.hits);
}

/// Gathers one file's matches; binary files are dropped whole.
struct FileSink<'a> {
    path: &'a std::path::Path,
    files_only: bool,
    hits: Vec<Hit>,
    binary: bool,
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let text = if self.files_only {
            String::new()
        } else {
            cut_line(mat.bytes())
        };
        self.hits.push(Hit {
            path: self.path.to_path_buf(),
            line: mat.line_number().unwrap_or(0),
            text,
        });
        Ok(!self.files_only)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, Self::Error> {
        self.binary = true;
        Ok(false)
    }
}

fn cut_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches(['\n', '\r']);
    if text.chars().count() <= MAX_LINE_CHARS {
        return text.to_owned();
    }
    let cut: String = text.chars().take(MAX_LINE_CHARS).collect();
    format!("{cut}… [line cut]")
}

fn format_hits(
    hits: &[Hit],
    input: &GrepInput,
    where_: &str,
    limit: usize,
    capped: bool,
) -> String {
    if hits.is_empty() {
        return format!("No matches for '{}' in {where_}.", input.pattern);
    }
    let mut out = String::new();
    for hit in hits {
        let path = display_rel(&hit.path);
        if input.files_only {
            out.push_str(&path);
        } else {
            out.push_str(&format!("{path}:{}:{}", hit.line, hit.text));
        }
        out.push('\n');
    }
    let what = if input.files_only { "files" } else { "matches" };
    if capped {
        out.push_str(&format!(
            "\n[showing the first {limit} {what}; more exist. Narrow the pattern, path or \
             include, or raise limit (at most {MAX_LIMIT}).]"
        ));
    }
    out
}
