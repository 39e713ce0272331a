//! The window icon. On Linux Tauri makes the first PNG of `bundle.icon` every window's icon,
//! decoded to RGBA and kept per window: 512 px is 1 MB a window, 128 px 64 KB (issue 18).

use std::path::Path;

/// A PNG's width and height, from its IHDR chunk.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "{} is not a PNG",
        path.display()
    );
    assert_eq!(&bytes[12..16], b"IHDR");
    let word = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

#[test]
fn the_window_icon_is_small_and_the_bundle_keeps_a_large_one() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tauri.conf.json")).unwrap())
            .unwrap();
    let icons: Vec<&str> = config["bundle"]["icon"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let sizes: Vec<(u32, u32)> = icons
        .iter()
        .filter(|i| i.ends_with(".png"))
        .map(|i| png_size(&dir.join(i)))
        .collect();
    let (w, h) = sizes[0];
    assert!(
        w <= 128 && h <= 128,
        "the window icon is {w}x{h}: {icons:?}"
    );
    assert!(
        sizes.iter().any(|&(w, _)| w >= 512),
        "no large icon to bundle: {icons:?}"
    );
}
