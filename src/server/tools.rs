//! Tool calling as chat requests ask for it: `tools`, `tool_choice`, `parallel_tool_calls`,
//! checked into what the chat route needs (the tools, whether calls are forced), and the calls
//! found in an output turned into the response's `tool_calls`. The format itself (prompt, grammar,
//! parsing) is in `crate::text::tools`.

use serde_json::Value;

use super::api::chat::{FunctionCallOut, ToolCallOut};
use super::api::common::new_id;
use super::error::ApiError;
use crate::text::tools::{call_grammar, parse_calls, CallSplitter, Tool, ToolCall};

/// Most calls a forced turn may hold when parallel calls are allowed.
const MAX_FORCED_CALLS: usize = 8;

#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// The model decides; calls are parsed from what it writes.
    Auto,
    /// At least one call, to any tool (held to the calls' grammar).
    Required,
    /// Exactly one call, to this tool.
    Named(String),
}

/// The tools of a request that may call them.
#[derive(Debug, Clone)]
pub struct ToolRequest {
    pub tools: Vec<Tool>,
    pub choice: Choice,
    pub parallel: bool,
}

/// Finds the calls in an output, as the request allows them (one, without parallel calls).
#[derive(Debug, Clone)]
pub struct CallParser {
    pub tools: Vec<Tool>,
    pub parallel: bool,
}

impl CallParser {
    pub fn split(&self, text: &str) -> (String, Vec<ToolCall>) {
        self.limit(parse_calls(text, &self.tools))
    }

    pub fn finish(&self, splitter: CallSplitter) -> (String, Vec<ToolCall>) {
        self.limit(splitter.finish(&self.tools))
    }

    fn limit(&self, (content, mut calls): (String, Vec<ToolCall>)) -> (String, Vec<ToolCall>) {
        if !self.parallel {
            calls.truncate(1);
        }
        (content, calls)
    }
}

impl ToolRequest {
    pub fn parser(&self) -> CallParser {
        CallParser { tools: self.tools.clone(), parallel: self.parallel }
    }

    /// The tools as the template (or the fallback prompt) lists them.
    pub fn tools_json(&self) -> Vec<Value> {
        self.tools.iter().map(Tool::to_json).collect()
    }

    /// The Lark grammar the output is held to, when calls are forced.
    pub fn grammar(&self) -> Option<String> {
        match &self.choice {
            Choice::Auto => None,
            Choice::Required => Some(call_grammar(&self.tools, if self.parallel { MAX_FORCED_CALLS } else { 1 })),
            Choice::Named(name) => {
                let tool: Vec<Tool> = self.tools.iter().filter(|t| &t.name == name).cloned().collect();
                Some(call_grammar(&tool, 1))
            }
        }
    }
}

/// None when the request calls no tools (no tools, an empty list, or tool_choice "none").
pub fn check(
    tools: Option<&Value>,
    tool_choice: Option<&Value>,
    parallel: Option<bool>,
) -> Result<Option<ToolRequest>, ApiError> {
    let tools = match tools.filter(|v| !v.is_null()) {
        None => Vec::new(),
        Some(Value::Array(items)) => {
            items.iter().enumerate().map(|(i, t)| check_tool(t, i)).collect::<Result<_, _>>()?
        }
        Some(_) => {
            return Err(ApiError::invalid(
                "tools",
                "tools must be a list of {\"type\": \"function\", \"function\": {...}}",
            ))
        }
    };
    let choice = match tool_choice.filter(|v| !v.is_null()) {
        None => None,
        Some(Value::String(s)) if s == "none" => return Ok(None),
        Some(Value::String(s)) if s == "auto" => Some(Choice::Auto),
        Some(Value::String(s)) if s == "required" => Some(Choice::Required),
        Some(v @ Value::Object(_)) => {
            let name = v.get("function").and_then(|f| f.get("name")).and_then(Value::as_str).ok_or_else(|| {
                ApiError::invalid(
                    "tool_choice",
                    "tool_choice must name a function: {\"type\": \"function\", \"function\": {\"name\": ...}}",
                )
            })?;
            if !tools.iter().any(|t| t.name == name) {
                return Err(ApiError::invalid(
                    "tool_choice",
                    format!("tool_choice names '{name}', which is not in tools"),
                ));
            }
            Some(Choice::Named(name.to_string()))
        }
        Some(_) => {
            return Err(ApiError::invalid(
                "tool_choice",
                "tool_choice must be none, auto, required or a named function",
            ))
        }
    };
    if tools.is_empty() {
        return match choice {
            None | Some(Choice::Auto) => Ok(None),
            Some(_) => Err(ApiError::invalid("tool_choice", "tool_choice needs tools to choose from")),
        };
    }
    Ok(Some(ToolRequest { tools, choice: choice.unwrap_or(Choice::Auto), parallel: parallel.unwrap_or(true) }))
}

fn check_tool(t: &Value, i: usize) -> Result<Tool, ApiError> {
    let param = format!("tools[{i}]");
    if t.get("type").and_then(Value::as_str) != Some("function") {
        return Err(ApiError::invalid(&param, "only tools of type \"function\" are supported"));
    }
    let f = t.get("function").filter(|f| f.is_object()).ok_or_else(|| {
        ApiError::invalid(
            &format!("{param}.function"),
            "a tool needs a function: {\"name\", \"description\", \"parameters\"}",
        )
    })?;
    let name = f.get("name").and_then(Value::as_str).unwrap_or_default();
    let valid =
        (1..=64).contains(&name.len()) && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !valid {
        return Err(ApiError::invalid(
            &format!("{param}.function.name"),
            "a function name is 1-64 letters, digits, underscores or dashes",
        ));
    }
    let parameters = match f.get("parameters") {
        None | Some(Value::Null) => serde_json::json!({ "type": "object", "properties": {} }),
        Some(p @ Value::Object(_)) => p.clone(),
        Some(_) => {
            return Err(ApiError::invalid(
                &format!("{param}.function.parameters"),
                "parameters must be a JSON schema object",
            ))
        }
    };
    let description = match f.get("description") {
        None | Some(Value::Null) => None,
        Some(Value::String(d)) => Some(d.clone()),
        Some(_) => return Err(ApiError::invalid(&format!("{param}.function.description"), "description must be text")),
    };
    // Accepted (every call is held to its parameters' schema when a grammar applies), but typed.
    if !matches!(f.get("strict"), None | Some(Value::Null | Value::Bool(_))) {
        return Err(ApiError::invalid(&format!("{param}.function.strict"), "strict must be true or false"));
    }
    Ok(Tool { name: name.to_string(), description, parameters })
}

/// An assistant turn's `tool_calls` as the template gets them: each call's `arguments` JSON text
/// read into an object (templates write it with `tojson`).
pub fn message_calls(calls: &Value, i: usize) -> Result<Vec<Value>, ApiError> {
    let param = format!("messages[{i}].tool_calls");
    let bad = || {
        ApiError::invalid(&param, "tool_calls must be a list of {id, type: \"function\", function: {name, arguments}}")
    };
    let list = calls.as_array().ok_or_else(bad)?;
    list.iter()
        .map(|c| {
            let f = c.get("function").filter(|f| f.is_object()).ok_or_else(bad)?;
            let name = f.get("name").and_then(Value::as_str).ok_or_else(bad)?;
            let arguments = match f.get("arguments") {
                Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
                Some(v) => v.clone(),
                None => serde_json::json!({}),
            };
            Ok(serde_json::json!({
                "id": c.get("id").cloned().unwrap_or(Value::Null),
                "type": "function",
                "function": { "name": name, "arguments": arguments }
            }))
        })
        .collect()
}

/// The response's tool calls, with fresh ids; `streamed` numbers them as stream deltas do.
pub fn calls_out(calls: Vec<ToolCall>, streamed: bool) -> Vec<ToolCallOut> {
    calls
        .into_iter()
        .enumerate()
        .map(|(i, c)| ToolCallOut {
            index: streamed.then_some(i),
            id: new_id("call_"),
            kind: "function",
            function: FunctionCallOut { name: c.name, arguments: c.arguments },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn param_of(tools: Value, choice: Value) -> String {
        match check(Some(&tools), Some(&choice), None) {
            Err(ApiError::InvalidRequest { param, .. }) => param.unwrap_or_default(),
            other => panic!("expected a 400, got {other:?}"),
        }
    }

    #[test]
    fn tool_requests_are_checked() {
        let f = json!([{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]);
        let r = check(Some(&f), None, None).unwrap().unwrap();
        assert_eq!((r.choice, r.parallel, r.tools[0].name.as_str()), (Choice::Auto, true, "get_weather"));
        let named = json!({"type": "function", "function": {"name": "get_weather"}});
        assert_eq!(
            check(Some(&f), Some(&named), Some(false)).unwrap().unwrap().choice,
            Choice::Named("get_weather".into())
        );
        assert!(check(Some(&f), Some(&json!("none")), None).unwrap().is_none());
        assert!(check(Some(&json!([])), Some(&json!("auto")), None).unwrap().is_none());
        assert_eq!(param_of(json!([]), json!("required")), "tool_choice");
        assert_eq!(param_of(f.clone(), json!({"type": "function", "function": {"name": "other"}})), "tool_choice");
        assert_eq!(param_of(f.clone(), json!("sometimes")), "tool_choice");
        assert_eq!(param_of(json!([{"type": "retrieval"}]), json!("auto")), "tools[0]");
        assert_eq!(
            param_of(json!([{"type": "function", "function": {"name": "a b"}}]), json!("auto")),
            "tools[0].function.name"
        );
        let bad_params = json!([{"type": "function", "function": {"name": "f", "parameters": [1]}}]);
        assert_eq!(param_of(bad_params, json!("auto")), "tools[0].function.parameters");
        let bad_description = json!([{"type": "function", "function": {"name": "f", "description": 1}}]);
        assert_eq!(param_of(bad_description, json!("auto")), "tools[0].function.description");
        let bad_strict = json!([{"type": "function", "function": {"name": "f", "strict": {}}}]);
        assert_eq!(param_of(bad_strict, json!("auto")), "tools[0].function.strict");
        let typed = json!([{"type": "function", "function": {"name": "f", "description": "d", "strict": true}}]);
        assert_eq!(check(Some(&typed), None, None).unwrap().unwrap().tools[0].description.as_deref(), Some("d"));
        assert_eq!(param_of(json!({"a": 1}), json!("auto")), "tools");
    }

    #[test]
    fn without_parallel_calls_one_call_is_kept() {
        let f = json!([{"type": "function", "function": {"name": "f"}}]);
        let call = "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>";
        let text = format!("{call}\n{call}");
        for (parallel, want) in [(true, 2), (false, 1)] {
            let parser = check(Some(&f), None, Some(parallel)).unwrap().unwrap().parser();
            assert_eq!(parser.split(&text).1.len(), want);
            let mut s = CallSplitter::default();
            assert_eq!(s.push(&text), "");
            assert_eq!(parser.finish(s).1.len(), want);
        }
    }

    #[test]
    fn history_calls_get_object_arguments() {
        let calls = json!([{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"x\": 1}"}}]);
        let out = message_calls(&calls, 2).unwrap();
        assert_eq!(out[0]["function"]["arguments"], json!({"x": 1}));
        match message_calls(&json!("nope"), 2) {
            Err(ApiError::InvalidRequest { param, .. }) => assert_eq!(param.as_deref(), Some("messages[2].tool_calls")),
            other => panic!("{other:?}"),
        }
    }
}
