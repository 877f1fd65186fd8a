//! Tool calling in the Hermes format that Qwen2.5/Qwen3 templates use and most open chat models
//! know: the tools are listed in the system prompt as JSON inside `<tools></tools>`, and the model
//! answers a call as `<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>`.
//! - Templates that render `tools` themselves get them; for the others (SmolLM2, plain ChatML)
//!   `fallback_messages` writes the same system prompt and turns earlier calls and results into text.
//! - `call_grammar` is the Lark grammar that forces calls (tool_choice "required" or a named tool).
//! - `parse_calls` and `CallSplitter` find the calls in the output, whole or as it streams.

use serde_json::{json, Value};

use super::chat::ChatMessage;

pub const CALL_OPEN: &str = "<tool_call>";
pub const CALL_CLOSE: &str = "</tool_call>";

/// One function the model may call.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: Option<String>,
    /// JSON schema of the arguments (an object schema).
    pub parameters: Value,
}

impl Tool {
    /// As OpenAI's request lists it (and as templates expect it).
    pub fn to_json(&self) -> Value {
        let mut function = json!({ "name": self.name, "parameters": self.parameters });
        if let Some(d) = &self.description {
            function["description"] = json!(d);
        }
        json!({ "type": "function", "function": function })
    }
}

/// A call the model made: the function's name and its arguments as JSON text.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub name: String,
    pub arguments: String,
}

/// The system prompt that lists the tools (Qwen2.5's wording).
pub fn system_prompt(tools: &[Tool]) -> String {
    let listed: Vec<String> = tools.iter().map(|t| t.to_json().to_string()).collect();
    format!(
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
         You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{}\n</tools>\n\n\
         For each function call, return a json object with function name and arguments within \
         <tool_call></tool_call> XML tags:\n<tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n</tool_call>",
        listed.join("\n")
    )
}

/// A call as the model writes it.
pub fn call_text(name: &str, arguments: &Value) -> String {
    format!("{CALL_OPEN}\n{}\n{CALL_CLOSE}", json!({ "name": name, "arguments": arguments }))
}

/// For a template that knows nothing of tools: the tools go into the system prompt (after the
/// system message's own text, or as a new first message), an assistant turn's calls become its
/// text, and a tool result becomes a user turn in `<tool_response>` tags.
pub fn fallback_messages(messages: &[ChatMessage], tools: &[Tool]) -> Vec<ChatMessage> {
    let mut out: Vec<ChatMessage> = Vec::with_capacity(messages.len() + 1);
    if !tools.is_empty() {
        let prompt = system_prompt(tools);
        match messages.first() {
            Some(m) if m.role == "system" => {
                out.push(ChatMessage::text("system", &format!("{}\n\n{prompt}", m.content)));
            }
            _ => out.push(ChatMessage::text("system", &prompt)),
        }
    }
    let skip = usize::from(!tools.is_empty() && messages.first().is_some_and(|m| m.role == "system"));
    for m in &messages[skip..] {
        let msg = match (m.role.as_str(), &m.tool_calls) {
            ("assistant", Some(calls)) => {
                let mut parts: Vec<String> = Vec::new();
                if !m.content.is_empty() {
                    parts.push(m.content.clone());
                }
                for c in calls {
                    parts.push(call_text(
                        c["function"]["name"].as_str().unwrap_or_default(),
                        &c["function"]["arguments"],
                    ));
                }
                ChatMessage::text("assistant", &parts.join("\n"))
            }
            ("tool", _) => ChatMessage::text("user", &format!("<tool_response>\n{}\n</tool_response>", m.content)),
            _ => ChatMessage { tool_calls: None, tool_call_id: None, ..m.clone() },
        };
        out.push(msg);
    }
    out
}

/// JSON written on one line with a space after separators (as `response_format` writes it).
fn with_layout(mut schema: Value) -> Value {
    if let Some(obj) = schema.as_object_mut() {
        obj.entry("x-guidance")
            .or_insert_with(|| json!({ "whitespace_flexible": false, "item_separator": ", ", "key_separator": ": " }));
    }
    schema
}

/// The Lark grammar of the calls: one call, or one to `max` calls one per line, each to one of
/// `tools` with arguments valid against its schema.
pub fn call_grammar(tools: &[Tool], max: usize) -> String {
    let mut defs = serde_json::Map::new();
    let one_of: Vec<Value> = tools
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let arguments = rehome_refs(&t.parameters, i, &mut defs);
            json!({
                "type": "object",
                "properties": { "name": { "const": t.name }, "arguments": arguments },
                "required": ["name", "arguments"],
                "additionalProperties": false
            })
        })
        .collect();
    let mut schema = json!({ "anyOf": one_of });
    if !defs.is_empty() {
        schema["$defs"] = Value::Object(defs);
    }
    let schema = with_layout(schema);
    let calls = if max <= 1 { "call".to_string() } else { format!("call (\"\\n\" call){{0,{}}}", max - 1) };
    format!("start: {calls}\ncall: \"{CALL_OPEN}\\n\" body \"\\n{CALL_CLOSE}\"\nbody: %json {schema}\n")
}

/// Tool `i`'s parameter schema, moved under `anyOf[i].properties.arguments` of the calls' schema:
/// its local `$ref`s are resolved from the new root, so its `$defs` / `definitions` move to the
/// root's `$defs` (prefixed `t{i}d_` / `t{i}D_`) and every other `#...` pointer gets the new path
/// in front.
fn rehome_refs(schema: &Value, i: usize, defs: &mut serde_json::Map<String, Value>) -> Value {
    // A schema's keywords: `$ref` is rewritten; instance data (const, enum, default, examples) is
    // kept as written even where it looks like a reference; maps of names to schemas (properties,
    // $defs, ...) are walked by entry, so a property named like a keyword stays a schema.
    fn rewrite(v: &Value, i: usize) -> Value {
        match v {
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let value = match (k.as_str(), v) {
                            ("$ref", Value::String(r)) => Value::String(rehomed(r, i)),
                            ("const" | "enum" | "default" | "examples", data) => data.clone(),
                            (
                                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas",
                                Value::Object(named),
                            ) => Value::Object(named.iter().map(|(n, s)| (n.clone(), rewrite(s, i))).collect()),
                            _ => rewrite(v, i),
                        };
                        (k.clone(), value)
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(|x| rewrite(x, i)).collect()),
            other => other.clone(),
        }
    }
    fn rehomed(r: &str, i: usize) -> String {
        for (prefix, tag) in [("#/$defs/", "d"), ("#/definitions/", "D")] {
            if let Some(rest) = r.strip_prefix(prefix) {
                return format!("#/$defs/t{i}{tag}_{rest}");
            }
        }
        match r.strip_prefix('#') {
            Some(pointer) => format!("#/anyOf/{i}/properties/arguments{}", pointer.trim_end_matches('/')),
            None => r.to_string(),
        }
    }
    let mut moved = rewrite(schema, i);
    if let Some(obj) = moved.as_object_mut() {
        for (key, tag) in [("$defs", "d"), ("definitions", "D")] {
            if let Some(Value::Object(local)) = obj.remove(key) {
                for (name, def) in local {
                    defs.insert(format!("t{i}{tag}_{name}"), def);
                }
            }
        }
    }
    moved
}

/// Splits an output into its text and the calls to known tools. A call block that does not hold
/// `{"name": <a tool>, "arguments": {...}}` stays in the text; so does an unclosed block that does
/// not parse (a closing tag is optional where the model stopped right after the JSON).
pub fn parse_calls(text: &str, tools: &[Tool]) -> (String, Vec<ToolCall>) {
    let mut content = String::new();
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(CALL_OPEN) {
        let body_start = start + CALL_OPEN.len();
        let (body, consumed) = match rest[body_start..].find(CALL_CLOSE) {
            Some(end) => (&rest[body_start..body_start + end], body_start + end + CALL_CLOSE.len()),
            None => (&rest[body_start..], rest.len()),
        };
        match read_call(body, tools) {
            Some(call) => {
                content.push_str(&rest[..start]);
                calls.push(call);
            }
            None => content.push_str(&rest[..consumed]),
        }
        rest = &rest[consumed..];
    }
    content.push_str(rest);
    let content = if calls.is_empty() { content } else { content.trim().to_string() };
    (content, calls)
}

fn read_call(body: &str, tools: &[Tool]) -> Option<ToolCall> {
    let v: Value = serde_json::from_str(body.trim()).ok()?;
    let name = v.get("name")?.as_str()?;
    if !tools.iter().any(|t| t.name == name) {
        return None;
    }
    let arguments = match v.get("arguments").or_else(|| v.get("parameters")) {
        Some(Value::String(s)) => s.clone(),
        Some(a @ Value::Object(_)) => a.to_string(),
        None | Some(Value::Null) => "{}".to_string(),
        Some(_) => return None,
    };
    Some(ToolCall { name: name.to_string(), arguments })
}

/// Streaming: passes text through until a call may be starting, then holds the rest back for
/// `finish` (a call is only known once it is whole).
#[derive(Debug, Default)]
pub struct CallSplitter {
    /// Text not yet released: a possible start of `<tool_call>`, or everything from a call on.
    held: String,
    in_calls: bool,
}

impl CallSplitter {
    /// The part of `text` (after what was held) that is plain content for sure.
    pub fn push(&mut self, text: &str) -> String {
        self.held.push_str(text);
        if self.in_calls {
            return String::new();
        }
        if let Some(at) = self.held.find(CALL_OPEN) {
            self.in_calls = true;
            let out = self.held[..at].to_string();
            self.held.drain(..at);
            return out;
        }
        // Keep a tail that could grow into `<tool_call>`.
        let keep = (1..CALL_OPEN.len())
            .rev()
            .find(|&n| {
                self.held.len() >= n
                    && self.held.is_char_boundary(self.held.len() - n)
                    && CALL_OPEN.starts_with(&self.held[self.held.len() - n..])
            })
            .unwrap_or(0);
        let out = self.held[..self.held.len() - keep].to_string();
        self.held.drain(..self.held.len() - keep);
        out
    }

    /// The rest: content not yet released and the calls.
    pub fn finish(self, tools: &[Tool]) -> (String, Vec<ToolCall>) {
        parse_calls(&self.held, tools)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weather() -> Vec<Tool> {
        vec![Tool {
            name: "get_weather".into(),
            description: Some("The weather in a city".into()),
            parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        }]
    }

    #[test]
    fn calls_are_parsed_and_the_rest_is_content() {
        let tools = weather();
        let text = "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n\
                    <tool_call>\n{\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\": \\\"Rome\\\"}\"}\n</tool_call>";
        let (content, calls) = parse_calls(text, &tools);
        assert_eq!(content, "Let me check.");
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0], ToolCall { name: "get_weather".into(), arguments: "{\"city\":\"Paris\"}".into() });
        assert_eq!(calls[1].arguments, "{\"city\": \"Rome\"}");
        // Unknown tools, broken JSON: text. An unclosed block that parses: a call.
        for bad in
            ["<tool_call>{\"name\": \"launch\", \"arguments\": {}}</tool_call>", "<tool_call>{\"name\": </tool_call>"]
        {
            assert_eq!(parse_calls(bad, &tools), (bad.to_string(), vec![]));
        }
        let (content, calls) = parse_calls("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}", &tools);
        assert_eq!((content.as_str(), calls.len()), ("", 1));
        assert_eq!(parse_calls("no calls here", &tools), ("no calls here".to_string(), vec![]));
    }

    #[test]
    fn the_splitter_streams_content_and_holds_calls() {
        let tools = weather();
        let text = "Sure <tool_ca>! <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>";
        // Fed in every split of 3 bytes (a char boundary here: the text is ASCII).
        let mut s = CallSplitter::default();
        let mut streamed = String::new();
        for piece in text.as_bytes().chunks(3) {
            streamed.push_str(&s.push(std::str::from_utf8(piece).unwrap()));
        }
        assert_eq!(streamed, "Sure <tool_ca>! ");
        let (rest, calls) = s.finish(&tools);
        assert_eq!((rest.as_str(), calls.len()), ("", 1));
        assert_eq!(calls[0].arguments, "{\"city\":\"Oslo\"}");
        // Without a call, everything comes out, the held tail at the end.
        let mut s = CallSplitter::default();
        let mut out = s.push("a < b and <tool");
        assert_eq!(out, "a < b and ");
        out.push_str(&s.finish(&tools).0);
        assert_eq!(out, "a < b and <tool");
    }

    #[test]
    fn fallback_puts_tools_in_the_system_prompt_and_calls_in_text() {
        let tools = weather();
        let call = json!({"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}});
        let msgs = vec![
            ChatMessage::text("system", "Be brief."),
            ChatMessage::text("user", "Weather in Paris?"),
            ChatMessage { tool_calls: Some(vec![call]), ..ChatMessage::text("assistant", "") },
            ChatMessage { tool_call_id: Some("call_1".into()), ..ChatMessage::text("tool", "18 C") },
        ];
        let out = fallback_messages(&msgs, &tools);
        assert_eq!(out.len(), 4);
        assert!(out[0].content.starts_with("Be brief.\n\n# Tools") && out[0].content.contains("\"get_weather\""));
        assert_eq!(
            out[2].content,
            "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}\n</tool_call>"
        );
        assert_eq!(
            (out[3].role.as_str(), out[3].content.as_str()),
            ("user", "<tool_response>\n18 C\n</tool_response>")
        );
        assert!(out.iter().all(|m| m.tool_calls.is_none() && m.tool_call_id.is_none()));
    }
}
