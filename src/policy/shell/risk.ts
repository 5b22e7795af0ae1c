/**
 * @module policy/shell/risk
 * Risk of a command from its parsed words: `low` for well-known read-only commands, `high` for destructive or
 * privilege-raising ones (`rm -rf`, `sudo`, `dd`, `git push --force`, download piped to a shell, ...) and for
 * anything the analysis could not vouch for, `medium` otherwise. For display and for the policy's risk.
 */
import type { RiskLevel } from "../../core/index.js";
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

const READ_ONLY = new Set(
  (
    "ls cat head tail wc grep egrep fgrep rg ag echo printf pwd which whoami date true false id uname " +
    "hostname tree stat file du df basename dirname realpath readlink sort uniq cut tr diff cmp sha256sum " +
    "sha1sum md5sum nl column less more type whereis test"
  ).split(" "),
);
const GIT_READ_ONLY = new Set([
  "status",
  "log",
  "diff",
  "show",
  "rev-parse",
  "ls-files",
  "blame",
  "describe",
]);
const DISK = /^(dd|mkfs(\..*)?|mke2fs|fdisk|sfdisk|gdisk|parted|wipefs|shred|mkswap|cryptsetup|badblocks)$/;
const POWER = new Set(["shutdown", "reboot", "halt", "poweroff", "init", "telinit", "systemctl", "iptables"]);
const PRIVILEGE = new Set(["sudo", "doas", "su", "pkexec", "run0"]);
const DOWNLOAD = new Set(["curl", "wget", "fetch", "aria2c"]);
const RUNS_STDIN = /^(bash|sh|zsh|dash|ksh|ash|fish|python[0-9.]*|perl|ruby|node|php|sudo|source|eval)$/;
const HIGH_UNSAFE = /^(parse error|eval|source|wrapper|command substitution|process substitution|function)/;

const hasFlag = (args: readonly string[], short: RegExp, ...long: string[]) =>
  args.some((a) => (a.startsWith("-") && !a.startsWith("--") && short.test(a.slice(1))) || long.includes(a));

/** Why one command is dangerous, or undefined. */
function dangerOf(words: readonly string[]): string | undefined {
  const name = commandBase(words[0] ?? "");
  const args = words.slice(1);
  if (name === "rm" && hasFlag(args, /[rRf]/, "--recursive", "--force")) return "rm -rf";
  if (PRIVILEGE.has(name)) return `privilege: ${name}`;
  if (DISK.test(name)) return `disk: ${name}`;
  if (POWER.has(name)) return `system: ${name}`;
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
  if (name === "git") return GIT_READ_ONLY.has(words[1] ?? "");
  if (name === "find") return !words.some((w) => /^-(exec|execdir|ok|okdir|delete|fprint.*|fls)$/.test(w));
  return READ_ONLY.has(name);
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
    const download = names.findIndex((n) => DOWNLOAD.has(n));
    if (download >= 0 && names.slice(download + 1).some((n) => RUNS_STDIN.test(n))) {
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
