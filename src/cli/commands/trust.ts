/**
 * @module cli/commands/trust
 * `toolgate trust [DIR]` trusts a folder's own toolgate files (`.toolgate/`, `.mcp.json`); `--list` shows the
 * trusted folders, `--remove DIR` forgets one. The list lives in the user's configuration
 * (`$XDG_CONFIG_HOME/toolgate/trusted.json`, else `~/.config/toolgate/trusted.json`). `--json` prints the list.
 */
import { realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { ConfigError } from "../../core/index.js";
import {
  readTrustedFolders,
  type TrustedFolder,
  trustFolder,
  trustStorePath,
  untrustFolder,
} from "../../workspace/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { describeWorkspaceFiles } from "../trust-prompt.js";

export const usage = "toolgate trust [DIR] | toolgate trust --list | toolgate trust --remove DIR";

const OPTIONS = {
  list: { type: "boolean", description: "show the trusted folders" },
  remove: { type: "string", value: "DIR", description: "forget a trusted folder" },
} as const;

export const help: CommandHelp = {
  summary:
    "Trusts a folder's own toolgate files (.toolgate/ policy and config, .mcp.json): until then they can only make the gate stricter and start no MCP server. The list lives in $XDG_CONFIG_HOME/toolgate/trusted.json (else ~/.config/toolgate/).",
  options: OPTIONS,
  examples: ["toolgate trust", "toolgate trust ~/src/project", "toolgate trust --list --json"],
};

export async function runTrust(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseOptions("toolgate trust", argv, OPTIONS);
  const store = trustStorePath({ env: ctx.io.env });
  const modes = [values.list === true, values.remove !== undefined, positionals.length > 0].filter(Boolean);
  if (modes.length > 1 || positionals.length > 1) throw new UsageError(`usage: ${usage}`);
  const read = () => {
    try {
      return readTrustedFolders(store);
    } catch (error) {
      throw new ConfigError((error as Error).message, store);
    }
  };
  if (values.list) {
    print(ctx, read());
    return EXIT.ok;
  }
  if (values.remove !== undefined) {
    const given = resolve(ctx.io.cwd, values.remove);
    const dir = await realpath(given).catch(() => given);
    read();
    const { folders, removed } = await untrustFolder(dir, store);
    if (!ctx.globals.json)
      ctx.io.stdout(removed ? `no longer trusted: ${dir}\n` : `was not trusted: ${dir}\n`);
    else print(ctx, folders);
    return EXIT.ok;
  }
  const given = positionals[0] !== undefined ? resolve(ctx.io.cwd, positionals[0]) : ctx.root;
  const dir = await realpath(given).catch(() => {
    throw new UsageError(`${given} does not exist`);
  });
  if (!(await stat(dir)).isDirectory()) throw new UsageError(`${dir} is not a folder`);
  read();
  const folders = await trustFolder(dir, store);
  if (ctx.globals.json) print(ctx, folders);
  else {
    const lines = await describeWorkspaceFiles(dir);
    ctx.io.stdout(`trusted: ${dir}\n${lines.map((l) => `  - ${l}\n`).join("")}`);
  }
  return EXIT.ok;
}

function print(ctx: CliContext, folders: readonly TrustedFolder[]): void {
  if (ctx.globals.json)
    ctx.io.stdout(`${JSON.stringify(folders.map((f) => ({ path: f.path, since: f.since })))}\n`);
  else if (folders.length === 0) ctx.io.stdout("no trusted folders\n");
  else for (const f of folders) ctx.io.stdout(`${f.path}\n`);
}
