//! Kernel overhead per turn: 1,000 scripted turns with two trivial tool calls each.
//! Prints peak heap use of one such run besides criterion's timings.
#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/workload.rs"]
mod workload;

use workload::{BIG_TURNS, TURNS, one_run, registry, run_of};

/// Counts live and peak heap bytes while `COUNTING` is on (only for the heap figure: the
/// counters' atomics would otherwise be a tenth of the timed loop).
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
/// Bytes allocated minus bytes freed since counting started (blocks from before it may be
/// freed during it, so this can dip below zero).
static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);
static ALLOCATIONS: AtomicI64 = AtomicI64::new(0);

fn size(layout: Layout) -> i64 {
    i64::try_from(layout.size()).unwrap_or(i64::MAX)
}

// SAFETY: forwards to the system allocator unchanged; only adds counters.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() && COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            let now = LIVE.fetch_add(size(layout), Ordering::Relaxed) + size(layout);
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        if COUNTING.load(Ordering::Relaxed) {
            LIVE.fetch_sub(size(layout), Ordering::Relaxed);
        }
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

    LIVE.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    rt.block_on(one_run(registry.clone()));
    COUNTING.store(false, Ordering::Relaxed);
    let peak = PEAK.load(Ordering::Relaxed);
    println!(
        "peak heap during one {TURNS}-turn run: {:.2} MiB ({} bytes), {:.1} allocations per turn",
        peak as f64 / (1024.0 * 1024.0),
        peak,
        ALLOCATIONS.load(Ordering::Relaxed) as f64 / TURNS as f64
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
