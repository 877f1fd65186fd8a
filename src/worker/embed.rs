//! Embedding jobs on the GPU worker: a FIFO of requests, one input embedded per worker iteration
//! (so text streams keep stepping between the inputs of a large request); a request whose client
//! went away is dropped before its next input.

use std::collections::VecDeque;
use std::sync::Arc;

use super::msg::{ValidEmbed, WorkerError};
use super::queue::QueueCounter;
use super::Metrics;
use crate::gpu::DeviceHealth;
use crate::models::embedding::EmbeddingModel;

struct Job {
    req: ValidEmbed,
    done: Vec<Vec<f32>>,
    started: bool,
}

pub struct EmbedQueue {
    models: Vec<(String, Box<dyn EmbeddingModel>)>,
    jobs: VecDeque<Job>,
    queue: Arc<QueueCounter>,
    metrics: Arc<Metrics>,
    health: Arc<DeviceHealth>,
}

impl EmbedQueue {
    pub fn new(
        models: Vec<(String, Box<dyn EmbeddingModel>)>,
        queue: Arc<QueueCounter>,
        metrics: Arc<Metrics>,
        health: Arc<DeviceHealth>,
    ) -> Self {
        EmbedQueue { models, jobs: VecDeque::new(), queue, metrics, health }
    }

    pub fn is_idle(&self) -> bool {
        self.jobs.is_empty()
    }

    pub fn enqueue(&mut self, req: ValidEmbed) {
        if req.model >= self.models.len() {
            self.queue.release(1);
            let _ = req.reply.send(Err(WorkerError::Engine(format!("no embedding model {}", req.model))));
            return;
        }
        self.jobs.push_back(Job { done: Vec::with_capacity(req.inputs.len()), req, started: false });
    }

    /// Fails every job, started or not, with `err` (the device is gone).
    pub fn fail_all(&mut self, err: WorkerError) {
        for job in self.jobs.drain(..) {
            if !job.started {
                self.queue.release(1);
            }
            let _ = job.req.reply.send(Err(err.clone()));
        }
    }

    /// Embeds the next input of the oldest job; answers the job once its last input is done.
    pub fn step(&mut self) {
        let Some(job) = self.jobs.front_mut() else { return };
        if !job.started {
            job.started = true;
            self.queue.release(1);
        }
        if job.req.reply.is_closed() {
            tracing::debug!("embedding request cancelled by the client");
            self.jobs.pop_front();
            return;
        }
        let (name, embedder) = &mut self.models[job.req.model];
        if let Some(tokens) = job.req.inputs.get(job.done.len()) {
            match embedder.embed(tokens) {
                Ok(v) => {
                    self.metrics.prompt_tokens.with_label_values(&[name.as_str()]).inc_by(tokens.len() as u64);
                    job.done.push(v);
                }
                Err(e) => {
                    let err = WorkerError::Engine(e.to_string()).or_device_lost(&self.health);
                    let job = self.jobs.pop_front().expect("the front job");
                    let _ = job.req.reply.send(Err(err));
                    return;
                }
            }
        }
        if job.done.len() == job.req.inputs.len() {
            let job = self.jobs.pop_front().expect("the front job");
            let _ = job.req.reply.send(Ok(job.done));
        }
    }
}
