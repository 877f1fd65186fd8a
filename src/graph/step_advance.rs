//! A plan's Step moved on by the GPU (shaders/step_advance.wgsl): a decode step ends with one
//! tiny dispatch that adds its token to the position, so the next step needs no uniform write
//! (a staging copy and a barrier ahead of its pass, 8-27 us a step on the H200; BENCHMARKS.md
//! session 10). `Plan` records what the GPU's Step holds after the submitted work and writes
//! the uniform only when a step asks for something else (a new prompt, a rewind).

use std::sync::Mutex;

use crate::gpu::params::Step;
use crate::gpu::Gpu;

const SOURCE: &str = include_str!("../../shaders/step_advance.wgsl");

pub(super) struct StepAdvance {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    /// What the Step buffer holds once every submitted command has run (None: unknown).
    on_gpu: Mutex<Option<Step>>,
}

/// The Step uniform buffer, also writable as storage by the advance dispatch.
pub(super) fn step_buffer(gpu: &Gpu) -> wgpu::Buffer {
    gpu.uniform_writable_from("step", &Step::default())
}

impl StepAdvance {
    pub(super) fn new(gpu: &Gpu, step: &wgpu::Buffer) -> StepAdvance {
        let module = gpu.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("step_advance.wgsl"),
            source: wgpu::ShaderSource::Wgsl(SOURCE.into()),
        });
        let pipeline = gpu.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("step_advance"),
            layout: None,
            module: &module,
            entry_point: Some("step_advance"),
            compilation_options: Default::default(),
            cache: None,
        });
        let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("step_advance"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: step.as_entire_binding() }],
        });
        StepAdvance { pipeline, bind_group, on_gpu: Mutex::new(None) }
    }

    /// Whether the Step buffer must be written for a step of `want` (it then holds `want`).
    pub(super) fn needs_write(&self, want: Step) -> bool {
        let mut on_gpu = self.on_gpu.lock().unwrap();
        let stale = *on_gpu != Some(want);
        *on_gpu = Some(want);
        stale
    }

    /// Records the advance at the end of a step's pass; the buffer then holds `ran` moved on.
    pub(super) fn encode(&self, pass: &mut wgpu::ComputePass<'_>, ran: Step) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        let n = ran.n_tokens;
        *self.on_gpu.lock().unwrap() = Some(Step { pos0: ran.pos0 + n, kv_len: ran.kv_len + n, ..ran });
    }
}
