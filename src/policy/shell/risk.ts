/**
 * @module policy/shell/risk
 * Risk of a command from its parsed words: `low` for well-known read-only commands, `high` for destructive or
 * privilege-raising ones (`rm -rf`, `sudo`, `dd`, `git push --force`, download piped to a shell, ...) and for
 * anything the analysis could not vouch for, `medium` otherwise. For display and for the policy's risk.
 * Which program names mean what is data (`risk-programs.json`); the option checks (`rm -rf`, `git push
 * --force`) are below.
 */
import type { RiskLevel } from "../../core/index.js";
import { RISK_PROGRAMS } from "./risk-programs.js";
import { commandBase } from "./wrappers.js";

/** A risk level with the reasons that raised it. */
export interface RiskAssessment {
  risk: RiskLevel;
  reasons: string[];
}

/** What {@link classifyRisk} looks at (a `CommandAnalysis` fits). */
export interface RiskInput {
  ok: boolean;
  commands: readonly (readonly string[])[];
  unsafe: readonly string[];
  /** Each pipeline's stages, as indexes into `commands`. */
  pipelines?: readonly (readonly number[])[];
  /** Program findings: deleting or running given command text (`sed 'e CMD'`) is high, the rest medium. */
  findings?: readonly { effect: string; reason: string; runs?: string }[];
}

const { readOnly, gitReadOnly, findActs, disk, power, privilege, download, runsStdin } = RISK_PROGRAMS;
const HIGH_UNSAFE = /^(parse error|eval|source|wrapper|command substitution|process substitution|function)/;

const hasFlag = (args: readonly string[], short: RegExp, ...long: string[]) =>
  args.some((a) => (a.startsWith("-") && !a.startsWith("--") && short.test(a.slice(1))) || long.includes(a));

/** Why one command is dangerous, or undefined. */
function dangerOf(words: readonly string[]): string | undefined {
  const name = commandBase(words[0] ?? "");
  const args = words.slice(1);
  if (name === "rm" && hasFlag(args, /[rRf]/, "--recursive", "--force")) return "rm -rf";
  if (privilege.has(name)) return `privilege: ${name}`;
  if (disk.has(name)) return `disk: ${name}`;
  if (power.has(name)) return `system: ${name}`;
  if (/^(chmod|chown|chgrp)$/.test(name) && hasFlag(args, /R/, "--recursive")) return `${name} -R`;
  if (name === "kill" && args.some((a) => a === "-9" || a === "-KILL" || a === "-SIGKILL")) return "kill -9";
  if (name === "killall" || name === "pkill") return name;
  if (name === "crontab" && args.includes("-r")) return "crontab -r";
  if (name === "git") return gitDanger(args);
  return undefined;
}

function gitDanger(args: readonly string[]): string | undefined {
  // Global options (`git -C dir push`) are dropped by the analysis into a second, derived command.
  const [sub, ...rest] = args;
  const forced = (a: string) =>
    a.startsWith("--force") || a === "--mirror" || a === "--delete" || isForceRef(a);
  if (sub === "push" && (hasFlag(rest, /f/) || rest.some(forced))) return "git push --force";
  if (sub === "reset" && rest.includes("--hard")) return "git reset --hard";
  if (sub === "clean" && hasFlag(rest, /f/, "--force")) return "git clean -f";
  if (sub === "filter-branch" || sub === "filter-repo") return `git ${sub}`;
  return undefined;
}

const isForceRef = (a: string) => a.startsWith("+") && a.length > 1;

function isReadOnly(words: readonly string[]): boolean {
  const name = commandBase(words[0] ?? "");
  if (name === "git") return gitReadOnly.has(words[1] ?? "");
  if (name === "find") return !words.some(findActs);
  return readOnly.has(name);
}

/**
 * Classifies a parsed command. Unanalysable commands and wrappers that hide code are `high`.
 * @example classifyRisk(await analyzeCommand("rm -rf build")) // { risk: "high", reasons: ["rm -rf"] }
 */
export function classifyRisk(input: RiskInput): RiskAssessment {
  const high: string[] = [];
  if (!input.ok) high.push("unanalysable command");
  for (const reason of input.unsafe) if (HIGH_UNSAFE.test(reason)) high.push(reason);
  for (const words of input.commands) {
    const danger = dangerOf(words);
    if (danger) high.push(danger);
  }
  for (const f of input.findings ?? [])
    if (f.effect === "delete" || f.runs !== undefined) high.push(f.reason);
  for (const stages of input.pipelines ?? []) {
    const names = stages.map((i) => commandBase(input.commands[i]?.[0] ?? ""));
    const downloadAt = names.findIndex((n) => download.has(n));
    if (downloadAt >= 0 && names.slice(downloadAt + 1).some((n) => runsStdin.has(n))) {
      high.push("download piped to a shell");
    }
  }
  if (high.length > 0) return { risk: "high", reasons: [...new Set(high)] };
  const findings = (input.findings ?? []).map((f) => f.reason);
  if (input.unsafe.length > 0 || findings.length > 0)
    return { risk: "medium", reasons: [...input.unsafe, ...findings] };
  if (input.commands.length > 0 && input.commands.every(isReadOnly)) return { risk: "low", reasons: [] };
  return { risk: "medium", reasons: [] };
}
