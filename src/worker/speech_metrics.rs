//! The speech queue's Prometheus metrics (jobs, units, audio seconds, time to first audio), by voice.

use prometheus::{CounterVec, HistogramOpts, HistogramVec, IntCounterVec, Opts};

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
