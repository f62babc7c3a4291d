// When to retry a request and how long to wait, as the Python SDK does: exponential backoff with full
// jitter, honouring Retry-After. Throttling (429) and an unavailable gateway (502/503/504) are retried for
// every method: the request was not processed. A 500 or a connection dropped after sending is retried only
// for reads and deletes, since a repeated POST could store an input twice.

export const ALWAYS_RETRIED = new Set([429, 502, 503, 504]);
export const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "DELETE", "PUT"]);

export interface RetryOptions {
  /** Tries in all, the first included (default 4). */
  attempts?: number;
  /** Seconds: the first backoff's ceiling (default 0.25), doubled each try. */
  baseDelay?: number;
  /** Seconds: no wait is longer, Retry-After included (default 8). */
  maxDelay?: number;
}

export class RetryPolicy {
  readonly attempts: number;
  readonly baseDelay: number;
  readonly maxDelay: number;

  constructor(options: RetryOptions = {}) {
    this.attempts = options.attempts ?? 4;
    this.baseDelay = options.baseDelay ?? 0.25;
    this.maxDelay = options.maxDelay ?? 8;
  }

  /** Seconds to wait before try `attempt + 1` (attempt counts from 1). */
  delay(attempt: number, retryAfter?: string | null): number {
    const hinted = retryAfterSeconds(retryAfter);
    if (hinted !== undefined) return Math.min(this.maxDelay, Math.max(0, hinted));
    return Math.random() * Math.min(this.maxDelay, this.baseDelay * 2 ** (attempt - 1));
  }

  retriesStatus(method: string, status: number): boolean {
    return ALWAYS_RETRIED.has(status) || (status >= 500 && IDEMPOTENT.has(method));
  }

  retriesError(method: string, error: unknown): boolean {
    // A refused connection never reached the server; anything later might have.
    return isRefused(error) || IDEMPOTENT.has(method);
  }
}

/** Retry-After as seconds: a number of seconds or an HTTP date. */
export function retryAfterSeconds(value?: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}

function isRefused(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: string }).code;
    if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Waits between task polls, in seconds: quick at first (offline extraction takes a fraction of a second). */
export function* pollDelays(first = 0.05, factor = 1.5, cap = 1): Generator<number> {
  let delay = first;
  for (;;) {
    yield delay;
    delay = Math.min(cap, delay * factor);
  }
}

export const sleep = (seconds: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, seconds * 1000));
