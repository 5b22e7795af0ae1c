/**
 * @module cli/prompt
 * Interactive approval on a terminal: shows the confirmation details and waits for y/n.
 * Anything but an explicit yes is a no.
 */
import { createInterface } from "node:readline";
import type { ConfirmationDetails, ConfirmationResponse } from "../core/index.js";
import type { CliIo } from "./io.js";

/** Renders confirmation details as a person should see them before approving. */
export function renderConfirmation(details: ConfirmationDetails): string {
  const lines = [
    `${details.toolName} needs your approval (risk: ${details.risk})`,
    `  ${details.description}`,
  ];
  if (details.agent) lines.push(`  requested by agent: ${details.agent}`);
  if (details.command !== undefined) lines.push(`  command: ${details.command}`);
  if (details.locations.length > 0) lines.push(`  affects: ${details.locations.join(", ")}`);
  if (details.reason) lines.push(`  why asked: ${details.reason}`);
  if (details.diff) lines.push("", details.diff.trimEnd());
  return `${lines.join("\n")}\n`;
}

/** Asks on the terminal. */
export async function askOnTerminal(
  io: CliIo,
  details: ConfirmationDetails,
  signal: AbortSignal,
): Promise<ConfirmationResponse> {
  io.stderr(renderConfirmation(details));
  const rl = createInterface({ input: io.stdin, terminal: false });
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      io.stderr("Allow? [y/N] ");
      const onAbort = () => reject(Object.assign(new Error("cancelled"), { name: "AbortError" }));
      signal.addEventListener("abort", onAbort, { once: true });
      rl.once("line", (line) => resolve(line));
      rl.once("close", () => resolve(""));
    });
    const yes = /^\s*(y|yes)\s*$/i.test(answer);
    return yes ? { approved: true } : { approved: false, reason: "the user said no" };
  } finally {
    rl.close();
  }
}
