//! Optional API key: `Authorization: Bearer <key>` on /v1/*, compared in
//! constant time so response timing does not reveal how much of a guess was
//! right. Failures answer 401 in OpenAI's error shape.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use super::error::ApiError;

pub struct ApiKey(Vec<u8>);

impl ApiKey {
    pub fn new(key: &str) -> Self {
        ApiKey(key.as_bytes().to_vec())
    }

    /// Length is not secret (it leaks through ct_eq's early length check);
    /// the bytes are.
    fn matches(&self, given: &[u8]) -> bool {
        self.0.ct_eq(given).into()
    }
}

pub async fn require_api_key(State(key): State<Arc<ApiKey>>, req: Request, next: Next) -> Response {
    let given = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(bearer);
    match given {
        None => ApiError::Unauthorized("missing API key: send it as `Authorization: Bearer <key>`").into_response(),
        Some(k) if key.matches(k.as_bytes()) => next.run(req).await,
        Some(_) => ApiError::Unauthorized("incorrect API key").into_response(),
    }
}

fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_parsing_and_comparison() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer  abc "), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        let k = ApiKey::new("secret");
        assert!(k.matches(b"secret"));
        assert!(!k.matches(b"secreT") && !k.matches(b"secret2") && !k.matches(b""));
    }
}
