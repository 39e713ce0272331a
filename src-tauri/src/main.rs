// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    #[cfg(target_os = "linux")]
    software_rendering_by_default();
    #[cfg(target_os = "linux")]
    interpreted_javascript_by_default();
    #[cfg(target_os = "linux")]
    small_javascript_nursery_by_default();
    paddock_desktop::run();
}

/// The page's JavaScript runs in JavaScriptCore's interpreter, without its JIT compilers
/// (regular expressions, for Markdown and highlighting, keep theirs). Measured by
/// `scripts/bench-desktop.sh`: the web process keeps ~8 MB less (the compilers' code and
/// data), and neither opening a 10,000-event transcript nor the frames of a long stream got
/// slower: the page's time goes to the DOM, layout and IPC, not to script. Less JIT is also
/// less of the engine exposed to the untrusted text the page shows. The web process inherits
/// the variable; one the user set (`JSC_useJIT`, `JSC_useBaselineJIT`) wins.
#[cfg(target_os = "linux")]
fn interpreted_javascript_by_default() {
    if std::env::var_os("JSC_useJIT").is_none() {
        set_default("JSC_useBaselineJIT", "0");
    }
}

/// JavaScriptCore's young generation ("nursery") is 8 MB instead of 32. Its full collections
/// come only once the old generation is twice the nursery, and nothing else starts one in an
/// idle page: after a streamed 50,000-token answer, what was promoted and then died kept the
/// web process 146 MB above where it began (a full collection, asked for through the
/// inspector, gave back 93 of them). With an 8 MB nursery: +86 to +125 MB 30 s after the run
/// (four release runs), with the frames of the stream and the opening of a 10,000-event
/// transcript unchanged (`scripts/bench-desktop.sh stream`, `transcript`). The web process
/// inherits the variable; one the user set wins.
#[cfg(target_os = "linux")]
fn small_javascript_nursery_by_default() {
    set_default("JSC_largeHeapSize", "8388608");
}

/// WebKitGTK's GPU compositing costs Paddock (a page of text) far more than it gives: measured
/// under Xvfb, turning it off cut first paint from ~840 to ~580 ms and each window's web
/// process from ~150 to ~85 MB. Users who want it keep it with PADDOCK_GPU_COMPOSITING=1, and
/// an explicit WEBKIT_DISABLE_COMPOSITING_MODE is always respected.
///
/// With compositing off, GTK and WebKit still load Mesa and its LLVM into the app process
/// (~21 MB PSS, and a random ~500 ms stall in 1 of 6 starts): [`NO_GPU_IN_APP`] keeps them
/// out, each only when the user has not set it. All three are needed (measured by
/// `scripts/bench-desktop.sh`); the web process cannot drop EGL (it aborts), so it keeps it.
#[cfg(target_os = "linux")]
fn software_rendering_by_default() {
    const WEBKIT_VAR: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    let wanted = std::env::var_os("PADDOCK_GPU_COMPOSITING").is_some_and(|v| v == "1");
    if wanted {
        return;
    }
    let compositing_off = match std::env::var_os(WEBKIT_VAR) {
        None => {
            set_var(WEBKIT_VAR, "1");
            true
        }
        Some(v) => v != "0",
    };
    if compositing_off {
        for (name, value) in NO_GPU_IN_APP {
            set_default(name, value);
        }
    }
}

/// GTK without GL, WebKit without its DMA-BUF renderer and without a render device.
#[cfg(target_os = "linux")]
const NO_GPU_IN_APP: [(&str, &str); 3] = [
    ("GDK_GL", "disable"),
    ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
    ("WEBKIT_WEB_RENDER_DEVICE_FILE", "/dev/null"),
];

/// `name` set to `value` unless the user has set it.
#[cfg(target_os = "linux")]
fn set_default(name: &str, value: &str) {
    if std::env::var_os(name).is_none() {
        set_var(name, value);
    }
}

#[cfg(target_os = "linux")]
fn set_var(name: &str, value: &str) {
    // SAFETY: called first thing in main, before any other thread exists or reads the
    // environment (GTK and WebKit start later, in `run`).
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var(name, value);
    }
}
