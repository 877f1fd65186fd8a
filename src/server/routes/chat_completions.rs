//! POST /v1/chat/completions: messages rendered with the model's chat
//! template, then generated like a completion; streamed as deltas with the
//! assistant role first.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{Map, Value};

use crate::server::api::chat::{
    AssistantMessage, ChatChoice, ChatChunk, ChatChunkChoice, ChatCompletion, ChatDelta, ChatLogprobs, ChatMessageIn,
    ChatRequest, ChatTokenLogprob, ChatTopLogprob, CHAT_CHUNK_OBJECT, CHAT_OBJECT,
};
use crate::server::api::common::{new_id, unix_now};
use crate::server::api::Usage;
use crate::server::error::ApiError;
use crate::server::generation::{GenEvent, Generation, GenerationSpec, Prompt, TokenInfo};
use crate::server::json::ApiJson;
use crate::server::sse;
use crate::server::state::AppState;
use crate::server::structured::{compile_for, constraint_for};
use crate::server::tools::{self, calls_out, CallParser, ToolRequest};
use crate::server::validate::{check_common, fit_max_tokens, Budget, CommonFields};
use crate::text::chat::{ChatMessage, ChatTemplate, RESERVED_KWARGS};
use crate::text::grammar::OutputFormat;
use crate::text::reasoning::{ReasoningSplitter, Split};
use crate::text::tools::{fallback_messages, CallSplitter};

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
    let tool_req = tools::check(req.tools.as_ref(), req.tool_choice.as_ref(), req.parallel_tool_calls)?;
    let messages = convert_messages(&req.messages)?;
    let template = entry
        .chat
        .as_ref()
        .map_err(|why| ApiError::invalid("messages", format!("chat is unavailable for this model: {why}")))?;
    let kwargs = template_kwargs(&req, template)?;
    let text = render_prompt(template, &messages, tool_req.as_ref(), true, &kwargs)?;
    // Some(starts inside the reasoning) for a model that thinks: its reasoning is split off.
    let thinking = template.thinks().then(|| ReasoningSplitter::prompt_opens(&text));
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
    // max_tokens, overridden by max_completion_tokens, is still held to the same limits (a value the
    // server would refuse alone is refused, not silently dropped).
    if let (Some(_), Some(overridden)) = (req.max_completion_tokens, req.max_tokens) {
        let budget = Budget { requested: Some(overridden), param: "max_tokens", ..budget };
        fit_max_tokens(&budget, tokens.len(), entry, &state.limits)?;
    }
    let (stream, include_usage, n) = (checked.stream, checked.include_usage, checked.n);
    let constraint = match tool_req.as_ref().and_then(ToolRequest::grammar) {
        Some(grammar) => {
            if req.response_format.as_ref().is_some_and(|v| !v.is_null() && v["type"] != "text")
                || req.structured_outputs.as_ref().is_some_and(|v| !v.is_null())
            {
                return Err(ApiError::invalid(
                    "tool_choice",
                    "a forced tool call cannot be combined with response_format or structured_outputs",
                ));
            }
            Some(compile_for(&model, OutputFormat::Lark(grammar), "tools").await?)
        }
        None => constraint_for(&model, req.response_format.as_ref(), req.structured_outputs.as_ref()).await?,
    };
    let parse_tools = tool_req.as_ref().map(ToolRequest::parser);
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
        return Ok(stream_response(generation, head, n, include_usage, parse_tools, thinking));
    }
    let (results, usage) = generation.collect().await?;
    let choices = results
        .into_iter()
        .enumerate()
        .map(|(index, r)| {
            let Split { reasoning, content: text } = match thinking {
                Some(inside) => ReasoningSplitter::split(&r.text, inside),
                None => Split { reasoning: String::new(), content: r.text },
            };
            let (content, calls) = match &parse_tools {
                Some(parser) => parser.split(&text),
                None => (text, Vec::new()),
            };
            let called = !calls.is_empty();
            ChatChoice {
                index,
                message: AssistantMessage {
                    role: "assistant",
                    content: (!called || !content.is_empty()).then_some(content),
                    reasoning_content: (!reasoning.is_empty()).then_some(reasoning),
                    refusal: None,
                    tool_calls: called.then(|| calls_out(calls, false)),
                },
                logprobs: head.logprobs.then(|| chat_logprobs(&r.tokens)),
                finish_reason: finish_reason(r.finish_reason, called),
            }
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

/// The conversation as the model reads it: the template's own rendering, with the tools (and
/// earlier calls and results) written into the messages where the template does not render them.
pub(crate) fn render_prompt(
    template: &ChatTemplate,
    messages: &[ChatMessage],
    tools: Option<&ToolRequest>,
    add_generation_prompt: bool,
    kwargs: &Map<String, Value>,
) -> Result<String, ApiError> {
    let has_tool_turns = messages.iter().any(|m| m.tool_calls.is_some() || m.role == "tool");
    let render = |messages: &[ChatMessage], tools: Option<&[Value]>| {
        template.render_with(messages, tools, add_generation_prompt, kwargs)
    };
    let rendered = match tools {
        Some(t) if template.handles_tools() => render(messages, Some(&t.tools_json())),
        Some(t) => render(&fallback_messages(messages, &t.tools), None),
        None if has_tool_turns && !template.handles_tools() => render(&fallback_messages(messages, &[]), None),
        None => render(messages, None),
    };
    rendered.map_err(|e| ApiError::invalid("messages", e.to_string()))
}

const EFFORTS: &[&str] = &["none", "minimal", "low", "medium", "high"];

/// The template variables a request adds: its `chat_template_kwargs`, and `reasoning_effort` (as
/// itself, and for a template that thinks, `none` as `enable_thinking: false`).
fn template_kwargs(req: &ChatRequest, template: &ChatTemplate) -> Result<Map<String, Value>, ApiError> {
    let mut kwargs = match req.chat_template_kwargs.as_ref() {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err(ApiError::invalid("chat_template_kwargs", "chat_template_kwargs must be an object")),
    };
    if let Some(key) = kwargs.keys().find(|k| RESERVED_KWARGS.contains(&k.as_str())) {
        return Err(ApiError::invalid(
            &format!("chat_template_kwargs.{key}"),
            format!("{key} is set by the server from the request itself"),
        ));
    }
    if let Some(effort) = req.reasoning_effort.as_deref() {
        if !EFFORTS.contains(&effort) {
            let msg = format!("reasoning_effort must be one of {}, got '{effort}'", EFFORTS.join(", "));
            return Err(ApiError::invalid("reasoning_effort", msg));
        }
        kwargs.entry("reasoning_effort").or_insert_with(|| effort.into());
        if template.thinks() {
            kwargs.entry("enable_thinking").or_insert_with(|| (effort != "none").into());
        }
    }
    Ok(kwargs)
}

/// A turn that called tools finished with "tool_calls" (unless max_tokens cut it).
fn finish_reason(reason: &'static str, called: bool) -> &'static str {
    if called && reason == "stop" {
        "tool_calls"
    } else {
        reason
    }
}

fn refuse_unsupported(r: &ChatRequest) -> Result<(), ApiError> {
    // The legacy `functions: []` and `function_call: "none"` ask for no calls; frameworks send them.
    let no_list = |v: &Value| v.as_array().is_some_and(Vec::is_empty);
    let no_choice = |v: &Value| v == "none";
    for (name, v, asks_none) in [
        ("functions", &r.functions, &no_list as &dyn Fn(&Value) -> bool),
        ("function_call", &r.function_call, &no_choice),
    ] {
        if v.as_ref().is_some_and(|v| !v.is_null() && !asks_none(v)) {
            return Err(ApiError::invalid(
                name,
                format!("{name} is the deprecated form of tools: use tools and tool_choice"),
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
pub(crate) fn convert_messages(messages: &[ChatMessageIn]) -> Result<Vec<ChatMessage>, ApiError> {
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
            let tool_calls = match m.tool_calls.as_ref().filter(|v| !v.is_null()) {
                Some(_) if m.role != "assistant" => {
                    return Err(ApiError::invalid(
                        &format!("messages[{i}].tool_calls"),
                        "only assistant turns carry tool calls",
                    ))
                }
                Some(calls) => Some(tools::message_calls(calls, i)?),
                None => None,
            };
            // Templates written before the `developer` role know it as `system`.
            let role = if m.role == "developer" { "system" } else { m.role.as_str() };
            // Only an assistant turn may come without content (OpenAI's: one that called tools).
            if m.role != "assistant" && m.content.as_ref().is_none_or(Value::is_null) {
                return Err(ApiError::invalid(&format!("messages[{i}].content"), "content is required"));
            }
            Ok(ChatMessage {
                tool_calls,
                tool_call_id: m.tool_call_id.clone(),
                ..ChatMessage::text(role, &content_text(m.content.as_ref(), i)?)
            })
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

/// Streams each choice's deltas. A thinking model's reasoning goes out as `reasoning_content` deltas,
/// text that may be a tag held back until it is known (`ReasoningSplitter`). With tools, answer text
/// that may start a call is held back (`CallSplitter`); the calls go out whole, one delta, when the
/// choice finishes.
fn stream_response(
    mut generation: Generation,
    head: Head,
    n: usize,
    include_usage: bool,
    tools: Option<CallParser>,
    thinking: Option<bool>,
) -> Response {
    let mut splitters: Vec<CallSplitter> = (0..generation.choices()).map(|_| CallSplitter::default()).collect();
    let mut thinkers: Vec<Option<ReasoningSplitter>> =
        (0..generation.choices()).map(|_| thinking.map(ReasoningSplitter::new)).collect();
    let holds = tools.is_some() || thinking.is_some();
    // The tokens of text held back, sent with the text when it is released.
    let mut held_tokens: Vec<Vec<TokenInfo>> = vec![Vec::new(); generation.choices()];
    sse::response(async_stream::stream! {
        let usage_slot = || include_usage.then_some(None);
        for index in 0..n {
            let delta = ChatDelta { role: Some("assistant"), content: Some(String::new()), ..Default::default() };
            let choice = ChatChunkChoice { index, delta, logprobs: None, finish_reason: None };
            yield sse::json(&head.chunk(vec![choice], usage_slot()));
        }
        while let Some(ev) = generation.next().await {
            let choice = match ev {
                Err(e) => {
                    yield sse::error(&e);
                    yield sse::done();
                    return;
                }
                Ok(GenEvent::Delta { index, text, mut tokens }) => {
                    let (reasoning, text) = if holds {
                        held_tokens[index].append(&mut tokens);
                        let Split { reasoning, content } = match thinkers[index].as_mut() {
                            Some(t) => t.push(&text),
                            None => Split { reasoning: String::new(), content: text },
                        };
                        let released = if tools.is_some() { splitters[index].push(&content) } else { content };
                        if released.is_empty() && reasoning.is_empty() {
                            continue;
                        }
                        tokens = std::mem::take(&mut held_tokens[index]);
                        (reasoning, released)
                    } else {
                        (String::new(), text)
                    };
                    // A reasoning delta carries no content (as vLLM sends them).
                    let content = (reasoning.is_empty() || !text.is_empty()).then_some(text);
                    let reasoning_content = (!reasoning.is_empty()).then_some(reasoning);
                    ChatChunkChoice {
                        index,
                        delta: ChatDelta { content, reasoning_content, ..Default::default() },
                        logprobs: head.logprobs.then(|| chat_logprobs(&tokens)),
                        finish_reason: None,
                    }
                }
                Ok(GenEvent::Finish { index, reason }) => {
                    let mut called = false;
                    let Split { reasoning, content: mut rest } =
                        thinkers[index].as_mut().map(ReasoningSplitter::finish).unwrap_or_default();
                    let mut calls = Vec::new();
                    if let Some(tools) = &tools {
                        let released = splitters[index].push(&rest);
                        let (tail, found) = tools.finish(std::mem::take(&mut splitters[index]));
                        (rest, calls) = (released + &tail, found);
                        called = !calls.is_empty();
                    }
                    let content = (!rest.is_empty()).then_some(rest);
                    let reasoning_content = (!reasoning.is_empty()).then_some(reasoning);
                    if content.is_some() || reasoning_content.is_some() || called {
                        let tokens = std::mem::take(&mut held_tokens[index]);
                        // Whatever was held goes out here, calls included, as the whole response lists them.
                        let logprobs = head.logprobs.then(|| chat_logprobs(&tokens));
                        let tool_calls = called.then(|| calls_out(calls, true));
                        let delta = ChatDelta { role: None, content, reasoning_content, tool_calls };
                        let choice = ChatChunkChoice { index, delta, logprobs, finish_reason: None };
                        yield sse::json(&head.chunk(vec![choice], usage_slot()));
                    }
                    let reason = finish_reason(reason, called);
                    ChatChunkChoice { index, delta: ChatDelta::default(), logprobs: None, finish_reason: Some(reason) }
                }
            };
            yield sse::json(&head.chunk(vec![choice], usage_slot()));
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
