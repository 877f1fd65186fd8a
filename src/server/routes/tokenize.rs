//! POST /tokenize and /detokenize (vLLM's shape): a model's tokenizer without generating, for
//! clients that count tokens or budget a context. /tokenize takes a `prompt` (special tokens
//! added as the completions endpoint adds them, unless `add_special_tokens` is false) or chat
//! `messages` rendered with the model's template as chat completions render them.

use std::sync::Arc;

use axum::extract::State;
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::chat_completions::{convert_messages, render_prompt};
use crate::server::api::chat::ChatMessageIn;
use crate::server::error::ApiError;
use crate::server::json::ApiJson;
use crate::server::state::AppState;

#[derive(Debug, Deserialize)]
pub struct TokenizeRequest {
    pub model: String,
    pub prompt: Option<String>,
    pub messages: Option<Vec<ChatMessageIn>>,
    /// With `prompt`: apply the tokenizer's special tokens (bos); default true.
    pub add_special_tokens: Option<bool>,
    /// With `messages`: end with the assistant's turn header; default true.
    pub add_generation_prompt: Option<bool>,
    /// With `messages`: the tools, rendered as chat completions render them.
    pub tools: Option<Value>,
    pub tool_choice: Option<Value>,
}

#[derive(Debug, Serialize)]
pub struct TokenizeResponse {
    pub count: usize,
    pub max_model_len: usize,
    pub tokens: Vec<u32>,
}

#[derive(Debug, Deserialize)]
pub struct DetokenizeRequest {
    pub model: String,
    pub tokens: Vec<Value>,
}

#[derive(Debug, Serialize)]
pub struct DetokenizeResponse {
    pub prompt: String,
}

pub async fn tokenize(
    State(state): State<Arc<AppState>>,
    ApiJson(req): ApiJson<TokenizeRequest>,
) -> Result<Json<TokenizeResponse>, ApiError> {
    let model = state.model(&req.model)?;
    let entry = model.entry();
    // Checked with a prompt too (where they are not rendered): a malformed field is refused either way.
    let tools = crate::server::tools::check(req.tools.as_ref(), req.tool_choice.as_ref(), None)?;
    let tokens = match (&req.prompt, &req.messages) {
        (Some(prompt), None) => {
            let add_special = req.add_special_tokens.unwrap_or(true);
            let mut ids =
                entry.tokenizer.encode(prompt, add_special).map_err(|e| ApiError::invalid("prompt", e.to_string()))?;
            // An empty prompt is generated from the beginning-of-sequence token, as completions do.
            if ids.is_empty() && add_special {
                ids.extend(entry.tokenizer.bos);
            }
            ids
        }
        (None, Some(messages)) => {
            let template = entry
                .chat
                .as_ref()
                .map_err(|why| ApiError::invalid("messages", format!("chat is unavailable for this model: {why}")))?;
            let messages = convert_messages(messages)?;
            let text = render_prompt(
                template,
                &messages,
                tools.as_ref(),
                req.add_generation_prompt.unwrap_or(true),
                &Default::default(),
            )?;
            // The template placed any special tokens itself, as chat completions encode it.
            entry.tokenizer.encode(&text, false).map_err(|e| ApiError::invalid("messages", e.to_string()))?
        }
        _ => return Err(ApiError::invalid("prompt", "give either prompt or messages")),
    };
    Ok(Json(TokenizeResponse { count: tokens.len(), max_model_len: entry.max_context, tokens }))
}

pub async fn detokenize(
    State(state): State<Arc<AppState>>,
    ApiJson(req): ApiJson<DetokenizeRequest>,
) -> Result<Json<DetokenizeResponse>, ApiError> {
    let model = state.model(&req.model)?;
    let entry = model.entry();
    let vocab = entry.vocab;
    let ids =
        req.tokens
            .iter()
            .map(|v| {
                v.as_u64().filter(|&id| id < vocab as u64).map(|id| id as u32).ok_or_else(|| {
                    ApiError::invalid("tokens", format!("tokens must be integers in 0..{vocab}, got {v}"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
    let prompt = entry.tokenizer.decode(&ids).map_err(|e| ApiError::invalid("tokens", e.to_string()))?;
    Ok(Json(DetokenizeResponse { prompt }))
}
