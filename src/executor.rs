//! The `Executor`: what runs a model's work on the GPU. The worker owns one per device and hands
//! it to every model it loads; a model keeps a clone and records its work through it, in one of
//! two tiers:
//!
//! - **planned** (`plan`): a typed op graph made runnable once, at load, as a `graph::Plan` (one
//!   kernel and bind group per op, activations allocated, every uniform in one arena), then
//!   encoded every step with no allocation: the per-token hot paths of the text models and of the
//!   speech backbones, where a dispatch costs microseconds and the shapes are fixed.
//! - **eager** (`recorder`): an `nn::Recorder` that collects typed dispatches and copies for one
//!   submission: encoders, codecs and vocoders, whose shapes change with every request.
//!
//! Both tiers use the same device, kernel registry and pipeline cache. Models do not build plans
//! or recorders any other way (tests/layering.rs checks), so what runs on the device, and how, is
//! decided here: one place to add a device-lost recovery, a second GPU or a memory budget.

use std::sync::Arc;

use crate::gpu::{DeviceHealth, Gpu, GpuCaps, GpuError, GpuOptions};
use crate::graph::plan::PlanError;
use crate::graph::{Graph, Plan, PlanOptions};
use crate::nn::Recorder;

/// Runs work on one device. Cloning is cheap: clones share the device.
#[derive(Clone)]
pub struct Executor {
    gpu: Arc<Gpu>,
}

impl Executor {
    /// Opens the adapter `opts` picks.
    pub fn new(opts: &GpuOptions) -> Result<Executor, GpuError> {
        Ok(Executor { gpu: Gpu::new(opts)? })
    }

    /// An executor over a device already open (tests and benchmarks that share one device).
    pub fn on(gpu: &Arc<Gpu>) -> Executor {
        Executor { gpu: gpu.clone() }
    }

    /// The device, for what is neither tier: weights and buffers made at load, reads back.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// What the device granted (limits, features, adapter name).
    pub fn caps(&self) -> &GpuCaps {
        &self.gpu.caps
    }

    /// The planned tier: `graph` made runnable for steps of at most `opts.max_rows` rows.
    pub fn plan(&self, graph: Graph, opts: PlanOptions) -> Result<Plan, PlanError> {
        Plan::new(&self.gpu, graph, opts)
    }

    /// The eager tier: an empty recorder for one submission.
    pub fn recorder(&self) -> Recorder {
        Recorder::new(&self.gpu)
    }

    /// Whether the device is still there; the worker reads it after every step.
    pub fn health(&self) -> &Arc<DeviceHealth> {
        &self.gpu.health
    }

    /// Destroys the device, as a driver reset would lose it (`[debug] lose_device_after_steps`
    /// uses it to exercise the recovery). A driver's loss calls the device-lost callback at once;
    /// wgpu defers destroy's call to a poll that may never come (the next wait fails first), so
    /// the loss is recorded here as the callback would record it.
    pub fn destroy_device(&self) {
        self.gpu.device.destroy();
        self.gpu.health.mark_lost("Destroyed: the device was destroyed".into());
    }

    /// Blocks until everything submitted so far has run (a request's end, a benchmark's edge).
    pub fn wait_idle(&self) {
        let _ = self.gpu.device.poll(wgpu::PollType::wait_indefinitely());
    }
}
