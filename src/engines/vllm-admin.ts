import { EnvaceError } from "../core/errors.js";
import { isRetryableStatus, type EndpointErrorDetails } from "./endpoint-error.js";

/** One vLLM server: its OpenAI root (`…/v1`) and optional API key (`vllm serve --api-key`). */
export interface VllmEndpoint {
  baseURL: string;
  apiKey?: string;
}

/**
 * The control calls envace makes to one vLLM server besides sampling: hot-loading a LoRA adapter
 * (`POST /v1/load_lora_adapter`, which needs `VLLM_ALLOW_RUNTIME_LORA_UPDATING=1` on the server)
 * and, for full fine-tuning, reloading the weights from a published HF checkpoint between `/pause`
 * and `/resume` (dev routes: `VLLM_SERVER_DEV_MODE=1`). Failures are `ENDPOINT_ERROR`s with
 * `retryable` set like the chat client's, so callers retry or drop the endpoint the same way.
 */
export class VllmAdmin {
  /** Server root without `/v1`, e.g. `http://127.0.0.1:8001`. */
  readonly root: string;
  readonly baseURL: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;

  constructor(endpoint: VllmEndpoint, opts: { timeoutMs?: number } = {}) {
    this.baseURL = endpoint.baseURL.replace(/\/+$/, "");
    this.root = this.baseURL.replace(/\/v1$/, "");
    this.apiKey = endpoint.apiKey;
    this.timeoutMs = opts.timeoutMs ?? 120_000;
  }

  /**
   * Loads (or, with the same name, replaces in place) a PEFT adapter directory that the server can
   * read; requests then name it as their `model`.
   */
  async loadLoraAdapter(name: string, path: string): Promise<void> {
    await this.post("/v1/load_lora_adapter", { lora_name: name, lora_path: path, load_inplace: true });
  }

  /** Frees an adapter's slot; an adapter the server no longer has is not an error. */
  async unloadLoraAdapter(name: string): Promise<void> {
    try {
      await this.post("/v1/unload_lora_adapter", { lora_name: name });
    } catch (e) {
      const d = (e as EnvaceError).details as Partial<EndpointErrorDetails> | undefined;
      if (d?.status === 404 || d?.status === 400) return; // already gone
      throw e;
    }
  }

  /**
   * Full weights: stop admitting requests, reload the weights from `path` (an HF checkpoint of the
   * same architecture), resume. vLLM's dev route `POST /collective_rpc` runs `reload_weights` on
   * every worker of the server. Measured on vLLM 0.32's CPU backend: a tied LM head is not
   * reloaded (README, "Rollouts on vLLM"), so prefer LoRA there.
   */
  async reloadWeights(path: string): Promise<void> {
    await this.post("/pause?mode=wait", {}); // let calls in flight finish (the default aborts them)
    try {
      await this.post("/collective_rpc", {
        method: "reload_weights",
        kwargs: { weights_path: path, is_checkpoint_format: true },
      });
    } finally {
      await this.post("/resume", {});
    }
  }

  /**
   * Drops the server's prefix cache (dev route). Needed after an adapter was replaced in place under
   * the same name: vLLM keeps cache blocks computed with the old weights.
   */
  async resetPrefixCache(): Promise<void> {
    await this.post("/reset_prefix_cache", {});
  }

  /** Model names the server serves now (the base model and loaded adapters). */
  async models(): Promise<string[]> {
    const res = (await this.request("GET", "/v1/models", undefined)) as { data?: Array<{ id?: unknown }> };
    return (res.data ?? []).map((m) => String(m.id));
  }

  private async post(path: string, body: unknown): Promise<unknown> {
    return this.request("POST", path, body);
  }

  private async request(method: "GET" | "POST", path: string, body: unknown): Promise<unknown> {
    const url = `${this.root}${path}`;
    const headers: Record<string, string> = {};
    if (this.apiKey !== undefined) headers.authorization = `Bearer ${this.apiKey}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw adminError(this.root, `cannot reach ${url}: ${cause}`, undefined, true);
    }
    const text = await res.text();
    if (!res.ok) {
      throw adminError(
        this.root,
        `${url} answered ${res.status}: ${text.slice(0, 300) || "(empty body)"}`,
        res.status,
        isRetryableStatus(res.status),
      );
    }
    if (text.length === 0) return {};
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return { text }; // load_lora_adapter answers plain text ("Success: …")
    }
  }
}

function adminError(endpoint: string, message: string, status: number | undefined, retryable: boolean) {
  const details: EndpointErrorDetails = { endpoint, retryable, ...(status !== undefined ? { status } : {}) };
  return new EnvaceError("ENDPOINT_ERROR", message, details);
}
