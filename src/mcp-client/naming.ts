/**
 * @module mcp-client/naming
 * Public names for MCP tools (`mcp__<server>__<tool>`, DESIGN §7) and the routing table from a public name
 * back to (server, original tool name). Names are never parsed back: servers and tools may contain `_`.
 */
import { createHash } from "node:crypto";
import { TOOL_NAME_PATTERN } from "../core/index.js";

/** Where a public name routes to. */
export interface McpRoute {
  server: string;
  /** The tool's name on its server, exactly as listed. */
  tool: string;
}

/** Public name → route. */
export type RoutingTable = ReadonlyMap<string, McpRoute>;

const MAX_NAME = 64;
const HASH_LENGTH = 6;

/** Replaces every character a model API refuses with `_`. */
export function sanitizeNamePart(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/** A short, stable hash of (server, tool). */
function shortHash(route: McpRoute, length = HASH_LENGTH): string {
  return createHash("sha256").update(`${route.server}\u0000${route.tool}`).digest("hex").slice(0, length);
}

function withSuffix(base: string, route: McpRoute, length = HASH_LENGTH): string {
  return `${base.slice(0, MAX_NAME - length - 1)}_${shortHash(route, length)}`;
}

interface Candidate {
  route: McpRoute;
  /** The name before collision handling. */
  name: string;
  /** True when the name is exactly `mcp__<server>__<tool>` (nothing replaced, nothing cut). */
  exact: boolean;
}

function candidate(route: McpRoute): Candidate {
  const raw = `mcp__${route.server}__${route.tool}`;
  const sanitized = `mcp__${sanitizeNamePart(route.server)}__${sanitizeNamePart(route.tool)}`;
  // A shortened name always carries the hash: whatever is cut off could otherwise collide later.
  if (sanitized.length > MAX_NAME) return { route, name: withSuffix(sanitized, route), exact: false };
  return { route, name: sanitized, exact: sanitized === raw };
}

/**
 * Assigns a public name to every (server, tool) pair. A name that needed no change keeps it unless it
 * collides with another exact name; every other member of a collision gets a short hash suffix. `reserved`
 * names (built-in tools) are never given out. Deterministic: the result does not depend on input order.
 * @example
 * assignPublicNames([{ server: "github", tool: "create_issue" }]).get("mcp__github__create_issue")
 * // → { server: "github", tool: "create_issue" }
 */
export function assignPublicNames(
  routes: readonly McpRoute[],
  reserved: ReadonlySet<string> = new Set(),
): RoutingTable {
  const sorted = [...routes].sort((a, b) => cmp(a.server, b.server) || cmp(a.tool, b.tool));
  const groups = new Map<string, Candidate[]>();
  for (const route of sorted) {
    const c = candidate(route);
    const group = groups.get(c.name);
    if (group) group.push(c);
    else groups.set(c.name, [c]);
  }
  const table = new Map<string, McpRoute>();
  const taken = new Set<string>(reserved);
  const suffixed: Candidate[] = [];
  for (const [name, group] of groups) {
    const exact = group.filter((c) => c.exact);
    const keeper =
      !reserved.has(name) && (group.length === 1 || exact.length === 1) ? (exact[0] ?? group[0]) : undefined;
    for (const c of group) {
      if (c === keeper) {
        table.set(name, c.route);
        taken.add(name);
      } else suffixed.push(c);
    }
  }
  for (const c of suffixed) {
    let length = HASH_LENGTH;
    let name = withSuffix(c.name, c.route, length);
    // A suffixed name meeting another name is astronomically rare; lengthen the hash until it is unique.
    while (taken.has(name) || groups.has(name)) name = withSuffix(c.name, c.route, ++length);
    table.set(name, c.route);
    taken.add(name);
  }
  for (const name of table.keys()) {
    if (!TOOL_NAME_PATTERN.test(name))
      throw new Error(`internal error: MCP tool name ${name} is not a valid tool name`);
  }
  return table;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
