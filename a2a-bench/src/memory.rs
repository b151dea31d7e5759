//! Resident memory of this process, from `/proc/self/status` (Linux only).
//!
//! `VmHWM` is the peak resident set size; writing `5` to `/proc/self/clear_refs` resets it to the
//! current RSS, so one process can measure the peak of several runs one after another.

/// Resident memory in KiB: the current set and the peak since start (or since the last
/// [`reset_peak`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Resident {
    /// `VmRSS`.
    pub current_kib: u64,
    /// `VmHWM`.
    pub peak_kib: u64,
}

/// Reads `VmRSS` and `VmHWM`; `None` where `/proc` is not available.
pub fn resident() -> Option<Resident> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status.lines().find_map(|line| {
            let rest = line.strip_prefix(name)?.strip_prefix(':')?;
            rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok()
        })
    };
    Some(Resident { current_kib: field("VmRSS")?, peak_kib: field("VmHWM")? })
}

/// Open file descriptors of this process (sockets included); `None` where `/proc` is not available.
/// Idle pooled connections stay open, so this shows how many connections the run left behind.
pub fn open_files() -> Option<usize> {
    Some(std::fs::read_dir("/proc/self/fd").ok()?.count())
}

/// CPU time this process's live threads have run, in nanoseconds (the first field of each
/// `/proc/self/task/*/schedstat`); `None` where `/proc` is not available. Threads that exited are
/// not counted: the benchmark's runtime keeps its worker threads for the whole run.
pub fn cpu_ns() -> Option<u64> {
    let mut total = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let path = task.ok()?.path().join("schedstat");
        let Ok(stat) = std::fs::read_to_string(path) else { continue };
        total += stat.split_whitespace().next().and_then(|ns| ns.parse::<u64>().ok()).unwrap_or(0);
    }
    Some(total)
}

/// Resets the peak (`VmHWM`) to the current RSS. Returns whether the kernel accepted it.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_is_at_least_current_and_grows_with_touched_memory() {
        let Some(before) = resident() else { return };
        assert!(before.peak_kib >= before.current_kib);
        let block = vec![1u8; 64 * 1024 * 1024];
        let after = resident().unwrap();
        assert!(after.peak_kib >= before.peak_kib + 32 * 1024, "{before:?} -> {after:?}");
        drop(block);
    }
}
