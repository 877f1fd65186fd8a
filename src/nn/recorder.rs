//! The recorder: typed dispatches and copies, encoded at submit.

use std::sync::Arc;

use crate::gpu::params::Step;
use crate::gpu::{Gpu, GpuError, KernelId, PipelineKey};

/// A row-major f32 matrix on the GPU (`rows` x `cols`; the buffer may be larger).
#[derive(Clone, Debug)]
pub struct Mat {
    pub buf: wgpu::Buffer,
    pub rows: usize,
    pub cols: usize,
}

impl Mat {
    /// An uninitialised matrix.
    pub fn new(gpu: &Gpu, label: &str, rows: usize, cols: usize) -> Mat {
        Mat { buf: gpu.storage(label, (rows * cols * 4) as u64), rows, cols }
    }

    /// A matrix holding `data` (rows = data.len() / cols).
    pub fn from_data(gpu: &Gpu, label: &str, data: &[f32], cols: usize) -> Mat {
        assert!(cols > 0 && data.len().is_multiple_of(cols), "{label}: {} values are not rows of {cols}", data.len());
        Mat { buf: gpu.storage_from(label, data), rows: data.len() / cols, cols }
    }

    /// The same storage viewed with fewer rows (for a step shorter than the maximum).
    pub fn with_rows(&self, rows: usize) -> Mat {
        assert!(rows * self.cols * 4 <= self.buf.size() as usize, "view past the buffer");
        Mat { buf: self.buf.clone(), rows, cols: self.cols }
    }

    pub fn len(&self) -> usize {
        self.rows * self.cols
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn read(&self, gpu: &Gpu) -> Result<Vec<f32>, GpuError> {
        gpu.read_f32(&self.buf, self.len())
    }
}

enum Cmd {
    Dispatch {
        key: PipelineKey,
        params: (usize, usize),
        step: usize,
        binds: Vec<(u32, wgpu::Buffer)>,
        grid: (u32, u32),
        z: u32,
    },
    Copy {
        src: wgpu::Buffer,
        src_off: u64,
        dst: wgpu::Buffer,
        dst_off: u64,
        bytes: u64,
    },
}

/// Collects dispatches for one submission.
pub struct Recorder {
    pub(crate) gpu: Arc<Gpu>,
    cmds: Vec<Cmd>,
    arena: Vec<u8>,
    align: usize,
}

impl Recorder {
    pub fn new(gpu: &Arc<Gpu>) -> Recorder {
        let align = gpu.device.limits().min_uniform_buffer_offset_alignment as usize;
        Recorder { gpu: gpu.clone(), cmds: Vec::new(), arena: Vec::new(), align }
    }

    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    fn push_uniform(&mut self, bytes: &[u8]) -> (usize, usize) {
        let off = self.arena.len();
        self.arena.extend_from_slice(bytes);
        self.arena.resize(self.arena.len().next_multiple_of(self.align), 0);
        (off, bytes.len())
    }

    /// Records one dispatch: `params` at binding 0, a Step with `n_tokens` at
    /// binding 1, `binds` at their binding numbers (exactly those the entry
    /// point uses: pipeline layouts are derived from the shader).
    pub fn dispatch<P: bytemuck::Pod>(
        &mut self,
        kernel: KernelId,
        flags: u32,
        params: &P,
        n_tokens: usize,
        binds: &[(u32, &wgpu::Buffer)],
        grid: (u32, u32),
    ) {
        let params = self.push_uniform(bytemuck::bytes_of(params));
        let step = Step { n_tokens: n_tokens as u32, ..Default::default() };
        let step = self.push_uniform(bytemuck::bytes_of(&step)).0;
        let binds = binds.iter().map(|(i, b)| (*i, (*b).clone())).collect();
        self.cmds.push(Cmd::Dispatch { key: PipelineKey::new(kernel, flags), params, step, binds, grid, z: 1 });
    }

    /// [`Recorder::dispatch`] with a 3-D grid (z: batch).
    pub fn dispatch3<P: bytemuck::Pod>(
        &mut self,
        kernel: KernelId,
        params: &P,
        n_tokens: usize,
        binds: &[(u32, &wgpu::Buffer)],
        grid: (u32, u32, u32),
    ) {
        self.dispatch(kernel, 0, params, n_tokens, binds, (grid.0, grid.1));
        if let Some(Cmd::Dispatch { z, .. }) = self.cmds.last_mut() {
            *z = grid.2;
        }
    }

    /// [`Recorder::dispatch`] for kernels that declare their buffers in order after the two
    /// uniforms (the conv family, Snake, the VITS kernels): `buffers` at bindings 2, 3, ...
    pub fn dispatch_in_order<P: bytemuck::Pod>(
        &mut self,
        kernel: KernelId,
        params: &P,
        n_tokens: usize,
        buffers: &[&wgpu::Buffer],
        grid: (u32, u32),
    ) {
        let binds: Vec<(u32, &wgpu::Buffer)> = (2..).zip(buffers.iter().copied()).collect();
        self.dispatch(kernel, 0, params, n_tokens, &binds, grid);
    }

    /// Compiles `kernel`'s pipeline now (the device caches it): layers built at load call this so
    /// that the first request does not wait for the shader compiler.
    pub fn precompile(gpu: &Gpu, kernel: KernelId) {
        gpu.pipeline(PipelineKey::new(kernel, 0));
    }

    /// A software adapter (lavapipe): some ops pick kernels that suit SIMD-on-CPU execution.
    pub fn cpu_adapter(&self) -> bool {
        self.gpu.caps.device_type == "Cpu"
    }

    /// Records a buffer copy (between compute passes).
    pub fn copy(&mut self, src: &wgpu::Buffer, src_off: u64, dst: &wgpu::Buffer, dst_off: u64, bytes: u64) {
        if bytes > 0 {
            self.cmds.push(Cmd::Copy { src: src.clone(), src_off, dst: dst.clone(), dst_off, bytes });
        }
    }

    pub fn dispatch_count(&self) -> usize {
        self.cmds.iter().filter(|c| matches!(c, Cmd::Dispatch { .. })).count()
    }

    /// Encodes everything recorded (consecutive dispatches share one compute
    /// pass) and submits it; the recorder is empty afterwards.
    pub fn submit(&mut self) -> wgpu::SubmissionIndex {
        let gpu = self.gpu.clone();
        if self.arena.is_empty() {
            self.arena.resize(16, 0);
        }
        let arena = gpu.uniform_bytes("nn params", &self.arena);
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        let cmds = std::mem::take(&mut self.cmds);
        let mut i = 0;
        while i < cmds.len() {
            match &cmds[i] {
                Cmd::Copy { src, src_off, dst, dst_off, bytes } => {
                    enc.copy_buffer_to_buffer(src, *src_off, dst, *dst_off, *bytes);
                    i += 1;
                }
                Cmd::Dispatch { .. } => {
                    let mut pass = enc
                        .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("nn"), timestamp_writes: None });
                    while let Some(Cmd::Dispatch { key, params, step, binds, grid, z }) = cmds.get(i) {
                        let pipeline = gpu.pipeline(*key);
                        let layout = pipeline.get_bind_group_layout(0);
                        let uni = |off: usize, len: usize| {
                            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer: &arena,
                                offset: off as u64,
                                size: wgpu::BufferSize::new(len as u64),
                            })
                        };
                        let mut entries = vec![
                            wgpu::BindGroupEntry { binding: 0, resource: uni(params.0, params.1) },
                            wgpu::BindGroupEntry { binding: 1, resource: uni(*step, std::mem::size_of::<Step>()) },
                        ];
                        for (b, buf) in binds {
                            entries.push(wgpu::BindGroupEntry { binding: *b, resource: buf.as_entire_binding() });
                        }
                        let bg = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                            label: Some(key.kernel.source().entry),
                            layout: &layout,
                            entries: &entries,
                        });
                        pass.set_pipeline(&pipeline);
                        pass.set_bind_group(0, &bg, &[]);
                        pass.dispatch_workgroups(grid.0, grid.1, *z);
                        i += 1;
                    }
                }
            }
        }
        self.arena.clear();
        gpu.queue.submit([enc.finish()])
    }
}
