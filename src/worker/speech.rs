//! Speech jobs on the GPU worker: a FIFO of jobs, one unit (a sentence, or part of a long one)
//! synthesized per worker iteration (so text decoding keeps stepping between units), its audio
//! sent as the voice hands it over; a closed event channel cancels the job, mid-unit where the
//! voice checks.

use std::collections::VecDeque;
use std::sync::Arc;

use super::msg::{SpeechEvent, ValidSpeech, WorkerError};
use super::queue::QueueCounter;
use super::speech_metrics::SpeechMetrics;
use super::Metrics;
use crate::gpu::DeviceHealth;
use crate::models::voice::{AudioSink, SynthOptions, Voice};

struct Job {
    req: ValidSpeech,
    next: usize,
    samples: usize,
    started: bool,
    /// Whether any audio has left yet (the time to first audio is observed once).
    sent_audio: bool,
}

pub struct SpeechQueue {
    voices: Vec<(String, Box<dyn Voice>)>,
    jobs: VecDeque<Job>,
    queue: Arc<QueueCounter>,
    metrics: Arc<Metrics>,
    /// The device's state: a failure after it is lost is reported as the loss.
    health: Arc<DeviceHealth>,
}

impl SpeechQueue {
    pub fn new(
        voices: Vec<(String, Box<dyn Voice>)>,
        queue: Arc<QueueCounter>,
        metrics: Arc<Metrics>,
        health: Arc<DeviceHealth>,
    ) -> Self {
        SpeechQueue { voices, jobs: VecDeque::new(), queue, metrics, health }
    }

    /// Fails every job, started or not, with `err` (the device is gone).
    pub fn fail_all(&mut self, err: WorkerError) {
        for job in self.jobs.drain(..) {
            if !job.started {
                self.queue.release(1);
            }
            let _ = job.req.events.send(SpeechEvent::Failed(err.clone()));
            let name = self.voices.get(job.req.voice).map_or("", |v| v.0.as_str());
            self.metrics.speech.jobs.with_label_values(&[name, "error"]).inc();
        }
    }

    pub fn is_idle(&self) -> bool {
        self.jobs.is_empty()
    }

    pub fn enqueue(&mut self, req: ValidSpeech) {
        if req.voice >= self.voices.len() {
            self.queue.release(1);
            let _ = req.events.send(SpeechEvent::Failed(WorkerError::Engine(format!("no voice {}", req.voice))));
            return;
        }
        self.jobs.push_back(Job { req, next: 0, samples: 0, started: false, sent_audio: false });
    }

    /// Synthesizes the next unit of the oldest job.
    pub fn step(&mut self) {
        let Some(job) = self.jobs.front_mut() else { return };
        if !job.started {
            job.started = true;
            self.queue.release(1);
        }
        let (name, voice) = &mut self.voices[job.req.voice];
        let name = &*name;
        let m = &self.metrics.speech;
        if job.req.events.is_closed() {
            m.jobs.with_label_values(&[name, "cancelled"]).inc();
            tracing::debug!(voice = %name, sentence = job.next, "speech cancelled by the client");
            self.jobs.pop_front();
            return;
        }
        if job.next < job.req.units.len() {
            let i = job.next;
            // The seed is per unit so a unit sounds the same wherever it falls.
            let opts = SynthOptions { speed: job.req.speed, seed: i as u64 };
            let Job { req, samples, sent_audio, .. } = job;
            let rate = voice.info().sample_rate;
            let mut sink = JobSink { req, samples, sent_audio, unit: i, rate, voice: name, metrics: m };
            match voice.synthesize(&req.units[i], opts, &mut sink) {
                Ok(()) => {
                    m.sentences.with_label_values(&[name]).inc();
                    job.next += 1;
                }
                Err(e) => {
                    m.jobs.with_label_values(&[name, "error"]).inc();
                    let err = WorkerError::Engine(e.to_string()).or_device_lost(&self.health);
                    let _ = job.req.events.send(SpeechEvent::Failed(err));
                    self.jobs.pop_front();
                    return;
                }
            }
        }
        if job.next >= job.req.units.len() {
            m.jobs.with_label_values(&[name, "done"]).inc();
            let _ = job.req.events.send(SpeechEvent::Done { sentences: job.next, samples: job.samples });
            self.jobs.pop_front();
        }
    }
}

/// A job's audio on its way to the client, counted as it goes.
struct JobSink<'a> {
    req: &'a ValidSpeech,
    samples: &'a mut usize,
    sent_audio: &'a mut bool,
    unit: usize,
    rate: u32,
    voice: &'a str,
    metrics: &'a SpeechMetrics,
}

impl AudioSink for JobSink<'_> {
    fn wants_more(&self) -> bool {
        !self.req.events.is_closed()
    }

    fn audio(&mut self, samples: Vec<f32>) {
        let m = self.metrics;
        if !*self.sent_audio {
            *self.sent_audio = true;
            m.time_to_first_audio.with_label_values(&[self.voice]).observe(self.req.received.elapsed().as_secs_f64());
        }
        m.audio_seconds.with_label_values(&[self.voice]).inc_by(samples.len() as f64 / self.rate as f64);
        *self.samples += samples.len();
        let _ = self.req.events.send(SpeechEvent::Audio { sentence: self.unit, samples });
    }
}
