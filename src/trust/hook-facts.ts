/**
 * @module trust/hook-facts
 * What a workspace's Claude Code, gemini-cli or Codex file would run once trusted: each hook (its event,
 * matcher and command), so `toolgate trust` lists the hooks it would enable and what changed since.
 */
import { hostHooks, hostSettingsFile } from "../hooks/index.js";
import type { FactKind } from "./kind.js";

/** One line per hook, in the file's order. */
export interface HookFacts {
  hooks: string[];
}

export const hooksKind: FactKind<HookFacts> = {
  summarize(text, path) {
    const file = hostSettingsFile(path);
    if (!file) throw new Error(`${path}: not a file toolgate reads hooks from`);
    const { hooks } = hostHooks(file.format, text, path, "workspace", file.syntax);
    return {
      hooks: hooks.map((h) => {
        const match = "matcher" in h.match ? h.match.matcher || "*" : h.match.tools.join(", ");
        return `hook ${h.event} [${match}]: runs ${JSON.stringify(h.command)}`;
      }),
    };
  },
  describe: (facts) => facts.hooks,
  changes(before, after) {
    const added = after.hooks.filter((h) => !before.hooks.includes(h)).map((h) => `added: ${h}`);
    const removed = before.hooks.filter((h) => !after.hooks.includes(h)).map((h) => `removed: ${h}`);
    return [...added, ...removed];
  },
};
