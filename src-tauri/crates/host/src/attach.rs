//! A prompt's message: the user's words, then what they attached (the files and folders
//! they named with `@`), each read through the run's path guard like a file tool's read,
//! and bounded; and the images they pasted, dropped or picked, checked by their bytes and
//! scaled to the provider's limits, refused before any request when the model takes none.

use std::io::Read;

use base64::Engine;
use paddock_guard::{PathError, PathGuard};
use paddock_images::Limits;
use paddock_protocol::{
    ContentBlock, ImageBlock, Mention, Message, PromptAttachment, ProviderKind, Role,
};

use crate::HostError;
use crate::error::AttachError;

/// Most attachments one prompt may carry.
pub const MAX_ATTACHMENTS: usize = 20;
/// Bytes of a named file attached at most.
pub const MAX_MENTION_BYTES: u64 = 100 * 1024;
/// Entries of a named folder listed at most.
pub const MAX_FOLDER_ENTRIES: usize = 300;

/// What the run's model does with images.
#[derive(Debug, Clone, Copy)]
pub struct Vision<'a> {
    pub provider: ProviderKind,
    pub model: &'a str,
    /// Yes, no, or unknown (sent; the server's refusal is shown).
    pub takes: Option<bool>,
}

impl Vision<'_> {
    /// The vendor's per-image limits images are scaled to.
    pub fn limits(&self) -> Limits {
        match self.provider {
            ProviderKind::Anthropic => Limits::ANTHROPIC,
            ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => Limits::OPENAI,
        }
    }

    /// Refuses images for a model that takes none, naming it and the way out.
    pub fn check(&self, images: usize) -> Result<(), HostError> {
        if images == 0 || self.takes != Some(false) {
            return Ok(());
        }
        let fix = match self.provider {
            ProviderKind::OpenAiCompatible => {
                "choose a model that takes images, or set \"images\": true in \
                 .paddock/settings.json if this one does"
            }
            _ => "choose a model that takes images (for example claude-sonnet-4-5 or gpt-4.1)",
        };
        Err(AttachError::NoImages {
            model: self.model.to_owned(),
            images,
            fix,
        }
        .into())
    }
}

/// The user's message for `text` with `attachments`, read now through `guard`.
pub fn prompt_message(
    guard: &PathGuard,
    text: &str,
    attachments: &[PromptAttachment],
    vision: Vision<'_>,
) -> Result<Message, HostError> {
    if attachments.len() > MAX_ATTACHMENTS {
        return Err(AttachError::TooMany {
            given: attachments.len(),
            max: MAX_ATTACHMENTS,
        }
        .into());
    }
    let images = attachments
        .iter()
        .filter(|a| matches!(a, PromptAttachment::Image { .. }))
        .count();
    vision.check(images)?;
    let mut content = vec![ContentBlock::Text {
        text: text.to_owned(),
    }];
    for attachment in attachments {
        match attachment {
            PromptAttachment::Mention { path } => {
                content.push(ContentBlock::Mention(mention(guard, path)?));
            }
            PromptAttachment::Image {
                media_type,
                data,
                name,
            } => content.push(ContentBlock::Image(image(
                media_type,
                data,
                name.as_deref(),
                vision.limits(),
            )?)),
        }
    }
    Ok(Message {
        role: Role::User,
        content,
    })
}

/// An image the shell sent in base64: what it is is read from its bytes (the media type the
/// shell gave must agree), then it is scaled to `limits`.
pub fn image(
    media_type: &str,
    data: &str,
    name: Option<&str>,
    limits: Limits,
) -> Result<ImageBlock, HostError> {
    let name = name.unwrap_or("image");
    // Base64 is 4 characters for 3 bytes: a text over the limit is refused undecoded.
    if data.len() as u64 / 4 * 3 > paddock_images::MAX_INPUT_BYTES + 3 {
        return Err(AttachError::TooLarge {
            name: name.to_owned(),
            max_mb: paddock_images::MAX_INPUT_BYTES / (1024 * 1024),
        }
        .into());
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|_| AttachError::NotBase64 {
            name: name.to_owned(),
        })?;
    let sniffed = paddock_images::sniff(&bytes);
    if sniffed.is_none() || sniffed != paddock_images::Format::from_media_type(media_type) {
        return Err(AttachError::NotImage {
            name: name.to_owned(),
            said: Some(media_type.to_owned()),
        }
        .into());
    }
    Ok(paddock_images::block(bytes, name, limits).map_err(AttachError::from)?)
}

/// An image file the user named on the command line (`--image`; outside the workspace is
/// fine: it is theirs) as an attachment: its size checked before it is read, its type by
/// its first bytes (a file that is no image is refused unread, its content never echoed).
pub fn image_file(path: &std::path::Path) -> Result<PromptAttachment, HostError> {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let bytes = paddock_images::read_file(path, &name).map_err(AttachError::from)?;
    let format = paddock_images::sniff(&bytes).ok_or_else(|| AttachError::NotImage {
        name: name.clone(),
        said: None,
    })?;
    Ok(PromptAttachment::Image {
        media_type: format.media_type().to_owned(),
        data: base64::engine::general_purpose::STANDARD.encode(&bytes),
        name: Some(name),
    })
}

/// A named file's text (cut at [`MAX_MENTION_BYTES`]) or a folder's entries.
pub fn mention(guard: &PathGuard, path: &str) -> Result<Mention, HostError> {
    let named = |source: PathError| AttachError::Mention {
        path: path.to_owned(),
        source,
    };
    let root = guard.open_root().map_err(named)?;
    let resolved = root.resolve(path.trim_end_matches('/')).map_err(named)?;
    if !resolved.exists {
        return Err(named(PathError::NotFound { path: path.into() }).into());
    }
    if resolved.is_dir {
        return Ok(folder(root.real_path(), &resolved));
    }
    let (resolved, file) = root.open_read(&resolved.display()).map_err(named)?;
    let size = file.metadata().map_or(0, |m| m.len());
    let mut bytes = Vec::new();
    file.take(MAX_MENTION_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|source| AttachError::MentionRead {
            path: path.to_owned(),
            source,
        })?;
    let cut = size > bytes.len() as u64;
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) if !t.contains('\0') => t.to_owned(),
        // A character cut in half at the limit is dropped, not taken for binary.
        Err(e) if cut && e.error_len().is_none() => {
            String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned()
        }
        _ => {
            return Err(AttachError::NotText {
                path: path.to_owned(),
            }
            .into());
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

/// The history of a session resumed on a model that reads text only: each image becomes
/// its name (the stored session keeps the image). Returns how many were left out.
pub fn without_images(history: &mut [Message]) -> usize {
    let mut left_out = 0;
    for block in history.iter_mut().flat_map(|m| m.content.iter_mut()) {
        if let ContentBlock::Image(image) = block {
            left_out += 1;
            *block = ContentBlock::Text {
                text: format!("{} (not sent: this model reads text only)", image.label()),
            };
        }
    }
    left_out
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
            Vision {
                provider: ProviderKind::Anthropic,
                model: "m",
                takes: None,
            },
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
