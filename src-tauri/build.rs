//! Tauri's build step. The UI is embedded from `ui/dist`; when it has not been built yet a
//! placeholder page is put there (vite replaces the folder), so the crate still compiles for
//! `cargo clippy --workspace` and the Rust tests.

use std::path::Path;

const PLACEHOLDER: &str = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<title>Paddock</title></head><body><h1>The Paddock UI is not built</h1>\
<p>Run <code>npm ci &amp;&amp; npm run build</code> in <code>ui/</code>, then rebuild the app \
(or use <code>scripts/run.sh</code>).</p></body></html>\n";

fn main() {
    let dist = Path::new("../ui/dist");
    if !dist.join("index.html").exists() {
        let written = std::fs::create_dir_all(dist)
            .and_then(|()| std::fs::write(dist.join("index.html"), PLACEHOLDER));
        match written {
            Ok(()) => println!("cargo:warning=ui/dist was missing: embedded a placeholder page"),
            Err(e) => println!("cargo:warning=cannot write a placeholder ui/dist: {e}"),
        }
    }
    // Re-embed the UI whenever a new build of it lands.
    println!("cargo:rerun-if-changed=../ui/dist");
    tauri_build::build();
}
