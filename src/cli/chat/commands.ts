/**
 * @module cli/chat/commands
 * The slash commands of `toolgate chat`: /help, /exit, /clear, /compact, /model, /tools, /policy. A line
 * whose first word is `/name` is a command, never a task; an unknown one is an error that lists the known
 * ones (a path such as `/etc/hosts` is not a command: it has a second slash).
 */

import { describeConfiguredSandbox } from "../../sandbox/index.js";
import { ruleSummary } from "./policy-summary.js";
import type { ChatSetup } from "./setup.js";

/** One line per command, for /help. */
export const COMMANDS_HELP = [
  "/help             this list",
  "/exit             quit (also /quit, Ctrl-D)",
  "/clear            start a new conversation (same tools, same transcript)",
  "/compact          shorten old tool results and summarise the conversation so far",
  "/model [NAME]     show the model, or switch to another one on the same server (sub-agents too)",
  "/tools            the tools this session may call",
  "/policy           the active policy (source, default decision, each rule with its conditions), workspace trust and the sandbox",
].join("\n");

/** What a command did: the prompt loop goes on, or quits. */
export type CommandOutcome = "continue" | "exit";

/** Whether `line` is a command (and not a task). */
export function isCommand(line: string): boolean {
  return /^\/[a-z]+(\s|$)/i.test(line);
}

/**
 * Runs a command line.
 * @example await runCommand("/tools", { setup, write: (t) => process.stdout.write(t), signal })
 */
export async function runCommand(
  line: string,
  ctx: { setup: ChatSetup; write: (text: string) => void; signal: AbortSignal },
): Promise<CommandOutcome> {
  const [name = "", ...rest] = line.trim().split(/\s+/);
  const arg = rest.join(" ");
  const { setup, write } = ctx;
  switch (name.toLowerCase()) {
    case "/exit":
    case "/quit":
      return "exit";
    case "/help":
      write(
        `${COMMANDS_HELP}\nA line ending in \\ continues on the next line. Ctrl-C cancels a running task.\n`,
      );
      return "continue";
    case "/clear":
      setup.session.clear();
      write("(new conversation — the transcript goes on)\n");
      return "continue";
    case "/compact": {
      const said = await setup.session
        .compact({ signal: ctx.signal, force: true })
        .catch((error: Error) => `context: compaction failed: ${error.message}`);
      // The session's notice already showed a successful compaction.
      if (said?.startsWith("context: compaction failed")) write(`${said}\n`);
      return "continue";
    }
    case "/model": {
      if (arg) {
        const status = await setup.switchModel(arg);
        write(`model: ${setup.model.model} — ${status.line.replace(/^model: /, "")}\n`);
      } else write(`model: ${setup.model.model} via ${setup.model.provider} at ${setup.model.baseUrl}\n`);
      return "continue";
    }
    case "/tools": {
      const registry = setup.gate.registry;
      for (const tool of setup.session.toolNames) {
        const description = (registry.get(tool)?.description ?? "").split("\n")[0] ?? "";
        write(`  ${tool} — ${description.length > 90 ? `${description.slice(0, 89)}…` : description}\n`);
      }
      return "continue";
    }
    case "/policy": {
      const policy = setup.gate.policy;
      write(`policy: ${policy.source}; default ${policy.defaultDecision}; ${policy.rules.length} rule(s)\n`);
      for (const rule of policy.rules) write(`  ${ruleSummary(rule)}\n`);
      const trust = setup.gate.workspaceTrusted
        ? "trusted"
        : "not trusted (its own policy can only tighten the gate; `toolgate trust` trusts it)";
      write(`workspace: ${trust}\nsandbox: ${describeConfiguredSandbox(setup.gate.settings.sandbox)}\n`);
      return "continue";
    }
    default:
      write(`unknown command ${name} — /help lists the commands\n`);
      return "continue";
  }
}
