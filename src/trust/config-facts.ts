/**
 * @module trust/config-facts
 * What a workspace's `.toolgate/config.toml` sets that only counts once trusted: the security settings
 * (`config/security-keys.json`) and `[files] protected` exceptions (`!docs/**`: never to the built-in list). The
 * rule for both is the loader's (`withoutSecurityKeys`), so the review and the untrusted load never disagree.
 * Read from the TOML as written, not validated.
 */
import { parse } from "smol-toml";
import { type ToolgateConfig, withoutSecurityKeys } from "../config/index.js";
import type { FactKind } from "./kind.js";

/** The facts of one config file. */
export interface ConfigFacts {
  /** Security key (`web.allow_hosts`) → its value, as JSON. */
  sets: Record<string, string>;
  /** `[files] protected` entries that remove protection. */
  unprotects: string[];
  /** `[[hooks]]` tables, one line each (what runs, when); absent in facts recorded before hooks were listed. */
  hooks?: string[];
}

/** A `[[hooks]]` table as the review shows it; the defaults are the schema's (`tools = ["*"]`). */
function hookLine(raw: unknown): string {
  const t = (raw ?? {}) as Record<string, unknown>;
  const tools = Array.isArray(t["tools"]) ? t["tools"].map(String).join(", ") : "*";
  const name = typeof t["name"] === "string" ? ` ${JSON.stringify(t["name"])}` : "";
  return `hook${name} ${String(t["event"])} [${tools}]: runs ${JSON.stringify(String(t["command"]))}`;
}

export const configKind: FactKind<ConfigFacts> = {
  summarize(text) {
    const raw = parse(text) as Record<string, Record<string, unknown>>;
    const { ignored, unprotected } = withoutSecurityKeys(raw as ToolgateConfig);
    const sets: Record<string, string> = {};
    let hooks: string[] = [];
    for (const key of ignored) {
      const dot = key.indexOf(".");
      // Top-level keys (hooks_fail, hooks_may_allow) have no section; [[hooks]] is listed hook by hook.
      if (key === "hooks") hooks = (Array.isArray(raw[key]) ? (raw[key] as unknown[]) : []).map(hookLine);
      else if (dot < 0) sets[key] = JSON.stringify(raw[key]);
      else sets[key] = JSON.stringify(raw[key.slice(0, dot)]?.[key.slice(dot + 1)]);
    }
    return { sets, unprotects: unprotected, hooks };
  },
  describe(facts) {
    const lines = Object.entries(facts.sets).map(([key, value]) => `sets ${key} = ${value}`);
    for (const p of facts.unprotects)
      lines.push(`exempts from its own protected paths: ${JSON.stringify(p)}`);
    lines.push(...(facts.hooks ?? []));
    return lines;
  },
  changes(before, after) {
    const lines: string[] = [];
    for (const [key, value] of Object.entries(after.sets)) {
      const was = before.sets[key];
      if (was === undefined) lines.push(`added: ${key} = ${value}`);
      else if (was !== value) lines.push(`changed: ${key} = ${was} → ${value}`);
    }
    for (const key of Object.keys(before.sets))
      if (!(key in after.sets)) lines.push(`removed: ${key} (was ${before.sets[key]})`);
    for (const p of after.unprotects)
      if (!before.unprotects.includes(p))
        lines.push(`added: exempts from its own protected paths: ${JSON.stringify(p)} (looser)`);
    const was = before.hooks ?? [];
    const now = after.hooks ?? [];
    for (const h of now) if (!was.includes(h)) lines.push(`added: ${h}`);
    for (const h of was) if (!now.includes(h)) lines.push(`removed: ${h}`);
    return lines;
  },
};
