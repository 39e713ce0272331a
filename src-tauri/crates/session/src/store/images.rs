//! A session's images: their bytes in files named by their SHA-256 in a private folder beside
//! the session (`<id>.images/`, 0700; files 0600), the session's lines holding only the
//! reference. Written with the message that holds them; read back when the session loads.
//! A rewind or a compaction changes messages only: the files stay.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use paddock_protocol::{ContentBlock, ImageBlock, ImageData, Message};

use crate::SessionError;

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
    file_for(dir, &image.media_type, &image.sha256)
}

fn file_for(dir: &Path, media_type: &str, digest: &str) -> Option<PathBuf> {
    if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let ext = match media_type {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        _ => return None,
    };
    Some(dir.join(format!("{}.{ext}", digest.to_ascii_lowercase())))
}

impl crate::SessionStore {
    /// The bytes of one of session `id`'s images (for a viewer), by its media type and
    /// digest. A reference that names no file of the session's reads nothing.
    pub fn image(
        &self,
        project: &Path,
        id: &str,
        media_type: &str,
        sha256: &str,
    ) -> Result<Vec<u8>, SessionError> {
        let dir = images_dir(&self.file(project, id)?);
        let Some(path) = file_for(&dir, media_type, sha256) else {
            return Err(SessionError::Io {
                action: "read",
                path: dir,
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("{sha256} ({media_type}) names no image of this session"),
                ),
            });
        };
        std::fs::read(&path).map_err(|source| SessionError::Io {
            action: "read",
            path,
            source,
        })
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_viewer_reads_a_kept_image_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::SessionStore::new(dir.path().join("sessions"));
        let project = Path::new("/p");
        let (header, _writer) = store.create(project, None, "m", "look").unwrap();
        let digest = "ab".repeat(32);
        let kept = images_dir(&store.file(project, &header.id).unwrap());
        private_dir(&kept).unwrap();
        std::fs::write(kept.join(format!("{digest}.png")), b"PNG").unwrap();
        std::fs::write(dir.path().join("sessions/secret.png"), b"SECRET").unwrap();

        let read = |media: &str, sha: &str| store.image(project, &header.id, media, sha);
        assert_eq!(read("image/png", &digest).unwrap(), b"PNG");
        assert!(read("image/jpeg", &digest).is_err(), "another file");
        assert!(read("text/plain", &digest).is_err());
        for hostile in ["../../secret", "../secret.png", &"x".repeat(64)] {
            let e = read("image/png", hostile).unwrap_err().to_string();
            assert!(e.contains("names no image"), "{e}");
        }
        assert!(matches!(
            store.image(project, "../x", "image/png", &digest),
            Err(SessionError::BadId(_))
        ));
    }
}
