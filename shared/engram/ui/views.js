// Rendering: DOM nodes built with textContent only, so memory text can never inject markup.
export const BANKS = ["Personal", "Work", "Relationships", "Health", "Interests", "Events", "General"];

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}

const when = (iso) => (iso ? new Date(iso).toLocaleString() : "—");

export function memoryCard(m, actions) {
  const details = el("dl");
  const add = (term, value) => details.append(el("dt", { text: term }), el("dd", {}, value));
  add("Bank", m.memory_bank);
  add("Importance", String(m.importance));
  add("Valid", `${when(m.valid_from)} → ${m.valid_to ? when(m.valid_to) : "now"}`);
  add("Created", when(m.created_at));
  add("Updated", when(m.updated_at));
  if (m.score !== null && m.score !== undefined) add("Score", m.score.toFixed(3));
  if (m.attachments && m.attachments.length) {
    const links = el("span");
    for (const a of m.attachments) {
      links.append(el("button", { type: "button", class: "link", onclick: () => actions.download(a.id),
        text: `Download ${a.name || a.id}` }), " ");
    }
    add("Attachments", links);
  }
  const badges = el("p", {}, el("span", { class: "badge", text: `v${m.version}` }));
  if (m.is_protected) badges.append(el("span", { class: "badge protected", text: "protected" }));
  if (m.kind === "episode") badges.append(el("span", { class: "badge", text: "kept as said" }));
  // A kept message a later statement replaced in part: still shown, marked so it is not read as current.
  if (m.outdated_by && m.outdated_by.length) {
    badges.append(el("span", { class: "badge outdated", title: `outdated by ${m.outdated_by.join(", ")}`, text: "outdated" }));
  }
  const label = (verb) => `${verb}: ${m.memory.slice(0, 40)}`;
  return el("li", { class: "card", "data-id": m.id },
    el("p", { class: "text", text: m.memory }),
    badges,
    details,
    el("div", { class: "row" },
      el("button", { type: "button", onclick: () => actions.edit(m), "aria-label": label("Edit"), text: "Edit" }),
      el("button", { type: "button", onclick: () => actions.protect(m), "aria-label": label(m.is_protected ? "Unprotect" : "Protect"),
        text: m.is_protected ? "Unprotect" : "Protect" }),
      el("button", { type: "button", onclick: () => actions.history(m), "aria-label": label("History"), text: "History" }),
      el("button", { type: "button", class: "danger", onclick: () => actions.remove(m), "aria-label": label("Delete"), text: "Delete" }),
    ),
  );
}

export function historyItem(h) {
  const change = h.event === "UPDATE" ? `“${h.old_memory}” → “${h.new_memory}”` : (h.new_memory || h.old_memory || "");
  const by = `by ${h.actor}` + (h.task_id ? `, task ${h.task_id}` : "");
  return el("li", { class: "history-entry" },
    el("strong", { text: `v${h.version} ${h.event}` }), " ",
    el("span", { text: change }), el("br"),
    el("small", { text: `${when(h.created_at)} ${by}` + (h.note ? ` (${h.note})` : "") }));
}

export function relationsBlock(relations) {
  const list = el("ul");
  for (const r of relations) list.append(el("li", { text: `${r.source} — ${r.relation} → ${r.destination}` }));
  return el("div", {}, el("h3", { text: "Relations" }), list);
}
