// The client: `new Engram({ url, apiKey })`, one method per API route (see routes.ts).

import { resolveSettings, type Settings } from "./config.js";
import { EngramError, EngramTimeoutError, EventsUnavailableError, ServerError, TaskFailedError } from "./errors.js";
import { eventsUrl, LiveEvents, openEvents, type EventStream } from "./events.js";
import { Http, type Call, type FetchLike } from "./http.js";
import { pollDelays, RetryPolicy, sleep, type RetryOptions } from "./retry.js";
import type * as T from "./types.js";

/** Attachments up to this size go inline (base64 in the JSON); larger ones to the presigned upload URL. */
export const INLINE_ATTACHMENT_BYTES = 5 * 1024 * 1024;

export interface EngramOptions {
  /** The API's base URL; default ENGRAM_URL, the config file, then http://127.0.0.1:3000. */
  url?: string;
  /** Sent as x-api-key; default ENGRAM_API_KEY, then the config file. */
  apiKey?: string;
  /** Bounds each HTTP request (default 30 000 ms). */
  timeoutMs?: number;
  /** Bounds each wait for a task (default 120 000 ms). */
  waitTimeoutMs?: number;
  retry?: RetryOptions;
  /** Another fetch (a proxy agent, a test double); default the global fetch. */
  fetch?: FetchLike;
  /** false: an add that waits never tries live events, it polls. */
  events?: boolean;
}

export interface AddOptions {
  user_id: string;
  agent_id?: string;
  run_id?: string;
  metadata?: Record<string, unknown>;
  infer?: boolean;
  deduplicate?: boolean;
  prompt?: "user" | "agent";
  strategy?: "default" | "relevance";
  expires_at?: T.When;
  attachments?: ({ attachment_id: string } | { name: string; media_type: string; content_base64: string; description?: string })[];
  /** When the messages without their own created_at were said (else the server stamps the time it accepted them). */
  created_at?: T.When;
  /** true (default): resolve with the finished task; false: with the queued task's id. */
  wait?: boolean;
}

export interface SearchOptions {
  user_id: string;
  agent_id?: string;
  run_id?: string;
  top_k?: number;
  filters?: { memory_bank?: T.MemoryBank; metadata?: Record<string, unknown> };
  threshold?: number;
  /** Rank the versions that were current at this time. */
  as_of?: T.When;
  /** Only memories said (valid from) within [from, to). */
  time_range?: { from: T.When; to: T.When };
  /** When the question is asked: "last week" resolves against it. */
  now?: T.When;
  graph?: boolean;
  graph_hops?: 1 | 2;
}

export interface ListOptions {
  user_id: string;
  limit?: number;
  cursor?: string;
  agent_id?: string;
  run_id?: string;
  attachment_id?: string;
  memory_bank?: T.MemoryBank;
  is_protected?: boolean;
  fact_key?: string;
  as_of?: T.When;
}

export interface UpdateOptions {
  text?: string;
  metadata?: Record<string, unknown>;
  importance?: number;
  is_protected?: boolean;
  memory_bank?: T.MemoryBank;
  expires_at?: T.When;
}

export interface WaitOptions {
  timeoutMs?: number;
  /** true (default): a failed task throws TaskFailedError; false: it is returned. */
  raiseOnFailure?: boolean;
}

type Cursor = { limit?: number; cursor?: string };

function when(value: T.When): string | number {
  return value instanceof Date ? value.toISOString() : value;
}

function said(messages: T.Messages, at?: T.When): T.Message[] {
  const given = typeof messages === "string" ? [{ role: "user", content: messages }] : Array.isArray(messages) ? messages : [messages];
  return given.map((m) => {
    const stamp = m.created_at ?? at;
    return stamp === undefined ? { ...m } : { ...m, created_at: when(stamp) };
  });
}

const enc = encodeURIComponent;

function base64(data: Uint8Array): string {
  let text = "";
  for (let i = 0; i < data.length; i += 0x8000) text += String.fromCharCode(...data.subarray(i, i + 0x8000));
  return btoa(text);
}

export class Engram {
  private readonly http: Http;
  private readonly settings: Promise<Settings>;
  private readonly waitTimeoutMs: number;
  // undefined: not tried yet; false: no live events here (no WebSocket, or the server refused).
  private eventsOffered: boolean | undefined;

  constructor(options: EngramOptions = {}) {
    this.settings = resolveSettings(options.url, options.apiKey);
    this.settings.catch(() => undefined); // surfaced by the first request, not as an unhandled rejection
    this.waitTimeoutMs = options.waitTimeoutMs ?? 120_000;
    this.eventsOffered = options.events === false ? false : undefined;
    const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.http = new Http(() => this.settings, new RetryPolicy(options.retry), options.timeoutMs ?? 30_000, fetchImpl);
  }

  /** The URL and key in use, once resolved from the arguments, the environment and the config file. */
  resolved(): Promise<Settings> {
    return this.settings;
  }

  private async call<R>(call: Call): Promise<R> {
    return (await this.http.request<R>(call)).body;
  }

  // --- health and schema --------------------------------------------------------------------------

  /** `{status: "ok"}`; `deep: true` (needs the key) checks each dependency and answers its report also
   * when some are down (status "down", `down` naming them) rather than throwing. */
  async health(options: { deep?: boolean } = {}): Promise<T.HealthReport> {
    try {
      return await this.call({ method: "GET", path: "/health", query: { deep: options.deep }, open: !options.deep });
    } catch (error) {
      if (error instanceof ServerError && error.status === 503 && (error.body as T.HealthReport)?.checks) {
        return error.body as T.HealthReport;
      }
      throw error;
    }
  }

  /** The API's OpenAPI document. */
  openapi(): Promise<Record<string, unknown> & { paths: Record<string, Record<string, unknown>> }> {
    return this.call({ method: "GET", path: "/openapi.json", open: true });
  }

  // --- memories -----------------------------------------------------------------------------------

  /** Queue messages for extraction (a string is one user message). With `wait` (default) resolve with the
   * finished task, whose `results` say what changed; a failed task throws TaskFailedError. */
  add(messages: T.Messages, options: AddOptions & { wait: false }): Promise<T.Accepted>;
  add(messages: T.Messages, options: AddOptions): Promise<T.Task>;
  async add(messages: T.Messages, options: AddOptions): Promise<T.Task | T.Accepted> {
    const { wait = true, created_at, ...rest } = options;
    const call: Call = { method: "POST", path: "/v1/memories", body: { ...rest, messages: said(messages, created_at) } };
    if (!wait) return this.call<T.Accepted>(call);
    const stream = await this.subscribe(options.user_id); // before the add, so no event is missed
    try {
      const accepted = await this.call<T.Accepted>(call);
      if (stream) await stream.waitFor(accepted.task_id, this.waitTimeoutMs);
      return await this.waitForTask(accepted.task_id); // one read when the event came; polling when not
    } finally {
      stream?.close();
    }
  }

  private async subscribe(userId: string): Promise<EventStream | undefined> {
    if (this.eventsOffered === false) return undefined;
    try {
      const stream = await this.events({ user_id: userId });
      this.eventsOffered = true;
      return stream;
    } catch (error) {
      if (!(error instanceof EventsUnavailableError)) throw error;
      this.eventsOffered = false;
      return undefined;
    }
  }

  /** Write exported memories (up to 500) as they were, for `user_id`; re-importing adds nothing
   * (`counts.skipped`). With `wait` (default) resolve with the finished task. */
  importMemories(memories: Record<string, unknown>[], options: { user_id: string; agent_id?: string; run_id?: string; wait: false }): Promise<T.Accepted>;
  importMemories(memories: Record<string, unknown>[], options: { user_id: string; agent_id?: string; run_id?: string; wait?: boolean }): Promise<T.Task>;
  async importMemories(memories: Record<string, unknown>[], options: { user_id: string; agent_id?: string; run_id?: string; wait?: boolean }): Promise<T.Task | T.Accepted> {
    const { wait = true, ...rest } = options;
    const accepted = await this.call<T.Accepted>({ method: "POST", path: "/v1/memories/import", body: { ...rest, memories } });
    return wait ? this.waitForTask(accepted.task_id) : accepted;
  }

  /** The tenant's memory policy: instructions, include, exclude and custom prompts. */
  getConfig(): Promise<Record<string, unknown>> {
    return this.call({ method: "GET", path: "/v1/config" });
  }

  /** Replaces the tenant's memory policy whole (fields left out are reset). */
  putConfig(config: { instructions?: string | null; include?: string[]; exclude?: string[]; prompts?: Record<string, string | null> }): Promise<Record<string, unknown>> {
    return this.call({ method: "PUT", path: "/v1/config", body: config });
  }

  /** How the memory policy reads a sentence: per clause kept, excluded or not included, the reason and the
   * closest bank or topic (the tenant's policy, plus the user's own with `user_id`, or `policy` instead). */
  testPolicy(request: { text: string; user_id?: string; policy?: { include?: string[]; exclude?: string[]; examples?: Record<string, string[]> } }): Promise<Record<string, unknown>> {
    return this.call({ method: "POST", path: "/v1/config/policy/test", body: request });
  }

  /** OpenAI's chat completions through Engram (non-streaming): the user's memories are added to the
   * system prompt and the exchange is remembered. `user` is the Engram user id. */
  chatCompletions(request: { user: string; messages: Record<string, unknown>[]; model?: string } & Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.call({ method: "POST", path: "/v1/chat/completions", body: { ...request, stream: false } });
  }

  search(query: string, options: SearchOptions): Promise<T.SearchResults> {
    const { time_range, ...rest } = options;
    const body = { ...rest, query, ...(time_range && { time_range: { from: when(time_range.from), to: when(time_range.to) } }) };
    return this.call({ method: "POST", path: "/v1/memories/search", body });
  }

  /** One memory; `includeSource` adds `source_messages`, the messages it came from. */
  get(memoryId: string, options: { includeSource?: boolean } = {}): Promise<T.Memory> {
    return this.call({ method: "GET", path: `/v1/memories/${enc(memoryId)}`, query: { include: options.includeSource ? "source" : undefined } });
  }

  /** One page of the user's memories; `next_cursor` names the next. */
  listPage(options: ListOptions): Promise<T.Page<T.Memory>> {
    return this.call({ method: "GET", path: "/v1/memories", query: options });
  }

  /** Every memory of the user, page after page, fetched as the iteration goes. */
  async *list(options: Omit<ListOptions, "cursor">): AsyncGenerator<T.Memory> {
    yield* pages((cursor) => this.listPage({ ...options, cursor }));
  }

  /** A new version: text and/or metadata, importance, is_protected, memory_bank, expires_at. */
  update(memoryId: string, changes: UpdateOptions): Promise<T.Memory> {
    return this.call({ method: "PATCH", path: `/v1/memories/${enc(memoryId)}`, body: changes });
  }

  delete(memoryId: string): Promise<T.Deleted> {
    return this.call({ method: "DELETE", path: `/v1/memories/${enc(memoryId)}` });
  }

  /** Forget every memory of the user. The server does it as a task; with `wait` (default) this resolves
   * once it completed, with the count deleted. */
  async deleteAll(userId: string, options: { wait?: boolean } = {}): Promise<T.Deleted> {
    const answer = await this.call<T.Deleted>({ method: "DELETE", path: "/v1/memories", query: { user_id: userId } });
    if (!answer.task_id || options.wait === false) return answer;
    const task = await this.waitForTask(answer.task_id);
    return { ...answer, status: task.status, deleted: task.counts.deleted ?? 0 };
  }

  /** A page of the memory's history, oldest first. */
  history(memoryId: string, options: Cursor = {}): Promise<T.Page<T.HistoryEntry>> {
    return this.call({ method: "GET", path: `/v1/memories/${enc(memoryId)}/history`, query: options });
  }

  // --- tasks --------------------------------------------------------------------------------------

  task(taskId: string): Promise<T.Task> {
    return this.call({ method: "GET", path: `/v1/tasks/${enc(taskId)}` });
  }

  /** Poll the task, quickly at first then up to once a second, until it completed or failed. */
  async waitForTask(taskId: string, options: WaitOptions = {}): Promise<T.Task> {
    const timeoutMs = options.timeoutMs ?? this.waitTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    for (const delay of pollDelays()) {
      const task = await this.task(taskId);
      if (task.status === "completed" || task.status === "failed") {
        if (task.status === "failed" && options.raiseOnFailure !== false) throw new TaskFailedError(task);
        return task;
      }
      if (Date.now() + delay * 1000 > deadline) {
        throw new EngramTimeoutError(`task ${taskId} still ${task.status} after ${timeoutMs} ms`);
      }
      await sleep(delay);
    }
    throw new Error("unreachable: pollDelays never ends");
  }

  // --- attachments --------------------------------------------------------------------------------

  /** Store a file: up to 5 MiB inline, larger through the presigned URL the server hands out (uploaded
   * here). Without `data` the answer's `upload_url` is for the caller. */
  async createAttachment(file: { name: string; media_type: string; description?: string; data?: Uint8Array }): Promise<T.AttachmentCreated> {
    const { data, ...rest } = file;
    const inline = data !== undefined && data.length <= INLINE_ATTACHMENT_BYTES;
    const body = { ...rest, ...(inline && { content_base64: base64(data) }) };
    const created = await this.call<T.AttachmentCreated>({ method: "POST", path: "/v1/attachments", body });
    if (data && !inline && created.upload_url && !created.stored) {
      await this.http.direct(created.upload_url, { method: "PUT", body: data as unknown as BodyInit, headers: { "content-type": file.media_type } });
    }
    return created;
  }

  /** The attachment, a download URL and one page of the memories holding it. */
  attachment(attachmentId: string, options: Cursor = {}): Promise<T.Attachment> {
    return this.call({ method: "GET", path: `/v1/attachments/${enc(attachmentId)}`, query: options });
  }

  async downloadAttachment(attachmentId: string): Promise<Uint8Array> {
    const found = await this.attachment(attachmentId);
    if (!found.download_url) throw new EngramError(`attachment ${attachmentId} has no content to download`);
    return new Uint8Array(await (await this.http.direct(found.download_url, { method: "GET" })).arrayBuffer());
  }

  // --- graph --------------------------------------------------------------------------------------

  /** Entities and relations of the user (current, or current at `as_of`), each list with its own cursor. */
  graph(options: { user_id: string; limit?: number; entity_cursor?: string; relation_cursor?: string; as_of?: T.When; relations?: "all" }): Promise<T.Graph> {
    return this.call({ method: "GET", path: "/v1/graph", query: options });
  }

  /** One entity with all its relations, closed ones included. */
  entity(entityId: string): Promise<T.Entity & { relations: T.Relation[] }> {
    return this.call({ method: "GET", path: `/v1/graph/entities/${enc(entityId)}` });
  }

  /** Close one relation (kept with valid_to). */
  deleteRelation(relationId: string): Promise<T.RelationDeleted> {
    return this.call({ method: "DELETE", path: `/v1/graph/relations/${enc(relationId)}` });
  }

  // --- users, maintenance, usage, queue -----------------------------------------------------------

  /** A page of the tenant's users (those who have memories). */
  users(options: Cursor = {}): Promise<T.Page<T.User>> {
    return this.call({ method: "GET", path: "/v1/users", query: options });
  }

  async *allUsers(pageSize = 100): AsyncGenerator<T.User> {
    yield* pages((cursor) => this.users({ limit: pageSize, cursor }));
  }

  startMaintenance(options: { actions: T.MaintenanceAction[]; user_id?: string }): Promise<{ execution_id: string; status: string }> {
    return this.call({ method: "POST", path: "/v1/maintenance", body: options });
  }

  maintenance(executionId: string): Promise<T.MaintenanceRun> {
    return this.call({ method: "GET", path: `/v1/maintenance/${enc(executionId)}` });
  }

  /** The tenant's use per UTC day, `from` and `to` as YYYY-MM-DD (default the last 30 days). */
  usage(options: { from?: string; to?: string } = {}): Promise<T.UsageReport> {
    return this.call({ method: "GET", path: "/v1/usage", query: options });
  }

  queueMetrics(options: { window?: "hour" | "day" } = {}): Promise<T.QueueFigures> {
    return this.call({ method: "GET", path: "/v1/metrics/extraction-queue", query: options });
  }

  // --- live events --------------------------------------------------------------------------------

  /** The tenant's task events (narrowed to `user_id`), as an async iterable: `for await` them. Where the
   * runtime has no global WebSocket or the server offers no events, the loop throws EventsUnavailableError
   * (catch it and poll with waitForTask). `await` it for the open stream; close it when done. */
  events(options: { user_id?: string; openTimeoutMs?: number } = {}): LiveEvents {
    return new LiveEvents(async () => {
      const { url, apiKey } = await this.settings;
      return openEvents(eventsUrl(url, apiKey, options.user_id), options.openTimeoutMs);
    });
  }
}

async function* pages<R>(fetchPage: (cursor: string | undefined) => Promise<T.Page<R>>): AsyncGenerator<R> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.results;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}
