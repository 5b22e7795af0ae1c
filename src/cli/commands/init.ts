/**
 * @module cli/commands/init
 * `toolgate init [--force] [--no-trust]`: writes a commented starter `.toolgate/policy.toml` and
 * `.toolgate/config.toml` into the workspace, adds `.toolgate/sessions/` and `.toolgate/state/` to
 * `.gitignore`, and trusts the two files it wrote (their digests go in the trust list; nothing else of the
 * folder is trusted by it). Everything is checked before anything is written: an existing policy or config
 * without `--force` stops the command with nothing changed. Files are written to temp files first, then
 * moved into place.
 */
import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, realpath, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { retrustFile } from "../../trust/index.js";
import { trustedFileKinds, trustStorePath } from "../../workspace/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";
import { CONFIG_TEMPLATE, GITIGNORE_LINES, POLICY_TEMPLATE } from "./init-templates.js";

const usage = USAGE.init;

const OPTIONS = {
  force: {
    type: "boolean",
    short: "f",
    description: "overwrite an existing policy or config (edits there are lost)",
  },
  "no-trust": {
    type: "boolean",
    description:
      "do not trust the files written (until `toolgate trust`, they can only make the gate stricter)",
  },
} as const;

export const help: CommandHelp = {
  summary:
    "Writes a commented starter .toolgate/policy.toml and .toolgate/config.toml in the workspace, adds toolgate's state folders to .gitignore, and trusts the two files it wrote (--no-trust leaves them untrusted).",
  options: OPTIONS,
  examples: ["toolgate init", "toolgate init --workspace ~/src/project", "toolgate init --no-trust"],
};

type Action = "created" | "overwritten" | "updated" | "unchanged";

/** One file `init` writes (or leaves as it is). */
interface PlannedFile {
  path: string;
  action: Action;
  /** New content; absent when unchanged. */
  content?: string;
  /** Mode to keep when replacing an existing file. */
  mode?: number;
  /** `.gitignore` lines added. */
  added?: string[];
  note: string;
}

export async function runInit(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseOptions("toolgate init", argv, OPTIONS);
  if (positionals.length > 0) throw new UsageError(`usage: ${usage}`);
  if (ctx.globals.policy !== undefined || ctx.globals.config !== undefined)
    throw new UsageError(
      "init writes .toolgate/policy.toml and .toolgate/config.toml in the workspace; --policy and --config do not apply (use --workspace DIR to choose the folder)",
    );
  const plan = await planInit(ctx.root, values.force === true);
  await applyPlan(ctx.root, plan);
  const trusted = values["no-trust"] ? [] : await trustWritten(ctx, plan);
  report(ctx, plan, trusted, values["no-trust"] === true);
  return EXIT.ok;
}

/**
 * Records the digests of the starter files init just wrote, from the text it wrote: the user ran init, so
 * toolgate vouches for exactly those bytes (and nothing else the folder holds). Returns their paths.
 */
async function trustWritten(ctx: CliContext, plan: readonly PlannedFile[]): Promise<string[]> {
  const store = trustStorePath({ env: ctx.io.env });
  const root = await realpath(ctx.root);
  const trusted: string[] = [];
  for (const file of plan) {
    const path = relative(ctx.root, file.path).split(sep).join("/");
    if (file.content === undefined || trustedFileKinds(path) === undefined) continue;
    await retrustFile(root, path, file.content, store);
    trusted.push(file.path);
  }
  return trusted;
}

/** Decides every file's fate, touching nothing. Throws a UsageError naming every file in the way. */
export async function planInit(root: string, force: boolean): Promise<PlannedFile[]> {
  const rootStat = await statOrNull(root);
  if (!rootStat?.isDirectory()) throw new UsageError(`workspace ${root} is not a folder`);
  const dotDir = join(root, ".toolgate");
  const dotStat = await statOrNull(dotDir);
  if (dotStat && !dotStat.isDirectory()) throw new UsageError(`${dotDir} exists and is not a folder`);

  const starters = [
    {
      path: join(dotDir, "policy.toml"),
      content: POLICY_TEMPLATE,
      note: "read-only tools and shell commands allowed, destructive commands denied, the rest asks",
    },
    {
      path: join(dotDir, "config.toml"),
      content: CONFIG_TEMPLATE,
      note: "model settings (Ollama, qwen3) and the other sections, commented",
    },
  ];
  const plan: PlannedFile[] = [];
  const inTheWay: string[] = [];
  for (const file of starters) {
    const existing = await statOrNull(file.path);
    if (existing && !existing.isFile()) throw new UsageError(`${file.path} exists and is not a file`);
    if (existing && !force) inTheWay.push(relative(root, file.path));
    plan.push({
      path: file.path,
      action: existing ? "overwritten" : "created",
      content: file.content,
      ...(existing ? { mode: existing.mode & 0o777 } : {}),
      note: file.note,
    });
  }
  if (inTheWay.length > 0) {
    const list = inTheWay.join(" and ");
    throw new UsageError(
      `${list} already ${inTheWay.length === 1 ? "exists" : "exist"} in ${root}; nothing was written. ` +
        "Pass --force to overwrite (your edits there would be lost).",
    );
  }
  plan.push(await planGitignore(root));
  return plan;
}

async function planGitignore(root: string): Promise<PlannedFile> {
  const path = join(root, ".gitignore");
  const existing = await statOrNull(path);
  if (existing && !existing.isFile()) throw new UsageError(`${path} exists and is not a file`);
  const text = existing ? await readFile(path, "utf8") : "";
  const missing = missingIgnoreLines(text);
  if (missing.length === 0) return { path, action: "unchanged", note: "already ignores toolgate's state" };
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lead = text === "" || text.endsWith("\n") ? "" : eol;
  const block = ["# toolgate: session transcripts and agent state", ...missing].join(eol);
  return {
    path,
    action: existing ? "updated" : "created",
    content: `${text}${lead}${text === "" ? "" : eol}${block}${eol}`,
    ...(existing ? { mode: existing.mode & 0o777 } : {}),
    added: missing,
    note: `ignores ${missing.join(", ")}`,
  };
}

/**
 * The lines of {@link GITIGNORE_LINES} a `.gitignore` does not already have. `/x/`, `x`, `x/` and `x/**`
 * count as the same entry, and ignoring `.toolgate/` as a whole covers both.
 */
export function missingIgnoreLines(text: string): string[] {
  const norm = (line: string) =>
    line
      .trim()
      .replace(/^\//, "")
      .replace(/\/\*\*$|\/\*$/, "")
      .replace(/\/$/, "");
  const present = new Set(text.split(/\r?\n/).map(norm));
  if (present.has(".toolgate")) return [];
  return GITIGNORE_LINES.filter((line) => !present.has(norm(line)));
}

/**
 * Writes every planned file to a temp file beside it, then moves them into place: a new file is linked
 * (so a file that appeared meanwhile is never clobbered — then what this run placed is taken back), a
 * replaced one renamed over the old.
 */
export async function applyPlan(root: string, plan: readonly PlannedFile[]): Promise<void> {
  await mkdir(join(root, ".toolgate"), { recursive: true });
  const staged: { temp: string; file: PlannedFile }[] = [];
  const placed: string[] = [];
  try {
    for (const file of plan) {
      if (file.content === undefined) continue;
      const temp = `${file.path}.init-${randomBytes(4).toString("hex")}.tmp`;
      staged.push({ temp, file });
      await writeFile(temp, file.content, { flag: "wx", mode: file.mode ?? 0o644 });
    }
    for (const { temp, file } of staged) {
      if (file.action === "created") {
        try {
          await link(temp, file.path);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
          throw new UsageError(
            `${relative(root, file.path)} appeared while init was running; nothing was written (run init again)`,
          );
        }
        placed.push(file.path);
      }
    }
  } catch (error) {
    await Promise.all(placed.map((path) => unlink(path).catch(() => undefined)));
    await Promise.all(staged.map((s) => unlink(s.temp).catch(() => undefined)));
    throw error;
  }
  for (const { temp, file } of staged) {
    if (file.action === "created") await unlink(temp);
    else await rename(temp, file.path);
  }
}

function report(
  ctx: CliContext,
  plan: readonly PlannedFile[],
  trusted: readonly string[],
  noTrust: boolean,
): void {
  if (ctx.globals.json) {
    const files = plan.map((f) => ({
      path: f.path,
      action: f.action,
      ...(f.added ? { added: f.added } : {}),
    }));
    ctx.io.stdout(`${JSON.stringify({ files, trusted })}\n`);
    return;
  }
  for (const file of plan) {
    ctx.io.stdout(`${file.action.padEnd(11)} ${relative(ctx.root, file.path)} — ${file.note}\n`);
  }
  const names = trusted.map((f) => relative(ctx.root, f)).join(" and ");
  ctx.io.stdout(
    noTrust
      ? "not trusted: until `toolgate trust`, these files can only make the gate stricter\n"
      : `${"trusted".padEnd(11)} ${names} — as written now (recorded in ${trustStorePath({ env: ctx.io.env })}; --no-trust skips this)\n`,
  );
  ctx.io.stdout(
    `\nTry it: toolgate policy check shell '{"command":"git status"}'\n` +
      "Edit .toolgate/policy.toml to change what runs without asking; toolgate policy validate .toolgate/policy.toml checks it.\n" +
      "An edited file counts only in part (it can tighten, not loosen) until `toolgate trust` shows what changed and trusts it.\n",
  );
}

async function statOrNull(path: string) {
  try {
    return await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
