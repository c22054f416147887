import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import { listenLocal, readBody, sendJson as send } from "./http.js";

/**
 * A vLLM-shaped server on 127.0.0.1 for contract tests of the vllm rollout engine: the routes and
 * answers vLLM gives (as of 0.32) for what envace uses.
 * - `POST /v1/chat/completions`: `model` must be the base name or a loaded adapter (else 404, as
 *   vLLM); tools with the default tool choice ("auto") are refused (400), as by a vLLM started
 *   without a tool parser; with `return_token_ids` it adds `prompt_token_ids` and per-choice `token_ids`; with
 *   `logprobs` per-token logprobs. The reply text is `<model>|<endpoint name>|<last user message>`
 *   so tests see which version and which server answered; token ids are the text's code points.
 * - `POST /v1/load_lora_adapter {lora_name, lora_path, load_inplace}`: 400 when the name is loaded
 *   and `load_inplace` is not true, or (with `checkPaths`) the directory has no adapter_config.json;
 *   answers plain text like vLLM.
 * - `POST /v1/unload_lora_adapter {lora_name}`: 404 for an unknown name.
 * - `POST /pause`, `/resume`; `POST /collective_rpc {method, kwargs}` (dev mode): `reload_weights`
 *   bumps the base weights' generation. Chat requests that arrive while paused wait for resume.
 * - `GET /v1/models`: the base model and the loaded adapters.
 * Injectable: `failNext(route, status, times)` answers the next calls of a route with an error;
 * `down = true` answers every request 503 (a dead server behind a proxy).
 */
export interface MockVllmServerOptions {
  /** The base model's name (default "base"). */
  baseModel?: string;
  /** Shown in replies to tell servers apart (default "vllm"). */
  name?: string;
  /** Check that a LoRA path holds adapter_config.json (default true). */
  checkPaths?: boolean;
  /** Delay of each chat answer (ms). */
  latencyMs?: number;
}

export interface MockVllmCall {
  path: string;
  body: Record<string, unknown>;
  status: number;
}

export interface MockVllmServer {
  url: string;
  /** `url + "/v1"`. */
  baseURL: string;
  /** Every request in arrival order. */
  calls: MockVllmCall[];
  /** Adapters loaded now: name → path. */
  readonly adapters: ReadonlyMap<string, string>;
  /** Times the base weights were reloaded. */
  readonly reloads: number;
  readonly paused: boolean;
  /** When true every request gets 503. */
  down: boolean;
  failNext(path: string, status: number, times?: number): void;
  close(): Promise<void>;
}

export async function startMockVllmServer(opts: MockVllmServerOptions = {}): Promise<MockVllmServer> {
  const base = opts.baseModel ?? "base";
  const name = opts.name ?? "vllm";
  const checkPaths = opts.checkPaths ?? true;
  const adapters = new Map<string, string>();
  const calls: MockVllmCall[] = [];
  const failures = new Map<string, { status: number; times: number }>();
  let reloads = 0;
  let paused = false;
  let resumeWaiters: Array<() => void> = [];
  const state = { down: false };

  const server = createServer((req, res) => {
    void handle(req, res).catch((e: unknown) => send(res, 500, { error: { message: String(e) } }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0]!;
    const text = await readBody(req);
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      return reply(400, { error: { message: "invalid JSON" } });
    }
    function reply(status: number, json: unknown, plain = false): void {
      calls.push({ path, body, status });
      if (plain) {
        res.writeHead(status, { "content-type": "text/plain" });
        res.end(String(json));
      } else send(res, status, json);
    }
    if (state.down) return reply(503, { error: { message: "service unavailable" } });
    const f = failures.get(path);
    if (f && f.times > 0) {
      f.times--;
      return reply(f.status, { error: { message: `injected ${f.status}` } });
    }
    if (req.method === "GET" && path === "/v1/models") {
      const ids = [base, ...adapters.keys()];
      return reply(200, { object: "list", data: ids.map((id) => ({ id, object: "model" })) });
    }
    if (req.method !== "POST") return reply(404, { error: { message: `no route ${path}` } });
    switch (path) {
      case "/v1/load_lora_adapter": {
        const lora = body.lora_name;
        const p = body.lora_path;
        if (typeof lora !== "string" || typeof p !== "string")
          return reply(400, { error: { message: "lora_name and lora_path are required" } });
        if (adapters.has(lora) && body.load_inplace !== true)
          return reply(400, { error: { message: `The lora adapter '${lora}' has already been loaded.` } });
        if (checkPaths && !existsSync(join(p, "adapter_config.json")))
          return reply(400, { error: { message: `No adapter found for ${p}` } });
        adapters.set(lora, p);
        return reply(200, `Success: LoRA adapter '${lora}' added successfully.`, true);
      }
      case "/v1/unload_lora_adapter": {
        const lora = body.lora_name;
        if (typeof lora !== "string" || !adapters.has(lora))
          return reply(404, { error: { message: `The lora adapter '${String(lora)}' cannot be found.` } });
        adapters.delete(lora);
        return reply(200, `Success: LoRA adapter '${lora}' removed successfully.`, true);
      }
      case "/reset_prefix_cache":
        return reply(200, {});
      case "/pause":
        paused = true;
        return reply(200, {});
      case "/resume": {
        paused = false;
        const w = resumeWaiters;
        resumeWaiters = [];
        w.forEach((f) => f());
        return reply(200, {});
      }
      case "/collective_rpc": {
        if (body.method !== "reload_weights")
          return reply(400, { error: { message: `unknown method ${String(body.method)}` } });
        if (!paused) return reply(400, { error: { message: "pause generation before reloading weights" } });
        reloads++;
        return reply(200, { results: [null] });
      }
      case "/v1/chat/completions":
        if (paused) await new Promise<void>((r) => resumeWaiters.push(r));
        if (opts.latencyMs) await new Promise((r) => setTimeout(r, opts.latencyMs));
        return chat(body, reply);
      default:
        return reply(404, { error: { message: `no route ${path}` } });
    }
  }

  function chat(body: Record<string, unknown>, reply: (s: number, j: unknown) => void): void {
    const model = String(body.model);
    if (model !== base && !adapters.has(model))
      return reply(404, { error: { message: `The model \`${model}\` does not exist.`, code: 404 } });
    if (Array.isArray(body.tools) && body.tools.length > 0 && (body.tool_choice ?? "auto") === "auto")
      return reply(400, {
        error: {
          message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        },
      });
    const messages = (body.messages as Array<{ role: string; content: string | null }>) ?? [];
    const lastUser = [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
    const generation = model === base ? `${base}#${reloads}` : model;
    const content = `${generation}|${name}|${lastUser}`;
    const ids = (s: string) => Array.from(s, (ch) => ch.codePointAt(0)!);
    const tokenIds = [...ids(content), 0]; // vLLM keeps the EOS id in token_ids, not in the text
    const promptIds = ids(messages.map((m) => `${m.role}:${m.content ?? ""}`).join("\n"));
    const n = typeof body.n === "number" ? body.n : 1;
    const choices = Array.from({ length: n }, (_, i) => ({
      index: i,
      message: { role: "assistant", content, tool_calls: [] },
      finish_reason: "stop",
      ...(body.return_token_ids === true ? { token_ids: tokenIds } : {}),
      logprobs:
        body.logprobs === true
          ? {
              content: tokenIds.map((t, k) => ({
                token: String.fromCodePoint(t),
                logprob: -0.01 * ((k % 7) + 1),
                bytes: null,
                top_logprobs: [],
              })),
            }
          : null,
    }));
    reply(200, {
      id: `chatcmpl-${calls.length}`,
      object: "chat.completion",
      created: 0,
      model,
      choices,
      usage: {
        prompt_tokens: promptIds.length,
        completion_tokens: tokenIds.length * n,
        total_tokens: promptIds.length + tokenIds.length * n,
      },
      ...(body.return_token_ids === true ? { prompt_token_ids: promptIds } : {}),
    });
  }

  const url = await listenLocal(server);
  return {
    url,
    baseURL: `${url}/v1`,
    calls,
    adapters,
    get reloads() {
      return reloads;
    },
    get paused() {
      return paused;
    },
    get down() {
      return state.down;
    },
    set down(v: boolean) {
      state.down = v;
    },
    failNext(path: string, status: number, times = 1) {
      failures.set(path, { status, times });
    },
    close: () =>
      new Promise<void>((resolve) => {
        resumeWaiters.forEach((f) => f());
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
