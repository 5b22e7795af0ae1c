/**
 * @module mcp-client/expand
 * Variable references in MCP configuration values, in the spellings the hosts use: `${VAR}` and
 * `${VAR:-default}` (Claude Code), `${env:VAR}`, `${workspaceFolder}`, `${userHome}` (VS Code, Cursor), and
 * bare `$VAR` in gemini-cli's settings. An unset variable without a default is an error for that value: a
 * placeholder is never passed on to a server (a literal `${TOKEN}` in a header would reach a remote host).
 */
import { homedir } from "node:os";
import { basename, sep } from "node:path";

/** What references expand from. */
export interface ExpandContext {
  env: Readonly<Record<string, string | undefined>>;
  /** `${workspaceFolder}`: the project root. */
  workspaceFolder?: string;
  /** `${userHome}`. Default: the user's home directory. */
  userHome?: string;
  /** Also expand bare `$VAR` (gemini-cli settings). */
  bareDollar?: boolean;
}

/** Why a value could not be expanded (the caller names the file, server and key). */
export class ExpandError extends Error {}

const BRACED = /\$\{([^}]*)\}/g;
const BRACED_OR_BARE = /\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Expands every reference in `value`. Throws {@link ExpandError} for an unset variable without a default and
 * for references toolgate cannot resolve (`${input:...}` prompts, `${command:...}`).
 * @example expandValue("Bearer ${env:TOKEN}", { env: { TOKEN: "t" } }) // "Bearer t"
 */
export function expandValue(value: string, ctx: ExpandContext): string {
  const pattern = ctx.bareDollar ? BRACED_OR_BARE : BRACED;
  return value.replace(pattern, (_m, braced: string | undefined, bare: string | undefined) =>
    braced === undefined ? variable(bare!, undefined, ctx) : reference(braced, ctx),
  );
}

function reference(body: string, ctx: ExpandContext): string {
  const fallbackAt = body.indexOf(":-");
  if (fallbackAt > 0 && NAME.test(body.slice(0, fallbackAt)))
    return variable(body.slice(0, fallbackAt), body.slice(fallbackAt + 2), ctx);
  if (NAME.test(body)) {
    switch (body) {
      case "workspaceFolder":
        if (ctx.workspaceFolder !== undefined) return ctx.workspaceFolder;
        break;
      case "workspaceFolderBasename":
        if (ctx.workspaceFolder !== undefined) return basename(ctx.workspaceFolder);
        break;
      case "userHome":
        return ctx.userHome ?? homedir();
      case "pathSeparator":
        return sep;
    }
    return variable(body, undefined, ctx);
  }
  if (body === "/") return sep;
  const colon = body.indexOf(":");
  const kind = colon < 0 ? body : body.slice(0, colon);
  const rest = colon < 0 ? "" : body.slice(colon + 1);
  if (kind === "env" && NAME.test(rest)) return variable(rest, undefined, ctx);
  if (kind === "input")
    throw new ExpandError(`\${input:${rest}} asks the user in VS Code; toolgate does not support inputs`);
  throw new ExpandError(`\${${body}} is not a reference toolgate can resolve`);
}

function variable(name: string, fallback: string | undefined, ctx: ExpandContext): string {
  const found = ctx.env[name];
  if (found !== undefined && found !== "") return found;
  if (fallback !== undefined) return fallback;
  if (found === "") return "";
  throw new ExpandError(`environment variable ${name} is not set`);
}

/** References that name no host variable (they expand to paths toolgate knows). */
const NOT_VARIABLES = new Set([
  "workspaceFolder",
  "workspaceFolderBasename",
  "userHome",
  "pathSeparator",
  "/",
]);

/**
 * The host environment variables `value` reads, in order of appearance, each once: what a server is handed
 * from the user's environment (`toolgate trust` shows them).
 * @example variablesIn("Bearer ${env:TOKEN} ${USER:-me}", false) // ["TOKEN", "USER"]
 */
export function variablesIn(value: string, bareDollar: boolean): string[] {
  const names: string[] = [];
  for (const m of value.matchAll(bareDollar ? BRACED_OR_BARE : BRACED)) {
    const body = m[1];
    let name: string | undefined;
    if (body === undefined) name = m[2];
    else if (NOT_VARIABLES.has(body)) name = undefined;
    else {
      const fallbackAt = body.indexOf(":-");
      const head = fallbackAt > 0 ? body.slice(0, fallbackAt) : body;
      name = head.startsWith("env:") ? head.slice(4) : head;
      if (!NAME.test(name)) name = undefined;
    }
    if (name !== undefined && !names.includes(name)) names.push(name);
  }
  return names;
}
