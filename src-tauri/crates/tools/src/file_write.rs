//! `file_write`: create or overwrite a file in the workspace.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use std::sync::Arc;

use super::{blocking, count_lines, path_error};
use paddock_core::{ToolContext, ToolError, ToolOutput, TypedTool};
use paddock_sandbox::PathGuard;

use crate::ToolEnv;

/// Largest content one call may write.
pub const MAX_WRITE_BYTES: usize = 10 * 1024 * 1024;

/// Create a file in the workspace or replace its whole content. Missing parent folders are
/// created. Paths are relative to the workspace root. To change part of an existing file,
/// use file_edit instead.
#[derive(Debug, Deserialize, JsonSchema)]
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

    async fn run(
        &self,
        input: FileWriteInput,
        _ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let guard = self.env.guard();
        blocking(move || write(&guard, &input).map(ToolOutput::ok)).await
    }
}

fn write(guard: &PathGuard, input: &FileWriteInput) -> Result<String, ToolError> {
    if input.content.len() > MAX_WRITE_BYTES {
        return Err(ToolError::Failed(format!(
            "content is {} bytes; file_write writes at most {MAX_WRITE_BYTES} bytes per call",
            input.content.len()
        )));
    }
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
