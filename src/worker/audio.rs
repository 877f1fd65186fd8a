//! Audio jobs on the GPU worker: loaded speech models and a FIFO of
//! transcriptions. A job runs to its end, but hands the worker back between
//! its windows (`between_windows`: text sequences step there); it stops early
//! when the client's event receiver is gone (checked after every segment and
//! window), and every job is counted in /metrics by outcome.

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::sync::Arc;

use super::metrics::Metrics;
use super::msg::{AudioEvent, ValidTranscribe, WorkerError};
use super::queue::QueueCounter;
use crate::gpu::DeviceHealth;
use crate::models::speech::{Progress, SpeechError, SpeechModel};

pub struct AudioWorker {
    models: Vec<(String, Box<dyn SpeechModel>)>,
    jobs: VecDeque<ValidTranscribe>,
    queue: Arc<QueueCounter>,
    metrics: Arc<Metrics>,
    /// The device's state: a failure after it is lost is reported as the loss.
    health: Arc<DeviceHealth>,
}

impl AudioWorker {
    pub fn new(
        models: Vec<(String, Box<dyn SpeechModel>)>,
        queue: Arc<QueueCounter>,
        metrics: Arc<Metrics>,
        health: Arc<DeviceHealth>,
    ) -> Self {
        AudioWorker { models, jobs: VecDeque::new(), queue, metrics, health }
    }

    /// Fails every queued job with `err` (the device is gone).
    pub fn fail_all(&mut self, err: WorkerError) {
        for job in self.jobs.drain(..) {
            self.queue.release(1);
            let _ = job.events.send(AudioEvent::Failed(err.clone()));
            let id = self.models.get(job.model).map_or("", |m| m.0.as_str());
            self.metrics.audio_jobs.with_label_values(&[id, "error"]).inc();
        }
    }

    pub fn is_idle(&self) -> bool {
        self.jobs.is_empty()
    }

    pub fn enqueue(&mut self, job: ValidTranscribe) {
        if job.model >= self.models.len() {
            self.queue.release(1);
            let _ = job.events.send(AudioEvent::Failed(WorkerError::Engine(format!("no speech model {}", job.model))));
            return;
        }
        self.jobs.push_back(job);
    }

    /// Runs the oldest job to its end (or its cancellation), calling `between_windows` between
    /// its windows of audio.
    pub fn run_one(&mut self, between_windows: &mut dyn FnMut()) {
        let Some(job) = self.jobs.pop_front() else { return };
        self.queue.release(1);
        let (id, model) = &mut self.models[job.model];
        let label = |o: &str| [id.as_str(), o].map(String::from);
        if job.events.is_closed() {
            self.metrics.audio_jobs.with_label_values(&label("cancelled")).inc();
            return;
        }
        let events = job.events.clone();
        let mut on_progress = |p: Progress<'_>| {
            let gone = match p {
                Progress::Segment(s) => events.send(AudioEvent::Segment(s.clone())).is_err(),
                Progress::Window => events.is_closed(),
            };
            if gone {
                return ControlFlow::Break(());
            }
            if let Progress::Window = p {
                between_windows();
            }
            ControlFlow::Continue(())
        };
        let t0 = std::time::Instant::now();
        let outcome = match model.transcribe(&job.audio, &job.opts, &mut on_progress) {
            Ok(tr) => {
                self.metrics.audio_seconds.with_label_values(&[id.as_str()]).inc_by(tr.duration);
                tracing::info!(
                    model = %id,
                    audio_s = tr.duration,
                    wall_s = t0.elapsed().as_secs_f64(),
                    queued_s = (t0 - job.received).as_secs_f64(),
                    "transcribed"
                );
                let _ = job.events.send(AudioEvent::Done(tr));
                "done"
            }
            Err(SpeechError::Cancelled) => "cancelled",
            Err(e) => {
                tracing::error!(model = %id, "transcription failed: {e}");
                let err = WorkerError::Engine(e.to_string()).or_device_lost(&self.health);
                let _ = job.events.send(AudioEvent::Failed(err));
                "error"
            }
        };
        self.metrics.audio_jobs.with_label_values(&label(outcome)).inc();
    }
}
