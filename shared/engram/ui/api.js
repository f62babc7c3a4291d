// Calls to the Engram API with the key the person entered; errors become sentences people can act on.
const KEY = "engram.apiKey";

export const key = {
  get: () => sessionStorage.getItem(KEY) || "",
  set: (value) => sessionStorage.setItem(KEY, value),
  clear: () => sessionStorage.removeItem(KEY),
};

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function describe(status, body) {
  if (status === 401 || status === 403) return "The API key is wrong or revoked (the API answered " + status + ").";
  if (status === 422 || status === 400) {
    const detail = (body && body.detail) || [];
    if (detail.length) return "Invalid input: " + detail.map((d) => `${d.field}: ${d.message}`).join("; ");
    if (body && body.field) return `Invalid input: ${body.field}: ${body.message}`;
  }
  if (status === 404) return "Not found: " + ((body && body.message) || "it no longer exists");
  if (status === 429) return "Too many requests; wait a moment and try again.";
  return `The API answered ${status}: ` + ((body && (body.message || body.error)) || "no details");
}

export async function call(method, path, body) {
  const headers = { "x-api-key": key.get() };
  if (body !== undefined) headers["content-type"] = "application/json";
  let reply;
  try {
    reply = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(0, "The API cannot be reached: " + err.message);
  }
  const text = await reply.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = { message: text }; }
  if (!reply.ok) throw new ApiError(reply.status, describe(reply.status, data));
  return data;
}

export const qs = (params) =>
  new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== "")).toString();
