//! POST /v1/audio/transcriptions: multipart/form-data exactly as OpenAI's
//! (file, model, language, prompt, response_format, temperature,
//! timestamp_granularities[], stream). The upload is decoded and resampled at
//! the edge (on a blocking thread), then queued on the GPU worker as an audio
//! job; the response is json, text, srt, vtt or verbose_json, or with
//! stream=true SSE `transcript.text.delta` events and a `transcript.text.done`.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::multipart::MultipartRejection;
use axum::extract::{Multipart, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use tokio::sync::mpsc;

use crate::audio::{self, AudioError};
use crate::models::speech::{TranscribeOptions, Transcript};
use crate::server::error::ApiError;
use crate::server::sse;
use crate::server::state::AppState;
use crate::text::subtitles;
use crate::worker::msg::{AudioEvent, ValidTranscribe};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Text,
    Srt,
    Vtt,
    VerboseJson,
}

#[derive(Default)]
struct Form {
    file: Option<(Vec<u8>, Option<String>)>,
    model: Option<String>,
    language: Option<String>,
    prompt: Option<String>,
    response_format: Option<String>,
    temperature: Option<String>,
    granularities: Vec<String>,
    stream: Option<String>,
}

fn multipart_error(e: axum::extract::multipart::MultipartError) -> ApiError {
    if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::PayloadTooLarge
    } else if let Some(late) = crate::server::deadline::find(&e) {
        ApiError::BodyTimeout(late.to_string())
    } else {
        ApiError::invalid("file", format!("malformed multipart/form-data body: {}", e.body_text()))
    }
}

async fn read_form(mut mp: Multipart, max_file: usize) -> Result<Form, ApiError> {
    let mut f = Form::default();
    while let Some(field) = mp.next_field().await.map_err(multipart_error)? {
        let name = field.name().unwrap_or_default().to_string();
        if name == "file" {
            let fname = field.file_name().map(String::from);
            let bytes = field.bytes().await.map_err(multipart_error)?;
            if bytes.len() > max_file {
                return Err(ApiError::PayloadTooLarge);
            }
            f.file = Some((bytes.to_vec(), fname));
            continue;
        }
        let text = field.text().await.map_err(multipart_error)?;
        match name.as_str() {
            "model" => f.model = Some(text),
            "language" => f.language = Some(text),
            "prompt" => f.prompt = Some(text),
            "response_format" => f.response_format = Some(text),
            "temperature" => f.temperature = Some(text),
            "timestamp_granularities[]" | "timestamp_granularities" => f.granularities.push(text),
            "stream" => f.stream = Some(text),
            _ => {} // OpenAI ignores fields it does not know (e.g. chunking_strategy defaults)
        }
    }
    Ok(f)
}

fn parse_format(s: Option<&str>) -> Result<Format, ApiError> {
    Ok(match s.unwrap_or("json") {
        "json" => Format::Json,
        "text" => Format::Text,
        "srt" => Format::Srt,
        "vtt" => Format::Vtt,
        "verbose_json" => Format::VerboseJson,
        other => {
            return Err(ApiError::invalid(
                "response_format",
                format!("response_format '{other}' is not one of json, text, srt, vtt, verbose_json"),
            ))
        }
    })
}

fn parse_bool(param: &str, s: Option<&str>) -> Result<bool, ApiError> {
    match s.map(str::trim) {
        None | Some("false") | Some("False") | Some("0") => Ok(false),
        Some("true") | Some("True") | Some("1") => Ok(true),
        Some(o) => Err(ApiError::invalid(param, format!("{param} must be true or false, got '{o}'"))),
    }
}

pub async fn handle(
    State(state): State<Arc<AppState>>,
    mp: Result<Multipart, MultipartRejection>,
) -> Result<Response, ApiError> {
    let received = Instant::now();
    // Not multipart at all (JSON, no content type, no boundary): the upload is what is missing.
    let mp = mp.map_err(|e| {
        ApiError::invalid("file", format!("the body must be multipart/form-data with a `file` part: {}", e.body_text()))
    })?;
    let form = read_form(mp, state.limits.max_audio_bytes).await?;
    let model_id = form.model.as_deref().map(str::trim).filter(|m| !m.is_empty());
    let model_id = model_id.ok_or_else(|| ApiError::invalid("model", "model is required"))?.to_string();
    let registry = state.worker.registry().ok_or(ApiError::NotReady)?;
    let entry = registry.find_speech(&model_id).ok_or_else(|| ApiError::ModelNotFound(model_id.clone()))?;
    let format = parse_format(form.response_format.as_deref())?;
    let stream = parse_bool("stream", form.stream.as_deref())?;
    if stream && !matches!(format, Format::Json | Format::Text) {
        return Err(ApiError::invalid("stream", "stream=true needs response_format json or text"));
    }
    let mut words = false;
    for g in &form.granularities {
        match g.as_str() {
            "segment" => {}
            "word" => words = true,
            o => return Err(ApiError::invalid("timestamp_granularities[]", format!("unknown granularity '{o}'"))),
        }
    }
    if words && format != Format::VerboseJson {
        return Err(ApiError::invalid(
            "timestamp_granularities[]",
            "word timestamps need response_format=verbose_json",
        ));
    }
    if words && !entry.words {
        return Err(ApiError::invalid("timestamp_granularities[]", format!("{model_id} does not time words")));
    }
    let temperature = match form.temperature.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        None => 0.0,
        Some(t) => match t.parse::<f32>() {
            Ok(v) if (0.0..=1.0).contains(&v) => v,
            _ => {
                return Err(ApiError::invalid("temperature", format!("temperature must be between 0 and 1, got '{t}'")))
            }
        },
    };
    let language = form.language.as_deref().map(|l| l.trim().to_lowercase()).filter(|l| !l.is_empty());
    if let Some(l) = &language {
        if !entry.languages.iter().any(|x| x == l) {
            return Err(ApiError::invalid(
                "language",
                format!("language '{l}' is not supported by {model_id} (supported: {})", entry.languages.join(", ")),
            ));
        }
    }
    let (bytes, fname) = form.file.ok_or_else(|| ApiError::invalid("file", "file is required"))?;
    let ext = fname.as_deref().and_then(|n| n.rsplit_once('.')).map(|(_, e)| e.to_lowercase());
    let pcm = tokio::task::spawn_blocking(move || audio::load_16k(bytes, ext.as_deref()))
        .await
        .map_err(|e| ApiError::Internal(format!("audio decoding task: {e}")))?
        .map_err(audio_error)?;
    audio::check_not_silent(&pcm).map_err(|e| ApiError::invalid("file", e.to_string()))?;
    let opts = TranscribeOptions {
        language,
        prompt: form.prompt.filter(|p| !p.trim().is_empty()),
        temperature,
        seed: None,
        word_timestamps: words,
    };
    let (tx, rx) = mpsc::unbounded_channel();
    state.worker.submit_audio(ValidTranscribe { model: entry.index, audio: pcm, opts, events: tx, received })?;
    let timeout = state.limits.request_timeout();
    if stream {
        return Ok(streamed(rx, received + timeout));
    }
    let tr =
        tokio::time::timeout_at((received + timeout).into(), collect(rx)).await.map_err(|_| ApiError::Timeout)??;
    Ok(render(format, &tr, words))
}

fn audio_error(e: AudioError) -> ApiError {
    match e {
        AudioError::Resample(m) => ApiError::Internal(format!("resampling failed: {m}")),
        // The container and codec errors name the supported formats already.
        AudioError::Unsupported(m) => ApiError::invalid("file", m),
        other => ApiError::invalid("file", format!("{other} (supported formats: {})", audio::SUPPORTED)),
    }
}

async fn collect(mut rx: mpsc::UnboundedReceiver<AudioEvent>) -> Result<Transcript, ApiError> {
    while let Some(ev) = rx.recv().await {
        match ev {
            AudioEvent::Segment(_) => {}
            AudioEvent::Done(tr) => return Ok(tr),
            AudioEvent::Failed(e) => return Err(e.into()),
        }
    }
    Err(ApiError::WorkerGone)
}

fn usage(tr: &Transcript) -> serde_json::Value {
    json!({ "type": "duration", "seconds": tr.duration.ceil() as u64 })
}

fn render(format: Format, tr: &Transcript, words: bool) -> Response {
    let text = |body: String| ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response();
    match format {
        Format::Json => Json(json!({ "text": tr.text, "usage": usage(tr) })).into_response(),
        Format::Text => text(format!("{}\n", tr.text)),
        Format::Srt => text(subtitles::srt(&tr.segments)),
        Format::Vtt => {
            ([(header::CONTENT_TYPE, "text/vtt; charset=utf-8")], subtitles::vtt(&tr.segments)).into_response()
        }
        Format::VerboseJson => {
            let mut body = tr.verbose_json(words);
            body["usage"] = usage(tr);
            Json(body).into_response()
        }
    }
}

/// SSE: a delta per finished segment, then the whole text with usage.
fn streamed(mut rx: mpsc::UnboundedReceiver<AudioEvent>, deadline: Instant) -> Response {
    let events = async_stream::stream! {
        let mut first = true;
        loop {
            let ev = match tokio::time::timeout_at(deadline.into(), rx.recv()).await {
                Ok(Some(ev)) => ev,
                Ok(None) => { yield sse::error(&ApiError::WorkerGone); break; }
                Err(_) => { yield sse::error(&ApiError::Timeout); break; }
            };
            match ev {
                AudioEvent::Segment(s) => {
                    let delta = if first { s.text.trim_start().to_string() } else { s.text.clone() };
                    first = false;
                    yield sse::json(&json!({ "type": "transcript.text.delta", "delta": delta }));
                }
                AudioEvent::Done(tr) => {
                    yield sse::json(&json!({ "type": "transcript.text.done", "text": tr.text, "usage": usage(&tr) }));
                    break;
                }
                AudioEvent::Failed(e) => { yield sse::error(&e.into()); break; }
            }
        }
    };
    sse::response(events)
}
