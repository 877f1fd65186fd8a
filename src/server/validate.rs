//! Validation at the edge: the request fields both endpoints share become
//! typed, range-checked settings, or a 400 naming the field. Only what passes
//! here reaches the worker.

use std::collections::HashMap;

use serde_json::Value;

use super::api::StreamOptions;
use super::error::ApiError;
use crate::config::Limits;
use crate::text::sampling::SamplingParams;
use crate::worker::ModelEntry;

/// The shared fields as sent (borrowed from either request type).
pub struct CommonFields<'a> {
    pub n: Option<u32>,
    pub temperature: Option<f32>,
    pub top_p: Option<f32>,
    pub top_k: Option<i64>,
    pub min_p: Option<f32>,
    pub repetition_penalty: Option<f32>,
    pub presence_penalty: Option<f32>,
    pub frequency_penalty: Option<f32>,
    pub logit_bias: Option<&'a HashMap<String, f32>>,
    pub seed: Option<i64>,
    pub stop: Option<&'a Value>,
    pub stream: Option<bool>,
    pub stream_options: Option<&'a StreamOptions>,
    pub ignore_eos: Option<bool>,
    pub cache_prompt: Option<bool>,
}

/// The shared fields, checked.
#[derive(Debug, Clone)]
pub struct Checked {
    pub n: usize,
    pub sampling: SamplingParams,
    pub stop: Vec<String>,
    pub stream: bool,
    pub include_usage: bool,
    pub ignore_eos: bool,
    /// May the prompt start from a prefix another sequence left in the KV cache (llama-server's field).
    pub cache_prompt: bool,
}

pub const MAX_STOP: usize = 4;
/// Characters per stop string: every generated token is matched against each one, so an unbounded
/// string would make a request's CPU cost grow with it.
pub const MAX_STOP_CHARS: usize = 1024;
const MAX_LOGIT_BIAS: usize = 1024;
/// Past this a repeated token's logit is scaled by more than any sampler setting users send (1.0-1.5).
const MAX_REPETITION_PENALTY: f32 = 10.0;

fn in_range(param: &str, v: Option<f32>, lo: f32, hi: f32, default: f32) -> Result<f32, ApiError> {
    match v {
        None => Ok(default),
        Some(x) if x.is_finite() && (lo..=hi).contains(&x) => Ok(x),
        Some(x) => Err(ApiError::invalid(param, format!("{param} must be between {lo} and {hi}, got {x}"))),
    }
}

pub fn check_common(c: &CommonFields<'_>, entry: &ModelEntry, limits: &Limits) -> Result<Checked, ApiError> {
    let n = c.n.unwrap_or(1) as usize;
    // Past max_queue the sequences could never all be queued: a 400, not a 429 to retry.
    let max_n = limits.max_n.min(limits.max_queue);
    if n == 0 || n > max_n {
        return Err(ApiError::invalid("n", format!("n must be between 1 and {max_n}, got {n}")));
    }
    let temperature = in_range("temperature", c.temperature, 0.0, 2.0, 1.0)?;
    let top_p = in_range("top_p", c.top_p, 0.0, 1.0, 1.0)?;
    let presence_penalty = in_range("presence_penalty", c.presence_penalty, -2.0, 2.0, 0.0)?;
    let frequency_penalty = in_range("frequency_penalty", c.frequency_penalty, -2.0, 2.0, 0.0)?;
    let top_k = match c.top_k {
        None | Some(-1) | Some(0) => 0,
        Some(k) if k > 0 => usize::try_from(k).unwrap_or(usize::MAX),
        Some(k) => return Err(ApiError::invalid("top_k", format!("top_k must be -1 (off) or at least 0, got {k}"))),
    };
    let min_p = in_range("min_p", c.min_p, 0.0, 1.0, 0.0)?;
    let repetition_penalty = match c.repetition_penalty {
        None => 1.0,
        Some(r) if r.is_finite() && r > 0.0 && r <= MAX_REPETITION_PENALTY => r,
        Some(r) => {
            let msg =
                format!("repetition_penalty must be greater than 0 and at most {MAX_REPETITION_PENALTY}, got {r}");
            return Err(ApiError::invalid("repetition_penalty", msg));
        }
    };
    let logit_bias = match c.logit_bias {
        None => Vec::new(),
        Some(map) => check_logit_bias(map, entry.vocab)?,
    };
    let stream = c.stream.unwrap_or(false);
    if c.stream_options.is_some() && !stream {
        return Err(ApiError::invalid("stream_options", "stream_options is only allowed when stream is true"));
    }
    let sampling = SamplingParams {
        temperature,
        top_p,
        top_k,
        min_p,
        repetition_penalty,
        presence_penalty,
        frequency_penalty,
        logit_bias,
        // Negative seeds are fine: only the bits matter.
        seed: c.seed.map(|s| s as u64),
    };
    Ok(Checked {
        n,
        sampling,
        stop: check_stop(c.stop)?,
        stream,
        include_usage: c.stream_options.is_some_and(|o| o.include_usage),
        ignore_eos: c.ignore_eos.unwrap_or(false),
        cache_prompt: c.cache_prompt.unwrap_or(true),
    })
}

fn check_logit_bias(map: &HashMap<String, f32>, vocab: usize) -> Result<Vec<(u32, f32)>, ApiError> {
    if map.len() > MAX_LOGIT_BIAS {
        return Err(ApiError::invalid("logit_bias", format!("logit_bias may hold at most {MAX_LOGIT_BIAS} entries")));
    }
    let mut out = Vec::with_capacity(map.len());
    for (k, &v) in map {
        let id: u32 = k.trim().parse().ok().filter(|&id| (id as usize) < vocab).ok_or_else(|| {
            ApiError::invalid("logit_bias", format!("logit_bias key '{k}' is not a token id below {vocab}"))
        })?;
        if !(v.is_finite() && (-100.0..=100.0).contains(&v)) {
            return Err(ApiError::invalid(
                "logit_bias",
                format!("logit_bias values must be between -100 and 100, got {v}"),
            ));
        }
        out.push((id, v));
    }
    out.sort_by_key(|e| e.0);
    Ok(out)
}

fn check_stop(stop: Option<&Value>) -> Result<Vec<String>, ApiError> {
    let bad = || {
        ApiError::invalid("stop", format!("stop must be a string or a list of at most {MAX_STOP} non-empty strings"))
    };
    let list = match stop {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => {
            items.iter().map(|v| v.as_str().map(String::from).ok_or_else(bad)).collect::<Result<_, _>>()?
        }
        Some(_) => return Err(bad()),
    };
    if list.len() > MAX_STOP || list.iter().any(String::is_empty) {
        return Err(bad());
    }
    if let Some(long) = list.iter().find(|s| s.chars().count() > MAX_STOP_CHARS) {
        let n = long.chars().count();
        return Err(ApiError::invalid(
            "stop",
            format!("a stop string is at most {MAX_STOP_CHARS} characters, got {n}"),
        ));
    }
    Ok(list)
}

/// How a request asks for its output length.
pub struct Budget<'a> {
    pub requested: Option<u64>,
    /// The field that asked (max_tokens or max_completion_tokens).
    pub param: &'a str,
    /// Used when the request does not say.
    pub default: usize,
    pub min: usize,
    /// The field holding the prompt (prompt or messages).
    pub prompt_param: &'a str,
}

/// The number of tokens to generate: the request's (checked against the
/// server's limit and the context left after the prompt) or the default
/// (capped by both).
pub fn fit_max_tokens(
    b: &Budget<'_>,
    prompt_len: usize,
    entry: &ModelEntry,
    limits: &Limits,
) -> Result<usize, ApiError> {
    let context = entry.max_context;
    if prompt_len >= context {
        let msg = format!("the prompt has {prompt_len} tokens but this model's context holds {context}");
        return Err(ApiError::invalid(b.prompt_param, msg));
    }
    let room = context - prompt_len;
    let Some(req) = b.requested else { return Ok(b.default.min(limits.max_tokens).min(room)) };
    let (param, req) = (b.param, usize::try_from(req).unwrap_or(usize::MAX));
    if req < b.min {
        return Err(ApiError::invalid(param, format!("{param} must be at least {}", b.min)));
    }
    if req > limits.max_tokens {
        return Err(ApiError::invalid(
            param,
            format!("{param} is {req} but this server allows at most {}", limits.max_tokens),
        ));
    }
    if req > room {
        let msg = format!(
            "this model's context holds {context} tokens; the prompt has {prompt_len} and {param} asks for {req} more"
        );
        return Err(ApiError::invalid(param, msg));
    }
    Ok(req)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(stop: Value) -> String {
        match check_stop(Some(&stop)) {
            Err(ApiError::InvalidRequest { message, param }) => {
                assert_eq!(param.as_deref(), Some("stop"));
                message
            }
            other => panic!("{stop}: {other:?}"),
        }
    }

    #[test]
    fn stop_strings_are_bounded_in_count_and_length_each_alone() {
        let longest = "é".repeat(MAX_STOP_CHARS);
        let four = json!([longest.clone(), "a", "b", "c"]);
        assert_eq!(check_stop(Some(&four)).unwrap().len(), 4, "4 strings of the longest length pass");
        assert!(message(json!(["a", "b", "c", "d", "e"])).contains("at most 4"));
        let too_long = format!("{longest}x");
        assert!(message(json!(too_long)).contains(&format!("at most {MAX_STOP_CHARS} characters, got 1025")));
        assert!(message(json!(["a", too_long])).contains("got 1025"));
        assert!(message(json!([""])).contains("non-empty"));
        assert!(check_stop(None).unwrap().is_empty());
    }
}
