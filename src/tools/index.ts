/**
 * @module tools
 * The only list of built-in tools: `createBuiltinTools` calls every built-in tool's constructor, and nothing
 * else in `src/` does (`only-list.test.ts`). `createToolgate` calls it once per gate; the tools share one
 * workspace (roots fixed by the host) and one set of background processes, which `close()` stops.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { ToolgateSettings } from "../config/index.js";
import type { Logger, Tool } from "../core/index.js";
import { ToolFailure } from "../core/index.js";
import {
  checkSandboxAllowHosts,
  cleanLeftPlaceholders,
  flushPlaceholders,
  type SandboxSettings,
} from "../sandbox/index.js";
import { type StateBackend, userConfigDir, userStateDir } from "../state/index.js";
import { Workspace } from "../workspace/index.js";
import { atlassianFromEnv } from "./atlassian/client.js";
import { createConfluenceFetchTool } from "./confluence-fetch.js";
import { createEditFileTool } from "./edit-file.js";
import { containPaths, toToolFailure } from "./files/errors.js";
import { createGlobTool } from "./glob.js";
import { createGrepTool } from "./grep.js";
import { createJiraFetchTool } from "./jira-fetch.js";
import { createLsTool } from "./ls.js";
import { createMemoryTool } from "./memory.js";
import { createReadFileTool } from "./read-file.js";
import { createReadManyFilesTool } from "./read-many-files.js";
import { createReadUntrustedTool } from "./read-untrusted.js";
import { BackgroundProcesses, createShellProcessesTool } from "./shell/index.js";
import { createShellTool } from "./shell.js";
import { createSearchBackend } from "./web/create-backend.js";
import { createWebFetchTool } from "./web-fetch.js";
import { createWebSearchTool } from "./web-search.js";
import { createWriteFileTool } from "./write-file.js";
import { createWriteTodosTool } from "./write-todos.js";

/** Where the ripgrep binary the grep tool uses is (`toolgate doctor` reports it). */
export { findBundledRipgrep } from "./grep.js";
/** The shell's process group and environment rules, which hook scripts run under too (`hooks/`). */
export { ProcessGroup, SHELL_FIXED_ENV, sanitizeEnv } from "./shell/index.js";

/** What the built-in tools are made from. */
export interface BuiltinContext {
  /** Canonical allowed roots. */
  roots: readonly string[];
  /** The settings (`settingsFromConfig`): camelCase, defaults applied. */
  settings: ToolgateSettings;
  logger: Logger;
  /** Extra environment variables the host lets the shell pass on. */
  env: Record<string, string>;
  /** Extra lines for a shell confirmation (the policy's risk reasons). */
  commandNotes?: (command: string, cwd: string | undefined) => Promise<string[]> | string[];
  /** Where the memory and write_todos tools keep their state (the gate's state backend). */
  state: StateBackend;
}

/** The built-in tools of one gate and what they share. */
export interface BuiltinTools {
  tools: Tool[];
  workspace: Workspace;
  processes: BackgroundProcesses;
  close(): Promise<void>;
}

/**
 * Creates every built-in tool. Jira and Confluence are added only when configured (base URL and token).
 * @example const { tools, close } = await createBuiltinTools({ roots, settings: settingsFromConfig({}), logger, env: {}, state });
 */
export async function createBuiltinTools(context: BuiltinContext): Promise<BuiltinTools> {
  const { settings, roots } = context;
  // toolgate's own user-scope state is never writable through a file tool, whatever the roots.
  const protectedPaths = [...settings.files.protected, userStateDir()];
  const workspace = await Workspace.create(roots, {
    protectedPaths,
    maxFileBytes: settings.files.maxFileBytes,
  });
  const processes = new BackgroundProcesses();
  // Placeholders a killed toolgate left in a workspace (its journal in the user's state folder) go now.
  cleanLeftPlaceholders(userStateDir());
  // A key left out of the config is undefined here: each tool then uses its own default.
  const web = { allowHosts: settings.web.allowHosts, timeoutMs: settings.web.timeoutMs };
  const env = { ...process.env, ...context.env };
  const projectDir = roots[0]!;

  const readFile = asTool(createReadFileTool({ workspace }));
  const webFetch = asTool(createWebFetchTool({ ...web, maxBytes: settings.web.maxBytes }));
  const tools: Tool[] = [
    readFile,
    asTool(createReadManyFilesTool({ workspace })),
    asTool(createWriteFileTool({ workspace })),
    asTool(createEditFileTool({ workspace })),
    asTool(createGlobTool({ workspace })),
    asTool(createGrepTool({ workspace })),
    asTool(createLsTool({ workspace })),
    asTool(
      createShellTool({
        resolveCwd: (cwd) => resolveDirectory(workspace, cwd),
        containCwd: (cwd) => containPaths(workspace, "list", [cwd]),
        roots,
        env: pick(context.env, settings.shell.env),
        processes,
        defaultTimeoutMs: settings.shell.timeoutMs,
        maxOutputBytes: settings.shell.maxOutputBytes,
        commandNotes: context.commandNotes,
        sandbox: sandboxSettings(settings.sandbox, projectDir),
        protectedExtra: protectedPaths,
      }),
    ),
    asTool(createShellProcessesTool({ processes })),
    webFetch,
    asTool(createReadUntrustedTool({ webFetch, readFile, workspace })),
    asTool(createWebSearchTool({ backend: createSearchBackend(settings.search, { ...web, env }) })),
    asTool(createMemoryTool({ state: context.state })),
    asTool(createWriteTodosTool({ state: context.state })),
  ];

  const jira = atlassianFromEnv("JIRA", settings.jira, env);
  if (jira) tools.push(asTool(createJiraFetchTool({ ...jira, ...web })));
  const confluence = atlassianFromEnv("CONFLUENCE", settings.confluence, env);
  if (confluence) tools.push(asTool(createConfluenceFetchTool({ ...confluence, ...web })));

  // Closing stops background commands, then removes the placeholders they and earlier commands left lingering.
  const close = () => processes.stopAll().then(() => flushPlaceholders());
  return { tools, workspace, processes, close };
}

/**
 * A tool typed by its own parameters, as the registry stores it. Safe: the pipeline validates arguments
 * against the tool's schema before `build` sees them.
 */
function asTool<P>(tool: Tool<P>): Tool {
  return tool as unknown as Tool;
}

/** The shell's `cwd`: inside a root, an existing directory (default: the first root). */
async function resolveDirectory(workspace: Workspace, cwd: string | undefined): Promise<string> {
  const path = cwd ?? ".";
  const resolved = await workspace.resolve(path, "read").catch((error: unknown) => {
    throw toToolFailure(error, path, "use as the working directory");
  });
  if (!resolved.exists || !resolved.isDirectory) {
    throw new ToolFailure("invalid_params", `cwd is not an existing directory: ${path}`, { path });
  }
  return resolved.canonical;
}

/** Host-passed variables, plus those `[shell] env` names from the host's own environment. */
function pick(extra: Record<string, string>, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = { ...extra };
  for (const name of names) {
    const value = process.env[name];
    if (value !== undefined && out[name] === undefined) out[name] = value;
  }
  return out;
}

/** `[sandbox]` as the shell uses it: relative paths against the first root, `~/` against the home folder. */
function sandboxSettings(sandbox: ToolgateSettings["sandbox"], projectDir: string): SandboxSettings {
  const absolute = (p: string) => (p.startsWith("~/") ? join(homedir(), p.slice(2)) : resolve(projectDir, p));
  checkSandboxAllowHosts(sandbox.allowHosts);
  return {
    mode: sandbox.mode,
    network: sandbox.network,
    allowHosts: sandbox.allowHosts,
    writable: sandbox.writable.map(absolute),
    // toolgate's own user state and settings (trust list, memory) are never readable by a command.
    hidden: [...sandbox.hidden.map(absolute), userStateDir(), userConfigDir()],
    readable: sandbox.readable.map(absolute),
    unchecked: sandbox.unchecked.map(absolute),
    stateDir: userStateDir(),
  };
}
