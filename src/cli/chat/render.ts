/**
 * @module cli/chat/render
 * How a session looks in a terminal: streamed model text, dimmed thinking, one line per tool call (tool,
 * short description, decision, duration, and the error when there is one), a few lines of progress for
 * long tools, sub-agents prefixed with their name. Nothing a model or a tool wrote reaches the terminal raw:
 * prose keeps its lines but not its control sequences (`proseSafe`); every other text is one display-safe line.
 */
import { type CallResult, displaySafe, proseSafe } from "../../core/index.js";
import { formatMs, type LoopEvent } from "../../loop/index.js";

/** Where rendered text goes, and whether it may use colour. */
export interface RenderTarget {
  write(text: string): void;
  color: boolean;
}

const PROGRESS_LINES = 8;

/** Renders loop events; keeps track of line starts so tool lines never glue onto streamed text. */
export class EventRenderer {
  private atLineStart = true;
  private inThinking = false;
  private readonly progress = new Map<string, number>();

  constructor(private readonly out: RenderTarget) {}

  readonly handle = (event: LoopEvent): void => {
    const who = event.agent ? `[${oneLine(event.agent)}] ` : "";
    switch (event.type) {
      case "text":
        this.endThinking();
        // A sub-agent's prose is its own business: its answer comes back as the tool result.
        if (!event.agent) this.raw(proseSafe(event.chunk));
        break;
      case "thinking":
        if (event.agent) break;
        if (!this.inThinking) {
          this.line("");
          this.raw(this.dim("(thinking) "));
          this.inThinking = true;
        }
        this.raw(this.dim(proseSafe(event.chunk)));
        break;
      case "routing":
        this.line(
          this.dim(
            `  ${who}routing: ${event.plan ? oneLine(`${event.plan.query_type}; tools ${event.plan.suggested_tools?.join(", ") || "any"}; ${event.plan.sub_questions?.length ?? 0} sub-question(s)`) : "no plan"}`,
          ),
        );
        break;
      case "plan":
        if (event.method !== "native" && event.method !== "none")
          this.line(this.dim(`  ${who}plan (${event.method}): ${oneLine(event.reason)}`));
        break;
      case "tool_start":
        this.endThinking();
        this.progress.set(event.id, 0);
        break;
      case "tool_output":
        this.showProgress(event.id, event.chunk, who);
        break;
      case "tool_end":
        this.progress.delete(event.id);
        this.line(toolLine(who, event.name, event.description, event.result, this.out.color));
        break;
      case "notice":
        this.line(`  ${who}! ${oneLine(event.message)}`);
        break;
    }
  };

  /** Ends the current line (before a prompt or a question). */
  finish(): void {
    this.endThinking();
    if (!this.atLineStart) this.raw("\n");
  }

  private showProgress(id: string, chunk: string, who: string): void {
    const shown = this.progress.get(id) ?? 0;
    if (shown > PROGRESS_LINES) return;
    const lines = chunk
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => oneLine(l));
    for (const l of lines) {
      const n = this.progress.get(id) ?? 0;
      this.progress.set(id, n + 1);
      if (n === PROGRESS_LINES) {
        this.line(this.dim(`    ${who}│ …`));
        return;
      }
      this.line(this.dim(`    ${who}│ ${l.length > 150 ? `${l.slice(0, 149)}…` : l}`));
    }
  }

  private endThinking(): void {
    if (!this.inThinking) return;
    this.inThinking = false;
    this.raw("\n");
  }

  private line(text: string): void {
    if (!this.atLineStart) this.raw("\n");
    this.raw(`${text}\n`);
  }

  private raw(text: string): void {
    if (text === "") return;
    this.out.write(text);
    this.atLineStart = text.endsWith("\n");
  }

  private dim(text: string): string {
    return this.dimmed(text);
  }

  /** `text` dimmed when colour is on (token counts, thinking, plans). */
  dimmed(text: string): string {
    return this.out.color ? `\x1b[2m${text}\x1b[22m` : text;
  }
}

/** `  ✓ read_file · read notes.txt · allow · 3 ms` (or ✗ with the error). */
export function toolLine(
  who: string,
  name: string,
  description: string,
  result: CallResult,
  color = false,
): string {
  const mark = result.ok ? "✓" : "✗";
  const decision = result.decision ?? "not run";
  const shown = oneLine(description);
  const desc = shown.length > 90 ? `${shown.slice(0, 89)}…` : shown;
  let text = `  ${who}${mark} ${oneLine(name)} · ${desc} · ${decision} · ${formatMs(result.durationMs)}`;
  if (result.error) text += `\n    ${who}${oneLine(result.error.message.split("\n")[0] ?? "")}`;
  if (!color) return text;
  return result.ok ? text : `\x1b[31m${text}\x1b[39m`;
}

/** One display-safe line: a model's or a tool's text with nothing that could break it or move the cursor. */
const oneLine = (text: string): string => displaySafe(text, false);
