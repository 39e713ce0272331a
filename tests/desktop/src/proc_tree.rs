//! The process tree under a pid, from /proc (the app's WebKit processes run below it).

use std::path::Path;

use crate::Result;

/// Libraries that mean the GPU stack (Mesa, its LLVM) was loaded into a process. libgbm is
/// left out: WebKit links it, so it is in every process, and small.
pub const MESA: [&str; 5] = ["libLLVM", "_dri.so", "libgallium", "_mesa.so", "libglapi"];

/// Every pid in /proc.
pub fn pids() -> Result<Vec<u32>> {
    Ok(std::fs::read_dir("/proc")?
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
        .collect())
}

/// `pid` and every process below it.
pub fn descendants(pid: u32) -> Result<Vec<u32>> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for p in pids()? {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
            continue;
        };
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok());
        if let Some(ppid) = ppid {
            parents.push((p, ppid));
        }
    }
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parents
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p),
        );
        i += 1;
    }
    Ok(tree)
}

/// How many processes below `pid` (itself included) have a name starting with `prefix`.
pub fn count_named(pid: u32, prefix: &str) -> Result<usize> {
    Ok(descendants(pid)?
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|n| n.starts_with(prefix))
        })
        .count())
}

/// The process below `pid` running `binary`, if any.
pub fn find_running(pid: u32, binary: &Path) -> Result<Option<u32>> {
    let binary = binary.canonicalize()?;
    Ok(descendants(pid)?
        .into_iter()
        .find(|p| std::fs::read_link(format!("/proc/{p}/exe")).is_ok_and(|exe| exe == binary)))
}

/// The Mesa/LLVM libraries mapped into `pid` (file names, sorted, once each).
pub fn mesa_mapped(pid: u32) -> Result<Vec<String>> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps"))?;
    let mut found: Vec<String> = maps
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .filter_map(|path| path.rsplit('/').next())
        .filter(|file| MESA.iter().any(|m| file.contains(m)))
        .map(str::to_owned)
        .collect();
    found.sort();
    found.dedup();
    Ok(found)
}
