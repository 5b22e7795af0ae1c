/**
 * @module cli/chat/ask
 * The confirmation question in a terminal session: the details (diff for edits, the exact command for
 * shell), what "always" would cover (this exact call only), and yes / no / always. Anything unclear asks
 * again; end of input or Ctrl-C is a no.
 */
import type { Interface } from "node:readline/promises";
import type { ConfirmationDetails } from "../../core/index.js";
import type { Answer, Asker } from "../../loop/index.js";
import { alwaysBlock, type OfferAlways, writtenLine } from "../always-rule.js";
import { renderConfirmation } from "../prompt.js";

/**
 * What "always" would approve, in toolgate's words: never more than this exact call. (The call itself is
 * quoted above it; this line repeats none of its text.)
 */
export function alwaysScope(details: ConfirmationDetails): string {
  if (details.command !== undefined) return "exactly this command (same words, same folder)";
  if (details.type === "edit" && details.locations.length > 0)
    return "exactly this change (same file, same edit)";
  return `exactly this ${details.toolName} call (same arguments)`;
}

/** Reads an answer: y/yes, n/no (or empty), a/always. */
export function parseAnswer(text: string): Answer | undefined {
  const t = text.trim().toLowerCase();
  if (t === "y" || t === "yes") return "yes";
  if (t === "" || t === "n" || t === "no") return "no";
  if (t === "a" || t === "always") return "always";
  return undefined;
}

/**
 * An asker on a readline interface. `before` ends the streamed line first; `width` is the terminal's width
 * now (the quoted text is folded to it). End of input (Ctrl-D) or a cancelled call (Ctrl-C) is a no.
 * With `offer`, "always" also adds the narrowest rule allowing the call to the policy file (shown first);
 * where no rule can be added it says why, and "always" approves the call for this session only.
 */
export function terminalAsker(
  rl: Interface,
  write: (text: string) => void,
  before: () => void,
  width: () => number | undefined = () => undefined,
  offer?: OfferAlways,
): Asker {
  return async (request) => {
    const { details, signal } = request;
    before();
    const session = `allow ${alwaysScope(details)} for the rest of this session`;
    const always = offer ? await offer(request) : undefined;
    const shown = always ? { always: alwaysBlock(always, session) } : { notes: [`always = ${session}`] };
    write(`\n${renderConfirmation(details, { width: width(), ...shown })}`);
    const answer = await question(rl, write, signal);
    if (answer === "always" && always && "rule" in always) write(writtenLine(always, await always.write()));
    return answer;
  };
}

/** Asks until the answer is clear. */
async function question(rl: Interface, write: (text: string) => void, signal: AbortSignal): Promise<Answer> {
  for (;;) {
    let text: string;
    try {
      text = await rl.question("Allow? [y]es / [N]o / [a]lways: ", { signal });
    } catch {
      write("\n");
      return "no";
    }
    const answer = parseAnswer(text);
    if (answer) return answer;
    write("  please answer y, n or a\n");
  }
}
