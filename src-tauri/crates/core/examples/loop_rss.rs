//! Fresh-process memory of the kernel: runs the benchmark's 1,000-turn workload once (two
//! no-op tool calls per turn, a current-thread runtime) and prints the process's resident
//! memory before the first turn and its peak, from /proc/self/status (Linux).
//! Run with `cargo run --release -p paddock-core --example loop_rss`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The benchmark's second workload is not run here.
#[allow(dead_code)]
#[path = "../benches/support/workload.rs"]
mod workload;

fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let registry = workload::registry();
    let before = status_kib("VmRSS:");
    rt.block_on(workload::one_run(registry));
    let peak = status_kib("VmHWM:");
    match (before, peak) {
        (Some(before), Some(peak)) => println!(
            "{} turns: RSS before the first turn {:.1} MB, peak {:.1} MB",
            workload::TURNS,
            before as f64 / 1024.0,
            peak as f64 / 1024.0
        ),
        _ => println!("no /proc/self/status here (Linux only)"),
    }
}
