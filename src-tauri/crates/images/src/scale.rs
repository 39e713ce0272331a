//! Scaling an image to a vendor's limits: decoded only when it is over them.

use std::io::Cursor;

use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, ImageFormat, ImageReader};

use crate::Format;

/// What one vendor takes per image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest edge, in pixels.
    pub max_edge: u32,
    /// Bytes of the encoded image.
    pub max_bytes: usize,
}

impl Limits {
    /// Anthropic: a long edge over 1568 px is scaled down by the API anyway, and 5 MB per
    /// image (platform.claude.com/docs/en/build-with-claude/vision, read 2026-12-06).
    pub const ANTHROPIC: Self = Self {
        max_edge: 1568,
        max_bytes: 5 * 1024 * 1024,
    };
    /// OpenAI and OpenAI-compatible vision servers: high detail fits the image within
    /// 2048x2048; 20 MB per image (platform.openai.com/docs/guides/images-vision, read
    /// 2026-12-06).
    pub const OPENAI: Self = Self {
        max_edge: 2048,
        max_bytes: 20 * 1024 * 1024,
    };
}

/// Pixels an image may have to be decoded at all (a small file may claim huge dimensions).
const MAX_DECODE_EDGE: u32 = 16_384;
/// Memory the decoder may take.
const MAX_DECODE_ALLOC: u64 = 512 * 1024 * 1024;
/// JPEG quality when an image is re-encoded as JPEG.
const JPEG_QUALITY: u8 = 85;

/// An image as it will be sent.
#[derive(Debug)]
pub struct Scaled {
    pub format: Format,
    pub bytes: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

fn image_format(format: Format) -> ImageFormat {
    match format {
        Format::Png => ImageFormat::Png,
        Format::Jpeg => ImageFormat::Jpeg,
        Format::Gif => ImageFormat::Gif,
        Format::Webp => ImageFormat::WebP,
    }
}

fn reader(bytes: &[u8], format: Format) -> ImageReader<Cursor<&[u8]>> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), image_format(format));
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_DECODE_EDGE);
    limits.max_image_height = Some(MAX_DECODE_EDGE);
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    reader.limits(limits);
    reader
}

/// `bytes` (of `format`) within `limits`: unchanged when they already are; else scaled down
/// with its aspect kept and re-encoded (JPEG stays JPEG, anything else becomes PNG; JPEG
/// when a PNG would still be over the byte limit).
pub fn scaled(bytes: Vec<u8>, format: Format, limits: Limits) -> Result<Scaled, String> {
    let (width, height) = reader(&bytes, format)
        .into_dimensions()
        .map_err(|e| e.to_string())?;
    if width == 0 || height == 0 {
        return Err("it has no pixels".into());
    }
    if width.max(height) <= limits.max_edge && bytes.len() <= limits.max_bytes {
        return Ok(Scaled {
            format,
            bytes,
            width,
            height,
        });
    }
    let mut image = reader(&bytes, format).decode().map_err(|e| e.to_string())?;
    drop(bytes);
    if width.max(height) > limits.max_edge {
        image = image.resize(limits.max_edge, limits.max_edge, FilterType::Triangle);
    }
    let (width, height) = (image.width(), image.height());
    let mut out = if format == Format::Jpeg {
        (Format::Jpeg, jpeg(&image)?)
    } else {
        (Format::Png, png(&image)?)
    };
    if out.1.len() > limits.max_bytes && out.0 == Format::Png {
        out = (Format::Jpeg, jpeg(&image)?);
    }
    if out.1.len() > limits.max_bytes {
        return Err(format!(
            "still {} bytes once scaled, over the {} the model takes",
            out.1.len(),
            limits.max_bytes
        ));
    }
    Ok(Scaled {
        format: out.0,
        bytes: out.1,
        width,
        height,
    })
}

fn png(image: &DynamicImage) -> Result<Vec<u8>, String> {
    let mut out = Cursor::new(Vec::new());
    image
        .write_to(&mut out, ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    Ok(out.into_inner())
}

fn jpeg(image: &DynamicImage) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    DynamicImage::ImageRgb8(image.to_rgb8())
        .write_with_encoder(JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY))
        .map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_of(width: u32, height: u32) -> Vec<u8> {
        let image = DynamicImage::new_rgba8(width, height);
        png(&image).unwrap()
    }

    #[test]
    fn small_images_pass_unchanged() {
        let bytes = png_of(40, 30);
        let out = scaled(bytes.clone(), Format::Png, Limits::ANTHROPIC).unwrap();
        assert_eq!((out.width, out.height, out.format), (40, 30, Format::Png));
        assert_eq!(out.bytes, bytes);
    }

    #[test]
    fn large_images_are_scaled_with_their_aspect() {
        let out = scaled(png_of(3000, 2000), Format::Png, Limits::ANTHROPIC).unwrap();
        assert_eq!(
            (out.width, out.height, out.format),
            (1568, 1045, Format::Png)
        );
        let out = scaled(png_of(3000, 2000), Format::Png, Limits::OPENAI).unwrap();
        assert_eq!((out.width, out.height), (2048, 1365));
        assert_eq!(crate::sniff(&out.bytes), Some(Format::Png));
    }

    #[test]
    fn a_jpeg_stays_a_jpeg_and_garbage_is_an_error() {
        let jpg = jpeg(&DynamicImage::new_rgb8(2000, 100)).unwrap();
        let out = scaled(jpg, Format::Jpeg, Limits::ANTHROPIC).unwrap();
        assert_eq!((out.format, out.width), (Format::Jpeg, 1568));
        let mut broken = b"\x89PNG\r\n\x1a\n".to_vec();
        broken.extend_from_slice(&[0; 40]);
        assert!(scaled(broken, Format::Png, Limits::ANTHROPIC).is_err());
    }
}
