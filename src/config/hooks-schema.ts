/**
 * @module config/hooks-schema
 * The config's hook keys (docs/hooks.md): `[[hooks]]` tables, and the two keys only the user's own config may
 * loosen (`hooks_may_allow`, `hooks_fail = "open"`). Top-level keys, not a section: `[[hooks]]` is a list.
 * An untrusted workspace's config loses all three (config/trust.ts).
 */
import { z } from "zod";

export const HOOK_EVENTS = ["pre_tool", "post_tool"] as const;
export const HOOK_FORMATS = ["toolgate", "claude", "gemini"] as const;
export const HOOK_FAIL_MODES = ["closed", "open"] as const;
/** The top-level keys below: what an untrusted workspace config cannot set. */
export const HOOK_KEYS: readonly string[] = ["hooks", "hooks_may_allow", "hooks_fail"];
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

const choice = <const T extends readonly [string, ...string[]]>(values: T, description: string) =>
  z
    .enum(values, {
      error: (issue) =>
        `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}, not ${JSON.stringify(issue.input)}`,
    })
    .describe(description);

/** One `[[hooks]]` table. */
export const HOOK_ENTRY = z.strictObject({
  name: z
    .string({ error: "must be a string" })
    .describe("The hook's name in reasons, audit and `toolgate hooks list` (default: its command).")
    .optional(),
  event: choice(
    HOOK_EVENTS,
    "`pre_tool`: before the call, in the decide step; `post_tool`: on its result, in the shape step.",
  ),
  tools: z
    .array(z.string(), { error: "must be an array of strings" })
    .describe("Tool patterns the hook runs for (`shell`, `mcp__github__*`, `*`).")
    .default(() => ["*"]),
  command: z
    .string({ error: "must be a string" })
    .min(1, { error: "must not be empty" })
    .describe("The command, run by `/bin/sh -c` in the workspace."),
  timeout_ms: z
    .number({ error: "must be a whole number ≥ 1" })
    .int({ error: "must be a whole number ≥ 1" })
    .min(1, { error: "must be a whole number ≥ 1" })
    .describe("How long the hook may run; past it the call is denied.")
    .default(DEFAULT_HOOK_TIMEOUT_MS),
  format: choice(
    HOOK_FORMATS,
    "The JSON on stdin and stdout: toolgate's, Claude Code's or gemini-cli's.",
  ).default("toolgate"),
});

/** Spread into the config schema's top level. */
export const HOOK_SETTINGS = {
  hooks: z
    .array(HOOK_ENTRY, { error: "must be a list of [[hooks]] tables" })
    .describe("Hook scripts run around tool calls ([[hooks]] tables; docs/hooks.md).")
    .default(() => []),
  hooks_may_allow: z
    .boolean({ error: "must be true or false" })
    .describe(
      "Whether a hook's `allow` from the user's own configuration turns the policy's `ask` into `allow` (never a `deny`). Only the user's own config (`--config`) can set it.",
    )
    .default(false),
  hooks_fail: choice(
    HOOK_FAIL_MODES,
    "What a failing hook means: `closed` denies the call; `open` lets it go on with a warning (only the user's own config).",
  ).default("closed"),
};
