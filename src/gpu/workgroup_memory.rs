//! The workgroup memory a kernel's entry point declares, read from its WGSL with naga, so a plan
//! that needs more than the device grants fails with a message naming the kernel instead of a
//! pipeline-creation error (WebGPU's default is 16 KB; the decode attention kernels need more).

use std::collections::HashMap;
use std::sync::Mutex;

use super::kernels::Preludes;
use super::{GpuError, KernelId};

/// Bytes of the workgroup variables `kernel`'s entry point uses (any function it calls counts,
/// whatever its pipeline flags: the count is an upper bound, as the driver's check is). The KV
/// cache's word type changes no workgroup variable.
pub fn workgroup_bytes(kernel: KernelId, r: Preludes) -> Result<u32, String> {
    let src = kernel.source();
    let wgsl = src.wgsl(r, super::KvDtype::F32);
    let module = naga::front::wgsl::parse_str(&wgsl).map_err(|e| e.emit_to_string(&wgsl))?;
    let flags = naga::valid::ValidationFlags::all();
    let info = naga::valid::Validator::new(flags, naga::valid::Capabilities::all())
        .validate(&module)
        .map_err(|e| format!("{e:?}"))?;
    let index = module.entry_points.iter().position(|e| e.name == src.entry).ok_or("no such entry point")?;
    let uses = info.get_entry_point(index);
    let ctx = module.to_ctx();
    Ok(module
        .global_variables
        .iter()
        .filter(|(h, v)| v.space == naga::AddressSpace::WorkGroup && !uses[*h].is_empty())
        .map(|(_, v)| module.types[v.ty].inner.size(ctx))
        .sum())
}

/// Per-kernel counts, computed once per device (the preludes depend on its reductions).
#[derive(Default)]
pub(crate) struct WorkgroupMemoryCache(Mutex<HashMap<KernelId, u32>>);

impl WorkgroupMemoryCache {
    /// Fails where `kernel`, compiled with `preludes`, needs more workgroup memory than `limit`.
    pub(crate) fn check(&self, kernel: KernelId, preludes: Preludes, limit: u32) -> Result<(), GpuError> {
        let mut cache = self.0.lock().unwrap();
        let needed = match cache.get(&kernel) {
            Some(n) => *n,
            None => {
                let n = workgroup_bytes(kernel, preludes).map_err(GpuError::Validation)?;
                *cache.entry(kernel).or_insert(n)
            }
        };
        if needed > limit {
            return Err(GpuError::WorkgroupMemory { kernel: format!("{kernel:?}"), needed, limit });
        }
        Ok(())
    }
}
