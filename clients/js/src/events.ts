// Live task events over WebSocket (`/v1/events` on the API's host and port), where the server offers them.
// Uses the runtime's global WebSocket (browsers, Deno, Bun, Node 22+; Node 20 with --experimental-websocket);
// without one, or when the server refuses the upgrade, EventsUnavailableError is thrown and callers poll.

import { EventsUnavailableError } from "./errors.js";
import type { TaskEvent } from "./types.js";

export const FINAL_EVENTS = new Set(["memory_extraction_completed", "memory_extraction_failed"]);

/** The events URL for an API base URL, as the Python SDK builds it; the key goes in `?api_key=` since a
 * standard WebSocket cannot send headers. */
export function eventsUrl(baseUrl: string, apiKey?: string, userId?: string): string {
  const url = new URL(baseUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.pathname = url.pathname.replace(/\/+$/, "") + "/v1/events";
  if (userId) url.searchParams.set("user_id", userId);
  if (apiKey) url.searchParams.set("api_key", apiKey);
  return url.toString();
}

/** An open subscription: `for await` it for events, or `waitFor(taskId)` for the end of one task. */
export class EventStream implements AsyncIterable<TaskEvent> {
  private readonly queue: TaskEvent[] = [];
  private waiting: (() => void) | undefined;
  private closed = false;
  /** True once `close()` was called (false when the server or the network ended the stream). */
  closedByClient = false;

  constructor(private readonly socket: WebSocket) {
    socket.addEventListener("message", (message) => {
      try {
        const event: unknown = JSON.parse(String(message.data));
        if (event && typeof event === "object" && !Array.isArray(event)) this.queue.push(event as TaskEvent);
      } catch {
        return; // not JSON: not an event
      }
      this.wake();
    });
    socket.addEventListener("close", () => {
      this.closed = true;
      this.wake();
    });
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }

  /** The next event, or undefined once the stream closed or `timeoutMs` passed. */
  async next(timeoutMs = Infinity): Promise<TaskEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0 && !this.closed) {
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = Number.isFinite(left) ? setTimeout(resolve, left) : undefined;
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.queue.shift();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<TaskEvent> {
    for (let event = await this.next(); event; event = await this.next()) yield event;
  }

  /** True once the task's completed or failed event arrived; false after `timeoutMs` or when the server
   * closed the stream (the caller then reads the task itself). */
  async waitFor(taskId: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = await this.next(deadline - Date.now());
      if (!event) return false;
      if (event.task_id === taskId && FINAL_EVENTS.has(event.type)) return true;
    }
  }

  close(): void {
    this.closedByClient = true;
    this.closed = true;
    this.socket.close();
    this.wake();
  }
}

/** What `Engram.events()` returns at once: `for await` it (the subscription opens as soon as it is made);
 * the loop ends with an EventsUnavailableError to catch where the runtime or server offers no events, or
 * when the server ends the stream. `await` it for the open EventStream (its `waitFor`, `next`). */
export class LiveEvents implements AsyncIterable<TaskEvent>, PromiseLike<EventStream> {
  private readonly opening: Promise<EventStream>;

  constructor(open: () => Promise<EventStream>) {
    this.opening = open();
    this.opening.catch(() => undefined); // thrown where the caller iterates or awaits, not as unhandled
  }

  then<A = EventStream, B = never>(
    onOpen?: ((stream: EventStream) => A | PromiseLike<A>) | null,
    onError?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.opening.then(onOpen, onError);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TaskEvent> {
    const stream = await this.opening;
    try {
      yield* stream;
      if (!stream.closedByClient) {
        throw new EventsUnavailableError("the server ended the event stream; read tasks with waitForTask");
      }
    } finally {
      if (!stream.closedByClient) stream.close(); // the loop ended early (break, an error): let go of it
    }
  }

  /** Stops the subscription (a loop over it ends). */
  close(): void {
    this.opening.then((stream) => stream.close(), () => undefined);
  }
}

export async function openEvents(url: string, openTimeoutMs = 5000): Promise<EventStream> {
  const Socket = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  if (typeof Socket !== "function") {
    throw new EventsUnavailableError(
      "live events need a global WebSocket, which this runtime lacks (Node 22+ has one; on Node 20 run " +
        "node --experimental-websocket); wait for tasks with waitForTask instead",
    );
  }
  const socket = new Socket(url);
  const shown = url.replace(/api_key=[^&]*/, "api_key=***");
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new EventsUnavailableError(`${shown} did not open within ${openTimeoutMs} ms`));
    }, openTimeoutMs);
    socket.addEventListener("open", () => {
      clearTimeout(timer);
      resolve();
    });
    socket.addEventListener("error", () => {
      clearTimeout(timer);
      reject(new EventsUnavailableError(`${shown} refused the upgrade`));
    });
  });
  return new EventStream(socket);
}
