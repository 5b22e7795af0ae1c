/**
 * @module bench/agents
 * Resolving an agent's whitelist: 50 entries (exact names and globs) against a 2,000-tool pool, beside a
 * naive anchor measured in the same run (picomatch per entry over every name, then sort).
 */
import picomatch from "picomatch";
import { resolveTools } from "../agents/index.js";
import { fmt, measureSync, report } from "./harness.js";

function poolNames(): string[] {
  const names: string[] = [];
  const families = ["entities", "relations", "graph", "search", "documents", "projects", "tags", "schema"];
  for (const f of families) for (let i = 0; i < 50; i++) names.push(`${f}_op${i}`);
  for (let s = 0; s < 16; s++) for (let i = 0; i < 100; i++) names.push(`mcp__server${s}__tool_${i}`);
  names.push("spawn_agents", "list_available_agents");
  return names.sort();
}

function whitelist(): string[] {
  const entries: string[] = [];
  for (let i = 0; i < 20; i++) entries.push(`entities_op${i}`, `graph_op${i + 10}`);
  entries.push("mcp__server3__*", "mcp__server1[0-2]__tool_?", "search_*", "*_op4?", "relations_op[1-3]*");
  entries.push("mcp__server7__tool_1*", "documents_op??", "tags_*", "spawn_agents", "no_such_tool");
  return entries;
}

export default async function run(): Promise<void> {
  const names = poolNames();
  const entries = whitelist();
  if (entries.length !== 50) throw new Error(`whitelist has ${entries.length} entries, not 50`);
  const agent = { name: "bench", tools: entries };
  const ours = measureSync(() => resolveTools(agent, 1, names), 2000, 200);
  const anchor = measureSync(
    () => {
      const picked = new Set<string>();
      for (const entry of entries) {
        const isMatch = picomatch(entry, { dot: true });
        for (const name of names) if (isMatch(name)) picked.add(name);
      }
      return [...picked].sort();
    },
    200,
    20,
  );
  report({
    name: "resolve a 50-entry whitelist with globs against 2,000 tools",
    ours: `p50 ${fmt(ours.p50)} (p99 ${fmt(ours.p99)})`,
    anchor: `picomatch per entry over every name p50 ${fmt(anchor.p50)} (p99 ${fmt(anchor.p99)})`,
    ratio: ours.p50 / anchor.p50,
    target: "p50 ≤ 2 ms",
    pass: ours.p50 <= 2,
  });
}
