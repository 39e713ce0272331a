//! The process tree under a pid, from /proc (the app's WebKit processes run below it), and
//! what is mapped into a process.

use std::collections::BTreeSet;
use std::path::Path;

use crate::Result;

/// Libraries that mean the GPU stack (Mesa, its LLVM) was loaded into a process. libgbm is
/// left out: WebKit links it, so it is in every process, and small.
const MESA: [&str; 5] = ["libLLVM", "_dri.so", "libgallium", "_mesa.so", "libglapi"];

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

/// The processes below `pid` (itself included) whose name starts with `prefix`.
fn named(pid: u32, prefix: &str) -> Result<Vec<u32>> {
    Ok(descendants(pid)?
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|n| n.starts_with(prefix))
        })
        .collect())
}

/// How many processes below `pid` (itself included) have a name starting with `prefix`.
pub fn count_named(pid: u32, prefix: &str) -> Result<usize> {
    Ok(named(pid, prefix)?.len())
}

/// `var` in the environment of each process below `pid` whose name starts with `prefix`
/// (None where it is unset).
pub fn env_of_named(pid: u32, prefix: &str, var: &str) -> Result<Vec<Option<String>>> {
    let wanted = format!("{var}=");
    let mut found = Vec::new();
    for p in named(pid, prefix)? {
        let environ = std::fs::read(format!("/proc/{p}/environ"))?;
        found.push(
            environ
                .split(|&b| b == 0)
                .find_map(|entry| entry.strip_prefix(wanted.as_bytes()))
                .map(|v| String::from_utf8_lossy(v).into_owned()),
        );
    }
    Ok(found)
}

/// The process below `pid` running `binary`, if any.
pub fn find_running(pid: u32, binary: &Path) -> Result<Option<u32>> {
    let binary = binary.canonicalize()?;
    Ok(descendants(pid)?
        .into_iter()
        .find(|p| std::fs::read_link(format!("/proc/{p}/exe")).is_ok_and(|exe| exe == binary)))
}

/// The Mesa/LLVM libraries mapped into `pid` (file names, sorted, once each) and their PSS
/// in kB, from
/// /proc/pid/smaps: a mapping's header line names the file, its `Pss:` line follows.
pub fn mesa_libraries(pid: u32) -> Result<(Vec<String>, f64)> {
    let smaps = std::fs::read_to_string(format!("/proc/{pid}/smaps"))?;
    let mut found = BTreeSet::new();
    let (mut kb, mut in_mesa) = (0.0, false);
    for line in smaps.lines() {
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or_default();
        if first.contains('-') && !first.ends_with(':') {
            let file = words.nth(4).map(|p| p.rsplit('/').next().unwrap_or(p));
            in_mesa = file.is_some_and(|f| MESA.iter().any(|m| f.contains(m)));
            if let (true, Some(f)) = (in_mesa, file) {
                found.insert(f.to_owned());
            }
        } else if in_mesa && first == "Pss:" {
            kb += words
                .next()
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(0.0);
        }
    }
    Ok((found.into_iter().collect(), kb))
}

/// SIGTERM to `pid` (never SIGKILL: the apps and WebKitWebDriver leave through their normal
/// exit, or orphan their children).
pub fn terminate(pid: u32) -> Result<()> {
    std::process::Command::new("kill")
        .arg("-TERM")
        .arg(pid.to_string())
        .status()?;
    Ok(())
}
