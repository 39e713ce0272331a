//! What /proc says about an app and its WebKit processes: the process tree, PSS per process
//! (smaps_rollup), whether Mesa/LLVM is mapped and its share (smaps), and when a process started.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use paddock_desktop_e2e::Result;
use paddock_desktop_e2e::proc_tree::{descendants, mesa_libraries, pids};

/// One process of an app's tree.
pub struct Proc {
    pub pid: u32,
    pub name: String,
    pub pss_mb: f64,
    /// The Mesa/LLVM libraries mapped into it (file names), empty when none.
    pub mesa: Vec<String>,
    /// Their share of `pss_mb`.
    pub mesa_mb: f64,
}

/// An app's processes at one moment.
pub struct Snapshot {
    pub procs: Vec<Proc>,
    /// Other processes with WebKit loaded at that moment: they take a share of the shared
    /// libraries' pages, so PSS reads lower than on a quiet machine.
    pub foreign_webkit: usize,
}

impl Snapshot {
    /// `pid` and every process below it (WebKit's web and network processes).
    pub fn of(pid: u32) -> Result<Self> {
        let mut procs = Vec::new();
        let tree = descendants(pid)?;
        for &p in &tree {
            let rollup = format!("/proc/{p}/smaps_rollup");
            let Ok(pss) = field_kb(&rollup, "Pss:") else {
                continue;
            };
            let name = std::fs::read_to_string(format!("/proc/{p}/comm")).unwrap_or_default();
            let (mesa, mesa_kb) = mesa_libraries(p).unwrap_or_default();
            procs.push(Proc {
                pid: p,
                name: name.trim().to_owned(),
                pss_mb: pss / 1024.0,
                mesa,
                mesa_mb: mesa_kb / 1024.0,
            });
        }
        let foreign_webkit = pids()?
            .into_iter()
            .filter(|p| !tree.contains(p))
            .filter(|p| {
                std::fs::read_to_string(format!("/proc/{p}/maps"))
                    .is_ok_and(|m| m.contains("libwebkit2gtk"))
            })
            .count();
        Ok(Self {
            procs,
            foreign_webkit,
        })
    }

    /// Copies each process's /proc/pid/smaps into `dir` as `<label>.<app|web|network>.<pid>`
    /// (what `BENCH_SMAPS_DIR` asks for: where each process's memory lies, mapping by mapping).
    pub fn save_smaps(&self, dir: &Path, label: &str) -> Result<()> {
        std::fs::create_dir_all(dir)?;
        for (i, p) in self.procs.iter().enumerate() {
            let file = dir.join(format!("{label}.{}.{}", self.kind(i), p.pid));
            std::fs::copy(format!("/proc/{}/smaps", p.pid), file)?;
        }
        Ok(())
    }

    pub fn total_mb(&self) -> f64 {
        self.procs.iter().map(|p| p.pss_mb).sum()
    }

    /// PSS of the processes whose name starts with `prefix` (WebKit shortens names to 15
    /// characters: WebKitWebProces, WebKitNetworkPr), and how many there are.
    pub fn by_kind(&self, prefix: &str) -> (f64, usize) {
        let matching = self.procs.iter().filter(|p| p.name.starts_with(prefix));
        matching.fold((0.0, 0), |(mb, n), p| (mb + p.pss_mb, n + 1))
    }

    /// The app process itself (the first of the tree).
    pub fn app_mb(&self) -> f64 {
        self.procs.first().map_or(0.0, |p| p.pss_mb)
    }

    /// Everything that is neither the app, a web nor a network process.
    pub fn other_mb(&self) -> f64 {
        let (web, _) = self.by_kind("WebKitWeb");
        let (net, _) = self.by_kind("WebKitNet");
        self.total_mb() - self.app_mb() - web - net
    }

    /// "app" for the first process (the app itself), else `short` of its name.
    fn kind(&self, i: usize) -> String {
        match self.procs.get(i) {
            Some(p) if i > 0 => short(&p.name),
            _ => "app".to_owned(),
        }
    }

    /// Where Mesa is mapped and its PSS there: "app 21 MB, web 20 MB", or "none".
    pub fn mesa_summary(&self) -> String {
        let loaded: Vec<String> = self
            .procs
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.mesa.is_empty())
            .map(|(i, p)| format!("{} {:.0} MB", self.kind(i), p.mesa_mb))
            .collect();
        if loaded.is_empty() {
            "none".to_owned()
        } else {
            loaded.join(", ")
        }
    }
}

/// "app", "web", "network" or the process name.
pub fn short(name: &str) -> String {
    if name.starts_with("WebKitWeb") {
        "web".to_owned()
    } else if name.starts_with("WebKitNet") {
        "network".to_owned()
    } else {
        name.to_owned()
    }
}

fn field_kb(file: &str, name: &str) -> Result<f64> {
    let text = std::fs::read_to_string(file)?;
    let line = text
        .lines()
        .find(|l| l.starts_with(name))
        .ok_or_else(|| format!("no {name} in {file}"))?;
    Ok(line.split_whitespace().nth(1).ok_or("no value")?.parse()?)
}

/// A process running `binary` that is not in `seen` (then added to it).
pub fn new_pid_of(binary: &Path, seen: &mut BTreeSet<u32>) -> Option<u32> {
    pids().ok()?.into_iter().find(|pid| {
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
        exe == binary && seen.insert(*pid)
    })
}

/// Waits (up to 30 s) for a new process running `binary`.
pub async fn wait_new_pid(binary: &Path, seen: &mut BTreeSet<u32>) -> Result<u32> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        if let Some(pid) = new_pid_of(binary, seen) {
            return Ok(pid);
        }
        if std::time::Instant::now() > deadline {
            return Err(format!("no new process running {}", binary.display()).into());
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// When `pid` started, in ms since the epoch: its start in clock ticks since boot, with boot
/// time from /proc/uptime (10 ms resolution, unlike /proc/stat's whole seconds).
pub fn process_start_epoch_ms(pid: u32) -> Result<f64> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs_f64() * 1000.0;
    let uptime: f64 = std::fs::read_to_string("/proc/uptime")?
        .split_whitespace()
        .next()
        .ok_or("empty /proc/uptime")?
        .parse()?;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the command name (which may contain spaces) start at field 3.
    let after = stat.rsplit_once(')').ok_or("bad /proc/pid/stat")?.1;
    let start_ticks: f64 = after
        .split_whitespace()
        .nth(19)
        .ok_or("no starttime in /proc/pid/stat")?
        .parse()?;
    let out = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()?;
    let ticks: f64 = String::from_utf8(out.stdout)?.trim().parse()?;
    Ok(now - uptime * 1000.0 + start_ticks / ticks * 1000.0)
}
