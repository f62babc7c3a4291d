// Rendering: DOM nodes built with textContent only, so memory text can never inject markup.
export const BANKS = ["Personal", "Work", "Relationships", "Health", "Interests", "Events", "General"];

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}

const when = (iso) => (iso ? new Date(iso).toLocaleString() : "—");
const day = (iso) => (iso ? new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" }) : "—");

// A kept message part of which a later fact replaced, or a memory no longer valid.
export const isOutdated = (m) => (m.outdated_by || []).length > 0 || (!!m.valid_to && new Date(m.valid_to) <= new Date());

function details(m, relations, actions) {
  const dl = el("dl", { class: "details" });
  const add = (term, value) => dl.append(el("dt", { text: term }), el("dd", {}, value));
  add("Said (event time)", `${when(m.valid_from)} → ${m.valid_to ? when(m.valid_to) : "still valid"}`);
  add("Recorded", `${when(m.created_at)} · updated ${when(m.updated_at)}`);
  add("Importance", String(m.importance));
  add("Version", `v${m.version}` + (m.kind === "episode" ? " · kept message" : ""));
  if (m.fact_key) add("Fact", `${m.fact_key}: ${m.fact_value ?? ""}`);
  if ((m.outdated_by || []).length) add("Outdated by", m.outdated_by.join(", "));
  if (m.score !== null && m.score !== undefined) add("Score", m.score.toFixed(3));
  if (relations.length) add("Relations", relationList(relations));
  if (m.attachments && m.attachments.length) {
    const links = el("span");
    for (const a of m.attachments) {
      links.append(el("button", { type: "button", class: "link", onclick: () => actions.download(a.id),
        text: `Download ${a.name || a.id}` }), " ");
    }
    add("Attachments", links);
  }
  add("Id", m.id);
  return dl;
}

// One memory on one or two lines: text, then bank · said · markers; actions show on hover or focus.
export function memoryRow(m, actions, relations = []) {
  const outdated = isOutdated(m);
  const short = m.memory.slice(0, 40);
  const meta = el("div", { class: "meta" },
    el("span", { class: "bank", text: m.memory_bank }),
    el("span", { class: "said", title: `recorded ${when(m.created_at)}`, text: `said ${day(m.valid_from)}` }));
  if (m.score !== null && m.score !== undefined) {
    meta.append(el("span", { class: "recorded", text: `recorded ${day(m.created_at)}` }),
      el("span", { class: "score", text: `score ${m.score.toFixed(2)}` }));
  }
  if (outdated) meta.append(el("span", { class: "badge outdated", title: "a later statement replaced part of it", text: "outdated" }));
  if (m.is_protected) meta.append(el("span", { class: "badge protected", text: "protected" }));
  if (m.version > 1) meta.append(el("span", { class: "badge", text: `v${m.version}` }));
  if (relations.length) meta.append(el("span", { class: "badge relation", text: `${relations.length} relation${relations.length > 1 ? "s" : ""}` }));
  if ((m.statements || []).length) meta.append(statementChips(m.statements));
  const row = el("li", { class: "mem" + (outdated ? " is-outdated" : ""), "data-id": m.id });
  const more = el("div", { class: "more", hidden: true });
  const toggle = el("button", { type: "button", class: "ghost", "aria-expanded": "false", "aria-label": `Details: ${short}`, text: "Details",
    onclick: () => {
      const open = more.hidden;
      if (open && !more.firstChild) more.append(details(m, relations, actions));
      more.hidden = !open;
      toggle.setAttribute("aria-expanded", String(open));
      row.classList.toggle("open", open);
    } });
  const button = (verb, fn, cls = "ghost") => el("button", { type: "button", class: cls, onclick: fn, "aria-label": `${verb}: ${short}`, text: verb });
  const tools = el("div", { class: "actions" }, toggle,
    button("Edit", () => actions.edit(m)),
    button(m.is_protected ? "Unprotect" : "Protect", () => actions.protect(m)),
    button("History", () => actions.history(m)),
    button("Delete", () => actions.remove(m), "ghost danger-text"));
  row.append(el("div", { class: "line" }, el("p", { class: "text", title: m.memory, text: m.memory }), tools), meta, more);
  return row;
}

// What a memory states, one chip each ("home: York"); another subject leads it, a polarity other than
// "asserted" follows it, and one a later memory outdated is struck through.
export function statementChips(statements) {
  const chips = el("span", { class: "statements", "aria-label": "What it states" });
  for (const st of statements) {
    const who = st.subject && st.subject !== "user" ? `${st.subject} · ` : "";
    const how = st.polarity && st.polarity !== "asserted" ? ` (${st.polarity})` : "";
    const title = [st.single ? "one value at a time" : "gathers values",
      st.event_time ? `since ${day(st.event_time)}` : "", st.outdated_by ? `outdated by ${st.outdated_by}` : ""];
    chips.append(el("span", { class: "statement" + (st.outdated_by ? " is-outdated" : ""), title: title.filter(Boolean).join(" · "),
      text: `${who}${st.attribute}: ${st.value}${how}` }));
  }
  return chips;
}

export function historyItem(h) {
  const change = h.event === "UPDATE" ? `“${h.old_memory}” → “${h.new_memory}”` : (h.new_memory || h.old_memory || "");
  const by = `by ${h.actor}` + (h.task_id ? `, task ${h.task_id}` : "");
  return el("li", { class: "history-entry" },
    el("strong", { text: `v${h.version} ${h.event}` }), " ",
    el("span", { text: change }), el("br"),
    el("small", { text: `${when(h.created_at)} ${by}` + (h.note ? ` (${h.note})` : "") }));
}

export function relationList(relations) {
  const list = el("ul", { class: "relations" });
  for (const r of relations) {
    const since = r.valid_from ? ` (since ${day(r.valid_from)})` : "";
    list.append(el("li", { text: `${r.source} — ${r.relation} → ${r.destination}${since}` }));
  }
  return list;
}

export function relationsBlock(relations) {
  return el("div", {}, el("h3", { text: "Relations" }), relationList(relations));
}

// The relations a memory's text names an end of (entity names as written in the text).
export function relationsOf(m, relations) {
  const text = m.memory.toLowerCase();
  return relations.filter((r) => text.includes(r.source.toLowerCase()) || text.includes(r.destination.toLowerCase()));
}
