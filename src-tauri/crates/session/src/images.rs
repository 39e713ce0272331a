//! A session's images: their bytes in files named by their SHA-256 in a private folder beside
//! the session (`<id>.images/`, 0700; files 0600), the session's lines holding only the
//! reference. Written with the message that holds them; read back when the session loads.
//! A rewind or a compaction changes messages only: the files stay.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use paddock_protocol::{ContentBlock, ImageBlock, ImageData, Message};

/// The folder of the session file `session`'s images.
pub fn images_dir(session: &Path) -> PathBuf {
    let stem = session
        .file_stem()
        .map_or_else(|| "session".into(), |s| s.to_string_lossy().into_owned());
    session.with_file_name(format!("{stem}.images"))
}

/// The file an image is kept in, or `None` for a reference that names no file of ours (a
/// digest that is not 64 hex digits: an edited session line never reaches another path).
pub fn image_file(dir: &Path, image: &ImageBlock) -> Option<PathBuf> {
    let digest = &image.sha256;
    if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let ext = match image.media_type.as_str() {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        _ => return None,
    };
    Some(dir.join(format!("{}.{ext}", digest.to_ascii_lowercase())))
}

fn images(message: &Message) -> impl Iterator<Item = &ImageBlock> {
    message.content.iter().filter_map(|b| match b {
        ContentBlock::Image(image) => Some(image),
        _ => None,
    })
}

/// Writes the images of `message` that carry bytes and are not on disk yet.
pub(crate) fn save(dir: &Path, message: &Message) -> std::io::Result<()> {
    let mut made = false;
    for image in images(message) {
        let (Some(data), Some(path)) = (&image.data, image_file(dir, image)) else {
            continue;
        };
        if path.exists() {
            continue;
        }
        if !made {
            private_dir(dir)?;
            made = true;
        }
        let tmp = path.with_extension("part");
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&tmp)?;
        file.write_all(data)?;
        file.sync_all()?;
        std::fs::rename(&tmp, &path)?;
    }
    Ok(())
}

fn private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir)
}

/// Gives the images of `messages` their bytes back from `dir`. One whose file is gone keeps
/// no bytes (the model is told it is no longer available) and is named in the warnings.
pub(crate) fn resolve<'m>(
    dir: &Path,
    messages: impl Iterator<Item = &'m mut Message>,
    warnings: &mut Vec<String>,
) {
    let mut read: HashMap<String, Option<ImageData>> = HashMap::new();
    for message in messages {
        for block in &mut message.content {
            let ContentBlock::Image(image) = block else {
                continue;
            };
            if image.data.is_some() {
                continue;
            }
            let data = read
                .entry(image.sha256.clone())
                .or_insert_with(|| {
                    let bytes = image_file(dir, image).and_then(|p| std::fs::read(p).ok());
                    if bytes.is_none() {
                        warnings.push(format!(
                            "{} is no longer kept with this session; the model is told so",
                            image.label()
                        ));
                    }
                    bytes.map(Arc::from)
                })
                .clone();
            image.data = data;
        }
    }
}
