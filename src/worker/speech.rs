//! Speech jobs on the GPU worker: a FIFO of jobs, one sentence synthesized per worker
//! iteration (so text decoding keeps stepping between sentences), a closed event channel
//! cancelling the job before its next sentence.

use std::collections::VecDeque;
use std::sync::Arc;

use prometheus::{CounterVec, HistogramOpts, HistogramVec, IntCounterVec, Opts};

use super::handle::QueueCounter;
use super::msg::{SpeechEvent, SpeechInput, ValidSpeech, WorkerError};
use super::Metrics;
use crate::models::outetts::{CodeSampling, OuteTts};
use crate::models::piper::{PiperVoice, SynthParams};
use crate::models::ModelError;

/// A loaded voice of either family.
pub enum Voice {
    Piper(Box<PiperVoice>),
    OuteTts(Box<OuteTts>),
}

impl Voice {
    pub fn sample_rate(&self) -> u32 {
        match self {
            Voice::Piper(v) => v.sample_rate(),
            Voice::OuteTts(v) => v.sample_rate(),
        }
    }

    /// Audio of sentence `i` of `input`; the seed is per sentence so a sentence sounds the same
    /// wherever it falls.
    /// An OuteTTS sentence is hundreds of decode steps: it stops early once `events` is closed.
    fn sentence(&mut self, req: &ValidSpeech, i: usize) -> Result<Vec<f32>, ModelError> {
        let (p, events) = (req.params, &req.events);
        let seed = p.seed.wrapping_add(i as u64);
        match (self, &req.sentences) {
            (Voice::Piper(v), SpeechInput::Phonemes(s)) => Ok(v.synthesize(&s[i], SynthParams { seed, ..p })?.audio),
            (Voice::OuteTts(v), SpeechInput::Text(s)) => {
                let sampling = CodeSampling { seed: Some(seed), ..Default::default() };
                Ok(v.synthesize_until(&s[i], &sampling, &mut || !events.is_closed())?.audio)
            }
            _ => Err(ModelError::Unsupported("this input for this kind of voice".into())),
        }
    }
}

pub struct SpeechMetrics {
    pub jobs: IntCounterVec,
    pub sentences: IntCounterVec,
    pub audio_seconds: CounterVec,
    pub time_to_first_audio: HistogramVec,
}

impl SpeechMetrics {
    pub fn new(registry: &prometheus::Registry) -> Self {
        let jobs = IntCounterVec::new(
            Opts::new("gerbil_speech_jobs_total", "Speech jobs by voice and outcome (done, cancelled, error)"),
            &["voice", "outcome"],
        )
        .expect("static metric definition");
        let sentences = IntCounterVec::new(
            Opts::new(
                "gerbil_speech_sentences_total",
                "Sentences synthesized (a long one counts each unit it is cut into)",
            ),
            &["voice"],
        )
        .expect("static metric definition");
        let audio_seconds =
            CounterVec::new(Opts::new("gerbil_speech_audio_seconds_total", "Seconds of audio synthesized"), &["voice"])
                .expect("static metric definition");
        let time_to_first_audio = HistogramVec::new(
            HistogramOpts::new(
                "gerbil_speech_time_to_first_audio_seconds",
                "From arrival to the first sentence's audio",
            )
            .buckets(vec![0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0]),
            &["voice"],
        )
        .expect("static metric definition");
        for m in [Box::new(jobs.clone()) as Box<dyn prometheus::core::Collector>, Box::new(sentences.clone())] {
            registry.register(m).expect("metric registered once");
        }
        registry.register(Box::new(audio_seconds.clone())).expect("metric registered once");
        registry.register(Box::new(time_to_first_audio.clone())).expect("metric registered once");
        SpeechMetrics { jobs, sentences, audio_seconds, time_to_first_audio }
    }
}

struct Job {
    req: ValidSpeech,
    next: usize,
    samples: usize,
    started: bool,
}

pub struct SpeechQueue {
    voices: Vec<(String, Voice)>,
    jobs: VecDeque<Job>,
    queue: Arc<QueueCounter>,
    metrics: Arc<Metrics>,
}

impl SpeechQueue {
    pub fn new(voices: Vec<(String, Voice)>, queue: Arc<QueueCounter>, metrics: Arc<Metrics>) -> Self {
        SpeechQueue { voices, jobs: VecDeque::new(), queue, metrics }
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
        self.jobs.push_back(Job { req, next: 0, samples: 0, started: false });
    }

    /// Synthesizes the next sentence of the oldest job.
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
        if job.next < job.req.sentences.len() {
            let i = job.next;
            match voice.sentence(&job.req, i) {
                Ok(out) => {
                    if i == 0 {
                        m.time_to_first_audio
                            .with_label_values(&[name])
                            .observe(job.req.received.elapsed().as_secs_f64());
                    }
                    m.sentences.with_label_values(&[name]).inc();
                    m.audio_seconds.with_label_values(&[name]).inc_by(out.len() as f64 / voice.sample_rate() as f64);
                    job.samples += out.len();
                    job.next += 1;
                    let _ = job.req.events.send(SpeechEvent::Audio { sentence: i, samples: out });
                }
                Err(e) => {
                    m.jobs.with_label_values(&[name, "error"]).inc();
                    let _ = job.req.events.send(SpeechEvent::Failed(WorkerError::Engine(e.to_string())));
                    self.jobs.pop_front();
                    return;
                }
            }
        }
        if job.next >= job.req.sentences.len() {
            m.jobs.with_label_values(&[name, "done"]).inc();
            let _ = job.req.events.send(SpeechEvent::Done { sentences: job.next, samples: job.samples });
            self.jobs.pop_front();
        }
    }
}
