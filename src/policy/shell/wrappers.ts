/**
 * @module policy/shell/wrappers
 * Commands that run other commands (`sudo`, `env`, `xargs`, `find -exec`, `bash -c`, `eval`, `git -c`, ...).
 * For each, says why a prefix rule cannot vouch for it and, where it can, which command it wraps, so deny
 * rules still see `rm` in `sudo env X=1 rm -rf /`. The plain prefix wrappers and the `git -c` keys whose value
 * is a command are data (`wrappers.json`); wrappers with their own syntax are functions below.
 */
import { gitConfigScript, PREFIX_WRAPPERS } from "./wrapper-data.js";

/** What a wrapper hides: the reason it is unsafe, and the wrapped words or shell text where known. */
export interface Unwrapped {
  /** Why an allow rule must not vouch for the command (absent: harmless normalisation only). */
  reason?: string;
  /** The wrapped command's words. */
  inner?: string[];
  /** Shell text the wrapper runs (`bash -c TEXT`, `eval ...`, `env -S TEXT`, `watch ...`). */
  script?: string;
}

/** Final path segment of a command name (`/usr/bin/sudo` → `sudo`). */
export function commandBase(name: string): string {
  const slash = name.lastIndexOf("/");
  return slash >= 0 ? name.slice(slash + 1) : name;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Index of the first word at or after `start` that is not an option. `withArg` lists options that take the
 * next word as their value; `--` ends options; `NAME=VALUE` words are skipped when `assignments` is set.
 */
function skipOptions(
  words: string[],
  start: number,
  withArg: ReadonlySet<string>,
  assignments = false,
): number {
  let i = start;
  while (i < words.length) {
    const w = words[i]!;
    if (w === "--") return i + 1;
    if (assignments && ASSIGNMENT.test(w)) {
      i++;
      continue;
    }
    if (!w.startsWith("-") || w === "-") return i;
    i += withArg.has(w) ? 2 : 1;
  }
  return i;
}

const set = (...items: string[]): ReadonlySet<string> => new Set(items);

const SHELLS = set("bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish");
const INTERPRETER =
  /^(python[0-9.]*|pypy[0-9.]*|node|nodejs|perl[0-9.]*|ruby|php[0-9.]*|lua[0-9.]*|bun|deno|Rscript|pwsh|powershell|osascript|tclsh)$/;
const CODE_FLAGS = set("-c", "-e", "-E", "-p", "-r", "--eval", "--print", "-Command", "-command", "eval");

/** `bash [options] -c TEXT`: the text, or undefined when the shell runs a script or stdin. */
function shellText(words: string[], from: number): string | undefined {
  let sawC = false;
  for (let i = from; i < words.length; i++) {
    const w = words[i]!;
    // `bash -c -- TEXT` runs TEXT: `--` ends the options, not the search for the text.
    if (w === "--") return sawC ? words[i + 1] : undefined;
    if (/^[-+][oO]$/.test(w) || w === "--rcfile" || w === "--init-file") {
      i++;
      continue;
    }
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(w)) {
      sawC = true;
      continue;
    }
    if (w.startsWith("-") || w.startsWith("+")) continue;
    return sawC ? w : undefined;
  }
  return undefined;
}

/** `find ... -exec CMD ... ;` (and `-execdir`, `-ok`, `-okdir`): every wrapped command. */
function findExecs(words: string[]): string[][] {
  const found: string[][] = [];
  for (let i = 1; i < words.length; i++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(words[i]!)) continue;
    const inner: string[] = [];
    for (i++; i < words.length && words[i] !== ";" && words[i] !== "+"; i++) inner.push(words[i]!);
    found.push(inner);
  }
  return found;
}

const PARALLEL_WITH_ARG = set(
  ...["-j", "--jobs", "-S", "--sshlogin", "--joblog", "-a", "--arg-file", "-d", "--delimiter", "-I"],
  ...["-n", "--max-args", "-N", "-L", "--colsep", "-C", "--tmpdir", "--workdir", "--wd", "--results"],
  ...["--timeout", "--retries", "--env", "--halt", "--delay", "--memfree", "--load", "--tag-string"],
);

const GIT_WITH_ARG = set("-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix");

/** `git` global options: `-c`/`--config-env`/`--exec-path` are unsafe; the rest is dropped for deny rules. */
function unwrapGit(words: string[]): Unwrapped[] {
  const out: Unwrapped[] = [];
  let i = 1;
  while (i < words.length && words[i]!.startsWith("-")) {
    const w = words[i]!;
    if (w === "-c" || w === "--config-env") {
      const script = w === "-c" ? gitConfigScript(words[i + 1] ?? "") : undefined;
      out.push({ reason: `wrapper: git ${w}`, ...(script !== undefined ? { script } : {}) });
      i += 2;
    } else if (w.startsWith("--config-env=") || w.startsWith("--exec-path")) {
      out.push({ reason: `wrapper: git ${w.split("=")[0]}` });
      i++;
    } else i += GIT_WITH_ARG.has(w) ? 2 : 1;
  }
  const rest = words.slice(i);
  if (i > 1) out.push({ inner: ["git", ...rest] });
  const [sub, ...args] = rest;
  if (sub === "submodule" && args[0] === "foreach") {
    out.push({ reason: "wrapper: git submodule foreach", script: args.slice(1).join(" ") });
  } else if (sub === "bisect" && args[0] === "run") {
    out.push({ reason: "wrapper: git bisect run", inner: args.slice(1) });
  } else if (sub === "rebase") {
    const at = args.findIndex((a) => a === "-x" || a === "--exec");
    if (at >= 0) out.push({ reason: "wrapper: git rebase --exec", script: args[at + 1] ?? "" });
  }
  return out;
}

/**
 * What a command wraps, if anything. Returns one entry per finding (a `find` may wrap several commands).
 * @example unwrap(["sudo", "-u", "root", "rm", "x"]) // [{ reason: "wrapper: sudo", inner: ["rm", "x"] }]
 */
export function unwrap(words: string[]): Unwrapped[] {
  const name = commandBase(words[0] ?? "");
  const prefix = PREFIX_WRAPPERS[name];
  if (prefix) {
    let at = skipOptions(words, 1, prefix.withArg, prefix.assignments);
    at += prefix.skip ?? 0;
    const inner = words.slice(at);
    if (name === "xargs" && inner.length === 0) inner.push("echo");
    return [{ reason: `wrapper: ${name}`, inner }];
  }
  switch (name) {
    case "env": {
      const found = unwrapEnv(words);
      return found.reason === undefined ? [] : [found];
    }
    case "eval":
      return [{ reason: "eval", script: words.slice(1).join(" ") }];
    case "source":
    case ".":
      return [{ reason: "source" }];
    case "su": {
      const at = words.findIndex((w) => w === "-c" || w === "--command");
      const eq = words.find((w) => w.startsWith("--command="));
      const text = at >= 0 ? words[at + 1] : eq?.slice("--command=".length);
      return [text === undefined ? { reason: "wrapper: su" } : { reason: "wrapper: su -c", script: text }];
    }
    case "watch": {
      const at = skipOptions(words, 1, set("-n", "--interval", "-q", "--equexit"));
      return [{ reason: "wrapper: watch", script: words.slice(at).join(" ") }];
    }
    case "flock": {
      const at = skipOptions(words, 1, set("-w", "--timeout", "-E", "--conflict-exit-code")) + 1;
      const next = words[at];
      if (next === "-c" || next === "--command")
        return [{ reason: "wrapper: flock", script: words[at + 1] ?? "" }];
      return [{ reason: "wrapper: flock", inner: words.slice(at) }];
    }
    case "script": {
      // `-c CMD`, or a cluster ending in c (`-qc CMD`).
      const at = words.findIndex((w) => w === "--command" || /^-[A-Za-z]*c$/.test(w));
      const eq = words.find((w) => w.startsWith("--command="));
      const text = at >= 0 ? words[at + 1] : eq?.slice("--command=".length);
      return [
        text === undefined ? { reason: "wrapper: script" } : { reason: "wrapper: script -c", script: text },
      ];
    }
    case "parallel": {
      // GNU parallel runs its command through a shell; its arguments follow `:::`.
      const at = skipOptions(words, 1, PARALLEL_WITH_ARG);
      const end = words.findIndex((w, i) => i >= at && /^:{3,4}\+?$/.test(w));
      const text = words.slice(at, end < 0 ? undefined : end).join(" ");
      return [text === "" ? { reason: "wrapper: parallel" } : { reason: "wrapper: parallel", script: text }];
    }
    case "find": {
      const execs = findExecs(words);
      return execs.map((inner) => ({ reason: "wrapper: find -exec", inner }));
    }
    case "git":
      return unwrapGit(words);
  }
  if (SHELLS.has(name)) {
    const text = shellText(words, 1);
    return [
      text === undefined ? { reason: `wrapper: ${name}` } : { reason: `wrapper: ${name} -c`, script: text },
    ];
  }
  if (INTERPRETER.test(name)) {
    const flag = words.slice(1).find((w) => CODE_FLAGS.has(w));
    if (flag) return [{ reason: `wrapper: ${name} ${flag}` }];
    if (!words.slice(1).some((w) => !w.startsWith("-"))) return [{ reason: `wrapper: ${name} (stdin)` }];
  }
  return [];
}

/** `env [-i] [-u NAME] [-C DIR] [NAME=VALUE]... [-S TEXT | COMMAND...]`. */
function unwrapEnv(words: string[]): Unwrapped {
  let i = 1;
  while (i < words.length) {
    const w = words[i]!;
    if (w === "-S" || w === "--split-string") {
      return { reason: "wrapper: env -S", script: words.slice(i + 1).join(" ") };
    }
    if (w.startsWith("-S") || w.startsWith("--split-string=")) {
      const text = w.startsWith("-S") ? w.slice(2) : w.slice("--split-string=".length);
      return { reason: "wrapper: env -S", script: [text, ...words.slice(i + 1)].join(" ") };
    }
    if (w === "--") {
      i++;
      break;
    }
    if (w === "-u" || w === "--unset" || w === "-C" || w === "--chdir") i += 2;
    else if (w.startsWith("-") || ASSIGNMENT.test(w)) i++;
    else break;
  }
  while (i < words.length && ASSIGNMENT.test(words[i]!)) i++;
  // `env` alone (or with only NAME=VALUE words) prints the environment: it runs nothing.
  if (i >= words.length) return {};
  return { reason: "wrapper: env", inner: words.slice(i) };
}

/**
 * The shell or interpreter a command is, when it reads its code from standard input (`sh`, `bash -s`,
 * `python3 -`, `node`): text piped or redirected into it runs as code nobody has read.
 * @example stdinInterpreter(["bash"]) // "bash"; stdinInterpreter(["bash", "-c", "ls"]) // undefined
 */
export function stdinInterpreter(words: readonly string[]): string | undefined {
  const name = commandBase(words[0] ?? "");
  const args = words.slice(1);
  if (SHELLS.has(name)) {
    if (shellText([...words], 1) !== undefined) return undefined;
    const operand = args.find((w) => !w.startsWith("-") && !w.startsWith("+"));
    return operand === undefined || args.includes("-s") ? name : undefined;
  }
  if (INTERPRETER.test(name) && !args.some((w) => CODE_FLAGS.has(w))) {
    const operand = args.find((w) => !w.startsWith("-") || w === "-");
    return operand === undefined || operand === "-" ? name : undefined;
  }
  return undefined;
}
