/**
 * @module bench/schemas
 * Provider schema generation for a 500-tool registry: first (cold) generation per provider and cached
 * generation, each beside a naive `JSON.stringify` of the raw tool list measured in the same run; and proof
 * that registering and lowering compiled no ajv validator (first compiles afterwards are still cold).
 */

import type { JsonSchema, Tool } from "../core/index.js";
import { defineTool, okResult, ToolRegistry } from "../core/index.js";
import { PROVIDER_NAMES, SchemaCache } from "../core/schemas/index.js";
import { fmt, measureSync, report } from "./harness.js";

const TOOL_COUNT = 500;

/** A small deterministic PRNG (mulberry32), so every run lowers the same corpus. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "path",
  "query",
  "limit",
  "offset",
  "name",
  "url",
  "mode",
  "content",
  "pattern",
  "owner",
  "tag",
  "id",
];

/** One property schema of a realistic kind: strings with formats, bounded numbers, enums, arrays, objects. */
function property(random: () => number, depth: number): JsonSchema {
  const kind = Math.floor(random() * (depth > 1 ? 6 : 9));
  switch (kind) {
    case 0:
      return { type: "string", description: "A value the tool needs", minLength: 1 };
    case 1:
      return {
        type: "string",
        format: ["date-time", "uri", "email", "date"][kind % 4] as string,
        examples: ["x"],
      };
    case 2:
      return { type: "integer", minimum: 0, maximum: 1000, default: 10, description: "How many" };
    case 3:
      return { type: "string", enum: ["fast", "thorough", "balanced"], description: "How to run" };
    case 4:
      return { type: "boolean", default: false };
    case 5:
      return { type: "array", items: { type: "string" }, maxItems: 20 };
    case 6:
      return { type: "array", minItems: 1, items: objectSchema(random, depth + 1) };
    case 7:
      return objectSchema(random, depth + 1);
    default:
      return { anyOf: [{ type: "string" }, { type: "null" }], description: "Optional text" };
  }
}

function objectSchema(random: () => number, depth: number): JsonSchema {
  const count = 2 + Math.floor(random() * 5);
  const properties: Record<string, JsonSchema> = {};
  for (let i = 0; i < count; i++)
    properties[`${WORDS[Math.floor(random() * WORDS.length)]}${i}`] = property(random, depth);
  const names = Object.keys(properties);
  return { type: "object", properties, required: names.filter(() => random() < 0.5) };
}

function corpus(): Tool[] {
  const random = rng(20240601);
  const tools: Tool[] = [];
  for (let i = 0; i < TOOL_COUNT; i++) {
    const parameters = objectSchema(random, 0);
    if (i % 7 === 0) {
      // Some tools share a definition through $ref, as generated (Pydantic/zod) schemas do.
      parameters.$defs = { target: objectSchema(random, 2) };
      (parameters.properties as Record<string, JsonSchema>).target = { $ref: "#/$defs/target" };
    }
    if (i % 11 === 0)
      (parameters.properties as Record<string, JsonSchema>).env = {
        type: "object",
        additionalProperties: { type: "string" },
      };
    tools.push(
      defineTool({
        name: `tool_${String(i).padStart(3, "0")}`,
        description: `Generated tool number ${i}: does one thing well.`,
        parameters,
        kind: "other",
        risk: "low",
        run: async () => okResult(""),
      }),
    );
  }
  return tools;
}

export default async function run(): Promise<void> {
  const registry = new ToolRegistry({ logger: { warn: () => {} } });
  const tools = corpus();
  for (const t of tools) registry.register(t);

  // Anchor: the naive lowering, the raw tool list as JSON.
  const naive = () =>
    JSON.stringify(
      registry.list().map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
    );
  const anchor = measureSync(naive, 30, 5);

  for (const provider of PROVIDER_NAMES) {
    // A fresh cache per sample: nothing lowered yet, the first generation as a host sees it.
    const cold = measureSync(() => new SchemaCache(registry).json(provider), 10, 2);
    report({
      name: `${provider}: first generation, ${TOOL_COUNT} tools (lower + JSON)`,
      ours: `p50 ${fmt(cold.p50)}`,
      anchor: `naive JSON.stringify p50 ${fmt(anchor.p50)}`,
      ratio: cold.p50 / anchor.p50,
      target: "≤ 200 ms",
      pass: cold.p50 <= 200,
    });
    const cache = new SchemaCache(registry);
    cache.json(provider);
    const warm = measureSync(() => cache.json(provider), 2000, 100);
    report({
      name: `${provider}: cached generation`,
      ours: `p50 ${fmt(warm.p50)} p99 ${fmt(warm.p99)}`,
      anchor: `naive JSON.stringify p50 ${fmt(anchor.p50)}`,
      ratio: warm.p99 / anchor.p50,
      target: "≤ 5 ms",
      pass: warm.p99 <= 5,
    });
  }

  // After one registration only the new tool is lowered again; the rest come from the per-tool cache.
  const incremental = new SchemaCache(registry);
  incremental.json("openai-responses");
  const extra = corpus()[1] as Tool;
  let round = 0;
  const again = measureSync(
    () => {
      registry.register({ ...extra, name: `extra_${round++ % 2}` });
      return incremental.json("openai-responses");
    },
    50,
    5,
  );
  report({
    name: `openai-responses: regeneration after one register (${TOOL_COUNT} tools)`,
    ours: `p50 ${fmt(again.p50)}`,
    anchor: `naive JSON.stringify p50 ${fmt(anchor.p50)}`,
    ratio: again.p50 / anchor.p50,
    target: "≤ 200 ms (first-generation target)",
    pass: again.p50 <= 200,
  });
  registry.unregister("extra_0");
  registry.unregister("extra_1");

  // Registration and lowering must not compile validators (ajv compiles lazily, on a tool's first call).
  // Observable: the first compile of every tool after all of the above is as slow as a cold compile, and
  // the second is a cache lookup.
  const t0 = performance.now();
  for (const t of registry.list()) registry.validator.compile(t);
  const firstCompile = performance.now() - t0;
  const t1 = performance.now();
  for (const t of registry.list()) registry.validator.compile(t);
  const secondCompile = performance.now() - t1;
  report({
    name: `no ajv validator compiled by register or lowering (first compile of ${TOOL_COUNT} tools afterwards)`,
    ours: `first ${fmt(firstCompile)}`,
    anchor: `already-compiled lookup ${fmt(secondCompile)}`,
    ratio: firstCompile / Math.max(secondCompile, 0.001),
    target: "first compile ≥ 20× a lookup (i.e. nothing was compiled before)",
    pass: firstCompile >= 20 * secondCompile,
  });
}
