/**
 * Stand-in `url` and `command` plug-ins for the policy corpus: just enough semantics to prove the engine
 * dispatches on argument kinds and honours `"ask"` answers. The real plug-ins live in conditions/url.ts and
 * shell/; they are tested on their own.
 */
import { stringList } from "../conditions/operands.js";
import type { ArgKindPlugin } from "../types.js";

/** Parses a URL; an unparsable one prepares to `null` (its conditions fail). */
export const standInUrlPlugin: ArgKindPlugin<URL | null> = {
  kind: "url",
  prepare: (raw) => (typeof raw === "string" && URL.canParse(raw) ? new URL(raw) : null),
  operators: {
    host(operand) {
      const hosts = stringList(operand);
      return (value) => value !== null && hosts.includes(value.hostname);
    },
  },
};

/** Splits a command into words; `prefix` answers "ask" when the command holds `$(`. */
export const standInCommandPlugin: ArgKindPlugin<string> = {
  kind: "command",
  prepare: (raw) => String(raw),
  operators: {
    prefix(operand) {
      const prefixes = stringList(operand);
      return (value) => {
        if (!prefixes.some((p) => value === p || value.startsWith(`${p} `))) return false;
        return value.includes("$(") ? "ask" : true;
      };
    },
  },
};
