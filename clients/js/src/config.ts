// Where the server and key come from, as in the Python SDK: arguments, then ENGRAM_URL / ENGRAM_API_KEY,
// then the config file (ENGRAM_CONFIG, default ~/.config/engram/config.toml: `url = "..."`, `api_key = "..."`),
// then http://127.0.0.1:3000. Outside Node (no `process`) only the arguments and the default apply.

export const DEFAULT_URL = "http://127.0.0.1:3000";

export interface Settings {
  url: string;
  apiKey: string | undefined;
}

type NodeProcess = { env: Record<string, string | undefined>; versions?: { node?: string } };

function nodeProcess(): NodeProcess | undefined {
  return (globalThis as { process?: NodeProcess }).process;
}

/** The top-level `key = "string"` pairs of a small TOML file (all the config file holds). */
export function parseConfig(text: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*\[/.test(line)) break; // a table: the top-level keys are over
    const match = /^\s*([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')\s*(?:#.*)?$/.exec(line);
    if (match?.[1]) found[match[1]] = match[2] !== undefined ? JSON.parse(`"${match[2]}"`) : (match[3] ?? "");
  }
  return found;
}

async function readConfigFile(proc: NodeProcess): Promise<Record<string, string>> {
  const [{ readFile }, { homedir }, { join }] = await Promise.all([
    import("node:fs/promises"),
    import("node:os"),
    import("node:path"),
  ]);
  const path = proc.env.ENGRAM_CONFIG || join(homedir(), ".config", "engram", "config.toml");
  try {
    return parseConfig(await readFile(path, "utf8"));
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return {};
    throw error;
  }
}

export async function resolveSettings(url?: string, apiKey?: string): Promise<Settings> {
  const proc = nodeProcess();
  const env = proc?.env ?? {};
  let chosenUrl = url || env.ENGRAM_URL;
  let key = apiKey || env.ENGRAM_API_KEY;
  if ((!chosenUrl || !key) && proc?.versions?.node) {
    const file = await readConfigFile(proc); // only when an argument or variable is missing
    chosenUrl = chosenUrl || file.url;
    key = key || file.api_key;
  }
  return { url: (chosenUrl || DEFAULT_URL).replace(/\/+$/, ""), apiKey: key || undefined };
}
