// The memory page: key entry, user pick, list/search/edit/history/protect/delete, notes, live status.
import { call, key, qs } from "./api.js";
import { connect, follow, showEvent, toast } from "./live.js";
import { BANKS, el, historyItem, isOutdated, memoryRow, relationsBlock, relationsOf } from "./views.js";

const $ = (id) => document.getElementById(id);
const PAGE = 100;  // memories per request; rows are appended, never re-rendered
const state = { user: "", cursor: null, searching: false, socket: null, shown: 0, scanned: 0, generation: 0 };

function showError(err) {
  const box = $("error");
  box.textContent = err ? err.message : "";
  box.hidden = !err;
}

// Every action goes through here: errors are shown in words, never swallowed.
async function guarded(action) {
  try {
    showError(null);
    return await action();
  } catch (err) {
    showError(err);
    if (err.status === 401 || err.status === 403) $("workspace").hidden = true;
    return undefined;
  }
}

async function loadUsers() {
  const page = await call("GET", "/v1/users?" + qs({ limit: 100 }));
  const users = page.results.sort((a, b) => b.last_active_at.localeCompare(a.last_active_at));
  $("user-list").replaceChildren(...users.map((u) => el("option", { value: u.user_id })));
  $("workspace").hidden = false;
  if (!$("user-id").value && users.length) $("user-id").value = users[0].user_id;
  if ($("user-id").value) await selectUser($("user-id").value);
}

async function selectUser(user) {
  state.user = user;
  sessionStorage.setItem("engram.user", user);
  await refresh();
  if (state.socket) state.socket.close();
  state.socket = await connect(user, onEvent);
}

// Current / outdated / all: the outdated marker is known per memory, so this filter runs here.
function wanted(m) {
  const show = $("state").value;
  if (show === "all") return true;
  return show === "outdated" ? isOutdated(m) : !isOutdated(m);
}

function showCount() {
  const more = state.cursor ? " (more below)" : "";
  $("count").textContent = state.searching ? `${state.shown} results` : `${state.shown} shown${more}`;
}

function emptyNote() {
  if (!state.shown) $("memories").replaceChildren(el("li", { class: "empty", text: "No memories." }));
}

// One page of the list (bank and protection filtered by the API); a filter that leaves a page short
// reads on, a few pages at most, so a rare filter still fills the screen without reading everything.
async function refresh(append = false) {
  if (!state.user) return;
  const generation = append ? state.generation : ++state.generation;
  state.searching = false;
  $("relations").hidden = true;
  if (!append) { state.cursor = null; state.shown = 0; $("memories").replaceChildren(); }
  let added = 0;
  for (let reads = 0; reads < 5 && added < 20; reads++) {
    const params = { user_id: state.user, limit: PAGE, memory_bank: $("bank").value, is_protected: $("protection").value,
      cursor: state.cursor };
    const page = await call("GET", "/v1/memories?" + qs(params));
    if (generation !== state.generation) return;  // a newer filter or user took over
    const rows = page.results.filter(wanted).map((m) => memoryRow(m, actions));
    if (rows.length && !state.shown) $("memories").replaceChildren();
    $("memories").append(...rows);
    added += rows.length;
    state.shown += rows.length;
    state.cursor = page.next_cursor;
    if (!state.cursor) break;
  }
  $("more").hidden = !state.cursor;
  emptyNote();
  showCount();
}

// The user's relations from the graph API (none when graph memory is off on this deployment).
async function userRelations() {
  try {
    const graph = await call("GET", "/v1/graph?" + qs({ user_id: state.user, limit: 200 }));
    return graph.relations || [];
  } catch (err) {
    if (err.status === 404) return [];
    throw err;
  }
}

async function search(query) {
  const generation = ++state.generation;
  const body = { user_id: state.user, query, top_k: 20 };
  const filters = {};
  if ($("bank").value) filters.memory_bank = $("bank").value;
  if (Object.keys(filters).length) body.filters = filters;
  const reply = await call("POST", "/v1/memories/search", body);
  let relations = reply.relations || [];
  if (!relations.length && reply.results.length) relations = await userRelations();
  if (generation !== state.generation) return;
  state.searching = true;
  state.cursor = null;
  $("more").hidden = true;
  const results = reply.results.filter(wanted).filter((m) => !$("protection").value || String(m.is_protected) === $("protection").value);
  $("memories").replaceChildren(...results.map((m) => memoryRow(m, actions, relationsOf(m, relations))));
  state.shown = results.length;
  emptyNote();
  showCount();
  const named = (reply.relations || []);
  $("relations").hidden = !named.length;
  if (named.length) $("relations").replaceChildren(relationsBlock(named));
}

function onEvent(event) {
  if (event.user_id && event.user_id !== state.user) return;
  showEvent(event);
  // Only the first page is re-read: someone scrolled hundreds of rows down keeps their place.
  if (event.type === "memory_extraction_completed" && !state.searching && state.shown <= PAGE) guarded(() => refresh());
}

let editing = null;
const actions = {
  edit(m) {
    editing = m;
    $("edit-text").value = m.memory;
    $("edit-importance").value = m.importance;
    $("edit-bank").value = m.memory_bank;
    $("edit-protected").checked = m.is_protected;
    $("edit-dialog").showModal();
  },
  protect: (m) => guarded(async () => {
    await call("PATCH", `/v1/memories/${m.id}`, { is_protected: !m.is_protected });
    toast(m.is_protected ? "Protection removed" : "Memory protected");
    await refresh();
  }),
  history: (m) => guarded(async () => {
    const page = await call("GET", `/v1/memories/${m.id}/history?limit=100`);
    $("history-title").textContent = `History of “${m.memory.slice(0, 60)}”`;
    $("history").replaceChildren(...page.results.map(historyItem));
    $("history-dialog").showModal();
  }),
  remove: (m) => guarded(async () => {
    if (!confirm(`Delete “${m.memory}”?\nIt stops being current; its history stays readable.`)) return;
    await call("DELETE", `/v1/memories/${m.id}`);
    toast("Memory deleted");
    await refresh();
  }),
  download: (id) => guarded(async () => {
    const attachment = await call("GET", `/v1/attachments/${id}`);
    window.open(attachment.download_url, "_blank", "noopener");
  }),
};

async function saveEdit() {
  const m = editing;
  const patch = {};
  const text = $("edit-text").value.trim();
  const importance = Number($("edit-importance").value);
  if (text !== m.memory) patch.text = text;
  if ($("edit-importance").value !== "" && importance !== m.importance) patch.importance = importance;
  if ($("edit-bank").value !== m.memory_bank) patch.memory_bank = $("edit-bank").value;
  if ($("edit-protected").checked !== m.is_protected) patch.is_protected = $("edit-protected").checked;
  if (!Object.keys(patch).length) return;
  await call("PATCH", `/v1/memories/${m.id}`, patch);
  toast("Memory saved");
  await refresh();
}

async function deleteAll() {
  $("confirm-text").textContent = `Every current memory of ${state.user} will be deleted.`;
  $("confirm-dialog").returnValue = "";
  $("confirm-dialog").showModal();
  await new Promise((r) => $("confirm-dialog").addEventListener("close", r, { once: true }));
  if ($("confirm-dialog").returnValue !== "yes") return;
  const reply = await call("DELETE", "/v1/memories?" + qs({ user_id: state.user }));
  if (reply.task_id) {  // deletion as a task: follow it, then refresh
    toast("Deleting all memories…");
    await follow(reply.task_id, state.user, () => {});
  }
  toast("All memories deleted");
  await refresh();
}

async function metrics() {
  try {
    const m = await call("GET", "/v1/metrics/extraction-queue?window=hour");
    $("metrics-body").textContent = `pending ${m.pending} · processing ${m.processing} · completed ${m.completed}` +
      ` · failed ${m.failed} · average ${Number(m.avg_duration_sec || 0).toFixed(1)} s` +
      ` · oldest pending ${Math.round(m.oldest_pending_age_sec || 0)} s`;
    $("metrics").hidden = false;
    return true;
  } catch (err) {
    $("metrics").hidden = true;  // no metrics route on this deployment (404): the panel stays away
    return err.status !== 404 && err.status !== 401 && err.status !== 403;
  }
}

function wire() {
  for (const select of [$("bank"), $("edit-bank")]) {
    select.append(...BANKS.map((b) => el("option", { value: b, text: b })));
  }
  $("key-form").addEventListener("submit", (e) => {
    e.preventDefault();
    key.set($("api-key").value.trim());
    $("api-key").value = "";
    guarded(loadUsers).then(() => metrics());
  });
  $("forget-key").addEventListener("click", () => { key.clear(); $("workspace").hidden = true; });
  $("user-form").addEventListener("submit", (e) => { e.preventDefault(); guarded(() => selectUser($("user-id").value.trim())); });
  for (const filter of ["bank", "state", "protection"]) {
    $(filter).addEventListener("change", () => guarded(() => (state.searching ? search($("query").value) : refresh())));
  }
  const more = () => {
    if (!state.cursor || state.searching || state.loading) return;
    state.loading = true;  // one page at a time: the button and scrolling never read the same cursor twice
    guarded(() => refresh(true)).finally(() => { state.loading = false; });
  };
  $("more").addEventListener("click", more);
  // Scrolling near the end reads the next page, as the More button does.
  new IntersectionObserver((seen) => { if (seen.some((e) => e.isIntersecting)) more(); }, { rootMargin: "300px" })
    .observe($("more"));
  $("search-form").addEventListener("submit", (e) => { e.preventDefault(); guarded(() => search($("query").value)); });
  $("clear-search").addEventListener("click", () => { $("query").value = ""; guarded(() => refresh()); });
  $("add-form").addEventListener("submit", (e) => {
    e.preventDefault();
    guarded(async () => {
      const content = $("note").value.trim();
      const reply = await call("POST", "/v1/memories", { user_id: state.user, messages: [{ role: "user", content }] });
      $("note").value = "";
      if (!state.socket) {  // no event socket: show the same toasts from the task itself
        onEvent({ type: "memory_extraction_queued", task_id: reply.task_id, user_id: state.user, status: "queued" });
        await follow(reply.task_id, state.user, onEvent);
      }
    });
  });
  $("edit-form").addEventListener("submit", () => guarded(saveEdit));
  $("edit-cancel").addEventListener("click", () => $("edit-dialog").close());
  $("history-close").addEventListener("click", () => $("history-dialog").close());
  $("delete-all").addEventListener("click", () => guarded(deleteAll));
  setInterval(() => { if (!$("workspace").hidden && !$("metrics").hidden) metrics(); }, 10000);
  $("user-id").value = sessionStorage.getItem("engram.user") || "";
  if (key.get()) guarded(loadUsers).then(() => metrics());
}

wire();
