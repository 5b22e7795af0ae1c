/**
 * @module cli/commands/doctor-hooks
 * `toolgate doctor`'s hooks check: what weakens the hooks a person relies on — `hooks_fail = "open"` (a hook
 * that crashes then lets every call run, as Claude Code and gemini-cli do), a hook whose program is not there or
 * not executable (it fails, so every call it matches is denied), workspace hooks waiting for `toolgate trust`,
 * and settings-file entries toolgate does not run. Informational: it never fails the command.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { displaySafe } from "../../core/index.js";
import type { HookSpec } from "../../hooks/index.js";
import type { Toolgate } from "../../toolgate.js";
import type { DoctorCheck } from "./doctor.js";

/** The variables a hook command may start with that toolgate sets (to the workspace). */
const PROJECT_DIR = /^"?\$\{?(CLAUDE|GEMINI|TOOLGATE)_PROJECT_DIR\}?"?/;

/**
 * Why the program a hook command starts cannot run, or undefined when it can or when the command is more shell
 * than a program (its first word holds quotes, variables or substitutions toolgate does not expand here).
 */
export function programProblem(
  command: string,
  root: string,
  path = process.env["PATH"] ?? "",
): string | undefined {
  const first = command.trim().replace(PROJECT_DIR, root).split(/\s+/)[0] ?? "";
  if (first === "" || /["'`$\\(){};|&<>*?[\]~=]/.test(first)) return undefined;
  const executable = (file: string) => {
    try {
      if (!statSync(file).isFile()) return false;
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (first.includes("/")) {
    const file = isAbsolute(first) ? first : join(root, first);
    return executable(file) ? undefined : `${first} is not an executable file`;
  }
  const found = path
    .split(delimiter)
    .filter((dir) => dir !== "")
    .some((dir) => executable(join(dir, first)));
  return found ? undefined : `${first} is not on PATH`;
}

function name(spec: HookSpec): string {
  return displaySafe(`\`${spec.name}\` (${spec.source})`, false);
}

export function checkHooks(gate: Toolgate | undefined, root: string): DoctorCheck {
  const check = "hooks";
  if (!gate) return { check, ok: true, required: false, detail: "not checked (the config did not load)" };
  const { hooks, untrusted, skipped, failOpen } = gate.hooks;
  const warnings: string[] = [];
  const fixes: string[] = [];
  if (failOpen && hooks.length > 0) {
    warnings.push(
      'hooks_fail = "open": a hook that crashes, times out or is missing lets the call run, so a broken guard stops guarding unnoticed',
    );
    fixes.push('remove hooks_fail = "open" from your config (the default "closed" denies the call instead)');
  }
  const broken = hooks.flatMap((h) => {
    const problem = programProblem(h.command, root);
    return problem ? [`hook ${name(h)} cannot run: ${displaySafe(problem, false)}`] : [];
  });
  if (broken.length > 0) {
    warnings.push(
      ...broken.map((b) => `${b} (${failOpen ? "it is ignored" : "every call it matches is denied"})`),
    );
    fixes.push(
      "fix the hook's command or remove the hook (`toolgate hooks list` shows where each is read from)",
    );
  }
  if (untrusted.length > 0) {
    const files = [...new Set(untrusted.map((h) => h.source.split("#")[0]))];
    warnings.push(
      `${untrusted.length} workspace hook(s) do not run until trusted: ${displaySafe(files.join(", "), false)}`,
    );
    fixes.push("review them with `toolgate trust --show`, then `toolgate trust`");
  }
  const counts = `${hooks.length} hook(s) run${skipped.length > 0 ? `; ${skipped.length} settings-file entr(ies) toolgate does not run (\`toolgate hooks list\` says why)` : ""}`;
  if (warnings.length === 0) return { check, ok: true, required: false, detail: counts };
  return {
    check,
    ok: false,
    required: false,
    detail: `${counts}; ${warnings.join("; ")}`,
    fix: fixes.join("; "),
  };
}
