//! `glob`: find files in the workspace by a path pattern (globset), in process.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::walk::{PathMatcher, Screen, Walk, relative_to};
use super::{blocking, path_error};
use paddock_core::{CallRules, ToolContext, ToolError, ToolOutput, TypedTool};
use paddock_guard::{PathGuard, display_rel};

use crate::ToolEnv;

/// Paths returned when the call gives no limit.
pub const DEFAULT_LIMIT: usize = 500;
/// Most paths one call may ask for.
pub const MAX_LIMIT: usize = 20_000;

/// Find files in the workspace by glob pattern. A pattern without `/` matches file names
/// anywhere (`*.rs`, `Cargo.toml`); one with `/` matches the path relative to the searched
/// folder (`src/**/*.rs`, `docs/*.md`; `*` does not cross `/`, `**` does). Returns paths
/// relative to the workspace root, sorted. .gitignore is honoured; .git and node_modules
/// are skipped. At most `limit` paths (default 500); no match is a normal answer.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GlobInput {
    /// Glob pattern, e.g. `**/*.ts` or `src/*.rs`.
    pub pattern: String,
    /// Folder to search, relative to the workspace root (default: the whole workspace).
    pub path: Option<String>,
    /// Most paths to return (default 500, at most 20000).
    pub limit: Option<usize>,
}

pub struct GlobTool {
    env: Arc<ToolEnv>,
}

impl GlobTool {
    pub fn new(env: Arc<ToolEnv>) -> Self {
        Self { env }
    }
}

#[async_trait]
impl TypedTool for GlobTool {
    type Input = GlobInput;
    const NAME: &'static str = "glob";

    fn mutates(&self) -> bool {
        false
    }

    fn summary(&self, input: &Value) -> String {
        super::pattern_summary(input)
    }

    async fn run(&self, input: GlobInput, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let guard = self.env.guard();
        let rules = self.env.rules.current();
        blocking(move || glob_screened(&guard, &input, rules).map(ToolOutput::ok)).await
    }
}

/// Runs a glob and formats the answer. Public so benchmarks can call it directly.
pub fn glob(guard: &PathGuard, input: &GlobInput) -> Result<String, ToolError> {
    glob_screened(guard, input, None)
}

/// As [`glob`], leaving out what `rules` keep from the tool.
fn glob_screened(
    guard: &PathGuard,
    input: &GlobInput,
    rules: Option<Arc<dyn CallRules>>,
) -> Result<String, ToolError> {
    let limit = input.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    let matcher = PathMatcher::new(&input.pattern).map_err(ToolError::InvalidInput)?;
    let root = guard.open_root().map_err(path_error)?;
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
    let real_root = root.real_path();
    let found = AtomicUsize::new(0);
    let capped = AtomicBool::new(false);
    let screen = Screen::for_tool(rules, "glob", root.real_path());
    let walk = Walk::new(&search_dir, screen).map_err(ToolError::Failed)?;
    let mut paths: Vec<PathBuf> = walk.collect(|| {
        let matcher = matcher.clone();
        let (found, capped, search_dir) = (&found, &capped, &search_dir);
        move |entry, paths: &mut Vec<PathBuf>| {
            let rel = relative_to(entry.path(), search_dir);
            if !matcher.is_match(&rel, entry.file_name()) {
                return true;
            }
            paths.push(relative_to(entry.path(), real_root));
            if found.fetch_add(1, Ordering::Relaxed) + 1 > limit {
                capped.store(true, Ordering::Relaxed);
                return false;
            }
            true
        }
    });
    let note = walk
        .skipped_note()
        .map(|n| format!("\n{n}"))
        .unwrap_or_default();
    if paths.is_empty() {
        return Ok(format!(
            "No files match '{}' in {}.{note}",
            input.pattern,
            target.display()
        ));
    }
    paths.sort_unstable();
    let capped = capped.load(Ordering::Relaxed) || paths.len() > limit;
    paths.truncate(limit);
    let mut out = String::new();
    for path in &paths {
        out.push_str(&display_rel(path));
        out.push('\n');
    }
    if capped {
        out.push_str(&format!(
            "\n[showing the first {limit} paths; more exist. Narrow the pattern or path, or \
             raise limit (at most {MAX_LIMIT}).]"
        ));
    }
    out.push_str(&note);
    Ok(out)
}
