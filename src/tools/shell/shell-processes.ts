/**
 * @module tools/shell/shell-processes
 * `shell_processes`: the companion of `shell`'s `background: true` — list background processes, read one's
 * output so far, or stop one (with everything it started).
 */

import type { Tool } from "../../core/index.js";
import { defineTool, okResult, ToolFailure } from "../../core/index.js";
import type { BackgroundInfo, BackgroundOutput, BackgroundProcesses } from "./background.js";

/** Parameters of `shell_processes`. */
export interface ShellProcessesParams {
  action: "list" | "read" | "stop";
  id?: string;
}

/** What `shell_processes` needs: the same manager the `shell` tool starts processes in. */
export interface ShellProcessesDeps {
  processes: BackgroundProcesses;
}

function statusOf(p: BackgroundInfo): string {
  if (p.status === "running") return `running ${(p.elapsedMs / 1000).toFixed(1)} s`;
  return p.signal ? `stopped by ${p.signal}` : `exited with code ${p.exitCode}`;
}

function formatOutput(p: BackgroundOutput): string {
  const parts = [`${p.id} (pid ${p.pid ?? "?"}, ${statusOf(p)}): ${p.command}`];
  // The check's report before the output: truncation keeps the start.
  if (p.notes) parts.push(p.notes);
  parts.push(p.stdout ? p.stdout.replace(/\n$/, "") : "(no output yet)");
  if (p.stderr) parts.push(`[stderr]\n${p.stderr.replace(/\n$/, "")}`);
  return parts.join("\n");
}

/** Creates the `shell_processes` tool. */
export function createShellProcessesTool(deps: ShellProcessesDeps): Tool<ShellProcessesParams> {
  const { processes } = deps;
  const need = (id: string | undefined): string => {
    if (!id) throw new ToolFailure("invalid_params", "id is required for this action");
    return id;
  };
  const unknown = (id: string) =>
    new ToolFailure("invalid_params", `no background process with id "${id}"`, { id });

  return defineTool<ShellProcessesParams>({
    name: "shell_processes",
    displayName: "Shell Processes",
    description:
      'Manages commands started with shell\'s background: true. action "list" lists them; "read" returns ' +
      'the output so far of process `id`; "stop" stops it and everything it started.',
    parameters: {
      type: "object",
      properties: {
        action: { type: "string", enum: ["list", "read", "stop"], description: "What to do." },
        id: { type: "string", description: 'Process id from shell (e.g. "bg1"); for read and stop.' },
      },
      required: ["action"],
      additionalProperties: false,
    },
    kind: "execute",
    risk: "low",
    riskFor: ({ action }) => (action === "stop" ? "medium" : "low"),
    validate: ({ action, id }) =>
      action !== "list" && !id ? `id is required for action "${action}"` : undefined,
    describe: ({ action, id }) => (action === "list" ? "List background processes" : `${action} ${id}`),
    async run({ action, id }) {
      if (action === "list") {
        const all = processes.list();
        const text =
          all.length === 0
            ? "No background processes."
            : all.map((p) => `${p.id} (pid ${p.pid ?? "?"}, ${statusOf(p)}): ${p.command}`).join("\n");
        return okResult(text, text, all);
      }
      const key = need(id);
      const found = action === "read" ? processes.read(key) : await processes.stop(key);
      if (!found) throw unknown(key);
      const text = formatOutput(found);
      return okResult(text, text, found);
    },
  });
}
