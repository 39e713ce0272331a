//! `file_write`: create or overwrite a file in the workspace.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use std::sync::Arc;

use super::change::{Current, change_to, check_approved, current, path_scope, preview_of};
use super::{blocking, count_lines, path_error};
use paddock_core::{ToolContext, ToolError, ToolOutput, TypedTool, WriteScope};
use paddock_guard::{PathError, PathGuard};
use paddock_protocol::{CallPreview, FileChange};

use crate::ToolEnv;

/// Largest content one call may write.
pub const MAX_WRITE_BYTES: usize = 10 * 1024 * 1024;

/// Create a file in the workspace or replace its whole content. Missing parent folders are
/// created. Paths are relative to the workspace root. To change part of an existing file,
/// use file_edit instead.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct FileWriteInput {
    /// File to write, relative to the workspace root.
    pub path: String,
    /// The complete new content of the file.
    pub content: String,
}

pub struct FileWriteTool {
    env: Arc<ToolEnv>,
}

impl FileWriteTool {
    pub fn new(env: Arc<ToolEnv>) -> Self {
        Self { env }
    }
}

#[async_trait]
impl TypedTool for FileWriteTool {
    type Input = FileWriteInput;
    const NAME: &'static str = "file_write";

    fn write_scope(&self, input: &FileWriteInput) -> WriteScope {
        path_scope(&self.env.guard(), &input.path)
    }

    async fn preview(&self, input: FileWriteInput) -> Option<CallPreview> {
        let guard = self.env.guard();
        Some(preview_of(blocking(move || plan(&guard, &input)).await))
    }

    async fn run(&self, input: FileWriteInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let guard = self.env.guard();
        let planning = (guard.clone(), input.clone());
        let confirmed = paddock_wall::held::check_write(
            &self.env.wall(),
            &input.path,
            move || plan(&planning.0, &planning.1),
            ctx,
        )
        .await?;
        let (env, ctx) = (self.env.clone(), ctx.clone());
        blocking(move || {
            let change = plan(&guard, &input)?;
            check_approved(&ctx, &change)?;
            paddock_wall::held::still_confirmed(confirmed.as_ref(), &change)?;
            write(&guard, &input).map(|mut text| {
                text.push_str(&crate::nested::for_input(&env, &input.path, &ctx));
                ToolOutput::ok(text).with_change(change)
            })
        })
        .await
    }
}

/// The change the call would make, worked out without writing.
fn plan(guard: &PathGuard, input: &FileWriteInput) -> Result<FileChange, ToolError> {
    check_size(input)?;
    let now = match guard.open_root() {
        Ok(root) => {
            let resolved = root.resolve(&input.path).map_err(path_error)?;
            resolved.check_writable().map_err(path_error)?;
            let now = current(&root, &input.path)?;
            return Ok(change_to(
                &resolved.display(),
                &now,
                input.content.as_bytes(),
            ));
        }
        // file_write creates the workspace folder: everything in it is new.
        Err(PathError::RootMissing { .. }) => Current::Missing,
        Err(e) => return Err(path_error(e)),
    };
    Ok(change_to(&input.path, &now, input.content.as_bytes()))
}

fn check_size(input: &FileWriteInput) -> Result<(), ToolError> {
    if input.content.len() > MAX_WRITE_BYTES {
        return Err(ToolError::Failed(format!(
            "content is {} bytes; file_write writes at most {MAX_WRITE_BYTES} bytes per call",
            input.content.len()
        )));
    }
    Ok(())
}

fn write(guard: &PathGuard, input: &FileWriteInput) -> Result<String, ToolError> {
    check_size(input)?;
    let root = guard.create_root().map_err(path_error)?;
    let (resolved, created) = root
        .write_file(&input.path, true, input.content.as_bytes())
        .map_err(path_error)?;
    let shown = resolved.display();
    let verb = if created { "Created" } else { "Updated" };
    let lines = count_lines(&input.content);
    Ok(format!(
        "{verb} {shown} ({lines} line{}, {} bytes).",
        if lines == 1 { "" } else { "s" },
        input.content.len()
    ))
}
