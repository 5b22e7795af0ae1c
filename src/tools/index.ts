/**
 * @module tools
 * The only list of built-in tools, and the policy plug-ins that understand their arguments. `createToolgate`
 * calls `createBuiltinTools` once per gate; `close()` releases what the tools hold (background processes).
 */
import type { ToolgateConfig } from "../config/index.js";
import type { Logger, Tool } from "../core/types.js";
import type { ArgKindPlugin } from "../policy/types.js";

/** What the built-in tools are made from. */
export interface BuiltinContext {
  /** Canonical allowed roots. */
  roots: readonly string[];
  config: ToolgateConfig;
  logger: Logger;
  /** Extra environment variables the host lets the shell pass on. */
  env: Record<string, string>;
}

/** The built-in tools of one gate and what they share. */
export interface BuiltinTools {
  tools: Tool[];
  context: BuiltinContext;
  close(): Promise<void>;
}

export async function createBuiltinTools(context: BuiltinContext): Promise<BuiltinTools> {
  const tools: Tool[] = [];
  return { tools, context, close: async () => undefined };
}

/** Plug-ins for `path`, `command` and `url` arguments (the text plug-in is built into the policy). */
export function createPolicyPlugins(_builtins: BuiltinTools): ArgKindPlugin[] {
  return [];
}
