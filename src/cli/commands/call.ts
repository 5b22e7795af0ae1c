/**
 * @module cli/commands/call
 * `toolgate call TOOL [ARGS_JSON|-]` and `toolgate call --batch FILE|-`: calls through the whole pipeline.
 * `-` as ARGS_JSON reads the arguments from stdin.
 */

import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import {
  type CallResult,
  type Confirm,
  displaySafe,
  displaySafeJson,
  type OfferAlwaysRule,
  ownLabel,
  type ToolCall,
} from "../../core/index.js";
import { gateOffer } from "../always-rule.js";
import { approverFor, type CliContext } from "../context.js";
import { denialHint } from "../denial-hint.js";
import { EXIT, type ExitCode, exitCodeForError, UsageError, worstExitCode } from "../exit-codes.js";
import { readAll } from "../io.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";

const usage = USAGE.call;

const OPTIONS = {
  yes: {
    type: "boolean",
    short: "y",
    description:
      "answer `ask` with yes (never overrides a deny); without it and without a terminal, ask is denied",
  },
  batch: {
    type: "string",
    value: "FILE",
    description: 'one call per JSONL line {"name","args"}, in order (- reads stdin)',
  },
} as const;

export const help: CommandHelp = {
  summary:
    "Runs one tool call through the whole pipeline (validation, policy, confirmation, execution, truncation). ARGS_JSON is a JSON object; - reads it from stdin. Exit 1 when the tool reports an error, 2 for bad arguments, 3 when denied.",
  options: OPTIONS,
  examples: [
    `toolgate call read_file '{"path":"README.md","startLine":1,"endLine":20}'`,
    `echo '{"command":"git status"}' | toolgate call shell - --yes`,
    "toolgate call --batch calls.jsonl --json",
  ],
};

export async function runCall(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseOptions("toolgate call", argv, OPTIONS);
  const gate = await ctx.gate();
  // A terminal's "always" adds the rule allowing exactly the call to the policy file (shown first).
  const confirm = approverFor(
    ctx.io,
    values.yes === true,
    gateOffer(() => ctx.gate(), ctx.root),
  );
  const askable = values.yes === true || ctx.io.isTTY;
  // No one to ask here: an ask routed to the console carries the rule its "approve always" would add (the
  // gate's offer, cli/context.ts).
  const answering = confirm ? { confirm } : {};
  const controller = new AbortController();
  // Ctrl-C, a kill or a closed terminal cancels the call; the gate is then closed, stopping its processes.
  const onSignal = () => controller.abort();
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, onSignal);
  try {
    if (values.batch !== undefined) {
      if (positionals.length > 0) throw new UsageError(`--batch takes no other arguments; usage: ${usage}`);
      return await runBatch(values.batch, ctx, { signal: controller.signal, ...answering }, askable);
    }
    const [name, argsText, ...extra] = positionals;
    if (!name || extra.length > 0) throw new UsageError(`usage: ${usage}`);
    const args =
      argsText === undefined ? {} : parseArgsJson(argsText === "-" ? await readAll(ctx.io.stdin) : argsText);
    const result = await gate.execute({ name, args }, { signal: controller.signal, ...answering });
    printResult(result, ctx);
    await printHint({ name, args }, result, ctx, askable, new Set());
    return exitCodeForError(result.error?.type);
  } finally {
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.removeListener(signal, onSignal);
  }
}

function parseArgsJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`ARGS_JSON is not valid JSON: ${(error as Error).message}`);
  }
}

async function runBatch(
  file: string,
  ctx: CliContext,
  options: { signal: AbortSignal; confirm?: Confirm; offerAlways?: OfferAlwaysRule },
  askable: boolean,
): Promise<ExitCode> {
  const hinted = new Set<string>();
  const gate = await ctx.gate();
  const lines =
    file === "-"
      ? createInterface({ input: ctx.io.stdin, terminal: false })
      : (await readFileOrUsage(resolve(ctx.io.cwd, file))).split(/\r?\n/);
  const codes: ExitCode[] = [];
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === "") continue;
    let call: ToolCall;
    try {
      const parsed = JSON.parse(line) as { name?: unknown; args?: unknown };
      if (typeof parsed !== "object" || parsed === null || typeof parsed.name !== "string")
        throw new Error('each line needs a "name"');
      call = { name: parsed.name, args: parsed.args ?? {} };
    } catch (error) {
      const message = `line ${n}: ${(error as Error).message}`;
      if (ctx.globals.json) printResult(usageResult(message), ctx);
      else ctx.io.stderr(`toolgate: line ${n}: invalid_params: ${(error as Error).message}\n`);
      codes.push(EXIT.usage);
      continue;
    }
    const result = await gate.execute(call, options);
    if (ctx.globals.json) printResult(result, ctx);
    else printBatchLine(n, call.name, result, ctx);
    await printHint(call, result, ctx, askable, hinted);
    codes.push(exitCodeForError(result.error?.type));
  }
  return worstExitCode(codes);
}

async function readFileOrUsage(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(
      `cannot read batch file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

function usageResult(message: string): CallResult {
  return {
    ok: false,
    tool: "",
    label: ownLabel(""),
    decision: null,
    rule: null,
    risk: null,
    durationMs: 0,
    llmContent: `Error (invalid_params): ${message}`,
    returnDisplay: `Error: ${message}`,
    error: { type: "invalid_params", message },
  };
}

/** Under a denial, how to allow the call (stderr, also with --json); each hint once per run. */
async function printHint(
  call: ToolCall,
  result: CallResult,
  ctx: CliContext,
  askable: boolean,
  hinted: Set<string>,
): Promise<void> {
  const gate = await ctx.gate();
  const tool = typeof call.name === "string" ? gate.registry.get(call.name) : undefined;
  const hint = await denialHint(call, result, {
    policy: gate.policy,
    tool,
    root: ctx.root,
    askable,
    terminalAsks: true,
  });
  if (hint === undefined || hinted.has(hint)) return;
  hinted.add(hint);
  if (ctx.globals.json) ctx.io.stderr(`toolgate: ${displaySafe(result.error?.message ?? "", false)}\n`);
  ctx.io.stderr(`${hint}\n`);
}

/**
 * A batch call in text mode: a line per call, starting with its line number and tool — `line 2 ls: Listed
 * 3 entries in ./` on stdout, or `toolgate: line 3 write_file: denied_by_policy: …` on stderr; a display of
 * several lines (a command's output) goes below it, indented.
 */
function printBatchLine(n: number, name: string, result: CallResult, ctx: CliContext): void {
  const display = shown(
    result.error && result.returnDisplay === `Error: ${result.error.message}` ? "" : result.returnDisplay,
  );
  const lines = display === "" ? [] : display.replace(/\n$/, "").split("\n");
  // One line shows beside its call; several (a command's output) go below it, indented.
  const safeName = displaySafe(name, false);
  const text =
    lines.length > 1
      ? `line ${n} ${safeName}:\n${lines.map((l) => `    ${l}\n`).join("")}`
      : `line ${n} ${safeName}: ${lines[0] ?? "ok"}\n`;
  if (!result.error) ctx.io.stdout(text);
  else {
    if (lines.length > 0) ctx.io.stdout(text);
    ctx.io.stderr(
      `toolgate: line ${n} ${safeName}: ${result.error.type}: ${displaySafe(result.error.message, false)}\n`,
    );
  }
}

/**
 * What a tool printed (a command's output, a file's text), made safe for a terminal: lines and tabs stay, a CR
 * before a line break goes, every other control or hidden character is written out (`\x1b`), so output cannot
 * set the clipboard (OSC 52), the title, or move the cursor. `--json` stays exact JSON instead.
 */
function shown(display: string): string {
  return displaySafe(display.replace(/\r\n/g, "\n"), true);
}

function printResult(result: CallResult, ctx: CliContext): void {
  if (ctx.globals.json) {
    const out = {
      ok: result.ok,
      decision: result.decision,
      llmContent: result.llmContent,
      returnDisplay: result.returnDisplay,
      error: result.error ? { type: result.error.type, message: result.error.message } : null,
    };
    // Lossless, and nothing a model wrote (bidi, zero-width) reaches a terminal that shows the JSON.
    ctx.io.stdout(`${displaySafeJson(out)}\n`);
    return;
  }
  if (result.error) {
    // A tool that failed after producing output (a command's stdout/stderr) shows it before the error line.
    const display = shown(result.returnDisplay);
    if (display !== "" && result.returnDisplay !== `Error: ${result.error.message}`) {
      ctx.io.stdout(display.endsWith("\n") ? display : `${display}\n`);
    }
    ctx.io.stderr(`toolgate: ${result.error.type}: ${displaySafe(result.error.message, false)}\n`);
    return;
  }
  const display = shown(result.returnDisplay);
  ctx.io.stdout(display.endsWith("\n") ? display : `${display}\n`);
}
