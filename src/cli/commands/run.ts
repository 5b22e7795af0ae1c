/**
 * @module cli/commands/run
 * `toolgate run "TASK"`: one task without a person — for scripts and CI. Progress (tool lines) goes to
 * stderr, the final answer to stdout; asks are refused unless `--yes` (which never overrides a deny), or wait
 * for an answer in the console with `[approvals] route = "console"`.
 * Exit: 0 answered; 3 answered, but the policy refused one of its calls (a deny, or an ask nobody answered);
 * 1 stopped without an answer (step limit, loop, model failure, Ctrl-C); 2 bad usage or model configuration
 * (server unreachable, model not found, key missing).
 */
import { ConfigError, type Confirm, displaySafe, proseSafe } from "../../core/index.js";
import { SETUP_KINDS } from "../../llm/index.js";
import { fixedConfirm, type TurnResult } from "../../loop/index.js";
import { LOCAL_MODEL_OPTION } from "../chat/local-offer.js";
import { EventRenderer } from "../chat/render.js";
import { RUN_OPTIONS } from "../chat/session-options.js";
import { type ChatSetup, setupSession } from "../chat/setup.js";
import { onTermination } from "../chat/termination.js";
import type { CliContext } from "../context.js";
import { denialHint } from "../denial-hint.js";
import { EXIT, type ExitCode, exitCodeForTurn, UsageError } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";

const usage = USAGE.run;

const OPTIONS = RUN_OPTIONS;

export const help: CommandHelp = {
  summary:
    'One task without a person, for scripts and CI: progress on stderr, the answer on stdout; an ask is refused unless --yes (or, with [approvals] route = "console", waits for an answer in the console). Exit 0 answered, 3 answered but the policy refused one of its calls, 1 stopped without an answer, 2 bad usage or model configuration.',
  options: OPTIONS,
  examples: [
    'toolgate run "list the TODO comments in src/" --quiet',
    'toolgate run "fix the failing test" --yes --json',
  ],
};

export async function runRun(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseOptions("toolgate run", argv, OPTIONS);
  const task = positionals.join(" ").trim();
  if (task === "") throw new UsageError(`run needs a task; usage: ${usage}`);
  const { io } = ctx;
  const quiet = values.quiet === true || ctx.globals.json;
  const renderer = new EventRenderer({
    write: (t) => {
      if (!quiet) io.stderr(t);
    },
    color: false,
  });
  // The answer goes to stdout at the end; streamed text would print it twice.
  const onEvent: Parameters<typeof setupSession>[3] = (event) => {
    if (event.type !== "text" && !(event.type === "thinking" && values["no-thinking"]))
      renderer.handle(event);
  };
  const controller = new AbortController();
  // Ctrl-C, a kill or a closed terminal cancels the task; the finally below then closes the gate, which stops
  // every command still running (Node is not allowed to die with tools running).
  const stopTermination = onTermination(["SIGINT", "SIGTERM", "SIGHUP"], () => controller.abort());
  let setup: ChatSetup | undefined;
  try {
    try {
      const confirm = values.yes ? fixedConfirm("yes") : unattendedConfirm(ctx);
      setup = await setupSession(ctx, values, confirm, onEvent, {
        command: "run",
        refusal: UNATTENDED,
        // A script never downloads a model unless told to (--yes).
        ...(values.yes ? { offerLocal: async () => true } : {}),
      });
    } catch (error) {
      // --json: every outcome is one JSON object on stdout, a bad setup too.
      if (!ctx.globals.json || !(error instanceof ConfigError || error instanceof UsageError)) throw error;
      io.stderr(`toolgate: ${error.message}\n`);
      io.stdout(
        `${JSON.stringify({ ...EMPTY, answer: null, stopReason: "setup_error", error: error.message })}\n`,
      );
      return EXIT.usage;
    }
    const { status } = setup;
    // A server that is not there or lacks the model: say so now, not after retries.
    const result: TurnResult =
      status.error && SETUP_KINDS.has(status.error.kind)
        ? { ...EMPTY, stopReason: "model_error", error: status.error.message, errorKind: status.error.kind }
        : await setup.session.send(task, { signal: controller.signal });
    renderer.finish();
    await setup.transcript.flush();
    print(ctx, result, setup.transcript.file);
    if (
      !ctx.globals.json &&
      result.errorKind === "unreachable" &&
      !values.provider &&
      !setup.gate.config.llm?.provider
    )
      io.stderr(`${LOCAL_MODEL_OPTION}\n`);
    await printHints(ctx, result, setup, values.yes === true);
    return exitCodeForTurn(
      result.stopReason,
      result.errorKind !== undefined && SETUP_KINDS.has(result.errorKind),
      result.calls.some((c) => c.result.error?.type === "denied_by_policy"),
    );
  } finally {
    stopTermination();
    await setup?.close();
  }
}

/**
 * `run` without `--yes`: an ask is refused, unless the gate's asks go to a shared store
 * (`[approvals] route = "console"`) where a person may answer it — then the ask waits there, up to the
 * approval timeout. Settling the ask (there, or by its expiry) aborts the request's signal; whatever this
 * confirm says after that no longer counts, the settled record decides.
 */
function unattendedConfirm(ctx: CliContext): Confirm {
  return async (request) => {
    if (!(await ctx.gate()).approvals.shared) return { approved: false };
    const { signal } = request;
    await new Promise<void>((settled) => {
      if (signal.aborted) settled();
      else signal.addEventListener("abort", () => settled(), { once: true });
    });
    return { approved: false };
  };
}

/** Why an ask is refused in `run`. */
const UNATTENDED =
  "nobody was asked (toolgate run refuses every ask): pass --yes, or add an allow rule to the policy";

const EMPTY = { answer: "", steps: 0, calls: [], tokens: {} };

function print(ctx: CliContext, result: TurnResult, transcript: string): void {
  const { io } = ctx;
  if (ctx.globals.json) {
    const out = {
      answer: result.stopReason === "answer" ? result.answer : null,
      stopReason: result.stopReason,
      steps: result.steps,
      calls: result.calls.map((c) => ({
        name: c.name,
        decision: c.result.decision,
        ok: c.result.ok,
        error: c.result.error ? { type: c.result.error.type, message: c.result.error.message } : null,
      })),
      error: result.error ?? null,
      errorKind: result.errorKind ?? null,
      tokens: { used: result.tokens.used ?? null, window: result.tokens.window ?? null },
      transcript,
    };
    io.stdout(`${JSON.stringify(out)}\n`);
    return;
  }
  // The answer may quote what a command printed: its control sequences are written out, not sent.
  const answer = proseSafe(result.answer);
  const error = displaySafe(result.error ?? "", false);
  if (result.stopReason === "answer") io.stdout(answer.endsWith("\n") ? answer : `${answer}\n`);
  else if (result.stopReason === "model_error") io.stderr(`toolgate: ${error}\n`);
  else if (result.stopReason === "incomplete")
    io.stderr(`toolgate: ${error} — no answer (what arrived is in the transcript)\n`);
  else io.stderr(`toolgate: ${displaySafe(result.answer, false)}\n`);
}

/** Under the answer, how to allow each distinct call the policy refused (stderr, also with --json). */
async function printHints(
  ctx: CliContext,
  result: TurnResult,
  setup: ChatSetup,
  yes: boolean,
): Promise<void> {
  const hinted = new Set<string>();
  for (const call of result.calls) {
    const hint = await denialHint({ name: call.name, args: call.args }, call.result, {
      policy: setup.gate.policy,
      tool: setup.gate.registry.get(call.name),
      root: ctx.root,
      askable: yes,
      terminalAsks: false,
    });
    if (hint === undefined || hinted.has(hint)) continue;
    hinted.add(hint);
    ctx.io.stderr(`toolgate: ${call.result.error?.message}\n${hint}\n`);
  }
}
