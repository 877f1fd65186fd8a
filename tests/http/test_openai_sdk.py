"""The server driven by the official OpenAI Python SDK: every parameter the
SDK sends must parse, responses must parse into the SDK's types, and errors
must surface as the SDK's exception classes with `param` set."""

import openai
import pytest

PROMPT = "The old fisherman walks down to the quiet river and"
MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello there"}]


def greedy(client, model, prompt=PROMPT, n_tokens=16, **kw):
    r = client.completions.create(model=model, prompt=prompt, max_tokens=n_tokens, temperature=0, **kw)
    return r


def test_models(client, model, embed_model):
    ids = [m.id for m in client.models.list()]
    assert ids == [model, embed_model]
    m = client.models.retrieve(model)
    assert m.id == model and m.object == "model"
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("no-such-model")


def test_completion_basics(client, model):
    r = greedy(client, model, n_tokens=12, extra_body={"ignore_eos": True})
    assert r.object == "text_completion" and r.id.startswith("cmpl-")
    assert len(r.choices) == 1
    c = r.choices[0]
    assert c.index == 0 and c.finish_reason == "length" and isinstance(c.text, str) and c.text
    assert r.usage.prompt_tokens == 14 and r.usage.completion_tokens == 12 and r.usage.total_tokens == 26


def test_prompt_shapes_agree(client, model):
    text = greedy(client, model, n_tokens=8).choices[0].text
    # Token-id prompt: the fixture's 14 prompt ids (tests/fixtures/qwen3/meta.json).
    ids = [348, 273, 281, 330, 287, 372, 343, 335, 298, 261, 342, 312, 302, 290]
    assert greedy(client, model, prompt=ids, n_tokens=8).choices[0].text == text
    r = greedy(client, model, prompt=[ids, ids], n_tokens=8)
    assert [c.text for c in sorted(r.choices, key=lambda c: c.index)] == [text, text]
    r = greedy(client, model, prompt=[PROMPT, PROMPT], n_tokens=8, n=2)
    assert sorted(c.index for c in r.choices) == [0, 1, 2, 3]
    assert {c.text for c in r.choices} == {text}


def test_streaming_completion_matches(client, model):
    full = greedy(client, model, n_tokens=16)
    pieces, usage, finish = [], None, None
    for chunk in client.completions.create(
        model=model, prompt=PROMPT, max_tokens=16, temperature=0, stream=True, stream_options={"include_usage": True}
    ):
        if chunk.usage is not None:
            usage = chunk.usage
            assert chunk.choices == []
            continue
        for c in chunk.choices:
            pieces.append(c.text)
            finish = c.finish_reason or finish
    assert "".join(pieces) == full.choices[0].text
    assert finish == full.choices[0].finish_reason
    assert usage == full.usage


def test_chat(client, model):
    r = client.chat.completions.create(model=model, messages=MESSAGES, max_tokens=10, temperature=0)
    assert r.object == "chat.completion" and r.id.startswith("chatcmpl-")
    msg = r.choices[0].message
    assert msg.role == "assistant" and isinstance(msg.content, str)
    stream = client.chat.completions.create(
        model=model, messages=MESSAGES, max_tokens=10, temperature=0, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == msg.content
    streamed = chunks[-1].usage
    assert (streamed.prompt_tokens, streamed.completion_tokens, streamed.total_tokens) == (
        r.usage.prompt_tokens, r.usage.completion_tokens, r.usage.total_tokens)
    # The same prompt again: all of it but its last token may come from the prefix cache.
    for u in (r.usage, streamed):
        assert 0 <= u.prompt_tokens_details.cached_tokens < u.prompt_tokens
    # max_completion_tokens is the newer name.
    r2 = client.chat.completions.create(model=model, messages=MESSAGES, max_completion_tokens=3, temperature=0)
    assert r2.usage.completion_tokens <= 3


def test_chat_n_seed_and_logprobs(client, model):
    kw = dict(model=model, messages=MESSAGES, max_tokens=8, temperature=1.0, seed=11, n=2)
    a = client.chat.completions.create(**kw)
    b = client.chat.completions.create(**kw)
    assert [c.message.content for c in a.choices] == [c.message.content for c in b.choices]
    r = client.chat.completions.create(model=model, messages=MESSAGES, max_tokens=4, temperature=0, logprobs=True, top_logprobs=3)
    content = r.choices[0].logprobs.content
    assert len(content) == r.usage.completion_tokens
    for t in content:
        assert t.logprob <= 0 and len(t.top_logprobs) == 3
        assert t.top_logprobs[0].logprob >= t.top_logprobs[2].logprob


def test_completion_logprobs_echo_and_stop(client, model):
    r = greedy(client, model, n_tokens=6, logprobs=2, extra_body={"ignore_eos": True})
    lp = r.choices[0].logprobs
    assert len(lp.tokens) == len(lp.token_logprobs) == len(lp.top_logprobs) == len(lp.text_offset) == 6
    assert all(x <= 0 for x in lp.token_logprobs)
    assert all(1 <= len(t) <= 3 for t in lp.top_logprobs)
    e = client.completions.create(model=model, prompt=PROMPT, max_tokens=0, echo=True, logprobs=0)
    assert e.choices[0].text == PROMPT and e.choices[0].logprobs.token_logprobs[0] is None
    text = greedy(client, model, n_tokens=30, extra_body={"ignore_eos": True}).choices[0].text
    printable = [i for i in range(5, len(text) - 2) if text[i : i + 2].isprintable() and "\ufffd" not in text[i : i + 2]]
    if printable:
        i = printable[0]
        stop = text[i : i + 2]
        s = greedy(client, model, n_tokens=30, stop=[stop], extra_body={"ignore_eos": True})
        assert s.choices[0].text == text[: text.index(stop)]
        assert s.choices[0].finish_reason == "stop"


def test_sampling_params_are_accepted(client, model):
    kw = dict(
        model=model,
        prompt=PROMPT,
        max_tokens=8,
        temperature=0.8,
        top_p=0.9,
        presence_penalty=0.5,
        frequency_penalty=0.5,
        logit_bias={"65": 2.0},
        seed=3,
        user="pytest",
        extra_body={"top_k": 20},
    )
    a = client.completions.create(**kw)
    assert a.choices[0].text == client.completions.create(**kw).choices[0].text


@pytest.mark.parametrize(
    "kw,param",
    [
        ({"temperature": 5}, "temperature"),
        ({"top_p": 2}, "top_p"),
        ({"n": 0}, "n"),
        ({"logprobs": 9}, "logprobs"),
        ({"best_of": 4}, "best_of"),
        ({"suffix": "tail"}, "suffix"),
        ({"stop": ["a", "b", "c", "d", "e"]}, "stop"),
        ({"logit_bias": {"x": 1}}, "logit_bias"),
        ({"max_tokens": 100000}, "max_tokens"),
        ({"presence_penalty": -9}, "presence_penalty"),
    ],
)
def test_bad_completion_params(client, model, kw, param):
    args = dict(model=model, prompt=PROMPT, max_tokens=2)
    args.update(kw)
    with pytest.raises(openai.BadRequestError) as e:
        client.completions.create(**args)
    assert e.value.status_code == 400
    assert e.value.param == param
    assert e.value.type == "invalid_request_error"


def test_bad_chat_params(client, model):
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model=model, messages=[], max_tokens=2)
    assert e.value.param == "messages"
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model=model, messages=MESSAGES, max_tokens=2, top_logprobs=2)
    assert e.value.param == "top_logprobs"
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(
            model=model, messages=MESSAGES, tools=[{"type": "function", "function": {"name": "f", "parameters": {}}}],
            tool_choice={"type": "function", "function": {"name": "g"}},
        )
    assert e.value.param == "tool_choice"


def test_unknown_model_and_wrong_key(client, server, model):
    with pytest.raises(openai.NotFoundError) as e:
        client.completions.create(model="nope", prompt="x", max_tokens=1)
    assert e.value.param == "model" and e.value.code == "model_not_found"
    if not server.api_key:
        pytest.skip("server runs without an API key")
    bad = openai.OpenAI(base_url=server.url("/v1"), api_key="wrong-key", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as e:
        bad.completions.create(model=model, prompt="x", max_tokens=1)
    assert e.value.status_code == 401 and e.value.code == "invalid_api_key"


def test_structured_output_parses_into_the_pydantic_model(client, model):
    """The SDK's parse() sends the model's strict JSON schema; the reply must parse into it."""
    from typing import Literal

    from pydantic import BaseModel, Field

    class Person(BaseModel):
        name: str = Field(max_length=8)
        age: int = Field(ge=0, le=150)
        pets: list[Literal["cat", "dog"]] = Field(max_length=3)
        retired: bool

    chat = client.chat.completions if hasattr(client.chat.completions, "parse") else client.beta.chat.completions
    r = chat.parse(model=model, messages=MESSAGES, response_format=Person, max_tokens=200, temperature=0.9, seed=5)
    person = r.choices[0].message.parsed
    assert isinstance(person, Person) and 0 <= person.age <= 150, r.choices[0].message.content
    assert r.choices[0].finish_reason == "stop"
    # vLLM's extension rides in extra_body.
    options = ["red", "green", "blue"]
    r = client.completions.create(
        model=model, prompt=PROMPT, max_tokens=10, temperature=1.0, n=3, seed=2,
        extra_body={"structured_outputs": {"choice": options}},
    )
    assert all(c.text in options and c.finish_reason == "stop" for c in r.choices), r.choices
    # A schema that cannot compile names its field.
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(
            model=model, messages=MESSAGES,
            response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "nope"}}},
        )
    assert e.value.param == "response_format.json_schema.schema"


ADD_TOOL = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two integers",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "integer", "minimum": 0, "maximum": 9}, "b": {"type": "integer", "minimum": 0, "maximum": 9}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
    },
}


def test_tool_calls_parse_into_the_sdk_types(client, model):
    """A forced call comes back as message.tool_calls (and streamed, as tool_calls deltas)."""
    import json

    kw = dict(model=model, messages=[{"role": "user", "content": "2+3?"}], tools=[ADD_TOOL], max_tokens=150,
              tool_choice={"type": "function", "function": {"name": "add"}}, temperature=0)
    r = client.chat.completions.create(**kw)
    call = r.choices[0].message.tool_calls[0]
    args = json.loads(call.function.arguments)
    assert call.type == "function" and call.function.name == "add" and call.id.startswith("call_")
    assert set(args) == {"a", "b"} and all(0 <= v <= 9 for v in args.values())
    assert r.choices[0].finish_reason == "tool_calls"
    streamed = {}
    finish = None
    for chunk in client.chat.completions.create(stream=True, **kw):
        for c in chunk.choices:
            for d in c.delta.tool_calls or []:
                slot = streamed.setdefault(d.index, {"name": "", "arguments": ""})
                slot["name"] += d.function.name or ""
                slot["arguments"] += d.function.arguments or ""
            finish = c.finish_reason or finish
    assert streamed == {0: {"name": "add", "arguments": call.function.arguments}} and finish == "tool_calls"


def test_embeddings(client, embed_model):
    texts = ["The quick brown fox", "the river remembers everything"]
    # The SDK asks for base64 and decodes it; the float form must give the same numbers.
    r = client.embeddings.create(model=embed_model, input=texts)
    assert r.object == "list" and r.model == embed_model and [d.index for d in r.data] == [0, 1]
    f = client.embeddings.create(model=embed_model, input=texts, encoding_format="float")
    for a, b in zip(r.data, f.data):
        assert len(a.embedding) == 64 and a.embedding == pytest.approx(b.embedding, abs=1e-7)
        assert sum(x * x for x in a.embedding) == pytest.approx(1.0, abs=1e-5)
    assert r.data[0].embedding != pytest.approx(r.data[1].embedding, abs=1e-3)
    assert r.usage.prompt_tokens == r.usage.total_tokens > 0
    one = client.embeddings.create(model=embed_model, input=texts[1], encoding_format="float")
    assert one.data[0].embedding == pytest.approx(f.data[1].embedding, abs=1e-6)
    short = client.embeddings.create(model=embed_model, input=texts[0], dimensions=16, encoding_format="float")
    assert len(short.data[0].embedding) == 16
    with pytest.raises(openai.BadRequestError) as e:
        client.embeddings.create(model=embed_model, input="")
    assert e.value.body["param"] == "input"
    with pytest.raises(openai.BadRequestError) as e:
        client.embeddings.create(model=embed_model, input="a", dimensions=65)
    assert e.value.body["param"] == "dimensions"
