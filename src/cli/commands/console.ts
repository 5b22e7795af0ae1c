/**
 * @module cli/commands/console
 * `toolgate console`: serves the approval console over the user's shared approvals folder (the asks of
 * every process with `[approvals] route = "console"`) until Ctrl-C. The sign-in token comes from
 * TOOLGATE_CONSOLE_TOKEN or is generated and printed once, on stderr.
 */
import { isAbsolute, join, resolve } from "node:path";
import { approvalsDir, FileApprovalStore } from "../../approvals/index.js";
import {
  consoleOptionsProblem,
  consoleTokenProblem,
  newConsoleToken,
  startConsole,
} from "../../console/index.js";
import { userStateDir } from "../../state/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { parseListen } from "../listen.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";

/** The environment variable a fixed sign-in token is read from. */
export const CONSOLE_TOKEN_ENV = "TOOLGATE_CONSOLE_TOKEN";

const usage = USAGE.console;

const OPTIONS = {
  listen: {
    type: "string",
    value: "HOST:PORT",
    description: "where to listen (default 127.0.0.1:0, any free port)",
  },
  "allow-remote": {
    type: "boolean",
    description: "allow a non-loopback address (needs TLS or --insecure-http)",
  },
  "tls-cert": { type: "string", value: "FILE", description: "serve HTTPS with this PEM certificate" },
  "tls-key": { type: "string", value: "FILE", description: "the certificate's PEM private key" },
  "insecure-http": {
    type: "boolean",
    description:
      "with --allow-remote and no TLS: accept that the token and session cross the network in clear",
  },
  "public-host": {
    type: "string",
    multiple: true,
    value: "NAME",
    description: "with --allow-remote: a Host name the console answers to (repeatable)",
  },
  audit: {
    type: "string",
    value: "FILE",
    description: "the audit log to show (default: the workspace's [audit] file)",
  },
} as const;

export const help: CommandHelp = {
  summary: `Serves the approval console: pending asks of every process with [approvals] route = "console", live, to approve or deny, and the audit log. Loopback only unless --allow-remote; sign in with the token from ${CONSOLE_TOKEN_ENV} or the one printed.`,
  options: OPTIONS,
  examples: ["toolgate console", "toolgate console --listen 127.0.0.1:8780 --audit .toolgate/audit.jsonl"],
};

export async function runConsole(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseOptions("toolgate console", argv, OPTIONS);
  if (positionals.length > 0) throw new UsageError(`usage: ${usage}`);
  const listen =
    values.listen === undefined ? { host: "127.0.0.1", port: 0 } : parseListen(values.listen, "--listen");
  const cert = values["tls-cert"];
  const key = values["tls-key"];
  if ((cert === undefined) !== (key === undefined))
    throw new UsageError("--tls-cert and --tls-key go together");
  const { io } = ctx;
  const fixed = io.env[CONSOLE_TOKEN_ENV];
  const weak = fixed === undefined ? undefined : consoleTokenProblem(fixed);
  if (weak) throw new UsageError(`${CONSOLE_TOKEN_ENV}: ${weak}`);
  const token = fixed ?? newConsoleToken();
  const store = new FileApprovalStore({ dir: approvalsDir(userStateDir({ env: io.env })) });
  const options = {
    store,
    token,
    host: listen.host,
    port: listen.port,
    allowRemote: values["allow-remote"] === true,
    insecureHttp: values["insecure-http"] === true,
    publicHosts: values["public-host"] ?? [],
    ...(cert && key ? { tls: { cert, key } } : {}),
  };
  const problem = consoleOptionsProblem(options);
  if (problem) throw new UsageError(problem);
  // --audit is relative to where the command runs; the config's file to the workspace, as the gate reads it.
  const configured = values.audit === undefined ? (await ctx.gate()).settings.audit.file : undefined;
  const auditFile = values.audit
    ? resolve(io.cwd, values.audit)
    : configured && (isAbsolute(configured) ? configured : join(ctx.root, configured));
  const running = await startConsole({ ...options, ...(auditFile ? { auditFile } : {}) });
  // One write: whoever watches stderr for the URL sees how to sign in.
  io.stderr(
    `toolgate: console on ${running.url}\n${
      fixed
        ? `toolgate: sign in with the token from ${CONSOLE_TOKEN_ENV}`
        : `toolgate: sign-in token: ${token}`
    }\n`,
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await running.close();
  await store.close();
  return EXIT.ok;
}
