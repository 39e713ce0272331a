//! Why a prompt's attachments were refused.

use paddock_guard::PathError;

/// Why a prompt's attachments were refused (nothing was sent).
#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    #[error(
        "the model {model} takes no images, and this prompt has {images}; nothing was sent. \
         Remove the images or {fix}"
    )]
    NoImages {
        model: String,
        images: usize,
        fix: &'static str,
    },
    #[error("a prompt takes at most {max} attachments ({given} given)")]
    TooMany { given: usize, max: usize },
    #[error("{name} is over {max_mb} MB; an image may be at most that")]
    TooLarge { name: String, max_mb: u64 },
    #[error("{name}: the image's data is not base64")]
    NotBase64 { name: String },
    #[error("{name} is not a PNG, JPEG, GIF or WebP image{}", said.as_ref().map(|s| format!(" (said to be {s})")).unwrap_or_default())]
    NotImage { name: String, said: Option<String> },
    #[error(transparent)]
    Image(#[from] paddock_images::ImageError),
    #[error("@{path}: {source}")]
    Mention { path: String, source: PathError },
    #[error("@{path}: {source}")]
    MentionRead {
        path: String,
        source: std::io::Error,
    },
    #[error("@{path} is not a text file; name a text file or a folder")]
    NotText { path: String },
}
