// Extraction status as toasts: the task event WebSocket when the API offers it, else polling the task.
import { call, key } from "./api.js";

const LABELS = {
  memory_extraction_queued: "Extraction queued",
  memory_extraction_processing: "Extraction processing",
  memory_extraction_completed: "Extraction completed",
  memory_extraction_failed: "Extraction failed",
};

export function toast(text, kind = "") {
  const box = document.getElementById("toasts");
  const el = document.createElement("div");
  el.className = "toast " + kind;
  el.textContent = text;
  box.append(el);
  setTimeout(() => el.remove(), 6000);
}

export function showEvent(event) {
  const kind = event.type.replace("memory_extraction_", "");
  let text = LABELS[event.type] || event.type;
  if (kind === "completed") text += `: ${event.facts_count ?? (event.results || []).length} memories changed`;
  if (kind === "failed") text += `: ${event.error || "unknown error"}` + (event.will_retry ? " (will retry)" : "");
  if (event.status === "waiting") text = `Extraction waiting: ${event.error || "the model is unavailable"}`;
  toast(text, kind);
}

// Sockets are optional: `onEvent` gets each event; returns whether events flow over the socket.
export function connect(userId, onEvent) {
  return new Promise((resolve) => {
    let socket;
    try {
      const url = new URL("/v1/events", location.href);
      url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
      url.search = new URLSearchParams({ api_key: key.get(), user_id: userId }).toString();
      socket = new WebSocket(url);
    } catch {
      resolve(null);
      return;
    }
    const timer = setTimeout(() => { socket.close(); resolve(null); }, 3000);
    socket.onopen = () => { clearTimeout(timer); resolve(socket); };
    socket.onerror = () => { clearTimeout(timer); resolve(null); };
    socket.onmessage = (m) => {
      try { onEvent(JSON.parse(m.data)); } catch { /* a frame that is not an event is ignored */ }
    };
  });
}

const STATUS_EVENT = {
  queued: "memory_extraction_queued",
  processing: "memory_extraction_processing",
  completed: "memory_extraction_completed",
  failed: "memory_extraction_failed",
};

// Without the socket: poll the task and turn each status change into the same event shape.
export async function follow(taskId, userId, onEvent) {
  let last = "queued";
  for (let i = 0; i < 240; i++) {
    await new Promise((r) => setTimeout(r, i < 20 ? 500 : 2000));
    const task = await call("GET", `/v1/tasks/${encodeURIComponent(taskId)}`);
    if (task.status === last) continue;
    last = task.status;
    const type = STATUS_EVENT[task.status] || "memory_extraction_processing";
    onEvent({ type, task_id: taskId, user_id: userId, status: task.status, results: task.results,
      facts_count: (task.results || []).length, error: task.error, attempts: task.attempts });
    if (task.status === "completed" || task.status === "failed") return;
  }
}
