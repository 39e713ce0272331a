//! `file_read`: a page of a text file in the workspace, with line numbers.

use std::io::{BufRead, BufReader, Read as _};
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{blocking, path_error};
use paddock_core::{ToolContext, ToolError, ToolOutput, TypedTool};
use paddock_guard::{PathError, PathGuard};
use paddock_protocol::ImageBlock;
use paddock_sandbox::Redactor;

use crate::ToolEnv;

/// Lines returned when the call gives no limit.
pub const DEFAULT_LIMIT: usize = 2000;
/// Most lines one call may ask for.
pub const MAX_LIMIT: usize = 10_000;
/// Characters kept of one long line.
pub const MAX_LINE_CHARS: usize = 2000;
/// Characters of numbered text one call returns before it stops early.
pub const MAX_OUTPUT_CHARS: usize = 60_000;
/// Files larger than this are refused (search them with grep instead).
pub const MAX_FILE_BYTES: u64 = 20 * 1024 * 1024;
/// Bytes looked at for a NUL to tell a binary file.
const BINARY_SNIFF_BYTES: usize = 8192;

/// Read a text file from the workspace. Returns numbered lines (`  12\ttext`). Paths are
/// relative to the workspace root. Use offset and limit to page through long files; the
/// result says where to continue. Binary files are refused.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FileReadInput {
    /// File to read, relative to the workspace root.
    pub path: String,
    /// First line to return, counting from 1 (default 1).
    pub offset: Option<usize>,
    /// How many lines to return (default 2000, at most 10000).
    pub limit: Option<usize>,
}

pub struct FileReadTool {
    env: Arc<ToolEnv>,
}

impl FileReadTool {
    pub fn new(env: Arc<ToolEnv>) -> Self {
        Self { env }
    }
}

#[async_trait]
impl TypedTool for FileReadTool {
    type Input = FileReadInput;
    const NAME: &'static str = "file_read";

    fn mutates(&self) -> bool {
        false
    }

    fn max_output_chars(&self) -> Option<usize> {
        // The tool pages itself; leave room for the closing note.
        Some(MAX_OUTPUT_CHARS + 1000)
    }

    async fn run(&self, input: FileReadInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let guard = self.env.guard();
        let redactor = Redactor::new(self.env.secrets.clone());
        let (env, ctx) = (self.env.clone(), ctx.clone());
        blocking(move || match read(&guard, &input, env.images.get())? {
            Read::Text(mut text) => {
                text.push_str(&crate::nested::for_input(&env, &input.path, &ctx));
                Ok(ToolOutput::ok(redactor.redact_exact(&text)))
            }
            Read::Image(image) => Ok(ToolOutput::ok(format!(
                "'{}' is an image ({}x{}, {}); it is shown to you with this result.",
                image.name.as_deref().unwrap_or(&input.path),
                image.width,
                image.height,
                image.media_type
            ))
            .with_image(image)),
        })
        .await
    }
}

/// What a read found: numbered text, or an image for a model that takes images.
enum Read {
    Text(String),
    Image(ImageBlock),
}

fn read(
    guard: &PathGuard,
    input: &FileReadInput,
    images: Option<paddock_images::Limits>,
) -> Result<Read, ToolError> {
    let offset = input.offset.unwrap_or(1).max(1);
    let limit = input.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 {
        return Err(ToolError::InvalidInput(
            "limit must be at least 1".to_owned(),
        ));
    }
    let limit = limit.min(MAX_LIMIT);
    let root = guard.open_root().map_err(path_error)?;
    let (resolved, file) = root.open_read(&input.path).map_err(|e| match e {
        // Where to look next, said: a small model otherwise guesses the contents.
        PathError::NotFound { .. } => ToolError::Failed(format!(
            "{e} (paths are relative to the workspace root; glob finds files by pattern)"
        )),
        e => path_error(e),
    })?;
    let shown = resolved.display();
    let size = file
        .metadata()
        .map_err(|e| ToolError::Failed(format!("'{shown}': {e}")))?
        .len();
    if size > MAX_FILE_BYTES {
        return Err(ToolError::Failed(format!(
            "'{shown}' is {} MB; file_read reads files up to {} MB. Use grep to find the lines \
             you need.",
            size / (1024 * 1024),
            MAX_FILE_BYTES / (1024 * 1024)
        )));
    }
    if size == 0 {
        return Ok(Read::Text(format!("'{shown}' is empty (0 lines).")));
    }
    let mut reader = BufReader::new(file);
    let head = reader
        .fill_buf()
        .map_err(|e| ToolError::Failed(format!("'{shown}': {e}")))?;
    if let Some(limits) = images
        && paddock_images::sniff(head).is_some()
    {
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .map_err(|e| ToolError::Failed(format!("'{shown}': {e}")))?;
        return paddock_images::block(bytes, &shown, limits)
            .map(Read::Image)
            .map_err(|e| ToolError::Failed(format!("'{shown}': {e}")));
    }
    if head[..head.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
        return Err(ToolError::Failed(format!(
            "'{shown}' looks like a binary file ({size} bytes); file_read shows text only"
        )));
    }
    page(reader, &shown, offset, limit).map(Read::Text)
}

/// Numbers lines `offset..offset+limit`, stopping early when the output grows too big, and
/// counts the rest so the note can say where to continue.
fn page(
    mut reader: impl BufRead,
    shown: &str,
    offset: usize,
    limit: usize,
) -> Result<String, ToolError> {
    let mut out = String::new();
    let mut buf = Vec::new();
    let mut line_no = 0usize;
    let mut last_shown = 0usize;
    let mut stopped_for_size = false;
    let end = offset.saturating_add(limit);
    loop {
        buf.clear();
        let n = reader
            .by_ref()
            .read_until(b'\n', &mut buf)
            .map_err(|e| ToolError::Failed(format!("'{shown}': {e}")))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if line_no < offset || line_no >= end || stopped_for_size {
            continue;
        }
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim_end_matches(['\n', '\r']);
        let line = cut_line(text);
        if out.len() + line.len() > MAX_OUTPUT_CHARS && last_shown != 0 {
            stopped_for_size = true;
            continue;
        }
        out.push_str(&format!("{line_no:>6}\t{line}\n"));
        last_shown = line_no;
    }
    let total = line_no;
    if offset > total {
        return Ok(format!(
            "'{shown}' has {total} lines; offset {offset} is past the end."
        ));
    }
    if last_shown < total {
        let why = if stopped_for_size {
            format!(" (output reached {MAX_OUTPUT_CHARS} characters)")
        } else {
            String::new()
        };
        out.push_str(&format!(
            "\n[showing lines {offset}-{last_shown} of {total}{why}; continue with offset={}]",
            last_shown + 1
        ));
    }
    Ok(out)
}

fn cut_line(text: &str) -> String {
    if text.chars().count() <= MAX_LINE_CHARS {
        return text.to_owned();
    }
    let cut: String = text.chars().take(MAX_LINE_CHARS).collect();
    format!("{cut}… [line cut at {MAX_LINE_CHARS} characters]")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn numbers_lines_and_notes_the_rest() {
        let text = lines(5);
        let out = page(text.as_bytes(), "f", 2, 2).unwrap();
        assert_eq!(
            out,
            "     2\tline 2\n     3\tline 3\n\n[showing lines 2-3 of 5; continue with offset=4]"
        );
        let all = page(text.as_bytes(), "f", 1, 100).unwrap();
        assert!(all.ends_with("     5\tline 5\n"));
        assert!(
            page(text.as_bytes(), "f", 9, 1)
                .unwrap()
                .contains("past the end")
        );
    }

    #[test]
    fn keeps_crlf_out_of_the_text_and_cuts_long_lines() {
        let out = page("a\r\nb".as_bytes(), "f", 1, 10).unwrap();
        assert_eq!(out, "     1\ta\n     2\tb\n");
        let long = "x".repeat(MAX_LINE_CHARS + 10);
        let out = page(long.as_bytes(), "f", 1, 10).unwrap();
        assert!(out.contains("[line cut at 2000 characters]"));
    }

    #[test]
    fn stops_early_when_output_is_too_big() {
        let line = "y".repeat(1000);
        let text: String = (0..200).map(|_| format!("{line}\n")).collect();
        let out = page(text.as_bytes(), "f", 1, 1000).unwrap();
        assert!(out.contains("output reached"));
        assert!(out.len() < MAX_OUTPUT_CHARS + 200);
    }
}
