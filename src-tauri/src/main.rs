// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    #[cfg(target_os = "linux")]
    software_rendering_by_default();
    paddock_desktop::run();
}

/// WebKitGTK's GPU compositing costs Paddock (a page of text) far more than it gives: measured
/// under Xvfb, turning it off cut first paint from ~840 to ~580 ms and each window's web
/// process from ~150 to ~85 MB. Users who want it keep it with PADDOCK_GPU_COMPOSITING=1, and
/// an explicit WEBKIT_DISABLE_COMPOSITING_MODE is always respected.
#[cfg(target_os = "linux")]
fn software_rendering_by_default() {
    const WEBKIT_VAR: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    let wanted = std::env::var_os("PADDOCK_GPU_COMPOSITING").is_some_and(|v| v == "1");
    if !wanted && std::env::var_os(WEBKIT_VAR).is_none() {
        // SAFETY: first thing in main, before any other thread exists or reads the
        // environment (GTK and WebKit start later, in `run`).
        #[allow(unsafe_code)]
        unsafe {
            std::env::set_var(WEBKIT_VAR, "1");
        }
    }
}
