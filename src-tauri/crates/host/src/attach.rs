//! A prompt's message: the user's words, then what they attached (the files and folders
//! they named with `@`), each read through the run's path guard like a file tool's read,
//! and bounded.

use std::io::Read;

use paddock_guard::{PathError, PathGuard};
use paddock_protocol::{ContentBlock, Mention, Message, PromptAttachment, Role};

use crate::HostError;

/// Most attachments one prompt may carry.
pub const MAX_ATTACHMENTS: usize = 20;
/// Bytes of a named file attached at most.
pub const MAX_MENTION_BYTES: u64 = 100 * 1024;
/// Entries of a named folder listed at most.
pub const MAX_FOLDER_ENTRIES: usize = 300;

/// The user's message for `text` with `attachments`, read now through `guard`.
pub fn prompt_message(
    guard: &PathGuard,
    text: &str,
    attachments: &[PromptAttachment],
) -> Result<Message, HostError> {
    if attachments.len() > MAX_ATTACHMENTS {
        return Err(HostError::Usage(format!(
            "a prompt takes at most {MAX_ATTACHMENTS} attachments ({} given)",
            attachments.len()
        )));
    }
    let mut content = vec![ContentBlock::Text {
        text: text.to_owned(),
    }];
    for attachment in attachments {
        match attachment {
            PromptAttachment::Mention { path } => {
                content.push(ContentBlock::Mention(mention(guard, path)?));
            }
        }
    }
    Ok(Message {
        role: Role::User,
        content,
    })
}

/// A named file's text (cut at [`MAX_MENTION_BYTES`]) or a folder's entries.
pub fn mention(guard: &PathGuard, path: &str) -> Result<Mention, HostError> {
    let named = |e: PathError| HostError::Usage(format!("@{path}: {e}"));
    let root = guard.open_root().map_err(named)?;
    let resolved = root.resolve(path.trim_end_matches('/')).map_err(named)?;
    if !resolved.exists {
        return Err(named(PathError::NotFound { path: path.into() }));
    }
    if resolved.is_dir {
        return Ok(folder(root.real_path(), &resolved));
    }
    let (resolved, file) = root.open_read(&resolved.display()).map_err(named)?;
    let size = file.metadata().map_or(0, |m| m.len());
    let mut bytes = Vec::new();
    file.take(MAX_MENTION_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| HostError::Usage(format!("@{path}: {e}")))?;
    let cut = size > bytes.len() as u64;
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) if !t.contains('\0') => t.to_owned(),
        // A character cut in half at the limit is dropped, not taken for binary.
        Err(e) if cut && e.error_len().is_none() => {
            String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned()
        }
        _ => {
            return Err(HostError::Usage(format!(
                "@{path} is not a text file; name a text file or a folder"
            )));
        }
    };
    Ok(Mention {
        path: resolved.display(),
        folder: false,
        cut: cut.then(|| {
            format!(
                "cut: the first {} KB of {} KB; read the rest with file_read",
                MAX_MENTION_BYTES / 1024,
                size.div_ceil(1024)
            )
        }),
        text,
    })
}

fn folder(real_root: &std::path::Path, resolved: &paddock_guard::Resolved) -> Mention {
    let mut names: Vec<String> = std::fs::read_dir(real_root.join(&resolved.rel))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            match e.file_type() {
                Ok(t) if t.is_dir() => format!("{name}/"),
                _ => name,
            }
        })
        .collect();
    names.sort();
    let total = names.len();
    names.truncate(MAX_FOLDER_ENTRIES);
    Mention {
        path: resolved.display(),
        folder: true,
        text: names.join("\n"),
        cut: (total > MAX_FOLDER_ENTRIES).then(|| {
            format!("cut: {MAX_FOLDER_ENTRIES} of {total} entries; use glob for the rest")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_cut_folders_listed_and_the_guard_holds() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("src/a.rs"), "fn a() {}\n").unwrap();
        std::fs::write(root.join("big.txt"), "x".repeat(300 * 1024)).unwrap();
        std::fs::write(root.join("bin.dat"), [0u8, 1, 2]).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "SECRET").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("link")).unwrap();
        let guard = PathGuard::new(&root);

        let msg = prompt_message(
            &guard,
            "look at @src/a.rs and @src",
            &[
                PromptAttachment::Mention {
                    path: "src/a.rs".into(),
                },
                PromptAttachment::Mention {
                    path: "src/".into(),
                },
                PromptAttachment::Mention {
                    path: "big.txt".into(),
                },
            ],
        )
        .unwrap();
        let mentions: Vec<&Mention> = msg
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Mention(m) => Some(m),
                _ => None,
            })
            .collect();
        assert_eq!(mentions[0].text, "fn a() {}\n");
        assert_eq!(
            (mentions[1].folder, mentions[1].text.as_str()),
            (true, "a.rs\ndeep/")
        );
        assert_eq!(mentions[2].text.len(), 100 * 1024);
        assert!(mentions[2].cut.as_deref().unwrap().contains("of 300 KB"));
        assert!(
            mentions[0]
                .model_text()
                .starts_with("<mentioned file=\"src/a.rs\">")
        );

        for (path, says) in [
            ("link", "outside"),
            ("../x", "outside"),
            ("bin.dat", "not a text file"),
            ("nope.rs", "not"),
        ] {
            let e = mention(&guard, path).unwrap_err().to_string();
            assert!(e.contains(says) && !e.contains("SECRET"), "{path}: {e}");
        }
    }
}
