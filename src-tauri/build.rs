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
    order_startup_code();
    tauri_build::build();
}

/// Release builds for x86_64 Linux link the functions that run while Paddock starts and opens
/// a project side by side, in the order of `startup-order.txt` (recorded by
/// `scripts/startup-order.sh`). The kernel maps each page of code it faults in together with
/// its neighbours, so those ~3 MB scattered over a 22 MB text section kept 5.6 MB of it
/// resident in a project window (7.7 in the picker); together, 3.5 (2.1). Names the binary no
/// longer has are skipped, so a stale list only costs memory, never the build.
fn order_startup_code() {
    println!("cargo:rerun-if-changed={ORDER_FILE}");
    let env = |name| std::env::var(name).unwrap_or_default();
    // rust-lld is the default linker only there (Rust 1.90 and later); GNU ld has no ordering
    // option. A linker the user chose is left alone.
    let lld_by_default = env("TARGET") == "x86_64-unknown-linux-gnu"
        && rustc_minor(&env("RUSTC")).is_some_and(|minor| minor >= 90)
        && !env("CARGO_ENCODED_RUSTFLAGS").contains("link")
        && std::env::var_os("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_none();
    if env("PROFILE") != "release" || !lld_by_default {
        return;
    }
    let Ok(order) = Path::new(ORDER_FILE).canonicalize() else {
        return;
    };
    println!(
        "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
        order.display()
    );
    println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
}

/// The file `order_startup_code` reads, next to this script.
const ORDER_FILE: &str = "startup-order.txt";

/// `1.95.0 (…)` → 95.
fn rustc_minor(rustc: &str) -> Option<u32> {
    let out = std::process::Command::new(rustc).arg("-V").output().ok()?;
    let version = String::from_utf8(out.stdout).ok()?;
    version
        .split_whitespace()
        .nth(1)?
        .split('.')
        .nth(1)?
        .parse()
        .ok()
}
