//! Prometheus metrics shared by the worker (queue, slots, tokens, time to
//! first token) and the HTTP layer (requests). Rendered by GET /metrics.

use prometheus::{
    Encoder, GaugeVec, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry,
    TextEncoder,
};

pub struct Metrics {
    registry: Registry,
    pub http_requests: IntCounterVec,
    pub http_duration: HistogramVec,
    pub queue_depth: IntGauge,
    pub active_slots: IntGaugeVec,
    pub slots: IntGaugeVec,
    pub prompt_tokens: IntCounterVec,
    pub generated_tokens: IntCounterVec,
    pub tokens_per_second: GaugeVec,
    pub time_to_first_token: HistogramVec,
    pub finished: IntCounterVec,
    /// Rows (sequences) in the latest batched decode step, and their distribution over steps.
    pub batch_rows: IntGaugeVec,
    pub batch_rows_per_step: HistogramVec,
    /// Decode steps submitted before the previous step's tokens were read (greedy pipelining).
    pub chained_steps: IntCounterVec,
    /// Admitted sequences that started from a cached prefix, those that did not, and the prompt
    /// tokens the hits did not prefill.
    pub prefix_cache_hits: IntCounterVec,
    pub prefix_cache_misses: IntCounterVec,
    pub prefix_cache_tokens: IntCounterVec,
    /// KV cache bytes of one token of one sequence (every layer's K and V), and the memory the KV caches
    /// of all slots hold.
    pub kv_bytes_per_token: IntGaugeVec,
    pub kv_cache_bytes: IntGaugeVec,
    /// The paged KV pool's blocks by state (live: held by running sequences; cached: kept by ended
    /// ones as prefixes to reuse, given up when room is needed; free), and positions per block.
    pub kv_pool_blocks: IntGaugeVec,
    pub kv_block_tokens: IntGaugeVec,
    /// Audio jobs by model and outcome (done, cancelled, error).
    pub audio_jobs: IntCounterVec,
    /// Seconds of audio transcribed, by model.
    pub audio_seconds: prometheus::CounterVec,
    pub speech: super::speech_metrics::SpeechMetrics,
    /// Times the GPU device was lost and the worker reopened it.
    pub device_lost: IntCounter,
}

/// Why a sequence left its slot (the `reason` label).
#[derive(Debug, Clone, Copy)]
pub enum Outcome {
    Eos,
    Length,
    /// A stop string (matched by the HTTP side, which then drops the sequence).
    Stop,
    Cancelled,
    Error,
}

impl Outcome {
    fn label(self) -> &'static str {
        match self {
            Outcome::Eos => "eos",
            Outcome::Length => "length",
            Outcome::Stop => "stop",
            Outcome::Cancelled => "cancelled",
            Outcome::Error => "error",
        }
    }
}

const LATENCY_BUCKETS: &[f64] = &[0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0];

impl Metrics {
    pub fn new() -> Self {
        let registry = Registry::new();
        let counter = |name: &str, help: &str, labels: &[&str]| {
            let m = IntCounterVec::new(Opts::new(name, help), labels).expect("static metric definition");
            registry.register(Box::new(m.clone())).expect("metric registered once");
            m
        };
        let gauge = |name: &str, help: &str, labels: &[&str]| {
            let m = IntGaugeVec::new(Opts::new(name, help), labels).expect("static metric definition");
            registry.register(Box::new(m.clone())).expect("metric registered once");
            m
        };
        let histogram = |name: &str, help: &str, labels: &[&str]| {
            let opts = HistogramOpts::new(name, help).buckets(LATENCY_BUCKETS.to_vec());
            let m = HistogramVec::new(opts, labels).expect("static metric definition");
            registry.register(Box::new(m.clone())).expect("metric registered once");
            m
        };
        let queue_depth =
            IntGauge::new("gerbil_queue_depth", "Sequences waiting for a slot").expect("static metric definition");
        registry.register(Box::new(queue_depth.clone())).expect("metric registered once");
        let tokens_per_second = GaugeVec::new(
            Opts::new(
                "gerbil_tokens_per_second",
                "Tokens generated per second over the latest scheduler step (0 when idle)",
            ),
            &["model"],
        )
        .expect("static metric definition");
        registry.register(Box::new(tokens_per_second.clone())).expect("metric registered once");
        let audio_seconds = prometheus::CounterVec::new(
            Opts::new("gerbil_audio_seconds_total", "Seconds of audio transcribed"),
            &["model"],
        )
        .expect("static metric definition");
        registry.register(Box::new(audio_seconds.clone())).expect("metric registered once");
        let device_lost = IntCounter::new(
            "gerbil_device_lost_total",
            "Times the GPU device was lost (the worker then reopens it and reloads every model)",
        )
        .expect("static metric definition");
        registry.register(Box::new(device_lost.clone())).expect("metric registered once");
        Metrics {
            device_lost,
            audio_jobs: counter("gerbil_audio_jobs_total", "Transcription jobs by outcome", &["model", "outcome"]),
            audio_seconds,
            http_requests: counter(
                "gerbil_http_requests_total",
                "HTTP requests by route and status",
                &["route", "status"],
            ),
            http_duration: histogram("gerbil_http_request_duration_seconds", "Time to the response head", &["route"]),
            queue_depth,
            active_slots: gauge("gerbil_active_slots", "Slots holding a sequence", &["model"]),
            slots: gauge("gerbil_slots", "Slots per model", &["model"]),
            prompt_tokens: counter(
                "gerbil_prompt_tokens_total",
                "Prompt tokens of admitted sequences (those taken from the prefix cache included)",
                &["model"],
            ),
            generated_tokens: counter("gerbil_generated_tokens_total", "Tokens generated", &["model"]),
            tokens_per_second,
            time_to_first_token: histogram(
                "gerbil_time_to_first_token_seconds",
                "From the request's arrival to its first generated token",
                &["model"],
            ),
            finished: counter(
                "gerbil_sequences_finished_total",
                "Sequences that left their slot, by reason",
                &["model", "reason"],
            ),
            batch_rows: gauge("gerbil_decode_batch_rows", "Sequences decoded together in the latest step", &["model"]),
            batch_rows_per_step: {
                let opts =
                    HistogramOpts::new("gerbil_decode_batch_rows_per_step", "Sequences decoded together per step")
                        .buckets(vec![1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]);
                let m = HistogramVec::new(opts, &["model"]).expect("static metric definition");
                registry.register(Box::new(m.clone())).expect("metric registered once");
                m
            },
            chained_steps: counter(
                "gerbil_chained_decode_steps_total",
                "Decode steps submitted before the previous step's tokens were read (greedy pipelining)",
                &["model"],
            ),
            prefix_cache_hits: counter(
                "gerbil_prefix_cache_hits_total",
                "Sequences that started from a prefix another sequence left in the KV cache",
                &["model"],
            ),
            prefix_cache_misses: counter(
                "gerbil_prefix_cache_misses_total",
                "Sequences that found no cached prefix to start from",
                &["model"],
            ),
            prefix_cache_tokens: counter(
                "gerbil_prefix_cache_tokens_total",
                "Prompt tokens taken from the prefix cache instead of prefilled",
                &["model"],
            ),
            kv_bytes_per_token: gauge(
                "gerbil_kv_bytes_per_token",
                "KV cache bytes of one token of one sequence, every layer's K and V (kv_dtype)",
                &["model"],
            ),
            kv_cache_bytes: gauge("gerbil_kv_cache_bytes", "GPU memory of the KV caches of all slots", &["model"]),
            kv_pool_blocks: gauge(
                "gerbil_kv_pool_blocks",
                "Blocks of the paged KV pool: held by running sequences (live), kept as cached prefixes (cached), free",
                &["model", "state"],
            ),
            kv_block_tokens: gauge("gerbil_kv_block_tokens", "Positions per block of the paged KV pool", &["model"]),
            speech: super::speech_metrics::SpeechMetrics::new(&registry),
            registry,
        }
    }

    pub fn finish(&self, model: &str, outcome: Outcome) {
        self.finished.with_label_values(&[model, outcome.label()]).inc();
    }

    /// The Prometheus text exposition of every metric.
    pub fn render(&self) -> String {
        let mut buf = Vec::new();
        // Encoding into a Vec cannot fail for well-formed metric families.
        if let Err(e) = TextEncoder::new().encode(&self.registry.gather(), &mut buf) {
            tracing::error!("encoding metrics: {e}");
        }
        String::from_utf8_lossy(&buf).into_owned()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}
