//! /v1/completions: the request as sent, the response and its stream chunks.

use std::collections::HashMap;

use serde::{Deserialize, Serialize, Serializer};

use super::{StreamOptions, Usage};

/// Any other field is a 400 naming it, as OpenAI answers: a field this server would silently ignore
/// is a setting the client believes took effect.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompletionRequest {
    pub model: String,
    /// string | string[] | token ids | list of token-id lists.
    pub prompt: serde_json::Value,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f32>,
    pub top_p: Option<f32>,
    /// Extension (vLLM's): keep the k most likely tokens; 0 or -1 = off.
    pub top_k: Option<i64>,
    /// Extension (vLLM's, llama-server's): drop tokens less likely than min_p times the most likely one.
    pub min_p: Option<f32>,
    /// Extension (vLLM's, llama-server's): scale the logits of tokens already in the prompt or output.
    pub repetition_penalty: Option<f32>,
    pub n: Option<u32>,
    pub stream: Option<bool>,
    pub stream_options: Option<StreamOptions>,
    /// Number of top alternatives to return per token, 0-5.
    pub logprobs: Option<u32>,
    pub echo: Option<bool>,
    /// string | string[] (at most 4).
    pub stop: Option<serde_json::Value>,
    pub presence_penalty: Option<f32>,
    pub frequency_penalty: Option<f32>,
    pub logit_bias: Option<HashMap<String, f32>>,
    pub seed: Option<i64>,
    pub user: Option<String>,
    pub best_of: Option<u32>,
    pub suffix: Option<String>,
    /// Extension: do not stop at end-of-sequence tokens.
    pub ignore_eos: Option<bool>,
    /// Extension (vLLM's): structured output, as on chat completions.
    pub response_format: Option<serde_json::Value>,
    /// Extension (vLLM's): one of json, json_object, regex, choice, grammar.
    pub structured_outputs: Option<serde_json::Value>,
    /// Extension (llama-server's): false prefills the whole prompt, reusing no cached prefix.
    pub cache_prompt: Option<bool>,
    /// Accepted and ignored (OpenAI's bookkeeping and routing hints; nothing here stores or routes).
    pub store: Option<serde_json::Value>,
    pub metadata: Option<serde_json::Value>,
    pub service_tier: Option<serde_json::Value>,
    pub prompt_cache_key: Option<serde_json::Value>,
    pub safety_identifier: Option<serde_json::Value>,
}

#[derive(Debug, Serialize)]
pub struct Completion {
    pub id: String,
    pub object: &'static str,
    pub created: u64,
    pub model: String,
    pub choices: Vec<CompletionChoice>,
    /// Absent, or null on the stream chunks before the usage chunk of a request that asked for
    /// usage (`stream_options.include_usage`), as OpenAI sends them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Option<Usage>>,
}

pub const COMPLETION_OBJECT: &str = "text_completion";

#[derive(Debug, Serialize, Clone)]
pub struct CompletionChoice {
    pub index: usize,
    pub text: String,
    pub logprobs: Option<CompletionLogprobs>,
    pub finish_reason: Option<&'static str>,
}

/// OpenAI's legacy logprobs layout: parallel arrays, one entry per token.
#[derive(Debug, Serialize, Clone, Default)]
pub struct CompletionLogprobs {
    pub tokens: Vec<String>,
    pub token_logprobs: Vec<Option<f32>>,
    pub top_logprobs: Vec<Option<TopMap>>,
    pub text_offset: Vec<usize>,
}

/// `{token text: logprob}`, best first. Distinct ids can decode to the same
/// text; the best one is kept so the JSON object has no duplicate keys.
#[derive(Debug, Clone, Default)]
pub struct TopMap(pub Vec<(String, f32)>);

impl Serialize for TopMap {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut seen = std::collections::HashSet::new();
        let mut map = s.serialize_map(None)?;
        for (k, v) in &self.0 {
            if seen.insert(k.as_str()) {
                map.serialize_entry(k, v)?;
            }
        }
        map.end()
    }
}
