/**
 * @module policy/kinds
 * What a policy says when a rule needs an argument kind whose plug-in it was loaded without (the `policy`
 * subpath used alone, `parsePolicy(text, source)` with no `plugins`): the message names the kind and the
 * factory to pass, so the host fixes the load instead of running with a rule that never matches. The
 * operator tables are read from the plug-ins themselves, so a new operator is known here without a list.
 */
import type { ArgKind } from "../core/index.js";
import { createPathKind } from "./conditions/path.js";
import { createUrlKind } from "./conditions/url.js";
import { COMMAND_OPERATORS } from "./shell/command-kind.js";
import type { ArgKindPlugin } from "./types.js";

/** How a host makes each kind's plug-in (`text` is built in). */
export const PLUGIN_FACTORY: Readonly<Record<ArgKind, string>> = {
  text: "nothing",
  path: "createPathKind(canonicalize)",
  command: "createCommandKind()",
  url: "createUrlKind()",
};

/** Each plug-in kind's operator names (built once, on the first unknown operator). */
let operatorKinds: ReadonlyMap<ArgKind, ReadonlySet<string>> | undefined;

function operatorsByKind(): ReadonlyMap<ArgKind, ReadonlySet<string>> {
  operatorKinds ??= new Map<ArgKind, ReadonlySet<string>>([
    ["path", new Set(Object.keys(createPathKind(async () => undefined).operators))],
    ["command", new Set(Object.keys(COMMAND_OPERATORS))],
    ["url", new Set(Object.keys(createUrlKind().operators))],
  ]);
  return operatorKinds;
}

/** The kinds whose plug-in knows `operator` and that `plugins` lacks (empty: no kind knows it). */
export function missingKindsFor(operator: string, plugins: readonly ArgKindPlugin[]): ArgKind[] {
  const out: ArgKind[] = [];
  for (const [kind, operators] of operatorsByKind())
    if (operators.has(operator) && !plugins.some((p) => p.kind === kind)) out.push(kind);
  return out;
}

/** `the policy was loaded without the url plug-in (pass createUrlKind() in plugins)` */
export function withoutPlugin(kind: ArgKind): string {
  return `the policy was loaded without the ${kind} plug-in (pass ${PLUGIN_FACTORY[kind]} in plugins)`;
}
