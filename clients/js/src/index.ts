export { Engram, INLINE_ATTACHMENT_BYTES } from "./client.js";
export type { AddOptions, EngramOptions, ListOptions, SearchOptions, UpdateOptions, WaitOptions } from "./client.js";
export * from "./errors.js";
export { DEFAULT_URL, parseConfig, resolveSettings, type Settings } from "./config.js";
export { EventStream, eventsUrl, FINAL_EVENTS, LiveEvents } from "./events.js";
export { RetryPolicy, type RetryOptions } from "./retry.js";
export { ROUTES, type RouteName } from "./routes.js";
export type * from "./types.js";
