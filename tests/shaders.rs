//! Every WGSL file parses and validates with naga, and every kernel's uniform
//! structs match the Rust layouts in `gpu::params` field by field.

use gerbil::gpu::kernels::{
    reads_kv_table, uses_erf, Preludes, ERF, GROUP_SUM_SHARED, GROUP_SUM_SUBGROUP, INT4_WORD, KV_F16, KV_F32, KV_FP8,
    WG_REDUCE_SHARED, WG_REDUCE_SUBGROUP,
};
use gerbil::gpu::params::Step;
use gerbil::gpu::{KernelId, KvDtype, KvLayout, KvPaging};

/// Every distinct prelude set a kernel can be compiled with: workgroup-memory reductions, and
/// 32-wide subgroups with either probed subgroupAdd order; split records through a `@coherent`
/// binding or atomics.
const PRELUDES: [Preludes; 4] = [
    Preludes { subgroups32: false, neighbours_first: false, coherent: false },
    Preludes { subgroups32: true, neighbours_first: false, coherent: false },
    Preludes { subgroups32: true, neighbours_first: true, coherent: true },
    Preludes { subgroups32: false, neighbours_first: false, coherent: true },
];

fn module(src: &str, file: &str) -> (naga::Module, naga::valid::ModuleInfo) {
    let m = naga::front::wgsl::parse_str(src).unwrap_or_else(|e| panic!("{file}: {}", e.emit_to_string(src)));
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
        .validate(&m)
        .unwrap_or_else(|e| panic!("{file}: {e:?}"));
    (m, info)
}

/// (name, offset) of the struct behind the uniform at @binding(b), and its size.
fn uniform_layout(m: &naga::Module, binding: u32) -> Option<(Vec<(String, usize)>, usize)> {
    let var = m.global_variables.iter().find(|(_, v)| {
        v.space == naga::AddressSpace::Uniform
            && v.binding.as_ref().is_some_and(|b| b.group == 0 && b.binding == binding)
    })?;
    match &m.types[var.1.ty].inner {
        naga::TypeInner::Struct { members, span } => Some((
            members.iter().map(|mm| (mm.name.clone().unwrap_or_default(), mm.offset as usize)).collect(),
            *span as usize,
        )),
        other => panic!("uniform at binding {binding} is not a struct: {other:?}"),
    }
}

#[test]
fn every_shader_file_validates() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/shaders");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            let src = std::fs::read_to_string(&path).unwrap();
            let name = path.file_name().unwrap().to_str().unwrap();
            // A registered kernel's file behind the library code the registry compiles it with, for
            // each prelude set (every_kernel_is_registered_with_matching_uniforms checks each entry point).
            if let Some(k) = KernelId::ALL.iter().find(|k| k.source().file == name) {
                for r in PRELUDES {
                    for kv in [KvDtype::F32, KvDtype::F16, KvDtype::Fp8] {
                        module(&k.source().wgsl(r, kv), &path.display().to_string());
                    }
                }
            } else if uses_erf(&src) {
                module(&format!("{ERF}\n{src}"), &path.display().to_string());
            } else {
                module(&src, &path.display().to_string());
            }
            n += 1;
        }
    }
    assert!(n >= 10, "found only {n} shaders");
    for prelude in
        [GROUP_SUM_SHARED, GROUP_SUM_SUBGROUP, WG_REDUCE_SHARED, WG_REDUCE_SUBGROUP, ERF, KV_F32, KV_F16, KV_FP8]
    {
        module(prelude, "shaders/lib");
    }
    // The INT4 word library with the two hooks its includer defines.
    let hooks = "fn load_q(m: u32, i: u32) -> vec4<u32> { return vec4<u32>(i); }
fn load_sm(m: u32, i: u32) -> vec2<f32> { return vec2<f32>(f32(m)); }";
    module(&format!("{INT4_WORD}\n{hooks}"), "shaders/lib/int4_word.wgsl");
}

#[test]
fn every_kernel_is_registered_with_matching_uniforms() {
    let rust_step: Vec<(String, usize)> = Step::FIELDS.iter().map(|(n, o)| (n.to_string(), *o)).collect();
    for k in KernelId::ALL {
        let src = k.source();
        let (m, _) = module(&src.wgsl(PRELUDES[0], KvDtype::F32), src.file);
        for r in &PRELUDES[1..] {
            module(&src.wgsl(*r, KvDtype::F32), src.file);
        }
        if src.kv_cache {
            module(&src.wgsl(PRELUDES[0], KvDtype::F16), src.file);
            module(&src.wgsl(PRELUDES[0], KvDtype::Fp8), src.file);
        }
        // The files of the batched rows kernels also compile for paged caches (every entry point of
        // the module: the block table's binding must not collide with any of theirs).
        if reads_kv_table(src.file) {
            let paging = Some(KvPaging { block_shift: 6, blocks: 100, table_stride: 10 });
            module(&src.wgsl(PRELUDES[1], KvLayout { dtype: KvDtype::F16, paging }), src.file);
        }
        assert!(
            m.entry_points.iter().any(|e| e.name == src.entry && e.stage == naga::ShaderStage::Compute),
            "{k:?}: no compute entry point '{}' in {}",
            src.entry,
            src.file
        );
        let (fields, size) = uniform_layout(&m, 0).unwrap_or_else(|| panic!("{k:?}: no params uniform at binding 0"));
        let want: Vec<(String, usize)> = src.params_fields.iter().map(|(n, o)| (n.to_string(), *o)).collect();
        assert_eq!(fields, want, "{k:?}: WGSL Params differs from Rust");
        assert_eq!(size, src.params_size, "{k:?}: Params size");
        let (step, step_size) = uniform_layout(&m, 1).unwrap_or_else(|| panic!("{k:?}: no step uniform at binding 1"));
        assert_eq!(step, rust_step, "{k:?}: WGSL Step differs from Rust");
        assert_eq!(step_size, std::mem::size_of::<Step>());
    }
}

/// Every kernel fits the workgroup memory of the smallest adapter we run on (software Vulkan:
/// 32 KB) with every prelude set, counted as `Gpu::check_workgroup_memory` counts it; the count
/// sees the arrays (decode attention alone is past WebGPU's 16 KB default) and skips unused ones.
#[test]
fn every_kernel_fits_32k_of_workgroup_memory() {
    use gerbil::gpu::workgroup_memory::workgroup_bytes;
    for r in PRELUDES {
        let bytes = |k: KernelId| workgroup_bytes(k, r).unwrap_or_else(|e| panic!("{k:?}: {e}"));
        let mut largest = (KernelId::Add, 0);
        for &k in KernelId::ALL {
            let n = bytes(k);
            assert!(n <= 32768, "{k:?} needs {n} bytes of workgroup memory ({r:?})");
            if n > largest.1 {
                largest = (k, n);
            }
        }
        eprintln!("{r:?}: largest {largest:?}");
        assert_eq!(bytes(KernelId::Add), 0);
        assert!(bytes(KernelId::AttentionDecodeO) > 16384);
        let qkv = bytes(KernelId::AttentionQkvO);
        assert!(qkv as usize <= gerbil::graph::dispatch_partials::QKV_WORKGROUP_BYTES as usize, "{qkv}");
    }
}
