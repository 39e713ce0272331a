//! Images a prompt or a tool hands to a model: what a file is (by its first bytes, never its
//! name), read with a size bound, and scaled to what the vendor takes. The one place images
//! are decoded; the core never depends on it.
//!
//! Vendor limits, read on 2026-12-06:
//! - Anthropic Messages API, vision
//!   (<https://platform.claude.com/docs/en/build-with-claude/vision>): JPEG, PNG, GIF, WebP;
//!   at most 8000x8000 px (2000x2000 with more than 20 images in a request); an image whose
//!   long edge is over 1568 px is scaled down by the API anyway (≤1568 px and ≤1.15 MP
//!   recommended); 5 MB per image ("image exceeds 5 MB maximum"); 100 images per request.
//! - OpenAI Chat Completions, images
//!   (<https://platform.openai.com/docs/guides/images-vision>): PNG, JPEG, WEBP, non-animated
//!   GIF; up to 20 MB per image and 50 MB of image bytes per request; high detail fits the
//!   image within 2048x2048, then its short side to 768.

mod scale;

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use paddock_protocol::ImageBlock;
use sha2::{Digest, Sha256};

pub use scale::{Limits, scaled};

/// Bytes of an image file read at most (OpenAI's per-image limit); a larger file is refused
/// before it is read.
pub const MAX_INPUT_BYTES: u64 = 20 * 1024 * 1024;

/// The formats both vendors take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Png,
    Jpeg,
    Gif,
    Webp,
}

impl Format {
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Gif => "image/gif",
            Self::Webp => "image/webp",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Jpeg => "jpg",
            Self::Gif => "gif",
            Self::Webp => "webp",
        }
    }

    pub fn from_media_type(media_type: &str) -> Option<Self> {
        match media_type {
            "image/png" => Some(Self::Png),
            "image/jpeg" | "image/jpg" => Some(Self::Jpeg),
            "image/gif" => Some(Self::Gif),
            "image/webp" => Some(Self::Webp),
            _ => None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error("{name} is not a PNG, JPEG, GIF or WebP image")]
    NotAnImage { name: String },
    #[error("{name} is {size} bytes; an image may be at most {max} MB", max = MAX_INPUT_BYTES / (1024 * 1024))]
    TooLarge { name: String, size: u64 },
    #[error("{name} could not be read as an image: {reason}")]
    Broken { name: String, reason: String },
    /// Not a regular file one may read (missing, a FIFO, a device, a folder...): the
    /// path and what it is.
    #[error(transparent)]
    File(paddock_guard::UntrustedFileError),
    #[error("{name}: {source}")]
    Io {
        name: String,
        #[source]
        source: std::io::Error,
    },
}

/// The format of `bytes`, by their signature.
pub fn sniff(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(Format::Png)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(Format::Jpeg)
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(Format::Gif)
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some(Format::Webp)
    } else {
        None
    }
}

/// Reads an image file the user named: opened as every file Paddock reads for someone
/// ([`paddock_guard::open_regular`]: a link followed, as the user's own may be, but a FIFO,
/// a socket, a device or a folder refused without blocking), its size checked before
/// anything is read, its first bytes before the rest, so a large or foreign file is refused
/// without being read (and its content never appears in the error).
pub fn read_file(path: &Path, name: &str) -> Result<Vec<u8>, ImageError> {
    use paddock_guard::{Links, UntrustedFileError};
    match paddock_guard::open_regular(path, MAX_INPUT_BYTES, Links::Follow) {
        Ok(file) => read_open(file.into_file(), name),
        Err(UntrustedFileError::TooBig { size, .. }) => Err(ImageError::TooLarge {
            name: name.to_owned(),
            size,
        }),
        Err(e) => Err(ImageError::File(e)),
    }
}

/// As [`read_file`], from a file already opened (through a path guard).
pub fn read_open(file: std::fs::File, name: &str) -> Result<Vec<u8>, ImageError> {
    let io = |source| ImageError::Io {
        name: name.to_owned(),
        source,
    };
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(ImageError::NotAnImage { name: name.into() });
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(ImageError::TooLarge {
            name: name.into(),
            size: meta.len(),
        });
    }
    let mut reader = file.take(MAX_INPUT_BYTES + 1);
    let mut head = [0u8; 12];
    let mut got = 0;
    while got < head.len() {
        match reader.read(&mut head[got..]).map_err(io)? {
            0 => break,
            n => got += n,
        }
    }
    if sniff(&head[..got]).is_none() {
        return Err(ImageError::NotAnImage { name: name.into() });
    }
    let mut bytes = head[..got].to_vec();
    reader.read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(ImageError::TooLarge {
            name: name.into(),
            size: bytes.len() as u64,
        });
    }
    Ok(bytes)
}

/// An image block for `bytes` (checked, scaled to `limits`), named `name`, carrying its bytes.
pub fn block(bytes: Vec<u8>, name: &str, limits: Limits) -> Result<ImageBlock, ImageError> {
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(ImageError::TooLarge {
            name: name.into(),
            size: bytes.len() as u64,
        });
    }
    let format = sniff(&bytes).ok_or_else(|| ImageError::NotAnImage { name: name.into() })?;
    let out = scaled(bytes, format, limits).map_err(|reason| ImageError::Broken {
        name: name.into(),
        reason,
    })?;
    Ok(ImageBlock {
        media_type: out.format.media_type().to_owned(),
        sha256: digest(&out.bytes),
        name: Some(name.to_owned()),
        width: out.width,
        height: out.height,
        tool_call_id: None,
        data: Some(Arc::from(out.bytes)),
    })
}

/// The hex SHA-256 of `bytes`: the name an image is kept under beside its session.
pub fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_by_their_bytes() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n...."), Some(Format::Png));
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), Some(Format::Jpeg));
        assert_eq!(sniff(b"GIF89a.."), Some(Format::Gif));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some(Format::Webp));
        assert_eq!(sniff(b"RIFF\0\0\0\0WAVE"), None);
        assert_eq!(sniff(b"-----BEGIN OPENSSH PRIVATE KEY-----"), None);
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn a_foreign_file_is_refused_without_its_content() {
        let dir = std::env::temp_dir().join(format!("paddock-img-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let key = dir.join("shot.png");
        std::fs::write(&key, "-----BEGIN OPENSSH PRIVATE KEY-----\nSECRET\n").unwrap();
        let e = read_file(&key, "shot.png").unwrap_err().to_string();
        assert!(e.contains("not a PNG") && !e.contains("SECRET"), "{e}");
        let big = dir.join("big.png");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_INPUT_BYTES + 1).unwrap();
        let e = read_file(&big, "big.png").unwrap_err().to_string();
        assert!(e.contains("at most 20 MB"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Before: `File::open` of a FIFO waited for a writer forever (`paddock exec --image` on
    /// one hung, and SIGTERM did not end it). After: refused at once, the path and its kind
    /// named; likewise a folder and a device.
    #[test]
    fn a_fifo_a_folder_or_a_device_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("shot.png");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let (tx, rx) = std::sync::mpsc::channel();
        let at = fifo.clone();
        std::thread::spawn(move || {
            let _ = tx.send(read_file(&at, "shot.png").map_err(|e| e.to_string()));
        });
        let e = rx
            .recv_timeout(std::time::Duration::from_secs(3))
            .expect("the open of a FIFO blocked")
            .unwrap_err();
        assert!(
            e.contains(&format!(
                "{} is not a regular file (a FIFO)",
                fifo.display()
            )),
            "{e}"
        );
        let e = read_file(dir.path(), "dir").unwrap_err().to_string();
        assert!(e.contains("(a folder)"), "{e}");
        let e = read_file(Path::new("/dev/zero"), "zero")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/dev/zero is not a regular file (a character device)"),
            "{e}"
        );
    }
}
