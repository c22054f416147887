import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { listenLocal, readBody, sendJson } from "./http.js";

/**
 * A real HTTP server on 127.0.0.1 that speaks enough of the OpenAI API for tests and benchmarks:
 * `POST /v1/chat/completions` (also without the `/v1` prefix) and `GET /v1/models`. The handler
 * decides each reply; latency and failures (HTTP status codes, hangs for timeouts, dropped
 * connections) are injectable per request index. Every request is recorded.
 */

/** The request body as the client sent it (OpenAI chat-completions shape, plus extras). */
export type MockChatBody = {
  model?: string;
  messages: Array<{ role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }>;
  tools?: unknown[];
  n?: number;
  return_token_ids?: boolean;
  logprobs?: boolean;
  [key: string]: unknown;
};

/** One choice of a reply. */
export interface MockChoice {
  content?: string | null;
  /** `arguments` given as an object is JSON-encoded; a string is sent verbatim (to test bad JSON). */
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> | string; id?: string }>;
  tokenIds?: number[];
  logprobs?: number[];
  finishReason?: string;
}

/**
 * What a handler returns: a plain string (the assistant's text, repeated for `n` choices), one
 * choice, `{choices}` for several, `{status, message}` for an HTTP error, or `{raw}` to send any
 * JSON body verbatim.
 */
export type MockReply =
  | string
  | MockChoice
  | { choices: MockChoice[] }
  | { status: number; message?: string }
  | { raw: unknown; status?: number };

/** A failure injected instead of calling the handler: an HTTP status, a hang or a dropped socket. */
export type MockFailure = number | "hang" | "reset";

export interface MockRequestRecord {
  /** 0-based index among chat-completion requests (the index passed to latency/failures/handler). */
  index: number;
  path: string;
  body: MockChatBody;
  receivedAt: number;
  /** HTTP status sent, or "hang"/"reset"; undefined while in progress. */
  outcome?: number | "hang" | "reset";
  respondedAt?: number;
}

export interface MockOpenAIServerOptions {
  /** Default: echoes the last user message as `echo: …`. */
  handler?: (body: MockChatBody, ctx: { index: number }) => MockReply | Promise<MockReply>;
  /** Delay before answering request i (ms). */
  latencyMs?: (index: number) => number;
  /** Failure for request i, or undefined to answer normally. A map is looked up by index. */
  failures?: ((index: number, body: MockChatBody) => MockFailure | undefined) | Record<number, MockFailure>;
  /** The model id reported by /v1/models and in responses (default "mock-model"). */
  model?: string;
  port?: number;
}

export interface MockOpenAIServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `http://127.0.0.1:PORT/v1`: what an OpenAI client takes as `baseURL`. */
  baseURL: string;
  /** Chat-completion requests in arrival order. */
  requests: MockRequestRecord[];
  /** Chat-completion requests being handled right now, and the most seen at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  close(): Promise<void>;
}

export async function startMockOpenAIServer(opts: MockOpenAIServerOptions = {}): Promise<MockOpenAIServer> {
  const model = opts.model ?? "mock-model";
  const handler = opts.handler ?? defaultHandler;
  const requests: MockRequestRecord[] = [];
  const hung = new Set<ServerResponse>();
  let inFlight = 0;
  let maxInFlight = 0;
  let counter = 0;

  const failureFor = (i: number, body: MockChatBody): MockFailure | undefined => {
    const f = opts.failures;
    if (!f) return undefined;
    return typeof f === "function" ? f(i, body) : f[i];
  };

  const server = createServer((req, res) => {
    void route(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(String(err), "server_error"));
      else res.destroy();
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0]!;
    if (req.method === "GET" && (path === "/v1/models" || path === "/models")) {
      sendJson(res, 200, {
        object: "list",
        data: [{ id: model, object: "model", created: 0, owned_by: "envace-mock" }],
      });
      return;
    }
    if (req.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/chat/completions")) {
      sendJson(res, 404, errorBody(`no route ${req.method} ${path}`, "not_found"));
      return;
    }
    const text = await readBody(req);
    let body: MockChatBody;
    try {
      body = JSON.parse(text) as MockChatBody;
    } catch {
      sendJson(res, 400, errorBody("request body is not valid JSON", "invalid_request_error"));
      return;
    }
    const index = counter++;
    const record: MockRequestRecord = { index, path, body, receivedAt: Date.now() };
    requests.push(record);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let counted = true;
    const done = (outcome: MockRequestRecord["outcome"]) => {
      record.outcome = outcome;
      record.respondedAt = Date.now();
      if (counted) inFlight--;
      counted = false;
    };
    try {
      const latency = opts.latencyMs?.(index) ?? 0;
      if (latency > 0) await new Promise((r) => setTimeout(r, latency));
      const failure = failureFor(index, body);
      if (failure === "hang") {
        // never answer: the client's timeout (or close()) ends it
        hung.add(res);
        res.on("close", () => {
          hung.delete(res);
          done("hang");
        });
        return;
      }
      if (failure === "reset") {
        done("reset");
        req.socket.destroy();
        return;
      }
      if (typeof failure === "number") {
        done(failure);
        sendJson(
          res,
          failure,
          errorBody(`injected failure ${failure}`, failure >= 500 ? "server_error" : "invalid_request_error"),
        );
        return;
      }
      const reply = await handler(body, { index });
      const [status, json] = renderReply(reply, body, model, index);
      done(status);
      sendJson(res, status, json);
    } catch (err) {
      done(500);
      throw err;
    }
  }

  const url = await listenLocal(server, opts.port ?? 0);

  return {
    url,
    baseURL: `${url}/v1`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hung) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function defaultHandler(body: MockChatBody): MockReply {
  const lastUser = [...body.messages].reverse().find((m) => m.role === "user");
  return `echo: ${lastUser?.content ?? ""}`;
}

function renderReply(reply: MockReply, body: MockChatBody, model: string, index: number): [number, unknown] {
  if (typeof reply === "object" && reply !== null && "raw" in reply) return [reply.status ?? 200, reply.raw];
  if (typeof reply === "object" && reply !== null && "status" in reply) {
    return [
      reply.status,
      errorBody(
        reply.message ?? `status ${reply.status}`,
        reply.status >= 500 ? "server_error" : "invalid_request_error",
      ),
    ];
  }
  const n = typeof body.n === "number" && body.n > 0 ? body.n : 1;
  const choices: MockChoice[] =
    typeof reply === "string"
      ? Array.from({ length: n }, () => ({ content: reply }))
      : "choices" in reply
        ? reply.choices
        : Array.from({ length: n }, () => reply);
  const wantIds = body.return_token_ids === true;
  const promptTokenIds = fakeTokenIds(body.messages.map((m) => m.content ?? "").join("\n"));
  let completionTokens = 0;
  const out = choices.map((c, i) => {
    const content = c.content === undefined ? "" : c.content;
    const tokenIds = c.tokenIds ?? fakeTokenIds(content ?? "");
    completionTokens += tokenIds.length;
    const choice: Record<string, unknown> = {
      index: i,
      message: {
        role: "assistant",
        content,
        ...(c.toolCalls && c.toolCalls.length > 0
          ? {
              tool_calls: c.toolCalls.map((t, k) => ({
                id: t.id ?? `call_${index}_${i}_${k}`,
                type: "function",
                function: {
                  name: t.name,
                  arguments: typeof t.arguments === "string" ? t.arguments : JSON.stringify(t.arguments),
                },
              })),
            }
          : {}),
      },
      finish_reason: c.finishReason ?? (c.toolCalls && c.toolCalls.length > 0 ? "tool_calls" : "stop"),
      logprobs: null,
    };
    if (wantIds) choice.token_ids = tokenIds;
    if (body.logprobs === true || c.logprobs) {
      const lps = c.logprobs ?? tokenIds.map(() => -0.5);
      choice.logprobs = {
        content: lps.map((lp, k) => ({
          token: `t${tokenIds[k] ?? k}`,
          logprob: lp,
          bytes: null,
          top_logprobs: [],
        })),
      };
    }
    return choice;
  });
  const json: Record<string, unknown> = {
    id: `chatcmpl-mock-${index}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? model,
    choices: out,
    usage: {
      prompt_tokens: promptTokenIds.length,
      completion_tokens: completionTokens,
      total_tokens: promptTokenIds.length + completionTokens,
    },
  };
  if (wantIds) json.prompt_token_ids = promptTokenIds;
  return [200, json];
}

/** Deterministic stand-in token ids: one per code point. */
function fakeTokenIds(text: string): number[] {
  return Array.from(text, (ch) => ch.codePointAt(0)!);
}

function errorBody(message: string, type: string): unknown {
  return { error: { message, type, code: null, param: null } };
}
