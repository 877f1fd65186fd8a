//! POST /v1/completions: prompt(s) in, text out, streamed or not.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::Value;

use crate::server::api::common::{new_id, unix_now};
use crate::server::api::completions::{
    Completion, CompletionChoice, CompletionLogprobs, CompletionRequest, TopMap, COMPLETION_OBJECT,
};
use crate::server::api::Usage;
use crate::server::error::ApiError;
use crate::server::generation::{GenEvent, Generation, GenerationSpec, Prompt, TokenInfo};
use crate::server::json::ApiJson;
use crate::server::sse;
use crate::server::state::AppState;
use crate::server::structured::constraint_for;
use crate::server::validate::{check_common, fit_max_tokens, Budget, CommonFields};
use crate::worker::ModelEntry;

/// OpenAI's default for this endpoint.
const DEFAULT_MAX_TOKENS: usize = 16;
const MAX_LOGPROBS: u32 = 5;

pub async fn handle(
    State(state): State<Arc<AppState>>,
    ApiJson(req): ApiJson<CompletionRequest>,
) -> Result<Response, ApiError> {
    let received = Instant::now();
    let model = state.model(&req.model)?;
    let entry = model.entry();
    let checked = check_common(&common(&req), entry, &state.limits)?;
    if req.suffix.as_deref().is_some_and(|s| !s.is_empty()) {
        return Err(ApiError::invalid("suffix", "suffix is not supported"));
    }
    if req.best_of.is_some_and(|b| b as usize != checked.n) {
        return Err(ApiError::invalid("best_of", "best_of is not supported (only best_of equal to n is accepted)"));
    }
    let logprobs = match req.logprobs {
        None => None,
        Some(k) if k <= MAX_LOGPROBS => Some(k as usize),
        Some(k) => {
            return Err(ApiError::invalid(
                "logprobs",
                format!("logprobs must be between 0 and {MAX_LOGPROBS}, got {k}"),
            ))
        }
    };
    let echo = req.echo.unwrap_or(false);
    let inputs = parse_prompt(&req.prompt, entry)?;
    if inputs.len() * checked.n > state.limits.max_queue {
        let msg = format!(
            "the request makes {} sequences (prompts x n); the server queues at most {}",
            inputs.len() * checked.n,
            state.limits.max_queue
        );
        return Err(ApiError::invalid("n", msg));
    }
    // max_tokens 0 makes sense only to score an echoed prompt.
    let budget = Budget {
        requested: req.max_tokens,
        param: "max_tokens",
        default: DEFAULT_MAX_TOKENS,
        min: usize::from(!echo),
        prompt_param: "prompt",
    };
    let prompts = inputs
        .into_iter()
        .map(|(tokens, text)| {
            Ok(Prompt { max_tokens: fit_max_tokens(&budget, tokens.len(), entry, &state.limits)?, tokens, text })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    let (stream, include_usage) = (checked.stream, checked.include_usage);
    let constraint = constraint_for(&model, req.response_format.as_ref(), req.structured_outputs.as_ref()).await?;
    let timeout = state.limits.request_timeout();
    let spec = GenerationSpec { prompts, checked, logprobs, echo, received, timeout, constraint };
    let generation = Generation::start(&state.worker, entry, spec)?;
    let head = Head { id: new_id("cmpl-"), created: unix_now(), model: req.model, logprobs: logprobs.is_some() };
    if stream {
        return Ok(stream_response(generation, head, include_usage));
    }
    let (results, usage) = generation.collect().await?;
    let choices = results
        .into_iter()
        .enumerate()
        .map(|(index, r)| CompletionChoice {
            index,
            text: r.text,
            logprobs: head.logprobs.then(|| legacy_logprobs(&r.tokens)),
            finish_reason: Some(r.finish_reason),
        })
        .collect();
    Ok(Json(head.completion(choices, Some(Some(usage)))).into_response())
}

fn common(r: &CompletionRequest) -> CommonFields<'_> {
    CommonFields {
        n: r.n,
        temperature: r.temperature,
        top_p: r.top_p,
        top_k: r.top_k,
        min_p: r.min_p,
        repetition_penalty: r.repetition_penalty,
        presence_penalty: r.presence_penalty,
        frequency_penalty: r.frequency_penalty,
        logit_bias: r.logit_bias.as_ref(),
        seed: r.seed,
        stop: r.stop.as_ref(),
        stream: r.stream,
        stream_options: r.stream_options.as_ref(),
        ignore_eos: r.ignore_eos,
        cache_prompt: r.cache_prompt,
    }
}

/// What every response object and chunk of one request repeats.
struct Head {
    id: String,
    created: u64,
    model: String,
    logprobs: bool,
}

impl Head {
    fn completion(&self, choices: Vec<CompletionChoice>, usage: Option<Option<Usage>>) -> Completion {
        Completion {
            id: self.id.clone(),
            object: COMPLETION_OBJECT,
            created: self.created,
            model: self.model.clone(),
            choices,
            usage,
        }
    }
}

fn stream_response(mut generation: Generation, head: Head, include_usage: bool) -> Response {
    sse::response(async_stream::stream! {
        while let Some(ev) = generation.next().await {
            let choice = match ev {
                Err(e) => {
                    yield sse::error(&e);
                    yield sse::done();
                    return;
                }
                Ok(GenEvent::Delta { index, text, tokens }) => CompletionChoice {
                    index,
                    text,
                    logprobs: head.logprobs.then(|| legacy_logprobs(&tokens)),
                    finish_reason: None,
                },
                Ok(GenEvent::Finish { index, reason }) => CompletionChoice {
                    index,
                    text: String::new(),
                    logprobs: head.logprobs.then(CompletionLogprobs::default),
                    finish_reason: Some(reason),
                },
            };
            yield sse::json(&head.completion(vec![choice], include_usage.then_some(None)));
        }
        if include_usage {
            yield sse::json(&head.completion(Vec::new(), Some(Some(generation.usage()))));
        }
        yield sse::done();
    })
}

fn legacy_logprobs(tokens: &[TokenInfo]) -> CompletionLogprobs {
    CompletionLogprobs {
        tokens: tokens.iter().map(|t| t.text.clone()).collect(),
        token_logprobs: tokens.iter().map(|t| t.logprob).collect(),
        top_logprobs: tokens.iter().map(|t| t.logprob.map(|lp| top_with_chosen(t, lp))).collect(),
        text_offset: tokens.iter().map(|t| t.offset).collect(),
    }
}

/// OpenAI always lists the chosen token among the alternatives (so up to
/// logprobs + 1 entries).
fn top_with_chosen(t: &TokenInfo, logprob: f32) -> TopMap {
    let mut top: Vec<(String, f32)> = t.top.iter().map(|(s, _, l)| (s.clone(), *l)).collect();
    if !top.iter().any(|(s, _)| *s == t.text) {
        top.push((t.text.clone(), logprob));
    }
    TopMap(top)
}

/// string | string[] | token ids | list of token-id lists -> (tokens, echo text) per prompt.
fn parse_prompt(prompt: &Value, entry: &ModelEntry) -> Result<Vec<(Vec<u32>, String)>, ApiError> {
    let shape = || {
        ApiError::invalid(
            "prompt",
            "prompt must be a string, a list of strings, a list of token ids, or a list of token-id lists",
        )
    };
    match prompt {
        Value::String(s) => Ok(vec![encode(s, entry)?]),
        Value::Array(items) if items.is_empty() => Err(ApiError::invalid("prompt", "prompt must not be empty")),
        Value::Array(items) => match &items[0] {
            Value::String(_) => {
                items.iter().map(|v| v.as_str().ok_or_else(shape).and_then(|s| encode(s, entry))).collect()
            }
            Value::Number(_) => Ok(vec![token_prompt(items, entry)?]),
            Value::Array(_) => {
                items.iter().map(|v| v.as_array().ok_or_else(shape).and_then(|ids| token_prompt(ids, entry))).collect()
            }
            _ => Err(shape()),
        },
        _ => Err(shape()),
    }
}

fn encode(text: &str, entry: &ModelEntry) -> Result<(Vec<u32>, String), ApiError> {
    let mut tokens = entry.tokenizer.encode(text, true).map_err(|e| ApiError::invalid("prompt", e.to_string()))?;
    if tokens.is_empty() {
        // An empty prompt continues from the start of a document.
        tokens.extend(entry.tokenizer.bos);
    }
    if tokens.is_empty() {
        return Err(ApiError::invalid(
            "prompt",
            "the prompt is empty and the model has no beginning-of-sequence token",
        ));
    }
    Ok((tokens, text.to_string()))
}

fn token_prompt(ids: &[Value], entry: &ModelEntry) -> Result<(Vec<u32>, String), ApiError> {
    if ids.is_empty() {
        return Err(ApiError::invalid("prompt", "a token-id prompt must not be empty"));
    }
    let vocab = entry.vocab;
    let tokens = ids
        .iter()
        .map(|v| {
            v.as_u64().filter(|&id| id < vocab as u64).map(|id| id as u32).ok_or_else(|| {
                ApiError::invalid("prompt", format!("prompt token ids must be integers in 0..{vocab}, got {v}"))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let text = entry.tokenizer.decode(&tokens).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok((tokens, text))
}
