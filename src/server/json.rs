//! The JSON body extractor: like axum's `Json`, but a body that does not
//! deserialize answers 400 naming the offending field as `param` (via
//! serde_path_to_error), and an oversized body answers 413, both in OpenAI's
//! error shape. The content type is not enforced (clients vary).

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use super::error::ApiError;

pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| match e.status() {
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge,
            _ => ApiError::InvalidRequest {
                message: format!("cannot read the request body: {}", e.body_text()),
                param: None,
            },
        })?;
        parse(&bytes).map(ApiJson)
    }
}

pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // Checked first: serde would also take a list as a struct's fields in order.
    if !bytes.trim_ascii_start().starts_with(b"{") {
        return Err(ApiError::InvalidRequest { message: "the request body must be a JSON object".into(), param: None });
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let inner = e.inner().to_string();
        // Broken JSON is the body's fault, not a field's (serde reports it at the path it
        // reached); a number out of range is classed as syntax too, but it is the field's.
        let out_of_range = inner.starts_with("number out of range");
        if (e.inner().is_syntax() && !out_of_range) || e.inner().is_eof() {
            return ApiError::InvalidRequest {
                message: format!("the request body is not valid JSON: {inner}"),
                param: None,
            };
        }
        let param = match (known_path(&e.path().to_string()), missing_field(&inner)) {
            (Some(parent), Some(field)) => Some(format!("{parent}.{field}")),
            (parent, field) => field.or(parent),
        };
        if let Some(field) = unknown_field(&inner) {
            let message = format!("unrecognized request argument supplied: {field}");
            // serde_path_to_error's path already ends with the unknown field.
            let param = known_path(&e.path().to_string()).unwrap_or(field);
            return ApiError::InvalidRequest { message, param: Some(param) };
        }
        ApiError::InvalidRequest { message: format!("invalid request body: {inner}"), param }
    })?;
    de.end().map_err(|e| ApiError::InvalidRequest { message: format!("invalid request body: {e}"), param: None })?;
    Ok(value)
}

/// The path up to the first segment serde could not name ("?"), if any is left.
fn known_path(path: &str) -> Option<String> {
    let known = path.split('?').next().unwrap_or_default().trim_end_matches('.');
    (!known.is_empty() && known != ".").then(|| known.to_string())
}

/// serde reports a missing (or repeated) field at the parent's path; the field is the param.
fn missing_field(msg: &str) -> Option<String> {
    let rest = msg.strip_prefix("missing field `").or_else(|| msg.strip_prefix("duplicate field `"))?;
    Some(rest[..rest.find('`')?].to_string())
}

/// The field of serde's "unknown field `x`, expected one of ...".
fn unknown_field(msg: &str) -> Option<String> {
    let rest = msg.strip_prefix("unknown field `")?;
    Some(rest[..rest.find('`')?].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Req {
        model: String,
        n: Option<u32>,
        inner: Option<Inner>,
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Inner {
        include_usage: bool,
    }

    fn param(body: &str) -> Option<String> {
        match parse::<Req>(body.as_bytes()) {
            Err(ApiError::InvalidRequest { param, .. }) => param,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_name_the_field() {
        assert_eq!(param(r#"{"model": "m", "n": -1}"#).as_deref(), Some("n"));
        assert_eq!(param(r#"{"n": 1}"#).as_deref(), Some("model"));
        assert_eq!(param(r#"{"model": "m", "inner": {"include_usage": 3}}"#).as_deref(), Some("inner.include_usage"));
        assert_eq!(param(r#"{"model": "m"} x"#), None);
        assert_eq!(param(r#"{not json"#), None);
        assert_eq!(param(r#"{"model":"#), None, "a body cut short names no field");
        assert_eq!(param(r#"{"model": "m", "n": 1,}"#), None);
        assert_eq!(param(r#"{"model": "m", "n": 1e400}"#).as_deref(), Some("n"));
        assert!(parse::<Req>(br#"["m", 1, null]"#).is_err(), "a list is not taken as the fields in order");
        match parse::<Req>(b" [] ") {
            Err(ApiError::InvalidRequest { message, param: None }) => {
                assert_eq!(message, "the request body must be a JSON object")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(param(r#"{"model": "a", "model": "b"}"#).as_deref(), Some("model"));
        assert_eq!(
            param(r#"{"model": "m", "inner": {"include_usage": true, "include_usage": false}}"#).as_deref(),
            Some("inner.include_usage")
        );
        assert!(parse::<Req>(br#"{"model": "m", "extra": 1}"#).is_ok());
    }

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        model: String,
    }

    #[test]
    fn an_unknown_field_is_named() {
        match parse::<Strict>(br#"{"model": "m", "guided_json": {}}"#) {
            Err(ApiError::InvalidRequest { message, param }) => {
                assert_eq!(param.as_deref(), Some("guided_json"));
                assert_eq!(message, "unrecognized request argument supplied: guided_json");
            }
            other => panic!("{other:?}"),
        }
    }
}
