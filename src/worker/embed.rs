//! Embedding jobs on the GPU worker: a FIFO of requests, the next inputs of the oldest (up to
//! `STEP_TOKENS` tokens) embedded per worker iteration, so text streams keep stepping between the
//! parts of a large request; a request whose client went away is dropped before its next part.

use std::collections::VecDeque;
use std::sync::Arc;

use super::msg::{ValidEmbed, WorkerError};
use super::queue::QueueCounter;
use super::Metrics;
use crate::gpu::DeviceHealth;
use crate::models::embedding::EmbeddingModel;

/// Tokens of one request embedded per worker iteration (a longer single input goes alone).
const STEP_TOKENS: usize = 2048;

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

    /// Embeds the next inputs of the oldest job; answers the job once its last input is done.
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
        // The next inputs up to STEP_TOKENS (at least one): one GPU pass where the family packs them.
        let rest = &job.req.inputs[job.done.len()..];
        let mut take = 0;
        let mut tokens = 0;
        while take < rest.len() && (take == 0 || tokens + rest[take].len() <= STEP_TOKENS) {
            tokens += rest[take].len();
            take += 1;
        }
        let batch: Vec<&[u32]> = rest[..take].iter().map(Vec::as_slice).collect();
        if !batch.is_empty() {
            match embedder.embed_batch(&batch) {
                Ok(vectors) => {
                    self.metrics.prompt_tokens.with_label_values(&[name.as_str()]).inc_by(tokens as u64);
                    job.done.extend(vectors);
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
