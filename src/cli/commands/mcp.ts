/**
 * @module cli/commands/mcp
 * `toolgate mcp [--pool]` serves the workspace's tools as an MCP server over stdio — every call through the
 * same pipeline and policy, `ask` as an elicitation to the client. `--pool` also serves the tools of the
 * servers in `.mcp.json`. `--http HOST:PORT` serves over streamable HTTP instead (bearer token from
 * TOOLGATE_MCP_TOKEN — one per client, comma-separated — or generated and printed to stderr; loopback unless
 * `--allow-remote`; idle sessions expire, sessions capped per token and overall).
 * `toolgate mcp list` shows the configured servers, their status and tool counts.
 */

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Tool } from "../../core/index.js";
import { isLoopbackHost, type PolicyVerdict, serveMcp, serveMcpHttp } from "../../mcp/index.js";
import { watchGenerations } from "../../mcp-client/index.js";
import { type CompiledPolicy, evaluate } from "../../policy/index.js";
import { gateOffer } from "../always-rule.js";
import { onTermination } from "../chat/termination.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { parseListen } from "../listen.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";
import { runMcpList } from "./mcp-list.js";

const usage = USAGE.mcp;

/** Where `--http` takes its token from when set; otherwise one is generated and printed. */
export const MCP_TOKEN_ENV = "TOOLGATE_MCP_TOKEN";

const OPTIONS = {
  pool: { type: "boolean", description: "also serve the tools of the servers in .mcp.json" },
  http: {
    type: "string",
    value: "HOST:PORT",
    description: `serve over streamable HTTP instead of stdio (bearer token from ${"$"}TOOLGATE_MCP_TOKEN, or generated and printed)`,
  },
  "allow-remote": { type: "boolean", description: "with --http: allow a non-loopback address" },
  "allow-origin": {
    type: "string",
    value: "URL",
    multiple: true,
    description: "with --http: a browser Origin to accept besides the server's own (repeatable)",
  },
  "session-idle-ms": {
    type: "string",
    value: "N",
    description:
      "with --http: a session with nothing in flight and no stream open expires after N ms (default 120000)",
  },
  "max-sessions": {
    type: "string",
    value: "N",
    description: "with --http: most sessions at once (default 64)",
  },
  "max-sessions-per-token": {
    type: "string",
    value: "N",
    description:
      "with --http: most sessions of one client token (default: --max-sessions shared out between the tokens)",
  },
} as const;

/** The --http flags that set a limit, with the option each sets. */
const HTTP_LIMITS = {
  "session-idle-ms": "sessionIdleMs",
  "max-sessions": "maxSessions",
  "max-sessions-per-token": "maxSessionsPerToken",
} as const;

export const help: CommandHelp = {
  summary:
    "Serves the workspace's tools as an MCP server over stdio (or streamable HTTP with --http), every call through the same pipeline and policy (an ask becomes an elicitation to the client). list: the servers in .mcp.json, their state and tool counts.",
  options: OPTIONS,
  examples: [
    "toolgate mcp --workspace ~/src/project",
    "toolgate mcp --http 127.0.0.1:8765",
    "toolgate mcp list --json",
  ],
};

export async function runMcp(argv: string[], ctx: CliContext): Promise<ExitCode> {
  if (argv[0] === "list") {
    if (parseOptions("toolgate mcp list", argv.slice(1), {}).positionals.length > 0)
      throw new UsageError(`usage: ${usage}`);
    return runMcpList(ctx);
  }
  const { values, positionals } = parseOptions("toolgate mcp", argv, OPTIONS);
  if (positionals.length > 0) throw new UsageError(`usage: ${usage}`);
  const listen = values.http === undefined ? undefined : parseListen(values.http);
  const limits = httpLimits(values);
  if (
    listen === undefined &&
    (values["allow-remote"] || values["allow-origin"] || Object.keys(limits).length > 0)
  )
    throw new UsageError(
      `--allow-remote, --allow-origin and the session limits go with --http; usage: ${usage}`,
    );
  if (listen && !isLoopbackHost(listen.host) && !values["allow-remote"])
    throw new UsageError(
      `${listen.host} is not a loopback address: add --allow-remote to serve beyond this machine (anyone who reaches it may try the token)`,
    );
  const gate = await ctx.gate();
  const calls = callsToEnd();
  // No terminal approver here: stdin/stdout carry the protocol; approvals go to the client as elicitations.
  // With --pool every tool of the gate's current generation is served (`.mcp.json` edits included); without,
  // the host's own tools only.
  const target: Parameters<typeof serveMcp>[0] = {
    registry: values.pool ? async () => (await gate.tools()).registry : gate.registry,
    execute: (call, options) =>
      calls.run((signal) => gate.execute(call, { ...options, signal }), options?.signal),
    // Listings are no looser than the policy: a tool it asks about or denies is not advertised read-only.
    verdict: (tool) => policyVerdict(gate.policy, tool),
    // An elicitation offers "always": the rule allowing exactly the call, added to the policy file (shown first).
    offerAlways: gateOffer(
      async () => ({
        policy: gate.policy,
        registry: values.pool ? (await gate.tools()).registry : gate.registry,
        usePolicy: (policy) => gate.usePolicy(policy),
      }),
      ctx.root,
    ),
    // With --pool, a new generation (`.mcp.json` edited, a server's own list_changed) is told to the client.
    ...(values.pool
      ? {
          watch: (changed: () => void) =>
            watchGenerations(() => gate.tools(), changed, {
              onError: (e) => ctx.io.stderr(`toolgate: checking the tool pool failed: ${e.message}\n`),
            }),
        }
      : {}),
  };
  const scope = values.pool ? undefined : { tools: new Set(gate.registry.names()) };
  if (listen) {
    // One token per client (comma-separated): each client's sessions count against its own cap.
    const tokens = (ctx.io.env[MCP_TOKEN_ENV] ?? "")
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
    const token = tokens.length > 0;
    const http = await serveMcpHttp(target, {
      host: listen.host,
      port: listen.port,
      ...(token ? { tokens } : {}),
      ...limits,
      allowNonLoopback: values["allow-remote"] === true,
      allowedOrigins: values["allow-origin"] ?? [],
      logger: { warn: (m) => ctx.io.stderr(`toolgate: ${m}\n`) },
      ...(scope ? { scope } : {}),
    });
    // One write: whoever watches stderr for the URL sees how to authenticate with it.
    ctx.io.stderr(
      `toolgate: serving MCP on ${http.url}\n${
        token
          ? `toolgate: clients must send ${tokens.length > 1 ? `one of the ${tokens.length} tokens` : "the token"} from ${MCP_TOKEN_ENV} (Authorization: Bearer ...)`
          : `toolgate: token (send as Authorization: Bearer <token>): ${http.token}`
      }\n`,
    );
    await untilTerminated();
    await calls.end();
    await http.close();
    return EXIT.ok;
  }
  const transport = new StdioServerTransport();
  // The client closing stdin is gone: nobody would read a running call's result.
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await serveMcp(target, transport, scope ? { scope } : {});
  await Promise.race([closed, untilTerminated()]);
  await calls.end();
  return EXIT.ok;
}

/** Resolves on the first SIGINT, SIGTERM or SIGHUP (a second one, or the grace period, exits the process). */
function untilTerminated(): Promise<void> {
  return new Promise((resolve) => {
    onTermination(["SIGINT", "SIGTERM", "SIGHUP"], () => resolve());
  });
}

/**
 * The calls in flight, to end them before the server goes: each gets a signal that `end` aborts, and `end`
 * waits until every one has finished — so the sandbox's check after a cancelled command runs, rather than the
 * process exiting under it (which leaves the check owed, and the workspace refused until the person looks).
 */
function callsToEnd() {
  const controller = new AbortController();
  const running = new Set<Promise<unknown>>();
  return {
    run<T>(call: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
      const both = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
      const done = call(both);
      running.add(done);
      const forget = () => running.delete(done);
      done.then(forget, forget);
      return done;
    },
    async end(): Promise<void> {
      controller.abort();
      await Promise.allSettled([...running]);
    },
  };
}

/**
 * What `policy` says about `tool` as such: its decision for a call that no argument condition matches (the
 * rules naming the tool or its kind without conditions, else the default), and the risk it gives it.
 */
export function policyVerdict(policy: CompiledPolicy, tool: Tool): PolicyVerdict {
  const info = {
    name: tool.name,
    kind: tool.kind,
    risk: tool.risk,
    ...(tool.argKinds ? { argKinds: tool.argKinds } : {}),
  };
  const decision = evaluate(policy, { tool: info, args: {}, risk: tool.risk });
  return { decision: decision.decision, risk: decision.risk };
}

/** The session limits given as flags, as `serveMcpHttp` options (whole numbers ≥ 1). */
function httpLimits(values: Partial<Record<keyof typeof HTTP_LIMITS, string>>): {
  sessionIdleMs?: number;
  maxSessions?: number;
  maxSessionsPerToken?: number;
} {
  const out: Record<string, number> = {};
  for (const [flag, option] of Object.entries(HTTP_LIMITS)) {
    const text = values[flag as keyof typeof HTTP_LIMITS];
    if (text === undefined) continue;
    const n = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1)
      throw new UsageError(`--${flag} must be a whole number ≥ 1, not ${JSON.stringify(text)}`);
    out[option] = n;
  }
  return out;
}
