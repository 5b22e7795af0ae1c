/**
 * @module cli/commands/chat
 * `toolgate chat`: an interactive session in the terminal. Each line is a task; the model's reply streams;
 * each tool call gets a line; asks are questions with yes / no / always-for-this-exact-call. Ctrl-C cancels
 * the running task and returns to the prompt; a second Ctrl-C exits. On a terminal, a pasted block is one
 * task (bracketed paste) and what is typed at the prompt is kept across sessions (up/down recall it).
 */
import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { displaySafe } from "../../core/index.js";
import { SETUP_KINDS } from "../../llm/index.js";
import { fixedConfirm } from "../../loop/index.js";
import { describeConfiguredSandbox } from "../../sandbox/index.js";
import { gateOffer } from "../always-rule.js";
import { terminalConfirm } from "../chat/ask.js";
import { isCommand, runCommand } from "../chat/commands.js";
import { HISTORY_SIZE, historyFile, InputHistory } from "../chat/history.js";
import { LOCAL_MODEL_OPTION } from "../chat/local-offer.js";
import { PASTE_OFF, PASTE_ON, pastedText, pasteFilter } from "../chat/paste.js";
import { askBeforeStart, QuestionUnanswered } from "../chat/question.js";
import { EventRenderer } from "../chat/render.js";
import { CHAT_OPTIONS } from "../chat/session-options.js";
import { type ChatSetup, setupSession } from "../chat/setup.js";
import { onTermination } from "../chat/termination.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { askWorkspaceTrust } from "../trust-prompt.js";
import { USAGE } from "../usage.js";
import { toolSummary } from "./tool-summary.js";

const usage = USAGE.chat;

const OPTIONS = CHAT_OPTIONS;

export const help: CommandHelp = {
  summary:
    "An interactive session with a model in the terminal: each line is a task, every tool call goes through the policy, and an ask is a question (yes, no, or always for this exact call). /help lists the chat's own commands.",
  options: OPTIONS,
  examples: [
    "toolgate chat",
    "toolgate chat --provider openai --model gpt-4.1-mini",
    "toolgate chat --resume",
  ],
};

/** Why an ask is refused when no terminal is there to answer it. */
const UNATTENDED = "nobody could be asked (no terminal): pass --yes, or add an allow rule to the policy";

const HELP =
  "Type a task and press Enter (a line ending in \\ continues; a pasted block is one task). /help lists the commands; /exit (or Ctrl-D) quits; Ctrl-C cancels a running task.";

export async function runChat(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseOptions("toolgate chat", argv, OPTIONS);
  // The only argument chat takes is the session --resume continues.
  if (positionals.length > (values.resume ? 1 : 0))
    throw new UsageError(`chat takes no task argument (use toolgate run "TASK"); usage: ${usage}`);
  const { io } = ctx;
  const color = io.isTTY && !io.env.NO_COLOR;
  const output = new Writable({
    write(chunk, _enc, done) {
      io.stdout(String(chunk));
      done();
    },
  });
  // A terminal: keys go through the bracketed-paste filter, and the prompt recalls earlier sessions' input.
  const history = io.isTTY
    ? await InputHistory.open(historyFile(io.env), (m) => io.stderr(`toolgate: warning: ${m}\n`))
    : undefined;
  const filter = io.isTTY ? pasteFilter(io.stdin as Parameters<typeof pasteFilter>[0]) : undefined;
  if (filter) io.stdin.pipe(filter);
  const rl = createInterface({
    input: filter ?? io.stdin,
    output,
    terminal: io.isTTY,
    ...(history ? { history: [...history.entries], historySize: HISTORY_SIZE } : {}),
  });
  const restoreTerminal = () => io.stdout(PASTE_OFF);
  if (io.isTTY) {
    io.stdout(PASTE_ON);
    // A kill that outlives the cleanup still leaves the terminal as it was found.
    process.once("exit", restoreTerminal);
    rl.on("close", () => {
      if (filter) io.stdin.unpipe(filter);
      io.stdin.pause();
    });
  }
  // Piped input: start buffering lines now, so tasks that arrive while the session is being set up are kept.
  const lines = io.isTTY ? undefined : rl[Symbol.asyncIterator]();
  const renderer = new EventRenderer({ write: (t) => io.stdout(t), color });
  const interactive = io.isTTY && values.yes !== true;
  const person = interactive
    ? terminalConfirm(
        rl,
        (t) => io.stdout(t),
        () => renderer.finish(),
        () => process.stdout.columns,
        gateOffer(() => ctx.gate(), ctx.root),
      )
    : fixedConfirm(values.yes ? "yes" : "no");
  let setup: ChatSetup | undefined;
  try {
    if (interactive) await askWorkspaceTrust(ctx, (q) => askBeforeStart(rl, q));
    // --no-thinking: the model's reasoning is not shown (it is still in the transcript).
    const onEvent: typeof renderer.handle = values["no-thinking"]
      ? (event) => {
          if (event.type !== "thinking") renderer.handle(event);
        }
      : renderer.handle;
    setup = await setupSession(ctx, values, person, onEvent, {
      command: "chat",
      ...(interactive || values.yes ? {} : { refusal: UNATTENDED }),
      ...(values.resume ? { resume: positionals[0] ? { session: positionals[0] } : {} } : {}),
      ...(interactive
        ? { offerLocal: async (q: string) => /^\s*(y|yes)\s*$/i.test(await askBeforeStart(rl, q)) }
        : values.yes
          ? { offerLocal: async () => true }
          : {}),
    });
    const { model, session, transcript } = setup;
    const who = setup.agent ? ` as agent ${setup.agent}` : "";
    const { status } = setup;
    // Without a person to start the server or pull the model, a chat that cannot work stops here.
    if (!io.isTTY && status.error && SETUP_KINDS.has(status.error.kind)) {
      io.stderr(`toolgate: ${status.error.message}\n`);
      if (status.error.kind === "unreachable" && !values.provider && !setup.gate.config.llm?.provider)
        io.stderr(`${LOCAL_MODEL_OPTION}\n`);
      return EXIT.usage;
    }
    const resumed = session.messages.length - 1;
    if (values.resume) io.stdout(`(resuming ${transcript.id}: ${resumed} message(s))\n`);
    io.stdout(
      `toolgate chat — ${describeModel(model)}${who}; ${toolSummary(session.toolNames)}\n` +
        `${status.line}\nsandbox: ${describeConfiguredSandbox(setup.gate.settings.sandbox)}\ntranscript: ${transcript.file}\n${HELP}\n`,
    );
    if (!interactive)
      io.stdout(values.yes ? "(--yes: every ask is approved)\n" : "(no terminal: every ask is refused)\n");
    return await promptLoop(ctx, setup, rl, renderer, lines, history);
  } catch (error) {
    // Ctrl-D or Ctrl-C at a question before the session: nothing was trusted or downloaded; leave quietly.
    if (!(error instanceof QuestionUnanswered)) throw error;
    io.stdout(`\n(${error.how}: no answer, so nothing was done — chat ends)\n`);
    return EXIT.ok;
  } finally {
    rl.close();
    if (io.isTTY) {
      process.removeListener("exit", restoreTerminal);
      restoreTerminal();
    }
    await history?.flush();
    await setup?.close();
  }
}

async function promptLoop(
  ctx: CliContext,
  setup: ChatSetup,
  rl: ReturnType<typeof createInterface>,
  renderer: EventRenderer,
  lines: AsyncIterator<string> | undefined,
  history: InputHistory | undefined,
): Promise<ExitCode> {
  const { io } = ctx;
  let running: AbortController | undefined;
  let interrupts = 0;
  let prompt = new AbortController();
  let quit = false;
  rl.on("SIGINT", () => {
    interrupts++;
    if (running && !running.signal.aborted && interrupts === 1) {
      running.abort();
      renderer.finish();
      io.stdout("  (cancelling — press Ctrl-C again to exit)\n");
      return;
    }
    if (!running && interrupts === 1) {
      io.stdout("\n(press Ctrl-C again to exit, or type /exit)\n");
      prompt.abort();
      return;
    }
    quit = true;
    running?.abort();
    prompt.abort();
  });
  // End of input (Ctrl-D, a closed pipe) closes the interface; every later question would be refused at
  // once, so the loop must see it and leave — not ask again (that spun at full speed, deaf to signals).
  let closed = false;
  rl.on("close", () => {
    closed = true;
    prompt.abort();
  });
  // A closed terminal or a kill stops the running task and leaves through the same cleanup (the gate's
  // close stops background processes); if that hangs, onTermination ends the process anyway.
  const stopTermination = onTermination(["SIGTERM", "SIGHUP"], () => {
    quit = true;
    running?.abort();
    prompt.abort();
    rl.close();
  });
  try {
    return await readTasks();
  } finally {
    stopTermination();
  }

  async function readTasks(): Promise<ExitCode> {
    let pending = "";
    // Piped lines already read stay queued in `lines` after the pipe closes: they are still tasks.
    while (!quit && (lines || !closed)) {
      let line: string;
      try {
        if (lines) {
          const next = await lines.next();
          if (next.done) break;
          line = next.value;
        } else {
          prompt = new AbortController();
          // Up/down recall prompt input only (readline also records answers to questions: dropped here).
          if (history) (rl as unknown as { history: string[] }).history = [...history.entries];
          line = await rl.question("› ", { signal: prompt.signal });
          history?.add(line);
          line = pastedText(line);
        }
      } catch {
        if (quit || closed) break;
        continue; // a first Ctrl-C at the prompt: ask again
      }
      // A line ending in \ continues: the task is sent when a line does not.
      if (line.endsWith("\\")) {
        pending += `${line.slice(0, -1)}\n`;
        continue;
      }
      const task = (pending + line).trim();
      pending = "";
      if (task === "") continue;
      if (isCommand(task)) {
        interrupts = 0;
        running = new AbortController();
        const outcome = await runCommand(task, {
          setup,
          write: (t) => io.stdout(t),
          signal: running.signal,
        });
        running = undefined;
        renderer.finish();
        if (outcome === "exit") break;
        continue;
      }
      interrupts = 0;
      running = new AbortController();
      const result = await setup.session.send(task, { signal: running.signal });
      running = undefined;
      renderer.finish();
      const { used, window } = result.tokens;
      if (used !== undefined)
        io.stdout(renderer.dimmed(`  (${used}${window ? ` / ${window}` : ""} tokens)\n`));
      // A model's error may quote what a server or command sent: one display-safe line.
      const error = displaySafe(result.error ?? "", false);
      if (result.stopReason === "model_error") io.stdout(`toolgate: ${error}\n`);
      else if (result.stopReason === "incomplete")
        io.stdout(`toolgate: ${error} — not an answer (kept in the transcript)\n`);
      else if (result.stopReason === "cancelled") io.stdout("(cancelled)\n");
      else if (result.stopReason !== "answer") io.stdout(`(${displaySafe(result.answer, false)})\n`);
    }
    renderer.finish();
    if (closed && !quit && !lines) io.stdout("\n");
    io.stdout(`bye — transcript saved to ${setup.transcript.file}\n`);
    return EXIT.ok;
  }
}

/** "qwen3 via ollama at http://…", or for a model run in-process, "qwen3-1.7b, run locally from FILE". */
function describeModel(model: { model: string; provider: string; baseUrl: string }): string {
  if (model.provider === "local")
    return model.model === model.baseUrl
      ? `${model.model}, run locally`
      : `${model.model}, run locally from ${model.baseUrl}`;
  return `${model.model} via ${model.provider} at ${model.baseUrl}`;
}
