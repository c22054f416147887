import OpenAI from "openai";
import { EnvaceError } from "../core/errors.js";

/** What an `ENDPOINT_ERROR` carries in `details`, so that pools can decide whether to retry. */
export interface EndpointErrorDetails {
  endpoint: string;
  /** HTTP status, absent for connection failures and timeouts. */
  status?: number;
  /** 5xx, 408, 429, timeouts and refused connections are worth another try; 4xx are not. */
  retryable: boolean;
}

export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** Maps an `openai` client error to `EnvaceError(ENDPOINT_ERROR)`; user aborts pass through. */
export function toEndpointError(err: unknown, endpoint: string): unknown {
  if (err instanceof OpenAI.APIUserAbortError) return err;
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return endpointError(endpoint, `timed out: ${endpoint}`, undefined, true, err);
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return endpointError(endpoint, `cannot connect to ${endpoint}: ${err.message}`, undefined, true, err);
  }
  if (err instanceof OpenAI.APIError && typeof err.status === "number") {
    return endpointError(
      endpoint,
      `${endpoint} answered ${err.status}: ${err.message}`,
      err.status,
      isRetryableStatus(err.status),
      err,
    );
  }
  return err;
}

function endpointError(
  endpoint: string,
  message: string,
  status: number | undefined,
  retryable: boolean,
  cause: unknown,
): EnvaceError {
  const details: EndpointErrorDetails = { endpoint, retryable, ...(status !== undefined ? { status } : {}) };
  const e = new EnvaceError("ENDPOINT_ERROR", message, details);
  (e as { cause?: unknown }).cause = cause;
  return e;
}

/** True for errors a pool should retry or fail over on. */
export function isRetryableError(err: unknown): boolean {
  if (err instanceof EnvaceError) {
    if (err.code === "WORKER_UNAVAILABLE") return true;
    if (err.code !== "ENDPOINT_ERROR") return false;
    return (err.details as Partial<EndpointErrorDetails> | undefined)?.retryable === true;
  }
  return false;
}
