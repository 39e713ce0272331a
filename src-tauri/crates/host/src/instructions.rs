//! The project's instructions to the agent: `AGENTS.md` at the project root (the convention
//! Codex, Claude Code, Zed, goose and Cline read), or `CLAUDE.md` where there is none. Read as
//! a stranger's file (regular only, never through a symlink, size-capped): a bad one is a
//! notice, never a failed run. Files nested deeper are given by the file tools when the agent
//! first touches something beneath them (see `paddock_tools::NestedInstructions`).

use std::path::Path;

use paddock_core::compaction::tokens_of_chars;
use paddock_guard::{UntrustedFileError, read_untrusted_head};
use paddock_protocol::InstructionFile;

/// Looked for at the project root, in this order; the first found is used.
pub const INSTRUCTION_FILES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];
/// Instructions beyond this are cut (with a notice).
pub const MAX_INSTRUCTION_BYTES: u64 = 32 * 1024;

/// What the agent is told from the project's files, and what the user should know.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Instructions {
    pub files: Vec<InstructionFile>,
    /// The section added to the system prompt (empty when there is none).
    pub text: String,
    pub notices: Vec<String>,
}

/// The instructions of the project at `root`.
pub fn load(root: &Path) -> Instructions {
    let mut out = Instructions::default();
    for name in INSTRUCTION_FILES {
        let path = root.join(name);
        match read_untrusted_head(&path, MAX_INSTRUCTION_BYTES) {
            Err(e) if e.is_missing() => continue,
            Err(e) => {
                out.notices
                    .push(format!("{name} was not given to the agent: {}", reason(&e)));
                // A broken AGENTS.md does not make CLAUDE.md the instructions.
                return out;
            }
            Ok((bytes, size)) => {
                let truncated = size > bytes.len() as u64;
                let text = match String::from_utf8(bytes) {
                    Ok(t) => t,
                    // Cut mid-character by the cap: keep the whole characters.
                    Err(e) if truncated => {
                        let valid = e.utf8_error().valid_up_to();
                        let mut bytes = e.into_bytes();
                        bytes.truncate(valid);
                        String::from_utf8(bytes).unwrap_or_default()
                    }
                    Err(_) => {
                        out.notices.push(format!(
                            "{name} is not UTF-8 text; it was not given to the agent"
                        ));
                        return out;
                    }
                };
                if truncated {
                    out.notices.push(format!(
                        "{name} is {} KB; only its first {} KB are given to the agent",
                        size.div_ceil(1024),
                        MAX_INSTRUCTION_BYTES / 1024
                    ));
                }
                out.text = section(name, &text);
                out.files.push(InstructionFile {
                    path: name.to_owned(),
                    bytes: size,
                    tokens: tokens_of_chars(out.text.len()),
                    truncated,
                });
                return out;
            }
        }
    }
    out
}

impl From<Instructions> for paddock_protocol::ProjectInstructions {
    fn from(i: Instructions) -> Self {
        Self {
            files: i.files,
            text: i.text,
            notices: i.notices,
        }
    }
}

/// How instructions appear in the system prompt.
pub fn section(path: &str, text: &str) -> String {
    format!(
        "# Project instructions ({path})\nThe project's own instructions, written by its \
         authors. Follow them where they do not conflict with the rules above.\n\n{}\n",
        text.trim_end()
    )
}

fn reason(e: &UntrustedFileError) -> String {
    match e {
        UntrustedFileError::Symlink { .. } => {
            "it is a symlink (Paddock reads it only as a regular file)".into()
        }
        UntrustedFileError::NotRegular { kind, .. } => {
            format!("it is not a regular file ({kind})")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_md_first_claude_md_as_fallback() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(dir.path()), Instructions::default());
        std::fs::write(dir.path().join("CLAUDE.md"), "use tabs").unwrap();
        let claude = load(dir.path());
        assert!(claude.text.contains("(CLAUDE.md)") && claude.text.contains("use tabs"));
        std::fs::write(dir.path().join("AGENTS.md"), "run make test").unwrap();
        let agents = load(dir.path());
        assert!(agents.text.contains("run make test") && !agents.text.contains("use tabs"));
        assert_eq!(agents.files[0].path, "AGENTS.md");
        assert!(agents.notices.is_empty());
    }

    #[test]
    fn bad_files_are_notices_never_failures() {
        let dir = tempfile::tempdir().unwrap();
        let agents = dir.path().join("AGENTS.md");
        std::fs::write(&agents, "é".repeat(MAX_INSTRUCTION_BYTES as usize)).unwrap();
        let big = load(dir.path());
        assert!(big.files[0].truncated);
        assert!(
            big.notices[0].contains("only its first 32 KB"),
            "{:?}",
            big.notices
        );
        assert!(big.text.len() < MAX_INSTRUCTION_BYTES as usize + 400);
        std::fs::write(&agents, [0xff, 0xfe, 0x00]).unwrap();
        let binary = load(dir.path());
        assert!(binary.text.is_empty() && binary.notices[0].contains("not UTF-8"));
        std::fs::remove_file(&agents).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &agents).unwrap();
        std::fs::write(dir.path().join("CLAUDE.md"), "fallback").unwrap();
        let link = load(dir.path());
        assert!(
            link.text.is_empty(),
            "a bad AGENTS.md is not replaced by CLAUDE.md"
        );
        assert!(link.notices[0].contains("symlink"), "{:?}", link.notices);
    }
}
