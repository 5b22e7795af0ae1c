/**
 * @module cli/prompt
 * Interactive approval on a terminal: shows the confirmation details and waits for y/n.
 * Anything but an explicit yes is a no.
 */
import { createInterface } from "node:readline";
import type { ConfirmationDetails, ConfirmationRequest, ConfirmationResponse } from "../core/index.js";
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

/** Asks on the terminal about one call; cancelling the call (its signal) withdraws the question. */
export async function askOnTerminal(io: CliIo, request: ConfirmationRequest): Promise<ConfirmationResponse> {
  const { details, signal } = request;
  io.stderr(renderConfirmation(details));
  const rl = createInterface({ input: io.stdin, terminal: false });
  let cancelled = () => {};
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      io.stderr("Allow? [y/N] ");
      cancelled = () => reject(Object.assign(new Error("cancelled"), { name: "AbortError" }));
      if (signal.aborted) return cancelled();
      signal.addEventListener("abort", cancelled, { once: true });
      rl.once("line", (line) => resolve(line));
      rl.once("close", () => resolve(""));
    });
    const yes = /^\s*(y|yes)\s*$/i.test(answer);
    return yes ? { approved: true } : { approved: false, reason: "the user said no" };
  } finally {
    signal.removeEventListener("abort", cancelled);
    rl.close();
  }
}
