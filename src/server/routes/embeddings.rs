//! POST /v1/embeddings: OpenAI's embeddings call on a loaded embedding model. Inputs are tokenized
//! and checked here (each within the model's tokens, token ids within its vocabulary, `dimensions`
//! where the model allows truncation); the worker pools them on the GPU, one input per step between
//! text steps.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::State;
use axum::Json;
use base64::Engine;

use crate::server::api::embeddings::{
    EmbeddingInput, EmbeddingObject, EmbeddingRequest, EmbeddingResponse, EmbeddingUsage, EmbeddingVector,
    EncodingFormat,
};
use crate::server::error::ApiError;
use crate::server::json::ApiJson;
use crate::server::state::AppState;
use crate::worker::msg::ValidEmbed;
use crate::worker::EmbedEntry;

/// OpenAI's limit on inputs per request.
pub const MAX_INPUTS: usize = 2048;

pub async fn handle(
    State(state): State<Arc<AppState>>,
    ApiJson(req): ApiJson<EmbeddingRequest>,
) -> Result<Json<EmbeddingResponse>, ApiError> {
    let registry = state.worker.registry().ok_or(ApiError::NotReady)?;
    // A text model of that name serves no embeddings: not found here, as an unknown name (vLLM
    // answers the same way for a model without the task).
    let entry = registry.find_embedder(&req.model).ok_or_else(|| ApiError::ModelNotFound(req.model.clone()))?;
    let dims = check_dimensions(entry, req.dimensions)?;
    let inputs = tokenize(entry, &req.input)?;
    let prompt_tokens = inputs.iter().map(Vec::len).sum();
    let (reply, rx) = tokio::sync::oneshot::channel();
    state.worker.submit_embed(ValidEmbed { model: entry.index, inputs, reply, received: Instant::now() })?;
    let vectors = rx.await.map_err(|_| ApiError::WorkerGone)??;
    let data = vectors
        .into_iter()
        .enumerate()
        .map(|(index, v)| EmbeddingObject {
            object: "embedding",
            index,
            embedding: encode(truncate(v, dims, entry.normalize), req.encoding_format),
        })
        .collect();
    Ok(Json(EmbeddingResponse {
        object: "list",
        data,
        model: req.model,
        usage: EmbeddingUsage { prompt_tokens, total_tokens: prompt_tokens },
    }))
}

/// The width to return: the model's unless `dimensions` asks for less and the model allows it.
fn check_dimensions(entry: &EmbedEntry, dimensions: Option<i64>) -> Result<Option<usize>, ApiError> {
    let Some(d) = dimensions else { return Ok(None) };
    let Some(allowed) = &entry.matryoshka else {
        return Err(ApiError::invalid("dimensions", format!("'{}' does not support truncated embeddings", entry.id)));
    };
    if d < 1 || d as u64 > entry.dims as u64 {
        return Err(ApiError::invalid("dimensions", format!("dimensions must be between 1 and {}", entry.dims)));
    }
    let d = d as usize;
    if !allowed.is_empty() && !allowed.contains(&d) {
        return Err(ApiError::invalid("dimensions", format!("'{}' supports dimensions {allowed:?}", entry.id)));
    }
    Ok(Some(d))
}

/// Every input as token ids, each non-empty and within the model's limit.
fn tokenize(entry: &EmbedEntry, input: &EmbeddingInput) -> Result<Vec<Vec<u32>>, ApiError> {
    let text = |s: &str| -> Result<Vec<u32>, ApiError> {
        if s.is_empty() {
            return Err(ApiError::invalid("input", "an input must not be an empty string"));
        }
        entry.tokenizer.encode(s, true).map_err(|e| ApiError::invalid("input", e.to_string()))
    };
    let ids = |t: &[i64]| -> Result<Vec<u32>, ApiError> {
        t.iter()
            .map(|&id| {
                u32::try_from(id).ok().filter(|&id| (id as usize) < entry.vocab).ok_or_else(|| {
                    ApiError::invalid("input", format!("token id {id} is outside the vocabulary (0..{})", entry.vocab))
                })
            })
            .collect()
    };
    let inputs = match input {
        EmbeddingInput::Text(s) => vec![text(s)?],
        EmbeddingInput::Texts(v) => v.iter().map(|s| text(s)).collect::<Result<_, _>>()?,
        EmbeddingInput::Tokens(t) => vec![ids(t)?],
        EmbeddingInput::TokenLists(v) => v.iter().map(|t| ids(t)).collect::<Result<_, _>>()?,
    };
    if inputs.is_empty() {
        return Err(ApiError::invalid("input", "input must not be an empty array"));
    }
    if inputs.len() > MAX_INPUTS {
        return Err(ApiError::invalid("input", format!("{} inputs; at most {MAX_INPUTS} per request", inputs.len())));
    }
    for (i, t) in inputs.iter().enumerate() {
        if t.is_empty() {
            return Err(ApiError::invalid("input", format!("input {i} has no tokens")));
        }
        if t.len() > entry.max_tokens {
            return Err(ApiError::invalid(
                "input",
                format!("input {i} has {} tokens; '{}' takes at most {}", t.len(), entry.id, entry.max_tokens),
            ));
        }
    }
    Ok(inputs)
}

/// `v` cut to `dims` (and scaled back to unit length where the model normalises), as OpenAI and
/// vLLM shorten Matryoshka embeddings.
fn truncate(mut v: Vec<f32>, dims: Option<usize>, normalize: bool) -> Vec<f32> {
    if let Some(d) = dims {
        v.truncate(d);
        if normalize {
            crate::models::embedding::normalize(&mut v);
        }
    }
    v
}

fn encode(v: Vec<f32>, format: EncodingFormat) -> EmbeddingVector {
    match format {
        EncodingFormat::Float => EmbeddingVector::Float(v),
        EncodingFormat::Base64 => {
            let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            EmbeddingVector::Base64(base64::engine::general_purpose::STANDARD.encode(bytes))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decoder-embedder fixture's tokenizer (384 ids) with `max_tokens` and `matryoshka`.
    fn entry(max_tokens: usize, matryoshka: Option<Vec<usize>>) -> EmbedEntry {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen3_embed");
        EmbedEntry {
            id: "e".into(),
            index: 0,
            tokenizer: std::sync::Arc::new(crate::text::TextTokenizer::from_dir(&dir, &[]).unwrap()),
            vocab: 384,
            dims: 64,
            max_tokens,
            matryoshka,
            normalize: true,
            created: 0,
        }
    }

    fn param_of(r: Result<impl std::fmt::Debug, ApiError>) -> Option<String> {
        match r {
            Err(ApiError::InvalidRequest { param, .. }) => param,
            other => panic!("not a 400: {other:?}"),
        }
    }

    #[test]
    fn dimensions_within_the_width_and_the_listed_widths() {
        let any = entry(8, Some(vec![]));
        assert_eq!(check_dimensions(&any, None).unwrap(), None);
        assert_eq!(check_dimensions(&any, Some(1)).unwrap(), Some(1));
        assert_eq!(check_dimensions(&any, Some(64)).unwrap(), Some(64));
        for bad in [0, -1, 65] {
            assert_eq!(param_of(check_dimensions(&any, Some(bad))).as_deref(), Some("dimensions"), "{bad}");
        }
        let listed = entry(8, Some(vec![16, 32]));
        assert_eq!(check_dimensions(&listed, Some(32)).unwrap(), Some(32));
        assert_eq!(param_of(check_dimensions(&listed, Some(31))).as_deref(), Some("dimensions"));
        let none = entry(8, None);
        assert_eq!(param_of(check_dimensions(&none, Some(8))).as_deref(), Some("dimensions"));
        assert_eq!(check_dimensions(&none, None).unwrap(), None);
    }

    #[test]
    fn inputs_tokenize_within_the_vocabulary_and_the_limit() {
        let e = entry(8, None);
        let ids = tokenize(&e, &EmbeddingInput::Text("a".into())).unwrap();
        assert_eq!(ids, vec![e.tokenizer.encode("a", true).unwrap()]);
        assert_eq!(*ids[0].last().unwrap(), 0, "special tokens added (<|endoftext|>)");
        let lists = EmbeddingInput::TokenLists(vec![vec![383, 0], vec![7; 8]]);
        assert_eq!(tokenize(&e, &lists).unwrap(), vec![vec![383, 0], vec![7; 8]], "the last id and the longest input");
        for bad in [
            EmbeddingInput::Text(String::new()),
            EmbeddingInput::Texts(vec![]),
            EmbeddingInput::Tokens(vec![]),
            EmbeddingInput::Tokens(vec![384]),
            EmbeddingInput::Tokens(vec![-1]),
            EmbeddingInput::Tokens(vec![7; 9]),
            EmbeddingInput::TokenLists(vec![vec![1], vec![]]),
            EmbeddingInput::Texts(vec!["a".into(); MAX_INPUTS + 1]),
        ] {
            assert_eq!(param_of(tokenize(&e, &bad)).as_deref(), Some("input"), "{bad:?}");
        }
        assert_eq!(tokenize(&e, &EmbeddingInput::Texts(vec!["a".into(); MAX_INPUTS])).unwrap().len(), MAX_INPUTS);
    }

    #[test]
    fn truncation_renormalises_only_where_the_model_normalises() {
        assert_eq!(truncate(vec![0.6, 0.8, 0.0], None, true), vec![0.6, 0.8, 0.0]);
        assert_eq!(truncate(vec![3.0, 4.0, 12.0], Some(2), true), vec![0.6, 0.8]);
        assert_eq!(truncate(vec![3.0, 4.0, 12.0], Some(2), false), vec![3.0, 4.0]);
    }

    #[test]
    fn base64_is_the_little_endian_f32_bytes() {
        let EmbeddingVector::Base64(s) = encode(vec![1.0, -2.5], EncodingFormat::Base64) else { panic!("base64") };
        let bytes = base64::engine::general_purpose::STANDARD.decode(s).unwrap();
        assert_eq!(bytes, [1f32.to_le_bytes(), (-2.5f32).to_le_bytes()].concat());
    }
}
