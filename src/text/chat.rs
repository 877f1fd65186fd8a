//! Chat templates: the Jinja template a model ships (tokenizer_config.json's
//! `chat_template`, or GGUF's `tokenizer.chat_template`) rendered with
//! minijinja, configured the way transformers' `apply_chat_template` runs it.

use minijinja::{Environment, ErrorKind, Value};
use serde::Serialize;

#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    #[error("the model's chat template does not compile: {0}")]
    Template(String),
    #[error("the chat template failed on these messages: {0}")]
    Render(String),
}

/// One message as the template sees it: text, plus an assistant turn's tool calls
/// (`[{id, type, function: {name, arguments: object}}]`) or a tool result's call id.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ChatMessage {
    pub role: String,
    pub content: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<serde_json::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    pub fn text(role: &str, content: &str) -> Self {
        ChatMessage { role: role.to_string(), content: content.to_string(), tool_calls: None, tool_call_id: None }
    }
}

/// A compiled chat template plus the special-token strings it may refer to.
pub struct ChatTemplate {
    env: Environment<'static>,
    bos_token: String,
    eos_token: String,
    /// Whether the template renders a `tools` list itself in the Hermes format the calls are parsed
    /// in (Qwen2.5, Qwen3). Templates with their own format (Llama 3.1's JSON, Mistral's
    /// `[TOOL_CALLS]`) get the Hermes system prompt instead, so prompt and parser agree.
    handles_tools: bool,
    /// Whether the model thinks in `<think>...</think>` before answering (the template mentions the
    /// tag: Qwen3, QwQ, DeepSeek-R1 distills): its reasoning is then told apart from the answer.
    thinks: bool,
}

/// Variables a request may not set through `chat_template_kwargs`: the ones the server renders with.
pub const RESERVED_KWARGS: &[&str] = &["messages", "tools", "add_generation_prompt", "bos_token", "eos_token"];

const NAME: &str = "chat_template";

impl ChatTemplate {
    pub fn new(source: &str, bos_token: Option<String>, eos_token: Option<String>) -> Result<Self, ChatError> {
        let mut env = Environment::new();
        // transformers renders with trim_blocks and lstrip_blocks; templates are written for that.
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        // Python string methods (.strip(), .startswith(), ...) that templates call.
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_function("raise_exception", raise_exception);
        env.add_function("strftime_now", strftime_now);
        env.add_template_owned(NAME, source.to_string()).map_err(|e| ChatError::Template(describe(&e)))?;
        Ok(ChatTemplate {
            env,
            bos_token: bos_token.unwrap_or_default(),
            eos_token: eos_token.unwrap_or_default(),
            handles_tools: source.contains("tools") && source.contains("<tool_call>"),
            thinks: source.contains("<think>"),
        })
    }

    pub fn handles_tools(&self) -> bool {
        self.handles_tools
    }

    pub fn thinks(&self) -> bool {
        self.thinks
    }

    /// The prompt text for `messages`, ending with the assistant's turn header
    /// when `add_generation_prompt` is set.
    pub fn render(&self, messages: &[ChatMessage], add_generation_prompt: bool) -> Result<String, ChatError> {
        self.render_with_tools(messages, None, add_generation_prompt)
    }

    /// `render` with a `tools` list (OpenAI's request shape) for templates that handle it.
    pub fn render_with_tools(
        &self,
        messages: &[ChatMessage],
        tools: Option<&[serde_json::Value]>,
        add_generation_prompt: bool,
    ) -> Result<String, ChatError> {
        self.render_with(messages, tools, add_generation_prompt, &serde_json::Map::new())
    }

    /// `render_with_tools` with further template variables (a request's `chat_template_kwargs`, such
    /// as Qwen3's `enable_thinking`); none of `RESERVED_KWARGS`.
    pub fn render_with(
        &self,
        messages: &[ChatMessage],
        tools: Option<&[serde_json::Value]>,
        add_generation_prompt: bool,
        kwargs: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<String, ChatError> {
        let tmpl = self.env.get_template(NAME).map_err(|e| ChatError::Template(describe(&e)))?;
        let ctx = minijinja::context! {
            messages => messages,
            tools => tools,
            add_generation_prompt => add_generation_prompt,
            bos_token => self.bos_token.as_str(),
            eos_token => self.eos_token.as_str(),
            ..Value::from_serialize(kwargs)
        };
        tmpl.render(ctx).map_err(|e| ChatError::Render(describe(&e)))
    }
}

fn describe(e: &minijinja::Error) -> String {
    match e.detail() {
        Some(detail) => format!("{} ({detail})", e.kind()),
        None => e.to_string(),
    }
}

fn raise_exception(message: String) -> Result<Value, minijinja::Error> {
    Err(minijinja::Error::new(ErrorKind::InvalidOperation, message))
}

/// `strftime_now(fmt)` as transformers provides it (Llama 3 templates put the
/// date in the system prompt). Supports the common %d %m %Y %y %b %B %H %M %S.
fn strftime_now(format: String) -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    format_utc(secs, &format)
}

fn format_utc(secs: u64, format: &str) -> String {
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let days = (secs / 86_400) as i64;
    let tod = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let name = MONTHS[(month - 1) as usize];
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('d') => out.push_str(&format!("{day:02}")),
            Some('m') => out.push_str(&format!("{month:02}")),
            Some('Y') => out.push_str(&year.to_string()),
            Some('y') => out.push_str(&format!("{:02}", year % 100)),
            Some('b') => out.push_str(&name[..3]),
            Some('B') => out.push_str(name),
            Some('H') => out.push_str(&format!("{:02}", tod / 3600)),
            Some('M') => out.push_str(&format!("{:02}", tod / 60 % 60)),
            Some('S') => out.push_str(&format!("{:02}", tod % 60)),
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHATML: &str = "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

    fn msg(role: &str, content: &str) -> ChatMessage {
        ChatMessage::text(role, content)
    }

    #[test]
    fn chatml_renders_like_transformers() {
        let t = ChatTemplate::new(CHATML, None, None).unwrap();
        let out = t.render(&[msg("system", "Be brief."), msg("user", "Hi")], true).unwrap();
        assert_eq!(
            out,
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
        );
    }

    #[test]
    fn python_methods_bos_and_raise_exception() {
        let src = "{{ bos_token }}{% for m in messages %}{% if m.role == 'tool' %}{{ raise_exception('no tools') }}{% endif %}{{ m.content.strip() }}{% endfor %}";
        let t = ChatTemplate::new(src, Some("<s>".into()), None).unwrap();
        assert_eq!(t.render(&[msg("user", "  x  ")], false).unwrap(), "<s>x");
        let err = t.render(&[msg("tool", "x")], false).unwrap_err();
        assert!(err.to_string().contains("no tools"), "{err}");
    }

    #[test]
    fn only_hermes_templates_render_tools_themselves() {
        let hermes = "{% if tools %}{% for t in tools %}{{ t | tojson }}{% endfor %}<tool_call>{% endif %}";
        let llama = "{% if tools %}{% for t in tools %}{{ t | tojson }}{% endfor %}{% endif %}";
        assert!(ChatTemplate::new(hermes, None, None).unwrap().handles_tools());
        assert!(!ChatTemplate::new(llama, None, None).unwrap().handles_tools());
        assert!(!ChatTemplate::new(CHATML, None, None).unwrap().handles_tools());
        let t = ChatTemplate::new(hermes, None, None).unwrap();
        let tools = [serde_json::json!({"type": "function"})];
        assert_eq!(t.render_with_tools(&[], Some(&tools), false).unwrap(), "{\"type\":\"function\"}<tool_call>");
    }

    #[test]
    fn bad_template_is_an_error() {
        assert!(matches!(ChatTemplate::new("{% for %}", None, None), Err(ChatError::Template(_))));
    }

    #[test]
    fn dates() {
        // 2024-07-26 13:25:09 UTC
        assert_eq!(format_utc(1_722_000_309, "%d %b %Y %H:%M:%S %B %%"), "26 Jul 2024 13:25:09 July %");
    }
}
