// One request with retries: the only place that calls fetch for the API.

import { EngramConnectionError, EngramTimeoutError, errorFor } from "./errors.js";
import { RetryPolicy, retryAfterSeconds, sleep } from "./retry.js";

export const USER_AGENT = "engram-client-js/0.1";

/** Query parameters: undefined and null are left out, a Date is sent as ISO-8601. */
export type Query = object;

export interface Call {
  method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT";
  path: string;
  query?: Query;
  body?: unknown;
  /** Send no API key (the open routes). */
  open?: boolean;
}

export interface Answer<T> {
  status: number;
  body: T;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

function queryString(query?: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {}) as [string, unknown][]) {
    if (value === undefined || value === null) continue;
    params.set(key, value instanceof Date ? value.toISOString() : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The failure naming the URL tried and the setting that chooses it. */
function unreachable(method: string, target: string, error: unknown): Error {
  const name = (error as Error).name;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = [String(error), cause?.code ?? cause?.message].filter(Boolean).join(": ");
  if (name === "TimeoutError" || name === "AbortError") {
    return new EngramTimeoutError(`${method} ${target} timed out (${reason})`, { cause: error });
  }
  return new EngramConnectionError(
    `cannot reach Engram at ${target} (${reason}): is the server running? Set ENGRAM_URL (or { url }) to where it listens`,
    { cause: error },
  );
}

/** What to do about a 401 / 403: the setting that gives the key, and whether one was sent. */
function keyHint(status: number, sent: boolean, url: string): string | undefined {
  if (status !== 401 && status !== 403) return undefined;
  if (!sent) return "no API key was sent: set ENGRAM_API_KEY (or { apiKey }, or api_key in the config file)";
  return `the server at ${new URL(url).origin} refused the API key: check ENGRAM_API_KEY`;
}

export class Http {
  constructor(
    private readonly settings: () => Promise<{ url: string; apiKey: string | undefined }>,
    private readonly retry: RetryPolicy,
    private readonly timeoutMs: number,
    private readonly fetchImpl: FetchLike,
  ) {}

  async request<T>(call: Call): Promise<Answer<T>> {
    const { url, apiKey } = await this.settings();
    const headers: Record<string, string> = { accept: "application/json", "user-agent": USER_AGENT };
    if (apiKey && !call.open) headers["x-api-key"] = apiKey;
    if (call.body !== undefined) headers["content-type"] = "application/json";
    const target = url + call.path + queryString(call.query);
    const init = { method: call.method, headers, body: call.body === undefined ? undefined : JSON.stringify(call.body) };
    for (let attempt = 1; ; attempt++) {
      const canRetry = attempt < this.retry.attempts;
      let response: Response;
      try {
        response = await this.fetchImpl(target, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
      } catch (error) {
        if (canRetry && this.retry.retriesError(call.method, error)) {
          await sleep(this.retry.delay(attempt));
          continue;
        }
        throw unreachable(call.method, target, error);
      }
      const retryAfter = response.headers.get("retry-after");
      if (response.ok) return { status: response.status, body: (await bodyOf(response)) as T };
      // x-should-retry: false marks an answer trying again will not change (a setting the server lacks).
      const retry = response.headers.get("x-should-retry")?.toLowerCase() !== "false";
      if (canRetry && retry && this.retry.retriesStatus(call.method, response.status)) {
        await response.body?.cancel();
        await sleep(this.retry.delay(attempt, retryAfter));
        continue;
      }
      const hint = keyHint(response.status, headers["x-api-key"] !== undefined, url);
      throw errorFor(response.status, await bodyOf(response), retryAfterSeconds(retryAfter), hint);
    }
  }

  /** A request outside the API (a presigned upload or download): its error status as a typed error. */
  async direct(url: string, init: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await this.fetchImpl(url, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      throw new EngramConnectionError(`${init.method ?? "GET"} ${url}: ${String(error)}`, { cause: error });
    }
    if (!response.ok) throw errorFor(response.status, await bodyOf(response));
    return response;
  }
}
