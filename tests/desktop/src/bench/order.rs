//! Whether the release binary has its startup functions side by side: the names recorded in
//! src-tauri/startup-order.txt (scripts/startup-order.sh) that the binary still has, their
//! size, and how much code the kernel maps in for them: the 64 KB blocks they touch (it maps
//! a faulting page's neighbours up to that size). src-tauri/build.rs asks the linker for that
//! order; blocks far above the size mean it did not happen, few names found that the list is
//! stale.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::process::Command;

use paddock_desktop_e2e::Result;

/// The recorded list, from this crate's place in the repository.
const ORDER_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../src-tauri/startup-order.txt"
);

/// What the kernel maps around a faulting page of a file (its default fault-around size).
const BLOCK: u64 = 64 * 1024;

pub struct Placement {
    pub recorded: usize,
    pub found: usize,
    pub bytes: u64,
    /// The bytes of the `BLOCK`s they touch.
    pub mapped: u64,
}

impl Placement {
    /// Together: the functions fill at least half of the blocks they touch (scattered, they
    /// fill a few per cent).
    pub fn together(&self) -> bool {
        self.found > 0 && self.mapped <= self.bytes * 2
    }
}

pub fn placement(app: &Path) -> Result<Placement> {
    let list = std::fs::read_to_string(ORDER_FILE)?;
    let wanted: HashSet<&str> = list.lines().filter(|l| !l.is_empty()).collect();
    let out = Command::new("nm")
        .arg("-S")
        .arg("--defined-only")
        .arg(app)
        .output()?;
    if !out.status.success() {
        return Err(format!(
            "nm {}: {}",
            app.display(),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    let (mut found, mut bytes, mut blocks) = (HashSet::new(), 0, BTreeSet::new());
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        // "address size type name" for a symbol with a size.
        let words: Vec<&str> = line.split_whitespace().collect();
        let [addr, size, kind, name] = words[..] else {
            continue;
        };
        if !matches!(kind, "t" | "T") || !wanted.contains(name) || !found.insert(name.to_owned()) {
            continue;
        }
        let (addr, size) = (
            u64::from_str_radix(addr, 16)?,
            u64::from_str_radix(size, 16)?,
        );
        bytes += size;
        blocks.extend(addr / BLOCK..=(addr + size.max(1) - 1) / BLOCK);
    }
    Ok(Placement {
        recorded: wanted.len(),
        found: found.len(),
        bytes,
        mapped: blocks.len() as u64 * BLOCK,
    })
}
