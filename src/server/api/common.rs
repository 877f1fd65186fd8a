//! Wire types shared by /v1/completions and /v1/chat/completions.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Deserialize)]
pub struct StreamOptions {
    /// Send a last chunk with `usage` (and an empty `choices`).
    #[serde(default)]
    pub include_usage: bool,
}

#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Usage {
    pub prompt_tokens: usize,
    pub completion_tokens: usize,
    pub total_tokens: usize,
    pub prompt_tokens_details: PromptTokensDetails,
}

/// OpenAI's breakdown of the prompt tokens.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct PromptTokensDetails {
    /// Prompt tokens whose KV came from the prefix cache (not prefilled for this request).
    pub cached_tokens: usize,
}

impl Usage {
    pub fn new(prompt_tokens: usize, completion_tokens: usize, cached_tokens: usize) -> Self {
        Usage {
            prompt_tokens,
            completion_tokens,
            total_tokens: prompt_tokens + completion_tokens,
            prompt_tokens_details: PromptTokensDetails { cached_tokens },
        }
    }
}

/// A response id: `prefix` + 24 random alphanumerics.
pub fn new_id(prefix: &str) -> String {
    use rand::distr::{Alphanumeric, SampleString};
    format!("{prefix}{}", Alphanumeric.sample_string(&mut rand::rng(), 24))
}

pub fn unix_now() -> u64 {
    crate::worker::registry::unix_now()
}
