//! `file_edit`: replace an exact piece of text in an existing workspace file.

use std::io::Read;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::change::{Current, change_to, check_approved, path_scope, preview_of};
use super::{blocking, count_lines, path_error};
use paddock_changes::{MAX_DIFF_BYTES, file_change};
use paddock_core::{ToolContext, ToolError, ToolOutput, TypedTool, WriteScope};
use paddock_guard::{PathError, PathGuard, Root};
use paddock_protocol::{CallPreview, FileChange};

use crate::ToolEnv;

/// Files larger than this are not edited in place.
pub const MAX_EDIT_BYTES: u64 = 10 * 1024 * 1024;

/// Replace text in an existing file of the workspace. old_string must match the file
/// exactly (whitespace and indentation included) and only once, unless replace_all is set;
/// new_string is inserted literally. Line endings of the file are kept. Read the file first
/// so the match is exact. It never creates files: use file_write for that.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct FileEditInput {
    /// File to edit, relative to the workspace root.
    pub path: String,
    /// The exact text to replace.
    pub old_string: String,
    /// The text to put in its place.
    pub new_string: String,
    /// Replace every occurrence instead of requiring exactly one (default false).
    #[serde(default)]
    pub replace_all: bool,
}

pub struct FileEditTool {
    env: Arc<ToolEnv>,
}

impl FileEditTool {
    pub fn new(env: Arc<ToolEnv>) -> Self {
        Self { env }
    }
}

#[async_trait]
impl TypedTool for FileEditTool {
    type Input = FileEditInput;
    const NAME: &'static str = "file_edit";

    fn write_scope(&self, input: &FileEditInput) -> WriteScope {
        path_scope(&self.env.guard(), &input.path)
    }

    async fn preview(&self, input: FileEditInput) -> Option<CallPreview> {
        let guard = self.env.guard();
        Some(preview_of(
            blocking(move || plan(&guard, &input).map(|p| p.change)).await,
        ))
    }

    async fn run(&self, input: FileEditInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let guard = self.env.guard();
        let planning = (guard.clone(), input.clone());
        let confirmed = paddock_wall::held::check_write(
            &self.env.wall(),
            &input.path,
            move || plan(&planning.0, &planning.1).map(|p| p.change),
            ctx,
        )
        .await?;
        let (env, ctx) = (self.env.clone(), ctx.clone());
        blocking(move || {
            let planned = plan(&guard, &input)?;
            check_approved(&ctx, &planned.change)?;
            paddock_wall::held::still_confirmed(confirmed.as_ref(), &planned.change)?;
            planned
                .root
                .write_file(&input.path, false, planned.updated.as_bytes())
                .map_err(path_error)?;
            let lines = count_lines(&planned.updated);
            let mut text = format!(
                "Replaced {count} occurrence{} in {shown} (now {lines} lines).",
                if planned.count == 1 { "" } else { "s" },
                count = planned.count,
                shown = planned.change.path,
            );
            text.push_str(&crate::nested::for_input(&env, &input.path, &ctx));
            Ok(ToolOutput::ok(text).with_change(planned.change))
        })
        .await
    }
}

/// An edit worked out, not yet written.
struct Planned {
    root: Root,
    updated: String,
    count: usize,
    change: FileChange,
}

fn plan(guard: &PathGuard, input: &FileEditInput) -> Result<Planned, ToolError> {
    if input.old_string.is_empty() {
        return Err(ToolError::InvalidInput(
            "old_string is empty; give the exact text to replace (use file_write to write a \
             whole file)"
                .to_owned(),
        ));
    }
    if input.old_string == input.new_string {
        return Err(ToolError::InvalidInput(
            "old_string and new_string are the same; nothing would change".to_owned(),
        ));
    }
    let root = guard.open_root().map_err(path_error)?;
    let (resolved, file) = root.open_read(&input.path).map_err(|e| match e {
        // The next step, said: small models otherwise retry the same edit.
        PathError::NotFound { .. } => ToolError::Failed(format!(
            "{e}: file_edit only changes existing files; to create it, call file_write with \
             its whole content"
        )),
        e => path_error(e),
    })?;
    resolved.check_writable().map_err(path_error)?;
    let shown = resolved.display();
    let fail = |e: std::io::Error| ToolError::Failed(format!("'{shown}': {e}"));
    if file.metadata().map_err(fail)?.len() > MAX_EDIT_BYTES {
        return Err(ToolError::Failed(format!(
            "'{shown}' is larger than {} MB; file_edit does not edit files that big",
            MAX_EDIT_BYTES / (1024 * 1024)
        )));
    }
    let mut bytes = Vec::new();
    file.take(MAX_EDIT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(fail)?;
    if bytes.contains(&0) {
        return Err(ToolError::Failed(format!(
            "'{shown}' looks like a binary file; file_edit edits text only"
        )));
    }
    let Ok(text) = String::from_utf8(bytes) else {
        return Err(ToolError::Failed(format!(
            "'{shown}' is not valid UTF-8; file_edit edits UTF-8 text only"
        )));
    };
    let (updated, count) = replace(&text, input)?;
    let change = if text.len() > MAX_DIFF_BYTES || updated.len() > MAX_DIFF_BYTES {
        change_to(
            &shown,
            &Current::TooLarge(text.len() as u64),
            updated.as_bytes(),
        )
    } else {
        file_change(&shown, Some(text.as_bytes()), Some(updated.as_bytes()))
    };
    Ok(Planned {
        root,
        updated,
        count,
        change,
    })
}

/// The new text and how many replacements were made. Literal: `$&` or `$1` in new_string
/// stay as written. In a CRLF file, `\n` in the strings is taken as `\r\n`.
fn replace(text: &str, input: &FileEditInput) -> Result<(String, usize), ToolError> {
    let crlf = text.contains("\r\n") && !input.old_string.contains("\r\n");
    let (old, new) = if crlf {
        (
            input.old_string.replace('\n', "\r\n"),
            input.new_string.replace("\r\n", "\n").replace('\n', "\r\n"),
        )
    } else {
        (input.old_string.clone(), input.new_string.clone())
    };
    let count = text.matches(old.as_str()).count();
    match count {
        0 => Err(ToolError::Failed(format!(
            "old_string was not found in '{}'. It must match exactly, including whitespace \
             and indentation; read the file again and copy the text.",
            input.path
        ))),
        1 => Ok((text.replacen(old.as_str(), &new, 1), 1)),
        n if input.replace_all => Ok((text.replace(old.as_str(), &new), n)),
        n => Err(ToolError::Failed(format!(
            "old_string occurs {n} times in '{}'. Add surrounding lines to make it unique, or \
             set replace_all to replace every occurrence.",
            input.path
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(old: &str, new: &str, all: bool) -> FileEditInput {
        FileEditInput {
            path: "f".to_owned(),
            old_string: old.to_owned(),
            new_string: new.to_owned(),
            replace_all: all,
        }
    }

    #[test]
    fn literal_unique_replacement() {
        let (out, n) = replace("a b c", &input("b", "$& $1 $$", false)).unwrap();
        assert_eq!((out.as_str(), n), ("a $& $1 $$ c", 1));
    }

    #[test]
    fn ambiguous_and_missing_matches_are_errors() {
        let e = replace("x x", &input("x", "y", false)).unwrap_err();
        assert!(e.to_string().contains("occurs 2 times"));
        assert_eq!(
            replace("x x", &input("x", "y", true)).unwrap(),
            ("y y".to_owned(), 2)
        );
        assert!(replace("x", &input("z", "y", false)).is_err());
    }

    #[test]
    fn keeps_crlf_line_endings() {
        let (out, _) = replace("a\r\nb\r\nc\r\n", &input("a\nb", "A\nB\nX", false)).unwrap();
        assert_eq!(out, "A\r\nB\r\nX\r\nc\r\n");
    }
}
