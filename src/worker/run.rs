//! The GPU worker: one OS thread that owns the `Executor` (the wgpu device) and every loaded
//! model. It loads the models, publishes what loaded (and what failed), then
//! runs the schedulers: block while idle, otherwise drain new requests and
//! step every model with work, until every handle is gone.
//!
//! When the device is lost (a driver reset, a GPU gone), everything in flight fails with a
//! device-lost error (503), the models are unpublished (new requests get 503 "loading"), the device
//! is opened again and every model reloaded; requests still in the channel are served after that.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};

use super::audio::AudioWorker;
use super::backend::backend_for;
use super::embed::EmbedQueue;
use super::handle::{QueueCounter, WorkerHandle};
use super::load::{load_model, LoadedModel};
use super::metrics::Metrics;
use super::msg::{SeqEvent, ValidTranscribe, WorkerError, WorkerMsg};
use super::registry::{chat_template_for, unix_now, EmbedEntry, LoadFailure, ModelEntry, Registry, SpeechEntry};
use super::scheduler::Scheduler;
use super::speech::SpeechQueue;
use crate::config::ServeConfig;
use crate::executor::Executor;
use crate::gpu::GpuOptions;
use crate::models::embedding::EmbeddingModel;
use crate::text::TextTokenizer;

/// Starts the worker thread. Loading happens on it; watch the handle's
/// `wait_loaded` for the outcome.
pub fn spawn(cfg: Arc<ServeConfig>, metrics: Arc<Metrics>) -> std::io::Result<(WorkerHandle, JoinHandle<()>)> {
    let (tx, rx) = mpsc::channel(cfg.limits.max_queue.max(1));
    let (reg_tx, reg_rx) = watch::channel(None);
    let queue = Arc::new(QueueCounter::new(cfg.limits.max_queue, metrics.clone()));
    let handle = WorkerHandle::new(tx, queue.clone(), reg_rx, metrics.clone());
    let thread = std::thread::Builder::new().name("gerbil-gpu".into()).spawn(move || {
        let mut rx = rx;
        let mut held = Vec::new();
        let mut debug = Debug {
            step_delay: Duration::from_millis(cfg.debug.step_delay_ms),
            lose_device_after_steps: cfg.debug.lose_device_after_steps,
        };
        loop {
            let (schedulers, embed, audio, mut registry, exec) = load_all(&cfg, &queue, &metrics);
            let speech = load_voices(&cfg, exec.clone(), &mut registry, &queue, &metrics);
            let _ = reg_tx.send(Some(Arc::new(registry)));
            let mut work = Work { schedulers, embed, audio, speech };
            for msg in held.drain(..) {
                work.route(&queue, msg);
            }
            match serve(&mut rx, &mut work, &queue, exec.as_ref(), &mut debug) {
                Served::HandlesGone => break,
                Served::DeviceLost { why, unrouted } => {
                    metrics.device_lost.inc();
                    let _ = reg_tx.send(None);
                    work.fail_all(WorkerError::DeviceLost(why));
                    held = unrouted;
                    tracing::warn!("reopening the GPU and reloading every model");
                }
            }
        }
    })?;
    Ok((handle, thread))
}

/// Everything the worker runs on the device: the text schedulers, embeddings, transcriptions, speech.
struct Work {
    schedulers: Vec<Scheduler>,
    embed: EmbedQueue,
    audio: AudioWorker,
    speech: SpeechQueue,
}

impl Work {
    fn is_idle(&self) -> bool {
        self.schedulers.iter().all(Scheduler::is_idle)
            && self.embed.is_idle()
            && self.audio.is_idle()
            && self.speech.is_idle()
    }

    fn route(&mut self, queue: &QueueCounter, msg: WorkerMsg) {
        if let Some(job) = route_text_or_speech(&mut self.schedulers, &mut self.embed, &mut self.speech, queue, msg) {
            self.audio.enqueue(job);
        }
    }

    fn fail_all(&mut self, err: WorkerError) {
        self.schedulers.iter_mut().for_each(|s| s.fail_all(err.clone()));
        self.embed.fail_all(err.clone());
        self.audio.fail_all(err.clone());
        self.speech.fail_all(err);
    }
}

/// The `[debug]` settings the serving loop acts on.
struct Debug {
    step_delay: Duration,
    /// Destroy the device after this many loop iterations with work (once).
    lose_device_after_steps: Option<u64>,
}

enum Served {
    /// Every handle is gone: the server is shutting down.
    HandlesGone,
    /// The device was lost; `unrouted` are messages received but not yet handed to a model.
    DeviceLost { why: String, unrouted: Vec<WorkerMsg> },
}

/// Loads every configured voice; one that fails is recorded and skipped.
fn load_voices(
    cfg: &ServeConfig,
    exec: Option<Executor>,
    registry: &mut Registry,
    queue: &Arc<QueueCounter>,
    metrics: &Arc<Metrics>,
) -> SpeechQueue {
    let mut voices = Vec::new();
    for spec in &cfg.voices {
        let id = format!("voice:{}", spec.name);
        let Some(exec) = exec.clone() else {
            registry.failures.push(LoadFailure { id, error: "no GPU".into() });
            continue;
        };
        let t0 = std::time::Instant::now();
        let load = crate::models::voice::VoiceLoad { exec, spec, hub: &cfg.hub, max_context: cfg.limits.max_context };
        match crate::models::load_voice(&load) {
            Ok(crate::models::voice::LoadedVoice { voice: v, origin }) => {
                let info = v.info();
                tracing::info!(voice = %spec.name, rate = info.sample_rate, from = %origin, "voice loaded in {:.1}s", t0.elapsed().as_secs_f64());
                registry.voices.push(super::registry::VoiceEntry {
                    name: spec.name.clone(),
                    index: voices.len(),
                    info,
                });
                voices.push((spec.name.clone(), v));
            }
            Err(e) => {
                tracing::error!(voice = %spec.name, "failed to load, skipping it: {e}");
                registry.failures.push(LoadFailure { id, error: e.to_string() });
            }
        }
    }
    let health = exec.map(|e| e.health().clone()).unwrap_or_default();
    SpeechQueue::new(voices, queue.clone(), metrics.clone(), health)
}

fn load_all(
    cfg: &ServeConfig,
    queue: &Arc<QueueCounter>,
    metrics: &Arc<Metrics>,
) -> (Vec<Scheduler>, EmbedQueue, AudioWorker, Registry, Option<Executor>) {
    let mut registry = Registry { openai: cfg.openai.clone(), ..Registry::default() };
    let mut schedulers = Vec::new();
    let mut embedders = Vec::new();
    let exec = match Executor::new(&GpuOptions::default()) {
        Ok(g) => g,
        Err(e) => {
            tracing::error!("no GPU: {e}");
            registry.failures =
                cfg.models.iter().map(|m| LoadFailure { id: m.id().to_string(), error: e.to_string() }).collect();
            registry.failures.extend(cfg.stt_models.iter().map(|m| LoadFailure { id: m.id(), error: e.to_string() }));
            return (
                schedulers,
                EmbedQueue::new(Vec::new(), queue.clone(), metrics.clone(), Default::default()),
                AudioWorker::new(Vec::new(), queue.clone(), metrics.clone(), Default::default()),
                registry,
                None,
            );
        }
    };
    // Speech models first (small); one that fails to load is reported and skipped.
    let mut speech = Vec::new();
    for spec in &cfg.stt_models {
        let id = spec.id();
        let source = crate::config::expand_home(&spec.source.to_string_lossy());
        let loaded = crate::weights::sources::speech_model(&source.to_string_lossy(), &cfg.hub)
            .map_err(|e| e.to_string())
            .and_then(|r| {
                crate::models::load_transcriber(&exec, &r.path).map(|m| (m, r.origin)).map_err(|e| e.to_string())
            });
        match loaded {
            Ok((model, origin)) => {
                tracing::info!(model = %id, from = %origin, "speech model loaded");
                registry.speech.push(SpeechEntry {
                    id: id.clone(),
                    index: speech.len(),
                    languages: model.languages(),
                    words: model.word_timestamps(),
                    created: unix_now(),
                });
                speech.push((id, model));
            }
            Err(e) => {
                tracing::error!(model = %id, "speech model failed to load, skipping it: {e}");
                registry.failures.push(LoadFailure { id, error: e });
            }
        }
    }
    let audio = AudioWorker::new(speech, queue.clone(), metrics.clone(), exec.health().clone());
    registry.device = Some(exec.health().clone());
    tracing::info!(adapter = %exec.caps().adapter_name, backend = %exec.caps().backend, "GPU ready");
    let limits = &cfg.limits;
    for spec in &cfg.models {
        let id = spec.id().to_string();
        let t0 = std::time::Instant::now();
        let model = match load_model(&exec, spec, limits.max_context, limits.prefill_chunk, &cfg.hub) {
            Ok(LoadedModel::Text(model)) => Ok(model),
            Ok(LoadedModel::Embed { model, tokenizer, from }) => {
                let entry = embed_entry(&id, embedders.len(), &*model, tokenizer);
                tracing::info!(model = %id, from = %from.display(), dims = entry.dims, "embedding model loaded in {:.1}s", t0.elapsed().as_secs_f64());
                registry.embedders.push(entry);
                embedders.push((id, model));
                continue;
            }
            Err(e) => Err(e),
        };
        let loaded = model.map_err(|e| e.to_string()).and_then(|mut model| {
            let slots = spec.max_slots.unwrap_or(limits.max_slots);
            let backend = backend_for(&model, slots).map_err(|e| e.to_string())?;
            // The batched decoder caps its rows; report what the model really serves.
            let slots = backend.max_slots();
            let tokenizer = Arc::new(model.tokenizer.take().ok_or("the model has no tokenizer")?);
            let chat = chat_template_for(&tokenizer, &model.dir);
            if let Err(why) = &chat {
                tracing::warn!(model = %id, "chat completions unavailable: {why}");
            }
            let entry = ModelEntry {
                id: id.clone(),
                index: schedulers.len(),
                vocab: model.arch.vocab(),
                max_context: model.max_context(),
                slots,
                tokenizer: tokenizer.clone(),
                chat,
                created: unix_now(),
                grammar: Default::default(),
            };
            entry.prepare_grammar();
            let sched = Scheduler::new(
                id.clone(),
                backend,
                tokenizer.eos.clone(),
                limits.prefill_chunk,
                queue.clone(),
                metrics.clone(),
            )
            .with_prefix_cache(limits.prefix_cache)
            .with_health(exec.health().clone());
            Ok((entry, sched, model.dir.clone()))
        });
        match loaded {
            Ok((entry, sched, model_dir)) => {
                tracing::info!(model = %id, from = %model_dir.display(), slots = entry.slots, context = entry.max_context, "loaded in {:.1}s", t0.elapsed().as_secs_f64());
                registry.models.push(entry);
                schedulers.push(sched);
            }
            Err(error) => {
                tracing::error!(model = %id, "failed to load, skipping it: {error}");
                registry.failures.push(LoadFailure { id, error });
            }
        }
    }
    let embed = EmbedQueue::new(embedders, queue.clone(), metrics.clone(), exec.health().clone());
    (schedulers, embed, audio, registry, Some(exec))
}

/// The registry entry of embedding model `index` of the embedding list.
fn embed_entry(id: &str, index: usize, model: &dyn EmbeddingModel, tokenizer: TextTokenizer) -> EmbedEntry {
    EmbedEntry {
        id: id.to_string(),
        index,
        tokenizer: Arc::new(tokenizer),
        vocab: model.vocab(),
        dims: model.dims(),
        max_tokens: model.max_tokens(),
        matryoshka: model.config().matryoshka.clone(),
        normalize: model.config().normalize,
        created: unix_now(),
    }
}

fn serve(
    rx: &mut mpsc::Receiver<WorkerMsg>,
    work: &mut Work,
    queue: &QueueCounter,
    exec: Option<&Executor>,
    debug: &mut Debug,
) -> Served {
    let lost = || exec.and_then(|e| e.health().reason());
    loop {
        if work.is_idle() {
            work.schedulers.iter().for_each(Scheduler::mark_idle);
            match rx.blocking_recv() {
                // A device lost while idle is found here, before the request meets it.
                Some(msg) => match lost() {
                    Some(why) => return Served::DeviceLost { why, unrouted: vec![msg] },
                    None => work.route(queue, msg),
                },
                None => break,
            }
        }
        while let Ok(msg) = rx.try_recv() {
            work.route(queue, msg);
        }
        let Work { schedulers, embed, audio, speech } = work;
        for s in schedulers.iter_mut().filter(|s| !s.is_idle()) {
            s.step();
        }
        // One input of one embedding request between text steps.
        embed.step();
        // One audio job between text steps. Between its windows, text sequences (and requests
        // that arrive meanwhile) step for as long as the window took, after one sentence of
        // speech: while both have work, each gets about half of the GPU, and a long file does
        // not stall the streams. Transcriptions that arrive meanwhile queue behind this one.
        let mut deferred = Vec::new();
        let mut since = Instant::now();
        audio.run_one(&mut || {
            let until = Instant::now() + since.elapsed();
            // A sentence of speech and an input to embed too, so neither waits for the whole file.
            speech.step();
            embed.step();
            loop {
                while let Ok(msg) = rx.try_recv() {
                    deferred.extend(route_text_or_speech(schedulers, embed, speech, queue, msg));
                }
                let mut busy = schedulers.iter_mut().filter(|s| !s.is_idle()).peekable();
                if busy.peek().is_none() {
                    break;
                }
                busy.for_each(Scheduler::step);
                if Instant::now() >= until {
                    break;
                }
            }
            since = Instant::now();
        });
        deferred.into_iter().for_each(|job| audio.enqueue(job));
        // One sentence per iteration: text sequences keep decoding between sentences.
        speech.step();
        if !debug.step_delay.is_zero() {
            std::thread::sleep(debug.step_delay);
        }
        if let Some(why) = lost() {
            return Served::DeviceLost { why, unrouted: Vec::new() };
        }
        debug_lose_device(debug, exec);
    }
    tracing::info!("worker stopped: no handles left");
    Served::HandlesGone
}

/// `[debug] lose_device_after_steps`: counts down the loop iterations with work, then destroys the
/// device once, as a driver reset would lose it (tests/http_device_lost.rs).
fn debug_lose_device(debug: &mut Debug, exec: Option<&Executor>) {
    let (Some(left), Some(exec)) = (debug.lose_device_after_steps.as_mut(), exec) else { return };
    if *left > 0 {
        *left -= 1;
        return;
    }
    tracing::warn!("[debug] lose_device_after_steps: destroying the GPU device");
    debug.lose_device_after_steps = None;
    exec.destroy_device();
}

/// Routes text and speech requests; hands a transcription back (the audio worker may be busy
/// running a job, between whose windows this is called).
fn route_text_or_speech(
    schedulers: &mut [Scheduler],
    embed: &mut EmbedQueue,
    speech: &mut SpeechQueue,
    queue: &QueueCounter,
    msg: WorkerMsg,
) -> Option<ValidTranscribe> {
    match msg {
        WorkerMsg::Transcribe(job) => return Some(job),
        WorkerMsg::Speech(req) => speech.enqueue(req),
        WorkerMsg::Embed(req) => embed.enqueue(req),
        WorkerMsg::Generate(req) => match schedulers.get_mut(req.model) {
            Some(s) => s.enqueue(req),
            None => {
                queue.release(req.sequences.len());
                for seq in req.sequences {
                    let _ = seq
                        .events
                        .send(SeqEvent::Failed(WorkerError::Engine(format!("no model with index {}", req.model))));
                }
            }
        },
    }
    None
}
