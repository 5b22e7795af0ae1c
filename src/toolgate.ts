/**
 * @module toolgate
 * `createToolgate(options)`: wires the parts into one gate — roots, settings, the tool source (built-in and
 * registered tools plus the project's MCP pool, as generations), policy (file or built-in default) with its
 * argument plug-ins, state backend, approval store and the message bus over it, audit — and exposes the one
 * pipeline. Everything is validated here, at creation, never at first use.
 */

import { existsSync } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import {
  type AgentRunner,
  type AgentWhitelist,
  COORDINATION_TOOLS,
  type Resolution,
} from "./agents/index.js";
import { approvalStoreFor, resolveWebhook, WebhookNotifier, withWebhook } from "./approvals/index.js";
import { MessageBus } from "./bus/index.js";
// By file, not the config front door, which loads zod (docs/architecture.md, "Imports past a front door").
import { defaultSettings } from "./config/defaults.js";
import type { ToolgateConfig, ToolgateSettings } from "./config/index.js";
import {
  type ApprovalStore,
  type AuditLog,
  type AuditSink,
  type CallResult,
  type CheckResult,
  ConfigError,
  checkCall,
  type Decider,
  type ExecuteOptions,
  executeCall,
  FileAuditLog,
  FileAuditSink,
  type HookReport,
  type Logger,
  type OfferAlwaysRule,
  type PipelineDeps,
  type ProviderName,
  type ProviderTool,
  SchemaCache,
  type Tool,
  type ToolCall,
  ToolRegistry,
  type ToolScope,
} from "./core/index.js";
import type { Fleet } from "./fleet/index.js";
import type { HookSet, HookSpec, SkippedHook } from "./hooks/index.js";
import {
  type ArgKindPlugin,
  builtinDefaultPolicy,
  type CompiledPolicy,
  createCommandKind,
  createFlowKnowledge,
  createPathKind,
  createRecorder,
  createUrlKind,
  lintPolicy,
  loadPolicyFile,
  PolicyEngine,
  parsePolicy,
  renderExplanation,
  stricterOnly,
  validateAgainstTools,
  withGitConfigCheck,
} from "./policy/index.js";
import { isPlaceholder } from "./sandbox/index.js";
import { createFileStateBackend, type StateBackend } from "./state/index.js";
import { recordToolSpan } from "./telemetry/index.js";
import { type ToolGeneration, ToolSource } from "./tool-source.js";
import { type BuiltinTools, createBuiltinTools } from "./tools/index.js";
import { readPlainFile, whyUnread } from "./utils/index.js";
import {
  DEFAULT_READ_ASK_PATTERNS,
  everyFileTrusted,
  fixedTrust,
  isInsideOrEqual,
  PathPatternSet,
  type TrustLookup,
  trustLookup,
  untrustedBecause,
  type Workspace,
} from "./workspace/index.js";

/** Options of {@link createToolgate}. Every path is resolved against `cwd`. */
export interface ToolgateOptions {
  /** Allowed roots for file tools and shell `cwd`. Default: `[cwd]`. Fixed by the host, never by a tool. */
  roots?: string[];
  /** Directory relative paths are resolved against. Default: `process.cwd()`. */
  cwd?: string;
  /**
   * Policy file. Default: `<first root>/.toolgate/policy.toml` if it exists, else the built-in default
   * (read-only tools allow, everything else asks). `false` forces the built-in default.
   */
  policy?: string | false;
  /** Policy TOML given inline (instead of a file). */
  policyText?: string;
  /** Settings file or object. Default: `<first root>/.toolgate/config.toml` if it exists. */
  config?: string | ToolgateConfig;
  /** Register the built-in tools (default true), or only the named ones. */
  builtins?: boolean | string[];
  /** Extra tools registered after the built-ins. */
  tools?: Tool[];
  /** Where warnings go. Default: stderr. */
  logger?: Logger;
  /** Audit sink or JSONL file path. Default: `[audit] file`, else none. */
  audit?: string | AuditSink;
  /** How long an `ask` waits for an answer. Default: `[confirm] timeout_ms` (5 minutes). */
  confirmTimeoutMs?: number;
  /**
   * What "approve always" adds, published with every ask that goes to a shared store (`[approvals] route =
   * "console"`, fleet mode) unless its call brings its own, and written when the ask is answered "always"
   * there. The `toolgate` command gives its rule writer here, so `call`, `run`, `chat` and `mcp` offer the
   * same rule; without one, the console says the asking process offers no rule.
   */
  offerAlways?: OfferAlwaysRule;
  /**
   * Where the memory and write_todos tools (and `toolgate memory` / `todos`) keep their state. Default: the
   * file backend (`<first root>/.toolgate/state/`, the user's state folder). The gate does not close a
   * backend it was given.
   */
  state?: StateBackend;
  /**
   * Where every `ask` is kept until it is answered (exactly once), expires or is withdrawn. Default: fleet
   * mode's Redis store when `[fleet]` is set; the user's shared approvals folder with `[approvals] route =
   * "console"`; else an in-process store (answered by a call's own `confirm` or the bus's listeners). Not
   * closed by the gate.
   */
  approvals?: ApprovalStore;
  /** Extra environment variables the shell may pass to commands (still sanitized). */
  env?: Record<string, string>;
  /**
   * Whether the workspace's own files (`.toolgate/policy.toml`, `.toolgate/config.toml`, every host's MCP
   * file) count in full. Untrusted, its policy can only tighten the gate, its config cannot set security
   * settings nor take protection away, and its MCP servers are not started. Default: file by file, whether
   * the user trusted that file with exactly this content (`toolgate trust`; docs/trust.md). Files named with
   * `policy`/`config` are always trusted.
   */
  trustWorkspace?: boolean;
  /**
   * Whether the project's MCP pool (the first root's `.mcp.json` servers, and the coordination tools
   * `spawn_agents` / `list_available_agents`) joins the gate's tools. Servers start only when their tools
   * are needed: `tools()` lists every server, a call of `mcp__<server>__…` starts only that server.
   * Default false (the `toolgate` command turns it on); `attachProjectTools` turns it on later.
   */
  mcp?: boolean;
  /**
   * Whether hook scripts run (docs/hooks.md): the config's `[[hooks]]`, `~/.claude/settings.json`,
   * `~/.gemini/settings.json`, `~/.codex/hooks.json` and `~/.codex/config.toml`, and the workspace's same
   * files once trusted.
   * Default true. `home` is where the user's own settings files are (default: the home folder).
   */
  hooks?: boolean | { home?: string };
}

/** A gate's hooks (docs/hooks.md). */
export interface HookListing {
  /** The hooks that run, in order: the config's, the user's settings files', the trusted workspace's. */
  hooks: readonly HookSpec[];
  /** The workspace's hooks that wait for `toolgate trust`. */
  untrusted: readonly HookSpec[];
  /** Settings-file entries toolgate does not run (other events, non-command hooks), with why. */
  skipped: readonly SkippedHook[];
  /** Whether a failing hook lets the call run (`hooks_fail = "open"` in the user's own config). */
  failOpen: boolean;
}

/** A ready gate. */
export interface Toolgate {
  readonly roots: readonly string[];
  /**
   * The current generation's tools (see `tools()`): built-in and registered tools, plus the project's MCP
   * tools once a listing or a call brought them in. Read it; add tools with `register`.
   */
  readonly registry: ToolRegistry;
  /** The confirmation listeners (`onConfirmation`), an adapter over `approvals`. */
  readonly bus: MessageBus;
  /** Where every `ask` is kept and answered (see `ToolgateOptions.approvals`). */
  readonly approvals: ApprovalStore;
  /** Where memory and todos are kept (see `ToolgateOptions.state`). */
  readonly state: StateBackend;
  /**
   * The audit log read back (`toolgate audit tail|verify|export`): fleet mode's Redis stream, else the
   * `[audit] file`; `undefined` when there is none (no file set, or a host's own sink).
   */
  readonly auditLog?: AuditLog;
  /** The config as written (file or object; an untrusted workspace's without its security keys). */
  readonly config: ToolgateConfig;
  /** The same as settings: camelCase, every default applied (`settingsFromConfig`). */
  readonly settings: ToolgateSettings;
  /** The compiled policy in force (`policy.source` says where it came from). */
  readonly policy: CompiledPolicy;
  /**
   * Puts `policy` in force for the calls decided from now on (one already past its decision keeps it): the
   * policy file changed under a running session — "approve always" added a rule (`cli/always-rule.ts`).
   * Checked against every registered tool first; a policy that fails the check throws a ConfigError and the
   * one in force stays.
   */
  usePolicy(policy: CompiledPolicy): void;
  /**
   * Whether every one of the workspace's own files counted in full when the gate was made (see
   * `ToolgateOptions.trustWorkspace`): false when any of them is untrusted, changed or new since trusted.
   */
  readonly workspaceTrusted: boolean;
  /** The hooks that run, those waiting for trust, and the settings-file entries toolgate does not run. */
  readonly hooks: HookListing;
  /**
   * Every tool, the project's MCP servers listed: rebuilds when `.mcp.json`, a server's tool list or the
   * registered tools changed since the last generation, and returns the generation now in force.
   */
  tools(): Promise<ToolGeneration>;
  /**
   * The provider's tools payload for the current generation (cached per generation; frozen: do not mutate).
   * Typed per provider, so it can be handed to that provider's SDK as is; an unknown name throws a ConfigError.
   * @example const tools: AnthropicTool[] = gate.schemas("anthropic");
   */
  schemas<P extends ProviderName>(provider: P, options?: { scope?: ToolScope }): ProviderTool<P>[];
  /**
   * Runs one call through the pipeline: resolve → validate → policy → confirm → execute → truncate. The call
   * runs against the generation in force when it starts, even if a newer one is adopted meanwhile.
   */
  execute(call: ToolCall, options?: ExecuteOptions): Promise<CallResult>;
  /** Resolve → validate → policy, without running anything. `explain` adds a rendered trace. */
  check(
    call: ToolCall,
    options?: { scope?: ToolScope; explain?: boolean },
  ): Promise<CheckResult & { explanation?: string }>;
  /** Registers a tool (checked against the policy's rules); the next generation includes it. */
  register(tool: Tool): void;
  /** Resolves an agent's tools (by name in `.toolgate/agents/`, or a definition) among every tool, at `depth`. */
  resolveAgent(agent: string | AgentWhitelist, depth?: number): Promise<Resolution>;
  /**
   * Brings the project's pool into the gate's tools (as `mcp: true` does) and sets the runner `spawn_agents`
   * uses to run sub-agents (the agent loop provides one; `undefined` detaches it).
   */
  attachProjectTools(runner?: AgentRunner): void;
  /** Stops background processes and releases resources. */
  close(): Promise<void>;
}

/**
 * Creates a gate.
 * @example
 * const gate = await createToolgate({ roots: [process.cwd()] });
 * gate.bus.onConfirmation(async () => ({ approved: true }));
 * const result = await gate.execute({ name: "read_file", args: { path: "README.md" } });
 */
export async function createToolgate(options: ToolgateOptions = {}): Promise<Toolgate> {
  const cwd = options.cwd ?? process.cwd();
  const logger = options.logger ?? { warn: (m: string) => process.stderr.write(`toolgate: warning: ${m}\n`) };
  const roots = await canonicalRoots((options.roots ?? [cwd]).map((r) => resolve(cwd, r)));
  const first = roots[0]!;
  const trust = options.trustWorkspace === undefined ? trustLookup() : fixedTrust(options.trustWorkspace);
  const workspaceTrusted = options.trustWorkspace ?? (await everyFileTrusted(first, trust));
  const { config, settings } = await resolveConfig(options.config, cwd, first, trust, logger);

  // Fleet mode: the project's Redis holds the asks and the state, unless the host brought its own of both.
  const fleet = options.state && options.approvals ? undefined : await openFleetFor(settings, roots, logger);
  try {
    const state = options.state ?? fleet?.state ?? createFileStateBackend({ root: first, logger });
    // The host's tools; the generations the pipeline runs against are made from it and the project's pool.
    const registry = new ToolRegistry({ logger });
    const builtins: BuiltinTools = await createBuiltinTools({
      roots,
      settings: withHostFilesProtected(settings, options, cwd, first),
      logger,
      env: options.env ?? {},
      commandNotes: (command, cwd) => commandNotes(roots, command, cwd),
      state,
    });
    const wanted = options.builtins ?? true;
    for (const tool of builtins.tools) {
      // Built-in schemas are checked against the meta-schema by tools/builtin-schemas.test.ts, not at start-up.
      if (wanted === true || (Array.isArray(wanted) && wanted.includes(tool.name)))
        registry.register(tool, { schemaChecked: true });
    }
    for (const tool of options.tools ?? []) registry.register(tool);

    const plugins = policyPlugins(builtins.workspace);
    const loadOptions = { plugins, roots, tools: registry.list() };
    const policy = await resolvePolicy(options, cwd, first, loadOptions, trust, logger);
    // Files only: a policy written in code usually names tools the program registers after creation.
    if (policy.source !== "builtin" && options.policyText === undefined) {
      const known = [...builtins.tools.map((t) => t.name), ...registry.names(), ...COORDINATION_TOOLS];
      for (const warning of lintPolicy(policy, known)) logger.warn(warning.message);
    }
    const flow = createFlowKnowledge({
      workspaceTrusted,
      isSecret: secretPaths(roots, cwd),
      // Only the user's own config names trusted servers: a workspace's config (trusted or not) never does.
      trustedServers: new Set(options.config !== undefined ? settings.labels.trustedServers : []),
    });
    // Fleet mode: the project's audit stream, unless the host brought its own sink or file.
    const audit =
      options.audit === undefined && fleet
        ? fleet.audit
        : resolveAudit(options.audit, settings, first, logger);
    const engine = new PolicyEngine({
      policy,
      plugins,
      roots,
      flow: { knowledge: flow, guard: settings.labels.guard },
      // An audited call's record keeps the policy's explain trace of its decision (docs/console.md).
      explain: audit !== undefined,
    });
    const withOverlay = (decider: Decider): Decider => (fleet ? fleet.overlay.decider(decider) : decider);
    const { set: hooks, listing: hookListing } = await gateHooks(options, settings, first, trust, logger);

    const confirmTimeoutMs = options.confirmTimeoutMs ?? settings.confirm.timeoutMs;
    // Fleet mode's Redis; else with `[approvals] route = "console"` the user's shared folder, where the console
    // (or anyone) answers; else this process's own store.
    const store: ApprovalStore =
      options.approvals ?? fleet?.approvals ?? approvalStoreFor(settings.approvals.route, undefined, first);
    // `[approvals] webhook`: each new ask is also POSTed there, signed, beside the call (approvals/webhook.ts).
    const webhook = resolveWebhook(settings.approvals, process.env);
    const approvals = webhook
      ? withWebhook(
          store,
          new WebhookNotifier({
            ...webhook,
            onGiveUp: (record, error) =>
              logger.warn(`the approvals webhook did not take ask ${record.id}: ${error.message}`),
          }),
        )
      : store;
    const bus = new MessageBus({ timeoutMs: confirmTimeoutMs, approvals });
    const auditLog = options.audit === undefined && fleet ? fleet.auditLog : auditLogOf(audit);
    const source = new ToolSource({
      host: registry,
      root: first,
      mcp: options.mcp ?? false,
      // The list is read again at each pool build (after an MCP file changed): a change trusted meanwhile, by
      // `toolgate trust` in another terminal, counts without a restart.
      trusted: (file, sha256) =>
        (options.trustWorkspace === undefined ? trustLookup() : trust).file(file, { sha256 }),
      admit: (tool) => validateAgainstTools(engine.policy, [tool]),
      logger,
    });
    const deps: Omit<PipelineDeps, "registry"> = {
      // Fleet mode: the project's "always" rules turn matching asks into allows (never a deny into anything).
      decider: hooks ? hooks.decider(withOverlay(engine)) : withOverlay(engine),
      ...(hooks ? { postTool: hooks.post } : {}),
      confirmer: bus,
      approvals,
      confirmTimeoutMs,
      ...(options.offerAlways ? { offerAlways: options.offerAlways } : {}),
      ...(audit ? { audit } : {}),
      limits: settings.limits,
      labeler: flow.labeler,
    };
    // One schema cache per generation: a generation never changes, so its payloads never go stale.
    const caches = new WeakMap<ToolRegistry, SchemaCache>();
    const cacheOf = (generation: ToolRegistry) => {
      let cache = caches.get(generation);
      if (!cache) {
        cache = new SchemaCache(generation);
        caches.set(generation, cache);
      }
      return cache;
    };

    return {
      roots,
      get registry() {
        return source.current.registry;
      },
      bus,
      approvals,
      state,
      ...(auditLog ? { auditLog } : {}),
      config,
      settings,
      get policy() {
        return engine.policy;
      },
      usePolicy(next) {
        validateAgainstTools(next, source.current.registry.list());
        engine.use(next);
      },
      workspaceTrusted,
      hooks: hookListing,
      tools: () => source.full(),
      schemas(provider, schemaOptions) {
        const cache = cacheOf(source.current.registry);
        const scope = schemaOptions?.scope?.tools;
        return (scope ? cache.get(provider, scope) : cache.get(provider)).tools;
      },
      async execute(call, executeOptions) {
        const generation = await source.forCall(call?.name);
        const result = await executeCall({ ...deps, registry: generation.registry }, call, executeOptions);
        // Telemetry sits at the gate, not in core: core imports no other folder of ours.
        recordToolSpan(call, result, executeOptions?.scope);
        return result;
      },
      async check(call, checkOptions = {}) {
        const generation = await source.forCall(call?.name);
        const pipeline: PipelineDeps = { ...deps, registry: generation.registry };
        const scope = checkOptions.scope ? { scope: checkOptions.scope } : {};
        if (!checkOptions.explain) return checkCall(pipeline, call, scope);
        const recorder = createRecorder();
        const result = await checkCall(pipeline, call, {
          ...scope,
          decide: async (request) => {
            const decision = await engine.decide(request, recorder);
            return hooks ? hooks.pre(request, decision) : decision;
          },
        });
        const hookLines = result.ok ? explainHooks(result.decision.hooks) : "";
        return { ...result, explanation: renderExplanation(recorder.events) + hookLines };
      },
      register(tool) {
        validateAgainstTools(engine.policy, [tool]);
        registry.register(tool);
      },
      resolveAgent: (agent, depth) => source.resolveAgent(agent, depth),
      attachProjectTools: (runner) => source.attach(runner),
      async close() {
        await source.close();
        await builtins.close();
        // Only what the gate made itself: a host's backend or store is the host's to close.
        if (fleet) await fleet.close();
        else {
          if (!options.state) await state.close?.();
          if (!options.approvals) await approvals.close?.();
        }
      },
    };
  } catch (error) {
    // Creation failed after the connection was made: nothing may keep the process alive.
    await fleet?.close();
    throw error;
  }
}

/**
 * The fleet of `[fleet]` (or `TOOLGATE_REDIS_URL`), or none; `fleet/` and the Redis client load only then.
 * A server that cannot be reached at start is said once: until it is back, asks fail closed with the reason.
 */
async function openFleetFor(
  settings: ToolgateSettings,
  roots: readonly string[],
  logger: Logger,
): Promise<Fleet | undefined> {
  if (!settings.fleet.redis && !settings.fleet.cluster && !process.env.TOOLGATE_REDIS_URL) return undefined;
  const { openFleet, resolveFleet } = await import("./fleet/index.js");
  let resolved: ReturnType<typeof resolveFleet>;
  try {
    resolved = resolveFleet(settings.fleet, roots, process.env);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (!resolved) return undefined;
  const fleet = await openFleet(resolved, { onAuditError: (m) => logger.warn(m) });
  if (fleet.unreachable)
    logger.warn(`${fleet.unreachable}; calls that need an approval are refused until it is reachable`);
  return fleet;
}

/**
 * The gate's hooks, or none. The config's `[[hooks]]` are the user's own when the config was named
 * (`config` option, `--config`); the workspace's `.toolgate/config.toml` has none until trusted (its loader drops
 * them), and its hooks never lift an `ask`. `hooks_may_allow` and `hooks_fail = "open"` count only from the
 * user's own config.
 */
async function gateHooks(
  options: ToolgateOptions,
  settings: ToolgateSettings,
  root: string,
  trust: TrustLookup,
  logger: Logger,
): Promise<{ set?: HookSet; listing: HookListing }> {
  if (options.hooks === false) return { listing: { hooks: [], untrusted: [], skipped: [], failOpen: false } };
  const own = options.config !== undefined;
  const home = (typeof options.hooks === "object" ? options.hooks.home : undefined) ?? homedir();
  const { HookSet, loadHooks } = await import("./hooks/index.js");
  const loaded = await loadHooks({
    root,
    home,
    config: {
      hooks: settings.hooks,
      source:
        typeof options.config === "string"
          ? options.config
          : own
            ? "the config option"
            : ".toolgate/config.toml",
      origin: own ? "user" : "workspace",
    },
    trusted: (path, bytes) => trust.file(path, bytes).state === "trusted",
  });
  const waiting = new Set(loaded.untrusted.map((h) => h.source.split("#")[0]));
  for (const file of waiting)
    logger.warn(`${file} has hooks that do not run until the workspace is trusted (\`toolgate trust\`)`);
  if (!own && (settings.hooksMayAllow || settings.hooksFail === "open"))
    logger.warn(
      "the workspace's config cannot set hooks_may_allow or hooks_fail; only your own config (--config) can",
    );
  const failOpen = own && settings.hooksFail === "open";
  const listing = { hooks: loaded.hooks, untrusted: loaded.untrusted, skipped: loaded.skipped, failOpen };
  if (loaded.hooks.length === 0) return { listing };
  const set = new HookSet({
    hooks: loaded.hooks,
    cwd: root,
    ...(options.env ? { env: options.env } : {}),
    mayAllow: own && settings.hooksMayAllow,
    failOpen,
  });
  return { set, listing };
}

/** The hooks' part of `policy check --explain`: each hook, its answer or failure. */
function explainHooks(reports: readonly HookReport[] | undefined): string {
  if (!reports || reports.length === 0) return "";
  const lines = reports.map(
    (r) =>
      `  hook \`${r.hook}\` (${r.source}): ${r.failure ? `failed: ${r.failure}` : (r.decision ?? "no opinion")}${r.reason ? ` — ${r.reason}` : ""}`,
  );
  return `\nhooks:\n${lines.join("\n")}`;
}

/**
 * Whether the secret rules (the paths whose reads ask: `.env*`, keys) match a path argument, resolved
 * against the first root; a path outside every root is matched by its own components.
 */
function secretPaths(roots: readonly string[], cwd: string): (path: string) => boolean {
  const secrets = new PathPatternSet(DEFAULT_READ_ASK_PATTERNS);
  return (path) => {
    const absolute = resolve(roots[0] ?? cwd, path);
    const root = roots.find((r) => isInsideOrEqual(r, absolute));
    const relativePath = root ? relative(root, absolute) : absolute.replace(/^\/+/, "");
    return secrets.matches(relativePath.split(sep).join("/"), absolute);
  };
}

/** The argument kinds the policy understands beyond plain text: paths, shell commands, URLs. */
export function policyPlugins(workspace: Workspace): ArgKindPlugin[] {
  // Outside the roots or malformed → undefined: path rules then fail closed on it.
  const canonicalize = (raw: string) => workspace.canonicalizeForPolicy(raw);
  return [
    createPathKind(canonicalize),
    withGitConfigCheck(createCommandKind({ hidden: isPlaceholder })),
    createUrlKind(),
  ];
}

const gitChecked = withGitConfigCheck(createCommandKind({ hidden: isPlaceholder }));

/** What a person sees beside a shell command: why it is risky, and why no allow rule can vouch for it. */
async function commandNotes(
  roots: readonly string[],
  command: string,
  cwd: string | undefined,
): Promise<string[]> {
  const analysis = await gitChecked.prepare(command, { roots, args: cwd === undefined ? {} : { cwd } });
  const notes: string[] = [];
  if (analysis.riskReasons.length > 0) notes.push(`risk: ${analysis.riskReasons.join(", ")}`);
  if (analysis.unsafe.length > 0)
    notes.push(`not auto-approvable: ${[...new Set(analysis.unsafe)].join(", ")}`);
  return notes;
}

/**
 * The settings the tools see: the host's own policy, settings and audit files added to the protected paths,
 * so a file tool can never rewrite the rules it runs under or its record, wherever those files live.
 */
function withHostFilesProtected(
  settings: ToolgateSettings,
  options: ToolgateOptions,
  cwd: string,
  root: string,
): ToolgateSettings {
  const files = [options.policy, options.config]
    .filter((file): file is string => typeof file === "string")
    .map((file) => resolve(cwd, file));
  const audit = typeof options.audit === "object" ? undefined : (options.audit ?? settings.audit.file);
  if (audit) files.push(isAbsolute(audit) ? audit : join(root, audit));
  // Fleet mode's archive of records trimmed from the audit stream is a record too.
  const archive = settings.fleet.auditArchive;
  if (archive) files.push(isAbsolute(archive) ? archive : join(root, archive));
  if (files.length === 0) return settings;
  return { ...settings, files: { ...settings.files, protected: [...settings.files.protected, ...files] } };
}

async function canonicalRoots(paths: string[]): Promise<string[]> {
  if (paths.length === 0) throw new ConfigError("at least one workspace root is needed");
  const out: string[] = [];
  for (const path of paths) {
    let canonical: string;
    try {
      canonical = await realpath(path);
    } catch {
      throw new ConfigError(`workspace root ${path} does not exist`);
    }
    if (!(await stat(canonical)).isDirectory())
      throw new ConfigError(`workspace root ${path} is not a directory`);
    out.push(canonical);
  }
  return out;
}

/** Reads a workspace file the gate loads; the bytes are the ones trust is checked against. */
async function readWorkspaceFile(path: string, what: string): Promise<Buffer> {
  try {
    return await readPlainFile(path);
  } catch (error) {
    throw new ConfigError(`${path}: cannot read the ${what} (${whyUnread(error)})`, path);
  }
}

/**
 * The gate's config as written and its settings: from the config option, else the workspace's
 * `.toolgate/config.toml`, else none. The schema (and zod with it) loads only when there is a config to validate.
 */
async function resolveConfig(
  option: ToolgateOptions["config"],
  cwd: string,
  root: string,
  trust: TrustLookup,
  logger: Logger,
): Promise<{ config: ToolgateConfig; settings: ToolgateSettings }> {
  const implicit = join(root, ".toolgate", "config.toml");
  if (option === undefined && !existsSync(implicit)) return { config: {}, settings: defaultSettings() };
  const { loadConfigFile, parseConfig, settingsFromConfig, withoutSecurityKeys } = await import(
    "./config/index.js"
  );
  const settled = (config: ToolgateConfig, source = "config") => ({
    config,
    settings: settingsFromConfig(config, source),
  });
  if (typeof option === "object") return settled(option, "the config option");
  if (typeof option === "string") return settled(await loadConfigFile(resolve(cwd, option)));
  const bytes = await readWorkspaceFile(implicit, "config file");
  const config = parseConfig(bytes.toString("utf8"), implicit);
  const trusted = trust.file(implicit, bytes);
  if (trusted.state === "trusted") return settled(config);
  // The workspace's own config came with the repository (or changed since it was trusted): nothing in it
  // that loosens counts until it is trusted.
  const { config: safe, ignored, unprotected } = withoutSecurityKeys(config);
  const dropped = [...ignored, ...unprotected.map((p) => `[files] protected ${JSON.stringify(p)}`)];
  if (dropped.length > 0)
    logger.warn(
      `${implicit} ${untrustedBecause(trusted)}: ignoring ${dropped.join(", ")} (\`toolgate trust\` shows what it would change and trusts it)`,
    );
  return settled(safe);
}

async function resolvePolicy(
  options: ToolgateOptions,
  cwd: string,
  root: string,
  loadOptions: Parameters<typeof loadPolicyFile>[1],
  trust: TrustLookup,
  logger: Logger,
): Promise<CompiledPolicy> {
  if (options.policyText !== undefined) return parsePolicy(options.policyText, "inline policy", loadOptions);
  if (typeof options.policy === "string") return loadPolicyFile(resolve(cwd, options.policy), loadOptions);
  // The workspace's list of files that may hold secrets, so the policy and the tools agree on it.
  // Its examples are constant and checked by the tests (toolgate.test.ts); checking them here would load the
  // bash grammar on every start.
  const builtin = () =>
    builtinDefaultPolicy({ ...loadOptions, sensitiveFiles: DEFAULT_READ_ASK_PATTERNS, checkExamples: false });
  const implicit = join(root, ".toolgate", "policy.toml");
  if (options.policy === false || !existsSync(implicit)) return builtin();
  const bytes = await readWorkspaceFile(implicit, "policy file");
  const workspace = await parsePolicy(bytes.toString("utf8"), implicit, loadOptions);
  const trusted = trust.file(implicit, bytes);
  if (trusted.state === "trusted") return workspace;
  // It came with the repository, or changed since it was trusted: it can only tighten the built-in policy.
  const outcome = stricterOnly(await builtin(), workspace, untrustedBecause(trusted));
  if (outcome.warning) logger.warn(outcome.warning);
  return outcome.policy;
}

/** The log a gate's own audit file is read back through (`toolgate audit`); a host's own sink has none. */
function auditLogOf(sink: AuditSink | undefined): AuditLog | undefined {
  return sink instanceof FileAuditSink ? new FileAuditLog(sink.path) : undefined;
}

function resolveAudit(
  option: ToolgateOptions["audit"],
  settings: ToolgateSettings,
  root: string,
  logger: Logger,
): AuditSink | undefined {
  if (typeof option === "object") return option;
  const file = option ?? settings.audit.file;
  if (!file) return undefined;
  return new FileAuditSink(isAbsolute(file) ? file : join(root, file), (m) => logger.warn(m));
}
