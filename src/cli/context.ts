/**
 * @module cli/context
 * Resolves global flags into a gate (ripgrep's "low args → high args"): the workspace root, the policy
 * and config files, and — for `call` — how `ask` is answered (terminal prompt, `--yes`, or nobody).
 */
import { resolve } from "node:path";
import type { Confirm } from "../core/index.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { consoleOffer } from "./always-console.js";
import { gateOffer, type OfferAlways } from "./always-rule.js";
import type { GlobalOptions } from "./globals.js";
import type { CliIo } from "./io.js";
import { askOnTerminal } from "./prompt.js";

export interface CliContext {
  io: CliIo;
  globals: GlobalOptions;
  /** The workspace root (absolute, as given). */
  root: string;
  /** Creates the gate on first use (commands like `policy validate` never need one). */
  gate(): Promise<Toolgate>;
}

export function createContext(io: CliIo, globals: GlobalOptions): CliContext & { close(): Promise<void> } {
  const root = resolve(io.cwd, globals.workspace ?? ".");
  let gate: Promise<Toolgate> | undefined;
  const getGate = (): Promise<Toolgate> => {
    gate ??= createToolgate({
      roots: [root],
      cwd: io.cwd,
      ...(globals.policy ? { policy: globals.policy } : {}),
      ...(globals.config ? { config: globals.config } : {}),
      // Every command sees the project's MCP tools; servers start only when a command needs their tools.
      mcp: true,
      // Asks published where the console answers them carry the rule "approve always" adds (call, run,
      // chat, mcp alike); the asking process writes it when the answer there is "always".
      offerAlways: consoleOffer(gateOffer(getGate, root), getGate, root, (line) => io.stderr(line)),
      logger: { warn: (m) => io.stderr(`toolgate: warning: ${m}\n`) },
    });
    return gate;
  };
  return {
    io,
    globals,
    root,
    gate: getGate,
    async close() {
      if (gate) await (await gate).close();
    },
  };
}

/**
 * What answers a command's `ask`, given to each call: `--yes` approves (never overriding a deny, which never
 * reaches here); a terminal prompts. Otherwise none: the gate's bus has no listener, so it refuses.
 */
export function approverFor(io: CliIo, yes: boolean, offer?: OfferAlways): Confirm | undefined {
  if (yes) return async () => ({ approved: true, reason: "--yes" });
  if (io.isTTY) return (request) => askOnTerminal(io, request, offer);
  return undefined;
}
