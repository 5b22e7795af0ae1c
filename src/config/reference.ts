/**
 * @module config/reference
 * Renders {@link CONFIG_SCHEMA} as the markdown reference in `docs/configuration.md`: every section and key
 * with its type, default and description, and which keys an untrusted workspace cannot set. The page is
 * generated from the schema (reference.test.ts fails when it is stale).
 */
import type { z } from "zod";
import { HOOK_ENTRY, HOOK_KEYS, HOOK_SETTINGS } from "./hooks-schema.js";
import { CONFIG_SCHEMA } from "./schema.js";
import { SECURITY_KEYS } from "./trust.js";

interface KeyDoc {
  type: string;
  default: unknown;
  description: string;
}

/** A key's schema through its `.optional()` / `.default()` wrappers: type, default, description. */
function keyDoc(schema: z.core.$ZodType): KeyDoc {
  let node = schema as z.ZodType;
  let fallback: unknown;
  for (;;) {
    const def = node._zod.def as { type: string; innerType?: z.ZodType; defaultValue?: unknown };
    if (def.type === "default") fallback = def.defaultValue;
    if ((def.type === "default" || def.type === "optional") && def.innerType) node = def.innerType;
    else break;
  }
  return { type: typeName(node), default: fallback, description: node.description ?? "" };
}

function typeName(node: z.ZodType): string {
  const def = node._zod.def as { type: string; entries?: Record<string, string> };
  switch (def.type) {
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    case "number":
      return "whole number ≥ 0";
    case "array":
      return "array of strings";
    case "enum":
      return Object.values(def.entries ?? {})
        .map((v) => `\`"${v}"\``)
        .join(" \\| ");
    case "union":
      return "string, number or boolean";
    default:
      throw new Error(`config reference: no name for a ${def.type} setting`);
  }
}

function shownDefault(value: unknown): string {
  if (value === undefined) return "—";
  return `\`${JSON.stringify(value)}\``;
}

const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");

/**
 * The reference as markdown: one heading and table per section, in the schema's order.
 * @example configReference().startsWith("### `[web]`") // true
 */
export function configReference(): string {
  const out: string[] = [];
  for (const [name, section] of Object.entries(CONFIG_SCHEMA.shape)) {
    if (HOOK_KEYS.includes(name)) continue;
    out.push(`### \`[${name}]\``, "", section.description ?? "", "");
    out.push("| key | type | default | description |", "|---|---|---|---|");
    for (const [key, schema] of Object.entries(
      (section as unknown as { unwrap(): { shape: Record<string, z.core.$ZodType> } }).unwrap().shape,
    )) {
      const doc = keyDoc(schema);
      const guarded = SECURITY_KEYS.includes(`${name}.${key}`) || SECURITY_KEYS.includes(`${name}.*`);
      const note = guarded ? " *Ignored in an untrusted workspace.*" : "";
      out.push(
        `| \`${key}\` | ${doc.type} | ${shownDefault(doc.default)} | ${cell(doc.description)}${note} |`,
      );
    }
    out.push("");
  }
  out.push(...hookReference());
  return out.join("\n").trimEnd();
}

function row(key: string, schema: z.core.$ZodType, note = ""): string {
  const doc = keyDoc(schema);
  return `| \`${key}\` | ${doc.type} | ${shownDefault(doc.default)} | ${cell(doc.description)}${note} |`;
}

/** The top-level hook keys and the keys of one `[[hooks]]` table (config/hooks-schema.ts). */
function hookReference(): string[] {
  const head = ["| key | type | default | description |", "|---|---|---|---|"];
  const untrusted = " *Ignored in an untrusted workspace.*";
  return [
    "### Top-level keys",
    "",
    "Written before the first section. The user's own config only: a workspace's config cannot loosen hooks.",
    "",
    ...head,
    row("hooks_may_allow", HOOK_SETTINGS.hooks_may_allow, untrusted),
    row("hooks_fail", HOOK_SETTINGS.hooks_fail, untrusted),
    "",
    "### `[[hooks]]`",
    "",
    "Hook scripts run around tool calls (docs/hooks.md), one table per hook; a workspace's run only once it is trusted.",
    "",
    ...head,
    ...Object.entries(HOOK_ENTRY.shape).map(([key, schema]) => row(key, schema)),
    "",
  ];
}
