"""HTTP API of the envace worker (FastAPI). All bodies are JSON; errors are
`{"error": {"code", "message", "type"}}` with a 4xx status (5xx only for bugs). A rejected request
changes nothing (weights, gradients, optimizer state, step).

GET  /health -> {status: "ok", model, step, world_size, parallel (none/ddp/fsdp), lora, micro_batch_tokens
     (padded tokens per training micro-batch, --micro-batch-tokens), metrics: {sample_batches,
     sample_requests, sample_rows, last_batch_requests, max_batch_requests, max_batch_rows,
     completion_tokens, train_calls, joined_running, decode_steps, prefill_tokens, prefix_hit_tokens,
     active_rows}}
     Sampling is continuous batching (model_thread.py): a request joins the running decode batch
     at the next token step. sample_batches counts decode runs started from idle; *_batch_requests
     / max_batch_rows are requests / rows decoding at the same time (max_batch_requests > 1 proves
     that concurrent chat requests were decoded together); joined_running counts requests that
     joined a batch already decoding; active_rows is the rows decoding now; prefill_tokens are
     prompt tokens computed, prefix_hit_tokens prompt tokens whose keys/values were reused from a
     recently finished sequence with the same prefix (cleared by every /v1/train/* call).
GET  /v1/models -> {object: "list", data: [{id, object: "model", created, owned_by: "envace"}]}
POST /v1/chat/completions  (OpenAI request; stream is not supported)
     {messages, tools?, n=1, temperature=1.0, top_p=1.0, max_tokens=256 (or max_completion_tokens),
      seed?, stop?: str|[str], logprobs=false, top_logprobs=0..20, return_token_ids=false, model?}
  -> {id, object: "chat.completion", created, model,
      prompt_token_ids (only with return_token_ids),
      choices: [{index, message: {role: "assistant", content}, finish_reason: "stop"|"length",
                 token_ids (only with return_token_ids),
                 logprobs: null | {content: [{token, token_id, logprob, bytes, top_logprobs:
                                               [{token, token_id, logprob, bytes}]}]}}],
      usage: {prompt_tokens, completion_tokens, total_tokens}}
     - content is the raw decoded text: tool calls stay in the `<tool_call>` text format (the
       TypeScript side parses them); the EOS token (<|im_end|>) is in token_ids/logprobs but not in
       content. A `stop` string ends the choice at the token that completes it: content is cut
       before the stop string, token_ids/logprobs keep every sampled token.
     - logprob = log-probability of the sampled token under log_softmax(logits / temperature) over
       the full vocabulary (top_p does not renormalise it; temperature 0 = greedy and reports T = 1).
       A teacher-forced /v1/train/forward_backward with loss.temperature = T computes the same values.
     - seed: choice i samples from torch.Generator seeded with seed + i (one uniform per token), so
       a seeded request alone on a fresh worker is reproducible bit for bit; decoded together with
       other requests, or with its prompt prefix reused from the prefix cache, its tokens can differ
       only where float rounding (~1e-6) flips a near-tie. Without seed, fresh randomness.
     - the prompt must be shorter than the model's context; max_tokens is capped to what is left.
POST /v1/tokenize {messages, tools?, add_generation_prompt=false}
  -> {token_ids, spans: [{message, role, start, end, completion_start?}]}
     spans[k] is message k's token range [start, end) in token_ids; for assistant messages,
     completion_start is where a sampled completion would begin (after "<|im_start|>assistant\\n"),
     so SFT targets are [completion_start, end).
POST /v1/train/forward_backward
     {sequences: [{token_ids, loss_mask, advantages?, sampling_logprobs?, weight?}],
      loss: {fn: "cross_entropy"|"importance_sampling"|"ppo", clip_low=0.2, clip_high=0.2,
             kl_coef=0, temperature=1}}
  -> {loss, metrics: {num_tokens, num_sequences, nll, accumulated_calls, ratio_mean?,
      clip_fraction?, kl?}, sequence_metrics?: [{tokens, ratio_mean, ratio_min, ratio_max, clipped}]}
     or {loss: null, nonfinite: true, metrics} (the next optim_step skips)
     - weight (on every sequence or none): each target token of the sequence weighs `weight` in
       Σ w·(policy loss + kl_coef·KL); without it the call is a token-mean over its own targets
     - every array has one entry per token of token_ids; loss_mask[i] = 1 makes token i a target
       (predicted from tokens < i), so loss_mask[0] must be 0. advantages are required except for
       cross_entropy (which ignores them); sampling_logprobs are required by importance_sampling
       and ppo (entries at unmasked positions are ignored, may be 0 or null).
     - per-token loss: cross_entropy -logp; importance_sampling -(p/q)A; ppo -min(rA,
       clip(r, 1-clip_low, 1+clip_high)A) with r = exp(logp - sampling_logprob); plus
       kl_coef * k3(π‖π_ref) where π_ref is the weights the worker started with (adapters off under
       LoRA). Aggregation: token-mean over all masked tokens of the call. logp uses logits/temperature.
     - gradients accumulate over calls until optim_step (or zero_grad).
POST /v1/train/optim_step {lr, weight_decay=0, max_grad_norm?, betas=[0.9,0.999], eps=1e-8}
  -> {step, grad_norm, skipped: false} or {step, grad_norm: null, skipped: true, reason}
     (AdamW; grad_norm is the global norm before clipping; nothing accumulated, a non-finite loss
     or a non-finite gradient skips the step and clears the gradients)
POST /v1/train/zero_grad {} -> {step}
POST /v1/train/save {path, optimizer=true} -> {path, step, optimizer}
     HF save_pretrained layout (a PEFT adapter directory under LoRA) + tokenizer, and with optimizer
     trainer_state/{tensors.safetensors,state.json} (AdamW state, step, RNG state) for bit-exact
     resume. Never a pickle (trainer_state.py).
POST /v1/train/load {path, optimizer=true} -> {path, step, optimizer}   (404 if path is missing)
     Atomic: everything is read and validated first; a failed load (400) changes nothing.
     `path` (save and load) is taken relative to --checkpoint-root and must resolve inside it
     (`..`, other absolute paths, symlinks leading out: 400 path_outside_root).

Access (auth.py): every request needs a local Host and no foreign Origin (403); every path but
GET /health needs `Authorization: Bearer <token>` (401), the token of --api-key /
ENVACE_WORKER_API_KEY. Bodies over --max-body-bytes get 413. Malformed JSON, or JSON nested too
deeply for the parser -> 400 invalid_json. /v1/tokenize and prompt rendering run off the event loop
(spans.py: linear in the conversation), so /health answers while they work.
"""
from __future__ import annotations

import asyncio
import json
import os
import time
import uuid

import torch
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from . import request_checks, spans
from .auth import Guard
from .errors import BadRequest
from .decode_engine import make_engine
from .paths import confine
from .sampler import RowSpec, generate
from .train_batch import parse_forward_backward, parse_optim_step
from . import publish


class BodyTooLarge(Exception):
    pass


class BodyLimit:
    """ASGI middleware: refuses bodies over `limit` bytes (by Content-Length, or while streaming)."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        for k, v in scope.get("headers", []):
            if k == b"content-length" and v.isdigit() and int(v) > self.limit:
                return await _send_json(send, 413, _err("body_too_large",
                                        f"request body of {int(v)} bytes exceeds the limit of {self.limit}"))
        seen = 0

        async def limited():
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge()
            return msg

        await self.app(scope, limited, send)


async def _send_json(send, status, obj):
    body = json.dumps(obj).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _err(code: str, message: str) -> dict:
    return {"error": {"code": code, "message": message, "type": "invalid_request_error"}}


def normalise_messages(messages) -> list:
    if not isinstance(messages, list) or not messages:
        raise BadRequest("messages must be a non-empty array")
    if len(messages) > request_checks.MAX_MESSAGES:
        raise BadRequest(f"at most {request_checks.MAX_MESSAGES} messages per request (got {len(messages)})",
                         code="too_many_messages")
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in ("system", "user", "assistant", "tool"):
            raise BadRequest(f"messages[{i}] must be an object with role system|user|assistant|tool")
        m = dict(m)
        m["content"] = request_checks.text_of(m.get("content"), f"messages[{i}]")
        if m.get("tool_calls") is not None and not isinstance(m["tool_calls"], list):
            raise BadRequest(f"messages[{i}].tool_calls must be an array")
        out.append(m)
    return out


def _int(body, key, default, lo, hi):
    v = body.get(key, default)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, int) or not (lo <= v <= hi):
        raise BadRequest(f"{key} must be an integer in [{lo}, {hi}]")
    return v


def _float(body, key, default, lo, hi):
    v = body.get(key, default)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (lo <= v <= hi):
        raise BadRequest(f"{key} must be a number in [{lo}, {hi}]")
    return float(v)


class Worker:
    """State behind the HTTP API: the model host, the trainer commands and the model thread."""

    def __init__(self, host, commands, model_thread_factory, world: int = 1, prefix_cache_mb: int = 128,
                 checkpoint_root: str = "."):
        self.host, self.commands, self.world = host, commands, world
        self.checkpoint_root = checkpoint_root
        self.tok = host.tokenizer
        self.pad_id = self.tok.pad_token_id if self.tok.pad_token_id is not None else host.eos_ids[0]
        self.engine = make_engine(host.base, self.tok, host.eos_ids, self.pad_id, host.max_context,
                                  prefix_cache_mb << 20)
        self.thread = model_thread_factory(self.engine)
        self.max_token_chars = request_checks.max_token_chars(self.tok)

    def _run_batch(self, rows):
        """The static padded-batch decoder (kept as the reference the fast path is tested against)."""
        return generate(self.host.base, self.tok, rows, self.host.eos_ids, self.pad_id, self.host.max_context)

    def render_text(self, messages, tools=None, add_generation_prompt=False) -> str:
        try:
            return self.tok.apply_chat_template(messages, tools=tools or None, tokenize=False,
                                                add_generation_prompt=add_generation_prompt)
        except Exception as e:  # noqa: BLE001 - template errors are the caller's input
            raise BadRequest(f"chat template failed on these messages: {e}") from e

    def encode(self, texts: list) -> list:
        return [list(ids) for ids in self.tok(texts, add_special_tokens=False)["input_ids"]]

    def render(self, messages, tools=None, add_generation_prompt=False) -> list:
        return self.encode([self.render_text(messages, tools, add_generation_prompt)])[0]

    def tokenize(self, body) -> dict:
        msgs = normalise_messages(body.get("messages"))
        if body.get("tools") is not None and not isinstance(body.get("tools"), list):
            raise BadRequest("tools must be an array")
        return spans.message_spans(self.render_text, self.encode, msgs, body.get("tools"),
                                   bool(body.get("add_generation_prompt", False)))

    def chat_rows(self, body) -> tuple:
        if body.get("stream"):
            raise BadRequest("stream: true is not supported by the envace worker")
        msgs = normalise_messages(body.get("messages"))
        if body.get("tools") is not None and not isinstance(body.get("tools"), list):
            raise BadRequest("tools must be an array")
        chars = sum(len(m["content"]) for m in msgs)
        if chars > self.host.max_context * self.max_token_chars:   # cannot fit: refused before rendering
            raise BadRequest(f"prompt of {chars} characters cannot fit the model's context of "
                             f"{self.host.max_context} tokens", code="context_length_exceeded")
        prompt = self.render(msgs, body.get("tools"), add_generation_prompt=True)
        if len(prompt) >= self.host.max_context:
            raise BadRequest(f"prompt has {len(prompt)} tokens; the model's context is {self.host.max_context}",
                             code="context_length_exceeded")
        n = _int(body, "n", 1, 1, 64)
        temperature = _float(body, "temperature", 1.0, 0.0, 100.0)
        top_p = _float(body, "top_p", 1.0, 1e-9, 1.0)
        max_tokens = body.get("max_tokens", body.get("max_completion_tokens"))
        max_tokens = _int({"max_tokens": max_tokens}, "max_tokens", 256, 1, 1 << 20)
        seed = body.get("seed")
        request_checks.check_seed(seed, n)
        stop = body.get("stop")
        stop = [stop] if isinstance(stop, str) else (stop or [])
        if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop) or len(stop) > 16:
            raise BadRequest("stop must be a string or an array of at most 16 strings")
        top = _int(body, "top_logprobs", 0, 0, 20) if body.get("logprobs") else 0
        rows = []
        for i in range(n):
            g = torch.Generator().manual_seed(seed + i) if seed is not None else torch.Generator().manual_seed(
                int.from_bytes(uuid.uuid4().bytes[:7], "little"))
            rows.append(RowSpec(prompt, temperature, top_p, max_tokens, stop, g, top))
        return prompt, rows

    def chat_response(self, body, prompt, results) -> dict:
        want_lp, want_ids = bool(body.get("logprobs")), bool(body.get("return_token_ids"))
        choices = []
        for i, r in enumerate(results):
            c = {"index": i, "message": {"role": "assistant", "content": r.text},
                 "finish_reason": r.finish_reason, "logprobs": None}
            if want_ids:
                c["token_ids"] = r.token_ids
            if want_lp:
                c["logprobs"] = {"content": [
                    {**self._tok_entry(t, lp),
                     "top_logprobs": [self._tok_entry(k, v) for k, v in (r.top[j] if r.top else [])]}
                    for j, (t, lp) in enumerate(zip(r.token_ids, r.logprobs))]}
            choices.append(c)
        ntok = sum(len(r.token_ids) for r in results)
        out = {"id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
               "model": self.host.name, "choices": choices,
               "usage": {"prompt_tokens": len(prompt), "completion_tokens": ntok, "total_tokens": len(prompt) + ntok}}
        if want_ids:
            out["prompt_token_ids"] = prompt
        return out

    def _tok_entry(self, tid: int, lp: float) -> dict:
        s = self.tok.decode([tid], skip_special_tokens=False)
        return {"token": s, "token_id": tid, "logprob": lp, "bytes": list(s.encode("utf-8"))}


def create_app(worker: Worker, token: str, max_body_bytes: int = 64 << 20, bind_host: str = "127.0.0.1"):
    """The worker's ASGI app: the routes behind the access guard (auth.py) and the body limit."""
    if not token:
        raise ValueError("the worker needs an API token")
    app = FastAPI(title="envace worker", docs_url=None, redoc_url=None, openapi_url=None)

    @app.exception_handler(BadRequest)
    async def _bad(_req, e: BadRequest):
        return JSONResponse(_err(e.code, e.message), status_code=e.status)

    @app.exception_handler(BodyTooLarge)
    async def _big(_req, _e):
        return JSONResponse(_err("body_too_large", f"request body exceeds the limit of {max_body_bytes} bytes"),
                            status_code=413)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_req, e: StarletteHTTPException):
        return JSONResponse(_err("not_found" if e.status_code == 404 else "http_error", str(e.detail)),
                            status_code=e.status_code)

    @app.exception_handler(Exception)
    async def _bug(_req, e: Exception):
        return JSONResponse({"error": {"code": "internal_error", "message": f"{type(e).__name__}: {e}",
                                       "type": "server_error"}}, status_code=500)

    async def body_of(request: Request) -> dict:
        raw = await request.body()
        try:
            obj = json.loads(raw) if raw else {}
        except (ValueError, UnicodeDecodeError, RecursionError) as e:   # ValueError: JSONDecodeError, huge ints
            raise BadRequest(f"malformed JSON: {type(e).__name__}: {str(e)[:200]}", code="invalid_json") from e
        if not isinstance(obj, dict):
            raise BadRequest("request body must be a JSON object")
        return obj

    async def on_model_thread(fn):
        return await asyncio.wrap_future(worker.thread.call(fn))

    @app.get("/health")
    async def health():
        trainer = worker.commands.trainer
        return {"status": "ok", "model": worker.host.name, "step": trainer.step,
                "world_size": worker.world, "parallel": trainer.policy.mode,
                "lora": worker.host.lora, "micro_batch_tokens": trainer.micro_batch_tokens,
                "metrics": dict(worker.thread.metrics)}

    @app.get("/v1/models")
    async def models():
        return {"object": "list", "data": [{"id": worker.host.name, "object": "model", "created": 0,
                                            "owned_by": "envace"}]}

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        body = await body_of(request)
        prompt, rows = await asyncio.to_thread(worker.chat_rows, body)   # renders: off the event loop
        results = await asyncio.wrap_future(worker.thread.sample(rows))
        return worker.chat_response(body, prompt, results)

    @app.post("/v1/tokenize")
    async def tokenize(request: Request):
        body = await body_of(request)
        return await asyncio.to_thread(worker.tokenize, body)

    @app.post("/v1/train/forward_backward")
    async def forward_backward(request: Request):
        body = await body_of(request)
        h = worker.host
        fb = parse_forward_backward(body, h.base.config.vocab_size, h.max_context,
                                    has_reference=h.lora or h.ref_model is not None)
        return await on_model_thread(lambda: worker.commands.run("forward_backward", fb))

    @app.post("/v1/train/optim_step")
    async def optim_step(request: Request):
        o = parse_optim_step(await body_of(request))
        request_checks.check_adamw(o)
        return await on_model_thread(lambda: worker.commands.run("optim_step", o))

    @app.post("/v1/train/zero_grad")
    async def zero_grad(request: Request):
        await body_of(request)
        return await on_model_thread(lambda: worker.commands.run("zero_grad"))

    def path_args(body, save: bool = False) -> tuple:
        path = confine(worker.checkpoint_root, body.get("path"))
        if save and path == os.path.realpath(worker.checkpoint_root):
            raise BadRequest("save into a directory under the checkpoint root, not the root itself",
                             code="path_outside_root")
        opt = body.get("optimizer", True)
        if not isinstance(opt, bool):
            raise BadRequest("optimizer must be a boolean")
        return path, opt

    @app.post("/v1/train/save")
    async def save(request: Request):
        body = await body_of(request)
        args = path_args(body, save=True)
        out = await on_model_thread(lambda: worker.commands.run("save", args))
        return {**out, "path": body["path"]}   # the caller's own spelling, not the resolved path

    @app.post("/v1/train/load")
    async def load(request: Request):
        body = await body_of(request)
        args = path_args(body)
        worker.commands.trainer.check_loadable(*args)
        out = await on_model_thread(lambda: worker.commands.run("load", args))
        return {**out, "path": body["path"]}

    @app.post("/v1/train/publish")
    async def publish_weights(request: Request):
        # publish.py: the weights as an inference engine loads them, under `<name>@<step>`
        req = publish.parse(await body_of(request), worker.checkpoint_root)
        return await on_model_thread(lambda: publish.publish(worker.host, worker.commands.trainer.step, req))

    return Guard(BodyLimit(app, max_body_bytes), token, bind_host)
