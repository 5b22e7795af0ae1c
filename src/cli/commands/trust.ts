/**
 * @module cli/commands/trust
 * `toolgate trust [DIR]` shows what a folder's own files would turn on — or what changed since they were
 * trusted — and then trusts exactly those bytes; `--show` only shows; `--list` lists the trusted folders;
 * `--remove DIR` forgets one. The list lives in the user's configuration
 * (`$XDG_CONFIG_HOME/toolgate/trusted.json`, else `~/.config/toolgate/trusted.json`).
 */
import { realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { ConfigError, displaySafeJson } from "../../core/index.js";
import { forgetFolder, formatReview, needsTrust, reviewWorkspace, trustReview } from "../../trust/index.js";
import { readTrustedFolders, type TrustedFolder, trustStorePath } from "../../workspace/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";

const usage = USAGE.trust;

const OPTIONS = {
  show: { type: "boolean", description: "show what trusting would change, and record nothing" },
  list: { type: "boolean", description: "show the trusted folders" },
  remove: { type: "string", value: "DIR", description: "forget a trusted folder" },
} as const;

export const help: CommandHelp = {
  summary:
    "Trusts a folder's own files (.toolgate/ policy, config and agents, every host's MCP file) as they are now, after showing what they turn on or what changed since they were trusted. Until then — and again whenever one of them changes — they can only make the gate stricter and start no MCP server. The list lives in $XDG_CONFIG_HOME/toolgate/trusted.json (else ~/.config/toolgate/).",
  options: OPTIONS,
  examples: [
    "toolgate trust",
    "toolgate trust --show",
    "toolgate trust ~/src/project",
    "toolgate trust --list --json",
  ],
};

export async function runTrust(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseOptions("toolgate trust", argv, OPTIONS);
  const store = trustStorePath({ env: ctx.io.env });
  const modes = [values.list === true, values.remove !== undefined, values.show === true];
  if (modes.filter(Boolean).length > 1 || positionals.length > 1) throw new UsageError(`usage: ${usage}`);
  if ((values.list || values.remove !== undefined) && positionals.length > 0)
    throw new UsageError(`usage: ${usage}`);
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
    const { folders, removed } = await forgetFolder(dir, store);
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
  const review = await reviewWorkspace(dir, read());
  if (values.show) {
    if (ctx.globals.json) {
      const files = review.files.map(({ path, status, lines }) => ({ path, status, lines }));
      ctx.io.stdout(`${displaySafeJson({ root: dir, files })}\n`);
    } else if (review.files.length === 0) ctx.io.stdout(`${dir}: none of the files trust covers\n`);
    else {
      const state = needsTrust(review)
        ? "trusting it would change this (`toolgate trust` does it):"
        : "every file is trusted as it is:";
      ctx.io.stdout(`${dir}: ${state}\n${formatReview(review)}`);
    }
    return EXIT.ok;
  }
  await trustReview(review, store);
  if (ctx.globals.json) print(ctx, read());
  else if (review.files.length === 0)
    ctx.io.stdout(
      `trusted: ${dir} (none of its files yet: one that appears later is untrusted until \`toolgate trust\`)\n`,
    );
  else ctx.io.stdout(`trusted: ${dir}\n${formatReview(review, true)}`);
  return EXIT.ok;
}

function print(ctx: CliContext, folders: readonly TrustedFolder[]): void {
  if (ctx.globals.json)
    ctx.io.stdout(
      `${JSON.stringify(
        folders.map((f) => ({
          path: f.path,
          since: f.since,
          ...(f.content === "any"
            ? { content: "any" }
            : { files: f.files ? Object.keys(f.files).sort() : null }),
        })),
      )}\n`,
    );
  else if (folders.length === 0) ctx.io.stdout("no trusted folders\n");
  else
    for (const f of folders) {
      const note =
        f.content === "any"
          ? "  (any content, now and later)"
          : f.files === undefined
            ? `  (recorded by an older toolgate without digests: trusts none of its files until \`toolgate trust ${f.path}\`)`
            : "";
      ctx.io.stdout(`${f.path}${note}\n`);
    }
}
