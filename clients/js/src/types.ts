// The API's shapes (docs/api.md and /openapi.json). Fields are the API's own snake_case names.

/** When something was said: a Date, Unix seconds, or ISO-8601 text with a zone. */
export type When = Date | number | string;

export interface Message {
  role: "user" | "assistant" | "system" | "tool" | string;
  content: string;
  name?: string;
  created_at?: When;
}

export type Messages = string | Message | Message[];

export type MemoryBank = "Personal" | "Work" | "Relationships" | "Health" | "Interests" | "Events" | "General";

/** One thing a memory states: a value of an attribute of a subject ("user", or someone or something named). */
export interface Statement {
  subject: string;
  attribute: string;
  value: string;
  polarity: "asserted" | "ended" | "denied" | "hedged" | "past";
  /** One value at a time (a newer one outdates it), or many. */
  single: boolean;
  event_time?: string | null;
  /** The memory whose later statement replaced or ended this one. */
  outdated_by?: string | null;
}

export interface MemorySource {
  task_id: string;
  message_index?: number | null;
  role?: "user" | "assistant" | "tool" | null;
  name?: string | null;
  span?: [number, number] | null;
  at?: string | null;
  via?: "add" | "as_given" | "patch"; // read from a message, stored with infer: false, or a correction
}

export interface Memory {
  id: string;
  memory: string;
  user_id: string;
  agent_id?: string | null;
  run_id?: string | null;
  metadata: Record<string, unknown>;
  memory_bank: MemoryBank;
  fact_key?: string | null;
  fact_value?: string | null;
  importance: number;
  is_protected: boolean;
  attachments: { id: string; name?: string | null; media_type?: string | null }[];
  version: number;
  valid_from: string;
  valid_to?: string | null;
  created_at: string;
  updated_at: string;
  last_accessed_at?: string | null;
  access_count?: number;
  expires_at?: string | null;
  kind?: "fact" | "episode";
  episode_id?: string | null;
  outdated_by?: string[];
  /** What it states, read when it was written and again when its text changes. */
  statements?: Statement[];
  source?: MemorySource | null;
  source_messages?: { role: string; content: string; name?: string | null; created_at?: string | null }[];
  score?: number;
  [extra: string]: unknown;
}

export interface Page<T> {
  results: T[];
  next_cursor?: string | null;
}

export interface Relation {
  id: string;
  source: string;
  relation: string;
  destination: string;
  source_entity_id: string;
  destination_entity_id: string;
  valid_from: string;
  valid_to?: string | null;
  score?: number | null;
  memory_ids?: string[];
  closed_by?: string | null;
  refined_from?: string | null;
}

export interface SearchResults {
  results: Memory[];
  relations?: Relation[];
}

export type TaskStatus = "queued" | "processing" | "waiting" | "completed" | "failed";

export interface TaskResult {
  id: string;
  memory: string;
  event: "ADD" | "UPDATE" | "DELETE" | "NONE" | string;
  previous_memory?: string | null;
  attachments?: unknown[];
  note?: string | null;
}

export interface Task {
  task_id: string;
  kind?: string;
  status: TaskStatus;
  results: TaskResult[];
  error?: string | null;
  counts: Record<string, number>;
  note?: string | null;
  usage: { llm_calls?: number; prompt_tokens?: number; completion_tokens?: number };
  attempts: number;
  created_at: string;
  updated_at: string;
}

export interface Accepted {
  task_id: string;
  status: TaskStatus;
}

export interface HistoryEntry {
  id: string;
  memory_id: string;
  event: string;
  old_memory?: string | null;
  new_memory?: string | null;
  actor: string;
  task_id?: string | null;
  version: number;
  attachments_added: string[];
  attachments_removed: string[];
  note?: string | null;
  created_at: string;
}

export interface Deleted {
  deleted?: number;
  message?: string;
  task_id?: string;
  status?: string;
}

export interface AttachmentCreated {
  attachment_id: string;
  upload_url?: string | null;
  stored: boolean;
}

export interface Attachment {
  id: string;
  name: string;
  media_type: string;
  size?: number | null;
  checksum?: string | null;
  description?: string | null;
  stored: boolean;
  deleted: boolean;
  created_at: string;
  download_url?: string | null;
  memory_ids: string[];
  next_cursor?: string | null;
}

export interface Entity {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  created_at: string;
  updated_at?: string | null;
}

export interface Graph {
  entities: Entity[];
  relations: Relation[];
  next_entity_cursor?: string | null;
  next_relation_cursor?: string | null;
}

export interface RelationDeleted {
  id: string;
  valid_to?: string | null;
  message: string;
}

export interface User {
  user_id: string;
  last_active_at: string;
}

export type MaintenanceAction = "repair" | "expire" | "dedupe" | "summarise" | "prune";

export interface MaintenanceRun {
  execution_id: string;
  status: string;
  actions?: MaintenanceAction[] | null;
  user_id?: string | null;
  started_at?: string | null;
  stopped_at?: string | null;
  error?: string | null;
  report?: unknown;
}

export interface UsageDay {
  date: string;
  llm_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  adds: number;
  failed_adds: number;
  searches: number;
  memories_stored: number;
}

export interface UsageReport {
  from: string;
  to: string;
  days: UsageDay[];
  totals: UsageDay;
}

export interface QueueFigures {
  pending: number;
  processing: number;
  completed: number;
  failed: number;
  avg_duration_sec: number;
  oldest_pending_age_sec: number;
}

export interface HealthReport {
  status: string;
  checks?: Record<string, { ok: boolean; latency_ms: number; error?: string | null; detail?: string | null }> | null;
  down?: string[] | null;
}

/** A live task event (`memory_extraction_queued`, `_processing`, `_completed`, `_failed`). */
export interface TaskEvent {
  type: string;
  task_id?: string;
  user_id?: string;
  status?: string;
  [extra: string]: unknown;
}
