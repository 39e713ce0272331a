//! Kernel overhead per turn: 1,000 scripted turns with two trivial tool calls each.
//! Prints peak heap use of one such run besides criterion's timings.
#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/workload.rs"]
mod workload;

use workload::{BIG_TURNS, TURNS, one_run, registry, run_of};

/// Counts live and peak heap bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged; only adds counters.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let registry = registry();

    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    rt.block_on(one_run(registry.clone()));
    let peak = PEAK.load(Ordering::Relaxed) - before;
    println!(
        "peak heap during one {TURNS}-turn run: {:.2} MiB ({} bytes)",
        peak as f64 / (1024.0 * 1024.0),
        peak
    );

    let mut group = c.benchmark_group("kernel_loop");
    group.sample_size(20);
    group.bench_function("1000_turns_two_tool_calls_each", |b| {
        b.iter(|| rt.block_on(one_run(registry.clone())));
    });
    group.bench_function("200_turns_two_10kb_outputs_each", |b| {
        b.iter(|| rt.block_on(run_of(registry.clone(), BIG_TURNS, "big")));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
