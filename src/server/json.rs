//! The JSON body extractor: like axum's `Json`, but a body that does not
//! deserialize answers 400 naming the offending field as `param` (via
//! serde_path_to_error), and an oversized body answers 413, both in OpenAI's
//! error shape. The content type is not enforced (clients vary).

use std::borrow::Cow;

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
            _ => match super::deadline::find(&e) {
                Some(late) => ApiError::BodyTimeout(late.to_string()),
                None => ApiError::InvalidRequest {
                    message: format!("cannot read the request body: {}", e.body_text()),
                    param: None,
                },
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
    let bytes = integral_numbers_as_integers(bytes);
    let mut de = serde_json::Deserializer::from_slice(&bytes);
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

/// JSON has one number type: `1.0` and `1e2` are the integers 1 and 100 (JSON Schema's `integer`
/// says so, and Python's json writes floats that way), but serde will not read them into an integer
/// field. Such numbers are rewritten as plain integers before parsing, outside strings only; a float
/// field reads an integer just the same. Numbers with a fraction, and integers past 20 digits, stay.
fn integral_numbers_as_integers(bytes: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let (mut i, mut copied, mut in_string) = (0, 0, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        if b != b'-' && !b.is_ascii_digit() {
            i += 1;
            continue;
        }
        let end = i + bytes[i..]
            .iter()
            .position(|c| !matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
            .unwrap_or(bytes.len() - i);
        if let Some(int) = as_integer(&bytes[i..end]) {
            let out = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
            out.extend_from_slice(&bytes[copied..i]);
            out.extend_from_slice(int.as_bytes());
            copied = end;
        }
        i = end;
    }
    match out {
        None => Cow::Borrowed(bytes),
        Some(mut out) => {
            out.extend_from_slice(&bytes[copied..]);
            Cow::Owned(out)
        }
    }
}

/// `token` as a plain integer, if it is a JSON number with a fraction or exponent whose value is a
/// whole number of at most 20 digits (`-2.50e1` -> `-25`); None for anything else.
fn as_integer(token: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(token).ok()?;
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], text[at + 1..].parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let plain = !mantissa.contains('.') && mantissa.len() == text.len();
    let well_formed = !whole.is_empty()
        && whole.bytes().all(|c| c.is_ascii_digit())
        && fraction.bytes().all(|c| c.is_ascii_digit())
        && !(mantissa.contains('.') && fraction.is_empty())
        && (whole == "0" || !whole.starts_with('0'));
    if plain || !well_formed {
        return None;
    }
    // The digits, and how many of them stand after the decimal point once the exponent is applied.
    let digits = format!("{whole}{fraction}");
    let after_point = fraction.len() as i64 - exponent as i64;
    let int_digits = if after_point > 0 {
        let (int, rest) = digits.split_at(digits.len().checked_sub(after_point as usize)?);
        if !rest.bytes().all(|c| c == b'0') {
            return None;
        }
        int.to_string()
    } else {
        if -after_point > 20 {
            return None;
        }
        format!("{digits}{}", "0".repeat((-after_point) as usize))
    };
    let int_digits = int_digits.trim_start_matches('0');
    let int_digits = if int_digits.is_empty() { "0" } else { int_digits };
    if int_digits.len() > 20 {
        return None;
    }
    Some(if negative && int_digits != "0" { format!("-{int_digits}") } else { int_digits.to_string() })
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

    #[test]
    fn whole_numbers_written_as_floats_read_as_integers() {
        let n = |body: &str| parse::<Req>(body.as_bytes()).map(|r| r.n);
        assert_eq!(n(r#"{"model": "m", "n": 1.0}"#).unwrap(), Some(1));
        assert_eq!(n(r#"{"model": "m", "n": 2.50e1}"#).unwrap(), Some(25));
        assert_eq!(n(r#"{"model": "m", "n": 3E+0}"#).unwrap(), Some(3));
        assert_eq!(n(r#"{"model": "m", "n": 1200e-2}"#).unwrap(), Some(12));
        assert_eq!(n(r#"{"model": "m", "n": 0.000}"#).unwrap(), Some(0));
        assert_eq!(n(r#"{"model": "m", "n": 7}"#).unwrap(), Some(7));
        // A fraction stays a fraction, and is refused by an integer field with the field named.
        assert_eq!(param(r#"{"model": "m", "n": 1.5}"#).as_deref(), Some("n"));
        assert_eq!(param(r#"{"model": "m", "n": 15e-1}"#).as_deref(), Some("n"));
        assert_eq!(param(r#"{"model": "m", "n": -1.0}"#).as_deref(), Some("n"), "-1 is still negative");
        // Inside strings nothing changes, escaped quotes included.
        let model = |body: &str| parse::<Req>(body.as_bytes()).unwrap().model;
        assert_eq!(model(r#"{"model": "v1.0 \" 2.0e1", "n": 4.0}"#), "v1.0 \" 2.0e1");
        assert_eq!(as_integer(b"-2.50e1").as_deref(), Some("-25"));
        assert_eq!(as_integer(b"-0.0").as_deref(), Some("0"));
        assert_eq!(as_integer(b"1e19").as_deref(), Some("10000000000000000000"));
        assert_eq!(as_integer(b"1e20"), None, "past 20 digits (u64's) stays a float");
        assert_eq!(as_integer(b"12"), None, "already an integer");
        assert_eq!(as_integer(b"01.0"), None, "not JSON");
        assert_eq!(as_integer(b"1."), None, "not JSON");
        assert_eq!(as_integer(b"1.0.0"), None);
        assert_eq!(as_integer(b"1e"), None);
        assert!(parse::<Req>(br#"{"model": "m", "n": 1.0.0}"#).is_err(), "broken JSON stays broken");
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
