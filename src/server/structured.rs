//! Structured output as requests ask for it: OpenAI's `response_format` (`json_object`,
//! `json_schema`) and vLLM's `structured_outputs` extension (`json`, `json_object`, `regex`,
//! `choice`, `grammar`), checked here and compiled into the grammar each sequence is held to.
//! A grammar that does not compile is a 400 naming the field, before anything is queued.

use serde_json::Value;

use super::error::ApiError;
use super::state::ModelRef;
use crate::text::grammar::{Constraint, OutputFormat};

/// The format asked for, if any (`{"type": "text"}` asks for none).
pub fn output_format(
    response_format: Option<&Value>,
    structured_outputs: Option<&Value>,
) -> Result<Option<OutputFormat>, ApiError> {
    let response_format = response_format.filter(|v| !v.is_null());
    let structured_outputs = structured_outputs.filter(|v| !v.is_null());
    match (response_format, structured_outputs) {
        (Some(_), Some(_)) => {
            Err(ApiError::invalid("structured_outputs", "give either response_format or structured_outputs, not both"))
        }
        (Some(rf), None) => from_response_format(rf),
        (None, Some(so)) => from_structured_outputs(so).map(Some),
        (None, None) => Ok(None),
    }
}

fn from_response_format(rf: &Value) -> Result<Option<OutputFormat>, ApiError> {
    const KINDS: &str = "one of text, json_object, json_schema";
    let kind = rf.get("type").and_then(Value::as_str);
    match kind {
        Some("text") => Ok(None),
        Some("json_object") => Ok(Some(OutputFormat::JsonObject)),
        Some("json_schema") => {
            let param = "response_format.json_schema";
            let spec = rf
                .get("json_schema")
                .filter(|v| v.is_object())
                .ok_or_else(|| ApiError::invalid(param, "json_schema must be an object holding the schema"))?;
            match spec.get("schema") {
                // OpenAI's schema is optional: without one, any JSON object.
                None | Some(Value::Null) => Ok(Some(OutputFormat::JsonObject)),
                Some(schema) => schema_format(schema, "response_format.json_schema.schema").map(Some),
            }
        }
        Some(other) => Err(ApiError::invalid("response_format", format!("type '{other}' is not {KINDS}"))),
        None => Err(ApiError::invalid("response_format", format!("response_format needs a type, {KINDS}"))),
    }
}

fn from_structured_outputs(so: &Value) -> Result<OutputFormat, ApiError> {
    const FIELDS: &str = "json, json_object, regex, choice or grammar";
    let param = "structured_outputs";
    let obj = so.as_object().ok_or_else(|| ApiError::invalid(param, "structured_outputs must be an object"))?;
    // A null field, or json_object: false, asks for nothing.
    let asks = |(k, v): &(&String, &Value)| !(v.is_null() || k.as_str() == "json_object" && **v == false);
    let mut asked = obj.iter().filter(asks);
    let (Some((key, v)), None) = (asked.next(), asked.next()) else {
        return Err(ApiError::invalid(param, format!("structured_outputs needs exactly one of {FIELDS}")));
    };
    let field = format!("{param}.{key}");
    let text = |what: &str| {
        v.as_str()
            .filter(|s| !s.is_empty())
            .map(String::from)
            .ok_or_else(|| ApiError::invalid(&field, format!("{key} must be a non-empty {what}")))
    };
    match key.as_str() {
        "json" => match v {
            // vLLM takes the schema as an object or as its JSON text.
            Value::String(s) => {
                let schema: Value = serde_json::from_str(s)
                    .map_err(|e| ApiError::invalid(&field, format!("json is not a JSON schema: {e}")))?;
                schema_format(&schema, &field)
            }
            schema => schema_format(schema, &field),
        },
        "json_object" if *v == true => Ok(OutputFormat::JsonObject),
        "regex" => Ok(OutputFormat::Regex(text("regular expression")?)),
        "grammar" => Ok(OutputFormat::Lark(text("Lark grammar")?)),
        "choice" => {
            let items: Option<Vec<String>> = v
                .as_array()
                .filter(|a| !a.is_empty())
                .and_then(|a| a.iter().map(|x| x.as_str().filter(|s| !s.is_empty()).map(String::from)).collect());
            items
                .map(OutputFormat::Choice)
                .ok_or_else(|| ApiError::invalid(&field, "choice must be a non-empty list of non-empty strings"))
        }
        _ => Err(ApiError::invalid(&field, format!("unknown field; structured_outputs takes one of {FIELDS}"))),
    }
}

fn schema_format(schema: &Value, param: &str) -> Result<OutputFormat, ApiError> {
    match schema {
        Value::Object(_) => Ok(OutputFormat::JsonSchema(schema.clone())),
        _ => Err(ApiError::invalid(param, "the schema must be a JSON object")),
    }
}

/// The constraint a request asks for through either field, compiled for this model; None when
/// it asks for plain text.
pub async fn constraint_for(
    model: &ModelRef,
    response_format: Option<&Value>,
    structured_outputs: Option<&Value>,
) -> Result<Option<Constraint>, ApiError> {
    let Some(format) = output_format(response_format, structured_outputs)? else { return Ok(None) };
    let param = grammar_param(response_format, &format);
    compile_for(model, format, param).await.map(Some)
}

/// The constraint for `format` on this model. Off the async threads: the model's vocabulary
/// index is built on its first structured request, and a large schema takes a while.
pub async fn compile_for(model: &ModelRef, format: OutputFormat, param: &'static str) -> Result<Constraint, ApiError> {
    let model = model.clone();
    let compiled = tokio::task::spawn_blocking(move || {
        let compiler = model.entry().grammar().map_err(|e| ApiError::Internal(format!("structured output: {e}")))?;
        compiler.compile(&format).map_err(|e| ApiError::invalid(param, format!("the grammar does not compile: {e}")))
    })
    .await;
    compiled.map_err(|e| ApiError::Internal(format!("structured output: {e}")))?
}

/// The field a compile error names: the one that carried the grammar.
fn grammar_param(response_format: Option<&Value>, format: &OutputFormat) -> &'static str {
    let from_response_format = response_format.is_some_and(|v| !v.is_null());
    match (from_response_format, format) {
        (true, _) => "response_format.json_schema.schema",
        (false, OutputFormat::JsonSchema(_)) => "structured_outputs.json",
        (false, OutputFormat::JsonObject) => "structured_outputs.json_object",
        (false, OutputFormat::Regex(_)) => "structured_outputs.regex",
        (false, OutputFormat::Choice(_)) => "structured_outputs.choice",
        (false, OutputFormat::Lark(_)) => "structured_outputs.grammar",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn param_of(rf: Option<Value>, so: Option<Value>) -> String {
        match output_format(rf.as_ref(), so.as_ref()) {
            Err(ApiError::InvalidRequest { param, .. }) => param.unwrap_or_default(),
            other => panic!("expected a 400, got {other:?}"),
        }
    }

    #[test]
    fn formats_are_read_from_either_field() {
        let f = |rf: Option<Value>, so: Option<Value>| output_format(rf.as_ref(), so.as_ref()).unwrap();
        assert_eq!(f(Some(json!({"type": "text"})), None), None);
        assert_eq!(f(None, None), None);
        assert_eq!(f(Some(json!({"type": "json_object"})), None), Some(OutputFormat::JsonObject));
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        let rf = json!({"type": "json_schema", "json_schema": {"name": "x", "schema": schema, "strict": true}});
        assert_eq!(f(Some(rf), None), Some(OutputFormat::JsonSchema(schema.clone())));
        assert_eq!(f(None, Some(json!({"json": schema.to_string()}))), Some(OutputFormat::JsonSchema(schema)));
        assert_eq!(f(None, Some(json!({"regex": "a+"}))), Some(OutputFormat::Regex("a+".into())));
        assert_eq!(
            f(None, Some(json!({"choice": ["x", "y"]}))),
            Some(OutputFormat::Choice(vec!["x".into(), "y".into()]))
        );
        assert_eq!(f(None, Some(json!({"grammar": "start: \"a\""}))), Some(OutputFormat::Lark("start: \"a\"".into())));
        assert_eq!(f(None, Some(json!({"json_object": true, "regex": null}))), Some(OutputFormat::JsonObject));
    }

    #[test]
    fn bad_formats_name_their_field() {
        assert_eq!(param_of(Some(json!({"type": "xml"})), None), "response_format");
        assert_eq!(param_of(Some(json!("json")), None), "response_format");
        assert_eq!(param_of(Some(json!({"type": "json_schema"})), None), "response_format.json_schema");
        let rf = json!({"type": "json_schema", "json_schema": {"name": "x", "schema": [1]}});
        assert_eq!(param_of(Some(rf), None), "response_format.json_schema.schema");
        assert_eq!(param_of(Some(json!({"type": "json_object"})), Some(json!({"regex": "a"}))), "structured_outputs");
        assert_eq!(param_of(None, Some(json!({"regex": "a", "choice": ["b"]}))), "structured_outputs");
        assert_eq!(param_of(None, Some(json!({}))), "structured_outputs");
        assert_eq!(param_of(None, Some(json!({"choice": []}))), "structured_outputs.choice");
        assert_eq!(param_of(None, Some(json!({"choice": ["a", 3]}))), "structured_outputs.choice");
        assert_eq!(param_of(None, Some(json!({"json": "{not json"}))), "structured_outputs.json");
        assert_eq!(param_of(None, Some(json!({"regex": ""}))), "structured_outputs.regex");
        assert_eq!(param_of(None, Some(json!({"xml": "a"}))), "structured_outputs.xml");
    }
}
