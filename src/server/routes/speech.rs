//! POST /v1/audio/speech: text in, audio out, streamed as sentences finish, either as
//! chunked bytes of `response_format` (stream_format "audio", the default) or as SSE
//! `speech.audio.delta` events with base64 audio then `speech.audio.done`.
//! The voice's own text front end cuts the input into units here, on a blocking thread (a
//! phonemizer may be slow), so the GPU worker only synthesizes. Dropping the response cancels the job.

use std::sync::Arc;
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use tokio::sync::mpsc;

use crate::audio::encode::{EncodeError, SUPPORTED_NAMES};
use crate::audio::{AudioFormat, StreamEncoder};
use crate::models::voice::FrontEndError;
use crate::server::api::speech::{SpeechRequest, SpeechStreamEvent, SpeechUsage};
use crate::server::error::ApiError;
use crate::server::json::ApiJson;
use crate::server::sse;
use crate::server::state::AppState;
use crate::worker::msg::{SpeechEvent, ValidSpeech};

/// OpenAI's limit on `input`, in characters.
pub const MAX_INPUT_CHARS: usize = 4096;
/// `response_format` values this server encodes.
pub const FORMATS: &[&str] = SUPPORTED_NAMES;

struct Checked {
    format: AudioFormat,
    sse: bool,
    speed: f64,
}

fn check(req: &SpeechRequest) -> Result<Checked, ApiError> {
    if req.model.trim().is_empty() {
        return Err(ApiError::invalid("model", "model must not be empty"));
    }
    if req.input.trim().is_empty() {
        return Err(ApiError::invalid("input", "input must not be empty"));
    }
    let chars = req.input.chars().count();
    if chars > MAX_INPUT_CHARS {
        return Err(ApiError::invalid("input", format!("input is {chars} characters; the limit is {MAX_INPUT_CHARS}")));
    }
    // OpenAI's default is mp3.
    let name = req.response_format.as_deref().unwrap_or("mp3");
    let format = match AudioFormat::parse(name) {
        Some(f) if f.supported() => f,
        Some(_) => {
            return Err(ApiError::invalid(
                "response_format",
                format!("response_format '{name}' is not supported by this server; use one of {}", FORMATS.join(", ")),
            ))
        }
        None => {
            return Err(ApiError::invalid(
                "response_format",
                format!("unknown response_format '{name}'; supported: {}", FORMATS.join(", ")),
            ))
        }
    };
    let speed = req.speed.unwrap_or(1.0);
    if !(0.25..=4.0).contains(&speed) || !speed.is_finite() {
        return Err(ApiError::invalid("speed", format!("speed must be between 0.25 and 4.0, got {speed}")));
    }
    let sse = match req.stream_format.as_deref().unwrap_or("audio") {
        "audio" => false,
        "sse" => true,
        other => {
            return Err(ApiError::invalid(
                "stream_format",
                format!("stream_format must be 'audio' or 'sse', got '{other}'"),
            ))
        }
    };
    Ok(Checked { format, sse, speed })
}

pub async fn handle(
    State(state): State<Arc<AppState>>,
    ApiJson(req): ApiJson<SpeechRequest>,
) -> Result<Response, ApiError> {
    let received = Instant::now();
    let c = check(&req)?;
    let registry = state.worker.registry().ok_or(ApiError::NotReady)?;
    let name = req.voice.name().to_string();
    let Some(vi) = registry.voice_index(&name) else {
        let known: Vec<&str> = registry.voices.iter().map(|v| v.name.as_str()).collect();
        let openai: Vec<&str> = registry.openai.voices.keys().map(String::as_str).collect();
        return Err(ApiError::invalid(
            "voice",
            format!(
                "unknown voice '{name}'; loaded voices: {}{}",
                known.join(", "),
                if openai.is_empty() || known.is_empty() {
                    String::new()
                } else {
                    format!(" (and OpenAI's: {})", openai.join(", "))
                }
            ),
        ));
    };
    let voice = &registry.voices[vi];
    if c.speed != 1.0 && !voice.info.variable_speed {
        return Err(ApiError::invalid("speed", format!("voice '{name}' speaks at its own pace; speed must be 1.0")));
    }
    let (input, front_end) = (req.input.clone(), voice.info.front_end.clone());
    let units = tokio::task::spawn_blocking(move || front_end.units(&input))
        .await
        .map_err(|e| ApiError::Internal(format!("text front end task: {e}")))?
        .map_err(|FrontEndError::Failed(msg)| ApiError::Internal(msg))?;
    let n_input = units.input_tokens;
    let (tx, rx) = mpsc::unbounded_channel();
    state.worker.submit_speech(ValidSpeech {
        voice: voice.index,
        units: units.units,
        speed: c.speed,
        events: tx,
        received,
    })?;
    let rate = voice.info.sample_rate;
    // SSE deltas stream every format; a raw body is a file, so FLAC comes whole with its length.
    let encoder = if c.sse { StreamEncoder::new(c.format, rate) } else { StreamEncoder::file(c.format, rate) };
    let encoder = encoder.map_err(|e| ApiError::Internal(e.to_string()))?;
    // The whole stream, as for text and transcriptions: the request timeout counts from arrival.
    let deadline = tokio::time::Instant::from_std(received + state.limits.request_timeout());
    let mut res = if c.sse {
        sse_response(rx, encoder, n_input, deadline)
    } else {
        let mut res = Body::from_stream(audio_stream(rx, encoder, deadline)).into_response();
        res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(c.format.content_type()));
        res
    };
    // Raw pcm carries no rate of its own; the SSE deltas neither.
    res.headers_mut().insert("x-sample-rate", HeaderValue::from(rate));
    Ok(res)
}

/// The worker's next event, or why there is none: the deadline passed or the worker dropped
/// the job (each ends the stream with an error, never as if the audio were complete).
async fn next_event(
    rx: &mut mpsc::UnboundedReceiver<SpeechEvent>,
    deadline: tokio::time::Instant,
) -> Result<SpeechEvent, ApiError> {
    match tokio::time::timeout_at(deadline, rx.recv()).await {
        Ok(Some(ev)) => Ok(ev),
        Ok(None) => Err(ApiError::WorkerGone),
        Err(_) => Err(ApiError::Timeout),
    }
}

/// Chunked audio bytes. A failure mid-stream (the timeout included) can only end the body early
/// (the status is already sent), so it is logged and the stream stops; dropping `rx` cancels the job.
fn audio_stream(
    mut rx: mpsc::UnboundedReceiver<SpeechEvent>,
    mut enc: StreamEncoder,
    deadline: tokio::time::Instant,
) -> impl tokio_stream::Stream<Item = Result<Bytes, std::io::Error>> {
    async_stream::stream! {
        loop {
            let ev = match next_event(&mut rx, deadline).await {
                Ok(ev) => ev,
                Err(e) => {
                    tracing::warn!("speech stream cut off: {e}");
                    yield Err(std::io::Error::other(e.to_string()));
                    break;
                }
            };
            match ev {
                SpeechEvent::Audio { samples, .. } => match enc.chunk(&samples) {
                    Ok(b) if b.is_empty() => {}
                    Ok(b) => yield Ok(Bytes::from(b)),
                    Err(e) => {
                        yield Err(encode_failed(e));
                        break;
                    }
                },
                SpeechEvent::Done { .. } => {
                    // A whole-file FLAC is encoded here, minutes of audio at most: off the async threads.
                    let finished = tokio::task::spawn_blocking(move || { let mut enc = enc; enc.finish() }).await;
                    let finished = finished.unwrap_or_else(|e| Err(EncodeError::codec("encoder", e)));
                    match finished {
                        Ok(tail) if tail.is_empty() => {}
                        Ok(tail) => yield Ok(Bytes::from(tail)),
                        Err(e) => yield Err(encode_failed(e)),
                    }
                    break;
                }
                SpeechEvent::Failed(e) => {
                    tracing::error!("speech failed mid-stream: {e}");
                    yield Err(std::io::Error::other(e.to_string()));
                    break;
                }
            }
        }
    }
}

/// An encoder failure after the 200 went out can only end the body early: log it and stop.
fn encode_failed(e: EncodeError) -> std::io::Error {
    tracing::error!("speech encoding failed mid-stream: {e}");
    std::io::Error::other(e.to_string())
}

fn sse_response(
    mut rx: mpsc::UnboundedReceiver<SpeechEvent>,
    mut enc: StreamEncoder,
    n_input: usize,
    deadline: tokio::time::Instant,
) -> Response {
    let b64 = base64::engine::general_purpose::STANDARD;
    let events = async_stream::stream! {
        loop {
            let ev = match next_event(&mut rx, deadline).await {
                Ok(ev) => ev,
                Err(e) => {
                    yield sse::error(&e);
                    break;
                }
            };
            match ev {
                SpeechEvent::Audio { samples, .. } => match enc.chunk(&samples) {
                    // A codec still filling its first frame has nothing to send yet.
                    Ok(b) if b.is_empty() => {}
                    Ok(b) => yield sse::json(&SpeechStreamEvent::Delta { audio: b64.encode(b) }),
                    Err(e) => {
                        yield sse::error(&ApiError::Internal(e.to_string()));
                        break;
                    }
                },
                SpeechEvent::Done { samples, .. } => {
                    match enc.finish() {
                        Ok(tail) if tail.is_empty() => {}
                        Ok(tail) => yield sse::json(&SpeechStreamEvent::Delta { audio: b64.encode(tail) }),
                        Err(e) => {
                            yield sse::error(&ApiError::Internal(e.to_string()));
                            break;
                        }
                    }
                    // Usage in OpenAI's shape: input in the front end's unit (phonemes, characters),
                    // output = audio samples.
                    let usage = SpeechUsage { input_tokens: n_input, output_tokens: samples, total_tokens: n_input + samples };
                    yield sse::json(&SpeechStreamEvent::Done { usage });
                    break;
                }
                SpeechEvent::Failed(e) => {
                    yield sse::error(&ApiError::from(e));
                    break;
                }
            }
        }
    };
    sse::response(events)
}
