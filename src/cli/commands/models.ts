/**
 * @module cli/commands/models
 * `toolgate models pull [NAME|URL]` downloads a GGUF model for the `local` provider into the user state
 * folder (resumable, checksum-verified, with progress on stderr) and, when the runtime (node-llama-cpp) is
 * missing, offers to install it there — on a terminal after asking, elsewhere only with `--yes`.
 * `models list` shows what is there and what can be pulled; `models rm NAME` removes a model.
 */
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { createInterface } from "node:readline";
import { ModelError } from "../../llm/index.js";
import { loadRuntime, RUNTIME_PACKAGE, RUNTIME_VERSION, runtimeDir } from "../../llm/local-runtime.js";
import {
  CATALOG,
  catalogModel,
  DEFAULT_MODEL,
  DownloadError,
  type DownloadProgress,
  downloadFile,
  listModels,
  modelsDir,
  modelUrl,
  removeModel,
} from "../../models/index.js";
import { userStateDir } from "../../state/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";

const usage = USAGE.models;

const OPTIONS = {
  sha256: {
    type: "string",
    value: "HEX",
    description: "pull: the SHA-256 the file must have (required for a URL whose server states none)",
  },
  yes: {
    type: "boolean",
    short: "y",
    description: "pull: install the runtime (node-llama-cpp, ~700 MB) without asking when it is missing",
  },
} as const;

export const help: CommandHelp = {
  summary:
    "Local models for `--provider local`: pull downloads one (resumable, checksum-verified) into the user state folder and offers to install the runtime; list shows what is there and what can be pulled; rm removes one.",
  options: OPTIONS,
  examples: ["toolgate models pull", "toolgate models list --json", "toolgate models rm qwen3-1.7b"],
};

export async function runModels(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseOptions("toolgate models", argv, OPTIONS);
  const [verb, ...rest] = positionals;
  const stateDir = userStateDir({ env: ctx.io.env });
  if (verb === "list" && rest.length === 0) return list(ctx, stateDir);
  if (verb === "rm" && rest.length === 1) {
    const removed = await removeModel(rest[0] as string, modelsDir(stateDir));
    if (!removed)
      throw new UsageError(`no model ${rest[0]} in ${modelsDir(stateDir)} (see \`toolgate models list\`)`);
    ctx.io.stdout(`removed ${rest[0]}\n`);
    return EXIT.ok;
  }
  if (verb === "pull" && rest.length <= 1)
    return pullModel(ctx, stateDir, rest[0] ?? DEFAULT_MODEL, {
      ...(values.sha256 ? { sha256: values.sha256 } : {}),
      yes: values.yes === true,
    });
  throw new UsageError(`usage: ${usage}`);
}

async function list(ctx: CliContext, stateDir: string): Promise<ExitCode> {
  const dir = modelsDir(stateDir);
  const models = await listModels(dir);
  if (ctx.globals.json) {
    ctx.io.stdout(
      `${JSON.stringify({ dir, models, available: CATALOG.map(({ name, about, approxBytes, licence }) => ({ name, about, approxBytes, licence })) })}\n`,
    );
    return EXIT.ok;
  }
  if (models.length === 0) ctx.io.stdout(`no models in ${dir}\n`);
  for (const m of models) ctx.io.stdout(`${m.name}  ${gb(m.bytes)}  ${m.path}\n`);
  const missing = CATALOG.filter((c) => !models.some((m) => m.name === c.name));
  if (missing.length > 0) {
    ctx.io.stdout("\ncan be pulled (`toolgate models pull NAME`):\n");
    for (const c of missing)
      ctx.io.stdout(
        `  ${c.name}${c.name === DEFAULT_MODEL ? " (default)" : ""}  ~${gb(c.approxBytes)}  ${c.licence}  ${c.about}\n`,
      );
  }
  return EXIT.ok;
}

/**
 * Pulls a catalogue model or a URL into the models folder, offering the runtime first when it is missing
 * (`yes` installs it without asking). Exit 0 when the model is in place.
 */
export async function pullModel(
  ctx: CliContext,
  stateDir: string,
  ref: string,
  { sha256, yes = false }: { sha256?: string; yes?: boolean },
): Promise<ExitCode> {
  const entry = catalogModel(ref);
  const isUrl = /^https?:\/\//.test(ref);
  if (!entry && !isUrl)
    throw new UsageError(
      `unknown model ${JSON.stringify(ref)}: use one of ${CATALOG.map((c) => c.name).join(", ")}, or a URL of a .gguf file with --sha256`,
    );
  let url: string;
  try {
    url = entry ? modelUrl(entry, ctx.io.env) : ref;
  } catch (error) {
    if (error instanceof DownloadError) throw new UsageError(error.message);
    throw error;
  }
  const file = entry ? entry.file : basename(new URL(ref).pathname);
  if (!file.endsWith(".gguf")) throw new UsageError(`${ref} does not name a .gguf file`);
  const name = entry?.name ?? file;

  await offerRuntime(ctx, stateDir, yes);

  const dir = modelsDir(stateDir);
  await mkdir(dir, { recursive: true });
  const dest = `${dir}/${file}`;
  ctx.io.stderr(
    `pulling ${name} from ${new URL(url).host}${entry ? ` (~${gb(entry.approxBytes)}, ${entry.licence})` : ""}\n`,
  );
  const progress = progressPrinter(ctx, name);
  try {
    const done = await downloadFile({
      url,
      dest,
      ...((sha256 ?? entry?.sha256) ? { sha256: (sha256 ?? entry?.sha256) as string } : {}),
      onProgress: progress,
    });
    progress.end();
    ctx.io.stdout(`pulled ${name}: ${dest} (${gb(done.bytes)}, sha256 ${done.sha256})\n`);
    return EXIT.ok;
  } catch (error) {
    progress.end();
    if (error instanceof DownloadError) {
      ctx.io.stderr(`toolgate: error: ${error.message}\n`);
      return error.kind === "no_checksum" ? EXIT.usage : EXIT.toolError;
    }
    throw error;
  }
}

/** Whether the runtime loads (from the project, or from the state folder). */
export async function runtimeInstalled(stateDir: string): Promise<boolean> {
  try {
    await loadRuntime(stateDir);
    return true;
  } catch (error) {
    if (error instanceof ModelError && error.kind === "runtime_missing") return false;
    throw error;
  }
}

/** Installs node-llama-cpp into the state folder when it is missing and the user agrees. */
async function offerRuntime(ctx: CliContext, stateDir: string, yes: boolean): Promise<void> {
  if (await runtimeInstalled(stateDir)) return;
  const target = runtimeDir(stateDir);
  const question = `The local provider needs ${RUNTIME_PACKAGE} (~700 MB with its CPU/GPU backends, from the npm registry), installed into ${target}. Install it now? [y/N] `;
  const agreed = yes || (ctx.io.isTTY && (await askYesNo(ctx, question)));
  if (!agreed) {
    ctx.io.stderr(
      `not installing ${RUNTIME_PACKAGE}: the model is downloaded, but \`chat --provider local\` needs it (run this again with --yes, or \`npm install ${RUNTIME_PACKAGE}\`)\n`,
    );
    return;
  }
  await mkdir(target, { recursive: true });
  // A package.json of its own keeps npm from installing into a parent project.
  await writeFile(
    `${target}/package.json`,
    `${JSON.stringify({ private: true, name: "toolgate-runtime" })}\n`,
    {
      flag: "wx",
    },
  ).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  const code = await new Promise<number>((resolve) => {
    const child = spawn(
      "npm",
      [
        "install",
        "--prefix",
        target,
        "--no-audit",
        "--no-fund",
        "--omit=dev",
        `${RUNTIME_PACKAGE}@${RUNTIME_VERSION}`,
      ],
      { stdio: ["ignore", "inherit", "inherit"], env: ctx.io.env },
    );
    child.on("error", () => resolve(127));
    child.on("exit", (c) => resolve(c ?? 1));
  });
  if (code !== 0)
    throw new ModelError(
      "runtime_missing",
      `installing ${RUNTIME_PACKAGE} into ${target} failed (npm exited ${code})`,
    );
}

async function askYesNo(ctx: CliContext, question: string): Promise<boolean> {
  const rl = createInterface({ input: ctx.io.stdin, terminal: false });
  try {
    ctx.io.stderr(question);
    const answer = await new Promise<string>((resolve) => {
      rl.once("line", resolve);
      rl.once("close", () => resolve(""));
    });
    return /^\s*(y|yes)\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}

/** Progress on stderr: a bar redrawn in place on a terminal, a line per tenth elsewhere. */
function progressPrinter(ctx: CliContext, name: string): ((p: DownloadProgress) => void) & { end(): void } {
  let lastDraw = 0;
  let lastTenth = -1;
  let drawn = false;
  const print = (p: DownloadProgress) => {
    const share = p.total ? p.received / p.total : undefined;
    if (p.resumedFrom) ctx.io.stderr(`resuming ${name} at ${mb(p.resumedFrom)} MB\n`);
    if (ctx.io.isTTY) {
      const now = Date.now();
      if (now - lastDraw < 100 && share !== 1) return;
      lastDraw = now;
      const width = 30;
      const filled = share === undefined ? 0 : Math.round(share * width);
      const bar =
        share === undefined
          ? ""
          : `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${Math.floor(share * 100)}% `;
      ctx.io.stderr(`\r${bar}${mb(p.received)}${p.total ? ` / ${mb(p.total)}` : ""} MB`);
      drawn = true;
      return;
    }
    const tenth = share === undefined ? -1 : Math.floor(share * 10);
    if (tenth > lastTenth) {
      lastTenth = tenth;
      ctx.io.stderr(`${name}: ${mb(p.received)}${p.total ? ` / ${mb(p.total)}` : ""} MB\n`);
    }
  };
  return Object.assign(print, {
    end() {
      if (drawn) ctx.io.stderr("\n");
      drawn = false;
    },
  });
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}

export function gb(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${(bytes / 1e6).toFixed(1)} MB`;
}
