//! The checks `ServeConfig` passes before the server starts: every limit usable, names unique.
//! Kept apart from loading so each rule reads on its own. What a voice needs besides its source
//! is its family's to check when it loads (`models::voice`), so one bad voice fails alone.

use super::{origin, ConfigError, ModelSpec, ServeConfig, SttModelSpec};

impl ServeConfig {
    pub fn validate(&mut self) -> Result<(), ConfigError> {
        const MAX_REQUEST_TIMEOUT_S: u64 = 30 * 24 * 3600;
        const MAX_QUEUE: usize = 1 << 20;
        // An empty key is refused rather than read as "no key": GERBIL_API_KEY="$KEY" with $KEY
        // unset would otherwise serve without authentication, silently.
        if self.api_key.as_ref().is_some_and(|k| k.expose().trim().is_empty()) {
            return Err(ConfigError::Invalid(
                "the API key (--api-key / GERBIL_API_KEY / api_key) is empty: unset it to serve without a key".into(),
            ));
        }
        for o in &self.cors_origins {
            origin::check(o).map_err(|why| {
                ConfigError::Invalid(format!(
                    "CORS origin '{o}' (--cors-origin / GERBIL_CORS_ORIGINS / cors_origins): {why}"
                ))
            })?;
        }
        let l = &self.limits;
        let positive = [
            ("limits.max_queue", l.max_queue),
            ("limits.max_slots", l.max_slots),
            ("limits.max_tokens", l.max_tokens),
            ("limits.max_context", l.max_context),
            ("limits.max_n", l.max_n),
            ("limits.prefill_chunk", l.prefill_chunk),
            ("limits.request_timeout_s", l.request_timeout_s as usize),
            ("limits.body_limit_bytes", l.body_limit_bytes),
            ("limits.header_read_timeout_s", l.header_read_timeout_s as usize),
            ("limits.body_read_timeout_s", l.body_read_timeout_s as usize),
        ];
        if let Some((name, _)) = positive.iter().find(|(_, v)| *v == 0) {
            return Err(ConfigError::Invalid(format!("{name} must be at least 1")));
        }
        // Upper bounds where a huge value would overflow (a deadline past the clock's range, a
        // semaphore past its permits) rather than mean "unlimited".
        for (name, secs) in [
            ("limits.request_timeout_s", l.request_timeout_s),
            ("limits.header_read_timeout_s", l.header_read_timeout_s),
            ("limits.body_read_timeout_s", l.body_read_timeout_s),
            ("limits.shutdown_grace_s", l.shutdown_grace_s),
        ] {
            if secs > MAX_REQUEST_TIMEOUT_S {
                return Err(ConfigError::Invalid(format!("{name} must be at most {MAX_REQUEST_TIMEOUT_S} (30 days)")));
            }
        }
        if l.max_queue > MAX_QUEUE {
            return Err(ConfigError::Invalid(format!("limits.max_queue must be at most {MAX_QUEUE}")));
        }
        // A speech-only server (transcription models or voices, no LLM) is a valid deployment.
        if self.models.is_empty() && self.stt_models.is_empty() && self.voices.is_empty() {
            return Err(ConfigError::Invalid(
                "no models to serve: pass --model, --stt-model or list models / stt_models / voices in the config"
                    .into(),
            ));
        }
        // LLMs and transcription models share one namespace: a request's `model`.
        let stt_ids: Vec<String> = self.stt_models.iter().map(SttModelSpec::id).collect();
        let mut ids: Vec<&str> =
            self.models.iter().map(ModelSpec::id).chain(stt_ids.iter().map(String::as_str)).collect();
        ids.sort_unstable();
        if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(ConfigError::Invalid(format!("two models share the name '{}'", w[0])));
        }
        let mut voices: Vec<&str> = self.voices.iter().map(|v| v.name.as_str()).collect();
        voices.sort_unstable();
        if let Some(w) = voices.windows(2).find(|w| w[0] == w[1]) {
            return Err(ConfigError::Invalid(format!("two voices share the name '{}'", w[0])));
        }
        for m in &self.models {
            if ![32, 64, 128].contains(&m.group_size) {
                return Err(ConfigError::Invalid(format!("model '{}': group_size must be 32, 64 or 128", m.id())));
            }
            if m.max_slots == Some(0) {
                return Err(ConfigError::Invalid(format!("model '{}': max_slots must be at least 1", m.id())));
            }
            if m.kv_cache_mb == 0 {
                return Err(ConfigError::Invalid(format!("model '{}': kv_cache_mb must be at least 1", m.id())));
            }
            if !m.kv_block_tokens.is_power_of_two() || !(8..=1024).contains(&m.kv_block_tokens) {
                return Err(ConfigError::Invalid(format!(
                    "model '{}': kv_block_tokens must be a power of two from 8 to 1024, not {}",
                    m.id(),
                    m.kv_block_tokens
                )));
            }
        }
        Ok(())
    }
}
