//! POST /v1/chat/completions: messages rendered with the model's chat
//! template, then generated like a completion; streamed as deltas with the
//! assistant role first.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::Value;

use crate::server::api::chat::{
    AssistantMessage, ChatChoice, ChatChunk, ChatChunkChoice, ChatCompletion, ChatDelta, ChatLogprobs, ChatMessageIn,
    ChatRequest, ChatTokenLogprob, ChatTopLogprob, CHAT_CHUNK_OBJECT, CHAT_OBJECT,
};
use crate::server::api::common::{new_id, unix_now};
use crate::server::api::Usage;
use crate::server::app::AppState;
use crate::server::error::ApiError;
use crate::server::generation::{GenEvent, Generation, GenerationSpec, Prompt, TokenInfo};
use crate::server::json::ApiJson;
use crate::server::sse;
use crate::server::structured::constraint_for;
use crate::server::validate::{check_common, fit_max_tokens, Budget, CommonFields};
use crate::text::chat::ChatMessage;

const MAX_TOP_LOGPROBS: u32 = 20;
const ROLES: &[&str] = &["system", "developer", "user", "assistant", "tool"];

pub async fn handle(
    State(state): State<Arc<AppState>>,
    ApiJson(req): ApiJson<ChatRequest>,
) -> Result<Response, ApiError> {
    let received = Instant::now();
    let model = state.model(&req.model)?;
    let entry = model.entry();
    let checked = check_common(&common(&req), entry, &state.limits)?;
    refuse_unsupported(&req)?;
    let logprobs = match (req.logprobs.unwrap_or(false), req.top_logprobs) {
        (_, Some(k)) if k > MAX_TOP_LOGPROBS => {
            return Err(ApiError::invalid(
                "top_logprobs",
                format!("top_logprobs must be between 0 and {MAX_TOP_LOGPROBS}, got {k}"),
            ))
        }
        (false, Some(_)) => return Err(ApiError::invalid("top_logprobs", "top_logprobs needs logprobs set to true")),
        (true, k) => Some(k.unwrap_or(0) as usize),
        (false, None) => None,
    };
    let messages = convert_messages(&req.messages)?;
    let template = entry
        .chat
        .as_ref()
        .map_err(|why| ApiError::invalid("messages", format!("chat is unavailable for this model: {why}")))?;
    let text = template.render(&messages, true).map_err(|e| ApiError::invalid("messages", e.to_string()))?;
    // The template already placed any special tokens (bos included).
    let tokens = entry.tokenizer.encode(&text, false).map_err(|e| ApiError::invalid("messages", e.to_string()))?;
    if tokens.is_empty() {
        return Err(ApiError::invalid("messages", "the rendered conversation is empty"));
    }
    let (requested, param) = match (req.max_completion_tokens, req.max_tokens) {
        (Some(v), _) => (Some(v), "max_completion_tokens"),
        (None, v) => (v, "max_tokens"),
    };
    let budget = Budget { requested, param, default: usize::MAX, min: 1, prompt_param: "messages" };
    let max_tokens = fit_max_tokens(&budget, tokens.len(), entry, &state.limits)?;
    let (stream, include_usage, n) = (checked.stream, checked.include_usage, checked.n);
    let constraint = constraint_for(&model, req.response_format.as_ref(), req.structured_outputs.as_ref()).await?;
    let spec = GenerationSpec {
        prompts: vec![Prompt { tokens, text, max_tokens }],
        checked,
        logprobs,
        echo: false,
        received,
        timeout: state.limits.request_timeout(),
        constraint,
    };
    let generation = Generation::start(&state.worker, entry, spec)?;
    let head = Head { id: new_id("chatcmpl-"), created: unix_now(), model: req.model, logprobs: logprobs.is_some() };
    if stream {
        return Ok(stream_response(generation, head, n, include_usage));
    }
    let (results, usage) = generation.collect().await?;
    let choices = results
        .into_iter()
        .enumerate()
        .map(|(index, r)| ChatChoice {
            index,
            message: AssistantMessage { role: "assistant", content: r.text, refusal: None },
            logprobs: head.logprobs.then(|| chat_logprobs(&r.tokens)),
            finish_reason: r.finish_reason,
        })
        .collect();
    let body =
        ChatCompletion { id: head.id, object: CHAT_OBJECT, created: head.created, model: head.model, choices, usage };
    Ok(Json(body).into_response())
}

fn common(r: &ChatRequest) -> CommonFields<'_> {
    CommonFields {
        n: r.n,
        temperature: r.temperature,
        top_p: r.top_p,
        top_k: r.top_k,
        presence_penalty: r.presence_penalty,
        frequency_penalty: r.frequency_penalty,
        logit_bias: r.logit_bias.as_ref(),
        seed: r.seed,
        stop: r.stop.as_ref(),
        stream: r.stream,
        stream_options: r.stream_options.as_ref(),
        ignore_eos: r.ignore_eos,
    }
}

fn refuse_unsupported(r: &ChatRequest) -> Result<(), ApiError> {
    // `tools: []` and `tool_choice: "none"` (and the legacy `functions: []`, `function_call:
    // "none"`) ask for no tool calls, as every request here gets; frameworks send them by default.
    let no_list = |v: &Value| v.as_array().is_some_and(Vec::is_empty);
    let no_choice = |v: &Value| v == "none";
    for (name, v, asks_none) in [
        ("tools", &r.tools, &no_list as &dyn Fn(&Value) -> bool),
        ("tool_choice", &r.tool_choice, &no_choice),
        ("functions", &r.functions, &no_list),
        ("function_call", &r.function_call, &no_choice),
    ] {
        if v.as_ref().is_some_and(|v| !v.is_null() && !asks_none(v)) {
            return Err(ApiError::invalid(
                name,
                format!("{name} is not supported: this server does not do tool calling"),
            ));
        }
    }
    if let Some(m) = r.modalities.as_ref().filter(|v| !v.is_null()) {
        let text_only = m.as_array().is_some_and(|a| !a.is_empty() && a.iter().all(|x| x == "text"));
        if !text_only {
            return Err(ApiError::invalid(
                "modalities",
                "only modalities [\"text\"] are supported: this model writes text",
            ));
        }
    }
    if r.audio.as_ref().is_some_and(|v| !v.is_null()) {
        return Err(ApiError::invalid(
            "audio",
            "audio output is not supported by chat completions here; use POST /v1/audio/speech",
        ));
    }
    Ok(())
}

/// Wire messages -> template messages: text content only.
fn convert_messages(messages: &[ChatMessageIn]) -> Result<Vec<ChatMessage>, ApiError> {
    if messages.is_empty() {
        return Err(ApiError::invalid("messages", "messages must not be empty"));
    }
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            if !ROLES.contains(&m.role.as_str()) {
                let msg = format!("unknown role '{}' (expected one of {})", m.role, ROLES.join(", "));
                return Err(ApiError::invalid(&format!("messages[{i}].role"), msg));
            }
            if m.tool_calls.as_ref().is_some_and(|v| !v.is_null()) {
                return Err(ApiError::invalid(&format!("messages[{i}].tool_calls"), "tool calls are not supported"));
            }
            // Templates written before the `developer` role know it as `system`.
            let role = if m.role == "developer" { "system" } else { m.role.as_str() };
            // Only an assistant turn may come without content (OpenAI's: one that called tools).
            if m.role != "assistant" && m.content.as_ref().is_none_or(Value::is_null) {
                return Err(ApiError::invalid(&format!("messages[{i}].content"), "content is required"));
            }
            Ok(ChatMessage { role: role.to_string(), content: content_text(m.content.as_ref(), i)? })
        })
        .collect()
}

fn content_text(content: Option<&Value>, i: usize) -> Result<String, ApiError> {
    let param = format!("messages[{i}].content");
    match content {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(parts)) => {
            let texts = parts
                .iter()
                .map(|p| match (p.get("type").and_then(Value::as_str), p.get("text").and_then(Value::as_str)) {
                    (Some("text"), Some(t)) => Ok(t),
                    _ => Err(ApiError::invalid(
                        &param,
                        "only text content parts ({\"type\": \"text\", \"text\": ...}) are supported",
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(texts.join("\n"))
        }
        Some(_) => Err(ApiError::invalid(&param, "content must be a string or a list of text parts")),
    }
}

struct Head {
    id: String,
    created: u64,
    model: String,
    logprobs: bool,
}

impl Head {
    fn chunk(&self, choices: Vec<ChatChunkChoice>, usage: Option<Option<Usage>>) -> ChatChunk {
        ChatChunk {
            id: self.id.clone(),
            object: CHAT_CHUNK_OBJECT,
            created: self.created,
            model: self.model.clone(),
            choices,
            usage,
        }
    }
}

fn stream_response(mut generation: Generation, head: Head, n: usize, include_usage: bool) -> Response {
    sse::response(async_stream::stream! {
        for index in 0..n {
            let delta = ChatDelta { role: Some("assistant"), content: Some(String::new()) };
            let choice = ChatChunkChoice { index, delta, logprobs: None, finish_reason: None };
            yield sse::json(&head.chunk(vec![choice], include_usage.then_some(None)));
        }
        while let Some(ev) = generation.next().await {
            let choice = match ev {
                Err(e) => {
                    yield sse::error(&e);
                    yield sse::done();
                    return;
                }
                Ok(GenEvent::Delta { index, text, tokens }) => ChatChunkChoice {
                    index,
                    delta: ChatDelta { role: None, content: Some(text) },
                    logprobs: head.logprobs.then(|| chat_logprobs(&tokens)),
                    finish_reason: None,
                },
                Ok(GenEvent::Finish { index, reason }) => {
                    ChatChunkChoice { index, delta: ChatDelta::default(), logprobs: None, finish_reason: Some(reason) }
                }
            };
            yield sse::json(&head.chunk(vec![choice], include_usage.then_some(None)));
        }
        if include_usage {
            yield sse::json(&head.chunk(Vec::new(), Some(Some(generation.usage()))));
        }
        yield sse::done();
    })
}

fn chat_logprobs(tokens: &[TokenInfo]) -> ChatLogprobs {
    let content = tokens
        .iter()
        .map(|t| ChatTokenLogprob {
            token: t.text.clone(),
            logprob: t.logprob.unwrap_or(0.0),
            bytes: t.bytes.clone(),
            top_logprobs: t
                .top
                .iter()
                .map(|(s, b, l)| ChatTopLogprob { token: s.clone(), logprob: *l, bytes: b.clone() })
                .collect(),
        })
        .collect();
    ChatLogprobs { content, refusal: None }
}
