// Exceptions the SDK throws, one class per kind of failure, built from the API's error bodies
// (the same kinds as the Python SDK's engram_client.errors).

/** Anything that went wrong talking to Engram. */
export class EngramError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The server could not be reached (after the retries). */
export class EngramConnectionError extends EngramError {}

/** A request, or a wait for a task, took longer than allowed. */
export class EngramTimeoutError extends EngramError {}

/** This runtime or this server offers no live events (no global WebSocket, or the upgrade was refused). */
export class EventsUnavailableError extends EngramError {}

/** One input the API rejected: `field` is its path (`messages.0.created_at`), `message` why. */
export interface FieldError {
  field: string;
  message: string;
}

/** The API answered an error status. `body` is its JSON (or text); `field` names the first input at fault. */
export class APIError extends EngramError {
  readonly status: number;
  readonly body: unknown;
  readonly field: string | undefined;
  /** Every input at fault (a 422 may name several); empty when the answer named none. */
  readonly fields: FieldError[];
  readonly detail: string;

  constructor(status: number, detail: string, body?: unknown, fields: FieldError[] = [], field?: string) {
    const named = field ?? fields[0]?.field;
    super(`${status}: ${detail}` + (named ? ` (field: ${named})` : ""));
    this.status = status;
    this.detail = detail;
    this.body = body;
    this.fields = fields;
    this.field = named;
  }
}

/** 400 or 422: the request is wrong; retrying it will not help. */
export class BadRequestError extends APIError {}
/** 401 or 403: the API key is missing, wrong or revoked. */
export class AuthenticationError extends APIError {}
/** 404: no such memory, task, attachment, entity or run for this API key's tenant. */
export class NotFoundError extends APIError {}
/** 409: a concurrent change won; read again and retry. */
export class ConflictError extends APIError {}
/** 413: over a size limit the message names. */
export class PayloadTooLargeError extends BadRequestError {}
/** 429: still throttled after the retries; `retryAfter` is the server's last hint in seconds. */
export class RateLimitError extends APIError {
  retryAfter: number | undefined;
}
/** 5xx: still failing after the retries. */
export class ServerError extends APIError {}

/** An add, import or delete-all task ended `failed`; `task` holds its error and attempts. */
export class TaskFailedError extends EngramError {
  readonly task: { task_id: string; error?: string | null };
  constructor(task: { task_id: string; error?: string | null }) {
    super(`task ${task.task_id} failed: ${task.error ?? "no error given"}`);
    this.task = task;
  }
}

const BY_STATUS: Record<number, typeof APIError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: AuthenticationError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  422: BadRequestError,
  429: RateLimitError,
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The error for an answer. Bodies are `{error, message, field?, detail?}` (docs/errors.md; a 422 lists
 * `detail: [{field, loc, type, message}]`); older servers' API Gateway answers carry only `message` (or
 * `Message`). `hint` says what to do, added when the message does not say it. */
export function errorFor(status: number, body: unknown, retryAfter?: number, hint?: string): APIError {
  let detail = `HTTP ${status}`;
  let field: string | undefined;
  let fields: FieldError[] = [];
  if (isRecord(body)) {
    const said = body.message ?? body.Message ?? body.error;
    if (typeof said === "string" && said) detail = said;
    if (typeof body.field === "string") field = body.field;
    if (Array.isArray(body.detail)) {
      fields = body.detail.filter(isRecord).map((d) => ({
        field: String(d.field ?? (Array.isArray(d.loc) ? d.loc.join(".") : "body")),
        message: String(d.message ?? d.msg ?? ""),
      }));
      if (fields.length) detail = fields.map((f) => `${f.field}: ${f.message}`).join("; ");
    }
  } else if (typeof body === "string" && body) {
    detail = body.slice(0, 500);
  }
  // What to do (which setting), when the server's message does not say it already.
  if (hint && !detail.includes("ENGRAM_API_KEY")) detail = `${detail} (${hint})`;
  const Kind = BY_STATUS[status] ?? (status >= 500 ? ServerError : APIError);
  const error = new Kind(status, detail, body, fields, field);
  if (error instanceof RateLimitError) error.retryAfter = retryAfter;
  return error;
}
