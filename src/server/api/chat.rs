//! /v1/chat/completions: the request as sent, the response and its chunks.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{StreamOptions, Usage};

/// Any other field is a 400 naming it, as OpenAI answers: a field this server would silently ignore
/// is a setting the client believes took effect.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<ChatMessageIn>,
    pub max_tokens: Option<u64>,
    /// Newer name for max_tokens; wins when both are set.
    pub max_completion_tokens: Option<u64>,
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
    pub stop: Option<serde_json::Value>,
    pub presence_penalty: Option<f32>,
    pub frequency_penalty: Option<f32>,
    pub logit_bias: Option<HashMap<String, f32>>,
    pub seed: Option<i64>,
    pub user: Option<String>,
    pub logprobs: Option<bool>,
    /// 0-20 alternatives per token; needs `logprobs: true`.
    pub top_logprobs: Option<u32>,
    /// Functions the model may call (`[{type: "function", function: {name, description, parameters}}]`).
    pub tools: Option<serde_json::Value>,
    /// none | auto | required | {type: "function", function: {name}}.
    pub tool_choice: Option<serde_json::Value>,
    /// Whether a turn may hold several calls (default true).
    pub parallel_tool_calls: Option<bool>,
    pub functions: Option<serde_json::Value>,
    pub function_call: Option<serde_json::Value>,
    /// text | json_object | json_schema (structured output).
    pub response_format: Option<serde_json::Value>,
    /// Extension (vLLM's): one of json, json_object, regex, choice, grammar.
    pub structured_outputs: Option<serde_json::Value>,
    /// Output kinds: only ["text"] (audio output is refused rather than silently left out).
    pub modalities: Option<serde_json::Value>,
    pub audio: Option<serde_json::Value>,
    /// Extension: do not stop at end-of-sequence tokens.
    pub ignore_eos: Option<bool>,
    /// Extension (llama-server's): false prefills the whole prompt, reusing no cached prefix.
    pub cache_prompt: Option<bool>,
    /// Extension (vLLM's, llama-server's): further variables for the chat template, such as Qwen3's
    /// `enable_thinking`.
    pub chat_template_kwargs: Option<serde_json::Value>,
    /// none | minimal | low | medium | high. For templates that think (`<think>`), `none` turns the
    /// thinking off (`enable_thinking: false`) unless `chat_template_kwargs` says otherwise; the
    /// template also sees it as `reasoning_effort`.
    pub reasoning_effort: Option<String>,
    /// Accepted and ignored (OpenAI's bookkeeping and routing hints; nothing here stores or routes).
    pub store: Option<serde_json::Value>,
    pub metadata: Option<serde_json::Value>,
    pub service_tier: Option<serde_json::Value>,
    pub prompt_cache_key: Option<serde_json::Value>,
    pub safety_identifier: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
pub struct ChatMessageIn {
    pub role: String,
    /// string | array of content parts | null.
    #[serde(default)]
    pub content: Option<serde_json::Value>,
    pub name: Option<String>,
    /// An assistant turn's calls: `[{id, type: "function", function: {name, arguments}}]`.
    pub tool_calls: Option<serde_json::Value>,
    /// A tool result's call.
    pub tool_call_id: Option<String>,
}

pub const CHAT_OBJECT: &str = "chat.completion";
pub const CHAT_CHUNK_OBJECT: &str = "chat.completion.chunk";

#[derive(Debug, Serialize)]
pub struct ChatCompletion {
    pub id: String,
    pub object: &'static str,
    pub created: u64,
    pub model: String,
    pub choices: Vec<ChatChoice>,
    pub usage: Usage,
}

#[derive(Debug, Serialize)]
pub struct ChatChoice {
    pub index: usize,
    pub message: AssistantMessage,
    pub logprobs: Option<ChatLogprobs>,
    pub finish_reason: &'static str,
}

#[derive(Debug, Serialize)]
pub struct AssistantMessage {
    pub role: &'static str,
    /// Null when the turn is only tool calls.
    pub content: Option<String>,
    /// What a thinking model wrote inside `<think>...</think>` (vLLM's and llama-server's field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    pub refusal: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCallOut>>,
}

/// A tool call in a response (whole, or as one stream delta with its `index`).
#[derive(Debug, Serialize, Clone)]
pub struct ToolCallOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    pub id: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: FunctionCallOut,
}

#[derive(Debug, Serialize, Clone)]
pub struct FunctionCallOut {
    pub name: String,
    /// JSON text, as OpenAI sends it.
    pub arguments: String,
}

#[derive(Debug, Serialize)]
pub struct ChatChunk {
    pub id: String,
    pub object: &'static str,
    pub created: u64,
    pub model: String,
    pub choices: Vec<ChatChunkChoice>,
    /// Absent, or null on the stream chunks before the usage chunk of a request that asked for
    /// usage (`stream_options.include_usage`), as OpenAI sends them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Option<Usage>>,
}

#[derive(Debug, Serialize)]
pub struct ChatChunkChoice {
    pub index: usize,
    pub delta: ChatDelta,
    pub logprobs: Option<ChatLogprobs>,
    pub finish_reason: Option<&'static str>,
}

#[derive(Debug, Serialize, Default)]
pub struct ChatDelta {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCallOut>>,
}

#[derive(Debug, Serialize, Default)]
pub struct ChatLogprobs {
    pub content: Vec<ChatTokenLogprob>,
    pub refusal: Option<Vec<ChatTokenLogprob>>,
}

#[derive(Debug, Serialize)]
pub struct ChatTokenLogprob {
    pub token: String,
    pub logprob: f32,
    pub bytes: Vec<u8>,
    pub top_logprobs: Vec<ChatTopLogprob>,
}

#[derive(Debug, Serialize)]
pub struct ChatTopLogprob {
    pub token: String,
    pub logprob: f32,
    pub bytes: Vec<u8>,
}
