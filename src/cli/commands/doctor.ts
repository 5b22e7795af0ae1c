/**
 * @module cli/commands/doctor
 * `toolgate doctor`: what this machine gives toolgate — Node, ripgrep, the bash grammar, bubblewrap and user
 * namespaces (the shell sandbox), socat and nsenter (network grants), the policy and config, the hooks, the model server, the local model runtime and whether
 * it computes on a GPU or the CPU — each with the fix when missing.
 * Exit 0 when everything toolgate needs works (the model server is only needed by chat/run), else 1.
 */

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { resolveLlmSettings, runtimeBackend } from "../../llm/index.js";
import { modelFile, modelsDir } from "../../models/index.js";
import { httpRequest } from "../../net/index.js";
import { analyzeCommand } from "../../policy/index.js";
import { describeSandbox, forwarderTools, sandboxSupport, visibleInHome } from "../../sandbox/index.js";
import { userStateDir } from "../../state/index.js";
import type { Toolgate } from "../../toolgate.js";
import { findBundledRipgrep } from "../../tools/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";
import { checkFleet } from "./doctor-fleet.js";
import { checkHooks } from "./doctor-hooks.js";

const usage = USAGE.doctor;

export const help: CommandHelp = {
  summary:
    "Checks what toolgate needs here: Node, ripgrep, the bash grammar, bubblewrap and user namespaces for the sandbox, the policy and config, the model server, and the fleet's Redis when [fleet] is set. Exit 1 when a required check fails.",
  options: {},
  examples: ["toolgate doctor", "toolgate doctor --json"],
};

/** One finding. `required: false` checks inform but do not fail the command. */
export interface DoctorCheck {
  check: string;
  ok: boolean;
  required: boolean;
  detail: string;
  fix?: string;
}

export async function runDoctor(argv: string[], ctx: CliContext): Promise<ExitCode> {
  if (parseOptions("toolgate doctor", argv, {}).positionals.length > 0)
    throw new UsageError(`usage: ${usage}`);
  const checks: DoctorCheck[] = [checkNode(), await checkRipgrep(), await checkGrammar()];
  let gate: Toolgate | undefined;
  try {
    gate = await ctx.gate();
    checks.push({
      check: "policy and config",
      ok: true,
      required: true,
      detail: `policy from ${gate.policy.source}`,
    });
  } catch (error) {
    checks.push({
      check: "policy and config",
      ok: false,
      required: true,
      detail: (error as Error).message,
      fix: "fix the file named above (toolgate policy validate shows every problem)",
    });
  }
  checks.push(
    checkSandbox(gate),
    checkSandboxView(gate),
    checkNetworkGrants(gate),
    checkHooks(gate, ctx.root),
    await checkModel(gate),
    await checkLocalRuntime(ctx),
    ...(await checkFleet(gate)),
  );

  if (ctx.globals.json) ctx.io.stdout(`${JSON.stringify(checks)}\n`);
  else {
    for (const c of checks) {
      const mark = c.ok ? "✓" : c.required ? "✗" : "!";
      ctx.io.stdout(`${mark} ${c.check}: ${c.detail}\n`);
      if (!c.ok && c.fix) ctx.io.stdout(`    fix: ${c.fix}\n`);
    }
  }
  return checks.every((c) => c.ok || !c.required) ? EXIT.ok : EXIT.toolError;
}

function checkNode(): DoctorCheck {
  const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
  const ok = major > 20 || (major === 20 && minor >= 19);
  return {
    check: "node",
    ok,
    required: true,
    detail: `Node.js ${process.version}`,
    ...(ok ? {} : { fix: "install Node.js 20.19 or newer" }),
  };
}

async function checkRipgrep(): Promise<DoctorCheck> {
  const rg = await findBundledRipgrep();
  const version = rg ? spawnSync(rg, ["--version"], { encoding: "utf8", timeout: 10_000 }) : undefined;
  if (rg && version?.status === 0) {
    return { check: "ripgrep", ok: true, required: false, detail: version.stdout.split("\n")[0]! };
  }
  return {
    check: "ripgrep",
    ok: false,
    required: false,
    detail: "the bundled ripgrep is missing: grep uses its slower JavaScript search",
    fix: "reinstall toolgate with its dependencies (npm ci), on a platform @vscode/ripgrep ships for",
  };
}

async function checkGrammar(): Promise<DoctorCheck> {
  try {
    const analysis = await analyzeCommand("git status && ls | wc -l");
    return {
      check: "bash grammar",
      ok: analysis.commands.length === 3,
      required: true,
      detail: "tree-sitter bash grammar loads; shell commands are analysed",
    };
  } catch (error) {
    return {
      check: "bash grammar",
      ok: false,
      required: true,
      detail: `cannot load the bash grammar: ${(error as Error).message}`,
      fix: "reinstall toolgate (npm ci); without the grammar no command can be vouched for",
    };
  }
}

function checkSandbox(gate: Toolgate | undefined): DoctorCheck {
  const support = sandboxSupport();
  const mode = gate?.settings.sandbox.mode ?? "auto";
  const settings = { mode, network: false, writable: [], hidden: [] } as const;
  if (support.available) {
    return {
      check: "shell sandbox",
      ok: true,
      required: true,
      detail: `${support.version ?? "bwrap"} with user namespaces; [sandbox] mode = "${mode}": ${describeSandbox(settings)}`,
    };
  }
  // Unavailable is fine only when the user chose to run without it.
  return {
    check: "shell sandbox",
    ok: mode === "off",
    required: true,
    detail: `${support.reason}; [sandbox] mode = "${mode}": ${describeSandbox(settings)}`,
    ...(support.fix ? { fix: support.fix } : {}),
  };
}

/** What a sandboxed command can see of the home folder (the rest of it is an empty, throw-away folder). */
function checkSandboxView(gate: Toolgate | undefined): DoctorCheck {
  const home = homedir();
  const readable = (gate?.settings.sandbox.readable ?? []).map((p) =>
    p.startsWith("~/") ? `${home}/${p.slice(2)}` : p,
  );
  const shown = visibleInHome(home, process.env, readable)
    .filter((v) => existsSync(v.path))
    .map((v) => `${v.path === home ? "~" : `~${v.path.slice(home.length)}`}${v.show ? " (what runs)" : ""}`);
  return {
    check: "sandbox view",
    ok: true,
    required: false,
    detail:
      "commands see the system read-only, the workspace, a private /tmp, and an empty home folder " +
      `(writes there are thrown away) except, read-only: ${shown.length > 0 ? shown.join(", ") : "nothing"}` +
      " ([sandbox] readable adds more)",
  };
}

/** What a network grant needs besides bwrap; required only when `[sandbox] network = true` grants it to every command. */
function checkNetworkGrants(gate: Toolgate | undefined): DoctorCheck {
  const check = "network grants";
  const required = gate?.settings.sandbox.network === true;
  if (!sandboxSupport().available)
    return {
      check,
      ok: false,
      required,
      detail: "a command granted network needs the shell sandbox (above)",
    };
  const tools = forwarderTools();
  if ("missing" in tools) {
    return {
      check,
      ok: false,
      required,
      detail: `${tools.missing}: a command granted network is refused (it never gets the host's network)`,
      fix: "apt-get install socat util-linux",
    };
  }
  return {
    check,
    ok: true,
    required,
    detail:
      "socat and nsenter found: a command granted network gets a network namespace of its own, whose one way out is toolgate's egress proxy",
  };
}

async function checkModel(gate: Toolgate | undefined): Promise<DoctorCheck> {
  let settings: ReturnType<typeof resolveLlmSettings>;
  try {
    settings = resolveLlmSettings(gate?.settings.llm, {}, process.env);
  } catch (error) {
    return { check: "model server", ok: false, required: false, detail: (error as Error).message };
  }
  if (settings.provider === "local") {
    const path = modelFile(settings.model, modelsDir(userStateDir()));
    const there = existsSync(path);
    return {
      check: "model server",
      ok: there,
      required: false,
      detail: there
        ? `local model ${settings.model} (${path}); no server needed`
        : `local model ${settings.model} is not at ${path}`,
      ...(there ? {} : { fix: `run \`toolgate models pull ${settings.model}\`` }),
    };
  }
  const url = settings.provider === "ollama" ? `${settings.baseUrl}/api/tags` : `${settings.baseUrl}/models`;
  try {
    // The user's own model server (loopback is fine): the one HTTP path in `configured` mode.
    const response = await httpRequest(url, { mode: "configured", timeoutMs: 3000 });
    response.close();
    return {
      check: "model server",
      ok: response.status < 500,
      required: false,
      detail: `${settings.provider} at ${settings.baseUrl} answered (HTTP ${response.status}); model ${settings.model}`,
    };
  } catch (error) {
    return {
      check: "model server",
      ok: false,
      required: false,
      detail: `cannot reach ${settings.provider} at ${settings.baseUrl} (${(error as Error).message}); chat and run need it`,
      fix:
        settings.provider === "ollama"
          ? "start it with `ollama serve` (or set [llm] base_url / --base-url)"
          : "start the server, or set [llm] base_url",
    };
  }
}

/** The `local` provider's runtime: installed or not, and which backend it found (a GPU, or the CPU). */
async function checkLocalRuntime(ctx: CliContext): Promise<DoctorCheck> {
  try {
    const backend = await runtimeBackend(userStateDir({ env: ctx.io.env }));
    return {
      check: "local model runtime",
      ok: true,
      required: false,
      detail: `node-llama-cpp loaded; computing on ${backend === "cpu" ? "the CPU (no GPU found)" : `the GPU (${backend})`}`,
    };
  } catch (error) {
    return {
      check: "local model runtime",
      ok: false,
      required: false,
      detail: `${(error as Error).message}; only \`--provider local\` needs it`,
      fix: "`toolgate models pull` offers to install it",
    };
  }
}
