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
        const name = (error as Error).name;
        const Kind = name === "TimeoutError" || name === "AbortError" ? EngramTimeoutError : EngramConnectionError;
        throw new Kind(`${call.method} ${call.path}: ${String(error)}`, { cause: error });
      }
      const retryAfter = response.headers.get("retry-after");
      if (response.ok) return { status: response.status, body: (await bodyOf(response)) as T };
      if (canRetry && this.retry.retriesStatus(call.method, response.status)) {
        await response.body?.cancel();
        await sleep(this.retry.delay(attempt, retryAfter));
        continue;
      }
      throw errorFor(response.status, await bodyOf(response), retryAfterSeconds(retryAfter));
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
