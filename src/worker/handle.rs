//! `WorkerHandle`: what the HTTP handlers hold. Cheap to clone; submits
//! validated requests over a bounded channel, enforcing the queue limit up
//! front so a full server answers 429 at once instead of hanging.

use std::sync::Arc;

use tokio::sync::{mpsc, watch};

use super::metrics::Metrics;
use super::msg::{ValidEmbed, ValidGenerate, ValidSpeech, ValidTranscribe, WorkerMsg};
use super::registry::Registry;

pub use super::queue::QueueCounter;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SubmitError {
    #[error("the server is busy: {max} sequences are already waiting; retry later")]
    QueueFull { max: usize },
    #[error("the inference worker has stopped")]
    WorkerGone,
}

#[derive(Clone)]
pub struct WorkerHandle {
    tx: mpsc::Sender<WorkerMsg>,
    queue: Arc<QueueCounter>,
    registry: watch::Receiver<Option<Arc<Registry>>>,
    metrics: Arc<Metrics>,
}

impl WorkerHandle {
    pub(crate) fn new(
        tx: mpsc::Sender<WorkerMsg>,
        queue: Arc<QueueCounter>,
        registry: watch::Receiver<Option<Arc<Registry>>>,
        metrics: Arc<Metrics>,
    ) -> Self {
        WorkerHandle { tx, queue, registry, metrics }
    }

    /// A handle with no worker behind it: the HTTP layer validates requests against `registry`
    /// as it would against loaded models, and every submit answers `WorkerGone`. For exercising
    /// the whole request path without a GPU (fuzzing, validation tests).
    pub fn detached(registry: Registry, metrics: Arc<Metrics>, max_queue: usize) -> Self {
        let (tx, _) = mpsc::channel(max_queue.max(1));
        let (_, registry) = watch::channel(Some(Arc::new(registry)));
        WorkerHandle::new(tx, Arc::new(QueueCounter::new(max_queue, metrics.clone())), registry, metrics)
    }

    /// Queues a request's sequences, or refuses at once when the queue is full.
    pub fn submit(&self, req: ValidGenerate) -> Result<(), SubmitError> {
        let n = req.sequences.len();
        if !self.queue.try_reserve(n) {
            return Err(SubmitError::QueueFull { max: self.queue.max() });
        }
        self.tx.try_send(WorkerMsg::Generate(req)).map_err(|e| {
            self.queue.release(n);
            match e {
                // The channel holds as many messages as the queue holds sequences,
                // so it is full only when the queue is.
                mpsc::error::TrySendError::Full(_) => SubmitError::QueueFull { max: self.queue.max() },
                mpsc::error::TrySendError::Closed(_) => SubmitError::WorkerGone,
            }
        })
    }

    /// Queues an audio job (it counts as one waiting sequence), or refuses at once when the queue is full.
    pub fn submit_audio(&self, job: ValidTranscribe) -> Result<(), SubmitError> {
        self.submit_one(WorkerMsg::Transcribe(job))
    }

    /// Queues a speech job (it counts as one waiting sequence until it starts).
    pub fn submit_speech(&self, req: ValidSpeech) -> Result<(), SubmitError> {
        self.submit_one(WorkerMsg::Speech(req))
    }

    /// Queues an embedding job (one place in the queue until it starts).
    pub fn submit_embed(&self, req: ValidEmbed) -> Result<(), SubmitError> {
        self.submit_one(WorkerMsg::Embed(req))
    }

    /// Sends one job that takes one place in the queue, or refuses at once when the queue is full.
    fn submit_one(&self, msg: WorkerMsg) -> Result<(), SubmitError> {
        if !self.queue.try_reserve(1) {
            return Err(SubmitError::QueueFull { max: self.queue.max() });
        }
        self.tx.try_send(msg).map_err(|e| {
            self.queue.release(1);
            match e {
                mpsc::error::TrySendError::Full(_) => SubmitError::QueueFull { max: self.queue.max() },
                mpsc::error::TrySendError::Closed(_) => SubmitError::WorkerGone,
            }
        })
    }

    /// The loaded models, once loading is over (None while it runs, and from the moment their
    /// device is lost until the reload is over).
    pub fn registry(&self) -> Option<Arc<Registry>> {
        self.registry.borrow().clone().filter(|r| !r.device.as_ref().is_some_and(|d| d.is_lost()))
    }

    /// Waits until loading is over; None if the worker died first.
    pub async fn wait_loaded(&self) -> Option<Arc<Registry>> {
        let mut rx = self.registry.clone();
        rx.wait_for(Option::is_some).await.ok().and_then(|r| r.clone())
    }

    pub fn is_alive(&self) -> bool {
        !self.tx.is_closed()
    }

    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    pub fn queue_waiting(&self) -> usize {
        self.queue.waiting()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::DeviceHealth;

    #[test]
    fn a_registry_on_a_lost_device_is_not_offered() {
        let health = Arc::new(DeviceHealth::default());
        let registry = Registry { device: Some(health.clone()), ..Registry::default() };
        let handle = WorkerHandle::detached(registry, Arc::new(Metrics::new()), 4);
        assert!(handle.registry().is_some(), "a working device's models are offered");
        health.mark_lost("Destroyed: test".into());
        assert!(handle.registry().is_none(), "from the loss until the reload, none are");
        let gpuless = WorkerHandle::detached(Registry::default(), Arc::new(Metrics::new()), 4);
        assert!(gpuless.registry().is_some(), "a registry without a device (load failures only) stays offered");
    }
}
