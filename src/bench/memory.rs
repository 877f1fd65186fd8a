//! Memory figures reported with every model measurement: GPU bytes the engine
//! allocated for the model (tracked in `gpu::buffers`), wgpu's allocator report
//! where the backend gives one (Vulkan, DX12), and the host's peak RSS.

use crate::gpu::Gpu;

/// Memory of one model's run.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct MemoryFigures {
    /// Storage/uniform buffers the engine created for the model (weights, state, activations, params):
    /// all alive at the end of the run, so this is the peak of the engine's own allocations.
    pub gpu_engine_bytes: u64,
    /// Peak of wgpu's allocator report over the run (live sub-allocations), if the backend has one.
    pub gpu_allocator_peak_bytes: Option<u64>,
    /// Device memory blocks reserved by wgpu's allocator at that peak (allocations plus slack).
    pub gpu_allocator_reserved_bytes: Option<u64>,
    /// Host peak resident set (VmHWM) of the process so far; monotonic over a bench run.
    pub host_peak_rss_bytes: Option<u64>,
}

/// Tracks one model's run: `start` before loading, `sample` at points of interest, `finish` at the end.
pub struct MemoryProbe {
    created0: u64,
    figures: MemoryFigures,
}

impl MemoryProbe {
    pub fn start(gpu: &Gpu) -> Self {
        MemoryProbe { created0: gpu.alloc.created_bytes(), figures: MemoryFigures::default() }
    }

    /// Folds the allocator's live total now into the peak.
    pub fn sample(&mut self, gpu: &Gpu) {
        if let Some(r) = gpu.device.generate_allocator_report() {
            if Some(r.total_allocated_bytes) > self.figures.gpu_allocator_peak_bytes {
                self.figures.gpu_allocator_peak_bytes = Some(r.total_allocated_bytes);
                self.figures.gpu_allocator_reserved_bytes = Some(r.total_reserved_bytes);
            }
        }
    }

    pub fn finish(mut self, gpu: &Gpu) -> MemoryFigures {
        self.sample(gpu);
        self.figures.gpu_engine_bytes = gpu.alloc.created_bytes() - self.created0;
        self.figures.host_peak_rss_bytes = host_peak_rss();
        self.figures
    }
}

/// VmHWM of /proc/self/status in bytes (Linux; None elsewhere).
pub fn host_peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm_hwm(&status)
}

fn parse_vm_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb * 1024)
}

impl std::fmt::Display for MemoryFigures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mb = |b: u64| b as f64 / 1e6;
        write!(f, "GPU {:.1} MB engine buffers", mb(self.gpu_engine_bytes))?;
        match (self.gpu_allocator_peak_bytes, self.gpu_allocator_reserved_bytes) {
            (Some(a), Some(r)) => write!(f, ", allocator peak {:.1} MB live / {:.1} MB reserved", mb(a), mb(r))?,
            _ => write!(f, ", no allocator report")?,
        }
        match self.host_peak_rss_bytes {
            Some(h) => write!(f, "; host peak RSS {:.1} MB", mb(h)),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_vm_hwm() {
        let s = "Name:\tgerbil\nVmPeak:\t  123 kB\nVmHWM:\t   2048 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(super::parse_vm_hwm(s), Some(2048 * 1024));
        assert_eq!(super::parse_vm_hwm("Name: x\n"), None);
        assert!(super::host_peak_rss().unwrap_or(1) > 0);
    }
}
