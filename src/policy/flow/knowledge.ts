/**
 * @module policy/flow/knowledge
 * What toolgate knows of tools for information flow (docs/injection.md), loaded from `flow-data.json`: the
 * label of each built-in tool's results (a `Labeler` for the pipeline) and whether a call sends data out
 * (a sink, for the guard). MCP tools and host tools follow the rules of the data file's comment. The host
 * fills in what only it knows: whether the workspace is trusted, which paths the secret rules match, which
 * MCP servers the user's own config trusts.
 */
import {
  type Confidentiality,
  declared,
  type Integrity,
  joinStored,
  type Labeler,
  type LabelInput,
  type LabelLevels,
  READ_ONLY_KINDS,
  readStoredLabel,
  type SandboxGrant,
  type Tool,
} from "../../core/index.js";
import data from "./flow-data.json" with { type: "json" };
import { type ParsedUrl, readUrl } from "./url-read.js";

type IntegrityRule = Integrity | "workspace" | "shell" | "stored";
type ConfidentialityRule = Confidentiality | "secret-paths" | "shell" | "stored";
type SinkRule = "new-host" | "shell" | "user-memory";

/** One built-in tool's entry in the data file. */
export interface ToolFlow {
  label: readonly [IntegrityRule, ConfidentialityRule];
  what?: string;
  sink?: SinkRule;
  sinkArg?: string;
}

const INTEGRITY_RULES = new Set(["trusted", "untrusted", "workspace", "shell", "stored"]);
const CONFIDENTIALITY_RULES = new Set(["public", "private", "secret-paths", "shell", "stored"]);
const SINK_RULES = new Set(["new-host", "shell", "user-memory"]);

/**
 * The data file, checked: a malformed entry is an error at load (toolgate's own data, so a bug, never a
 * silently open door).
 */
export function loadFlowData(raw: unknown = data): {
  tools: ReadonlyMap<string, ToolFlow>;
  shellSinks: readonly { pattern: RegExp; why: string }[];
  /** Every shell pattern in one: a command no pattern matches is passed over in one test. */
  shellAny: RegExp;
} {
  const file = raw as { tools?: Record<string, ToolFlow>; shellSinks?: { pattern: string; why: string }[] };
  const tools = new Map<string, ToolFlow>();
  for (const [name, entry] of Object.entries(file.tools ?? {})) {
    const [integrity, confidentiality] = entry.label ?? [];
    if (!INTEGRITY_RULES.has(integrity as string) || !CONFIDENTIALITY_RULES.has(confidentiality as string))
      throw new Error(`flow-data.json: tool ${name}: label must be [integrity, confidentiality] rules`);
    if (entry.sink !== undefined && !SINK_RULES.has(entry.sink))
      throw new Error(`flow-data.json: tool ${name}: unknown sink ${JSON.stringify(entry.sink)}`);
    tools.set(name, Object.freeze({ ...entry }));
  }
  const shellSinks = (file.shellSinks ?? []).map((s) => ({
    pattern: new RegExp(s.pattern, "i"),
    why: s.why,
  }));
  const shellAny = new RegExp(shellSinks.map((s) => `(?:${s.pattern.source})`).join("|") || "(?!)", "i");
  return { tools, shellSinks, shellAny };
}

/** What only the host knows. */
export interface FlowHost {
  /** Whether the workspace's files count as the user's own (`gate.workspaceTrusted`). */
  workspaceTrusted: boolean;
  /** Whether the secret rules match a path argument (as the model gave it). */
  isSecret: (path: string) => boolean;
  /** MCP servers the user's own config trusts (`[labels] trusted_servers`). */
  trustedServers: ReadonlySet<string>;
}

/** A call, as the sink check sees it. */
export interface SinkCall {
  tool: Tool;
  args: Readonly<Record<string, unknown>>;
  /** How far the call leaves the sandbox (granted by a rule or asked by the call). */
  sandbox?: SandboxGrant | undefined;
  /** Hosts seen in trusted context. */
  trustedHosts: ReadonlySet<string>;
  /** Whole URLs untrusted public content in the context offered (only read while the context is public). */
  links?: ReadonlySet<string> | undefined;
  /** Whether the context holds private data (then a link offered is a destination like any other). */
  privateContext?: boolean;
}

/** A host seen in trusted context, or a subdomain of one (its owner's names; DNS-like exfil needs a host the attacker owns). */
function trustedHost(url: ParsedUrl, trusted: ReadonlySet<string>): boolean {
  if (trusted.has(url.host)) return true;
  for (const parent of url.parents) if (trusted.has(parent)) return true;
  return false;
}

/** Why a call sends data out, or undefined when it does not: one tool's check. */
export type SinkCheck = (call: SinkCall) => string | undefined;

/** The labeler and the sink check of one gate. */
export interface FlowKnowledge {
  labeler: Labeler;
  /**
   * The sink check of a tool's calls, or undefined when no call of it can send data out, whatever its
   * arguments (a file read): the guard then checks nothing. Worked out once per tool (a tool's fields are
   * read-only), so a call pays one lookup and its own arguments' check.
   */
  sinkCheck(tool: Tool): SinkCheck | undefined;
  /** Why the call sends data out, or undefined when it does not (`sinkCheck` of the call's tool, applied). */
  sinkOf(call: SinkCall): string | undefined;
}

const BUILTIN = loadFlowData();

/** The server name of an MCP tool (`mcp:<server>` source), else undefined. */
function serverOf(tool: Tool): string | undefined {
  return tool.source?.startsWith("mcp:") ? tool.source.slice(4) : undefined;
}

/** The host of a URL argument, lower case; undefined when it is not a URL toolgate can read. */
export function urlHost(value: unknown): string | undefined {
  return readUrl(value)?.host;
}

/** Where a result came from: the first of the entry's `what` arguments given (`url|path`), a URL by host. */
function whatOf(entry: ToolFlow, params: Readonly<Record<string, unknown>>): string {
  for (const name of (entry.what ?? "").split("|")) {
    const value = params[name];
    if (value === undefined || name === "") continue;
    return (name === "url" ? urlHost(value) : strings(value).join(", ")) ?? "";
  }
  return "";
}

function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * A result that carries a stored label (`data.label`: a memory entry read back; `data[i].label`: each
 * sub-agent's report): that label, read fail-closed. A result without one is toolgate's own words about a write or a failure when the
 * tool said nothing stored came back (`data` without `label`), else untrusted and private.
 */
function storedLevels(input: LabelInput, entry: ToolFlow): LabelLevels & { what?: string } {
  const data = input.result.data as { label?: unknown } | undefined;
  const what = whatOf(entry, input.params);
  // A list of reports (sub-agents'): the join of theirs, each read closed.
  if (Array.isArray(data)) {
    const joined = joinStored(data.map((item) => readStoredLabel((item as { label?: unknown })?.label)));
    return {
      integrity: joined.integrity,
      confidentiality: joined.confidentiality,
      ...(what ? { what } : {}),
    };
  }
  const own = data !== undefined && typeof data === "object" && !("label" in data) && !input.result.error;
  const levels: LabelLevels = own
    ? { integrity: "trusted", confidentiality: "public" }
    : readStoredLabel(data?.label);
  return { integrity: levels.integrity, confidentiality: levels.confidentiality, ...(what ? { what } : {}) };
}

/**
 * The gate's flow knowledge.
 * @example const flow = createFlowKnowledge({ workspaceTrusted: false, isSecret: () => false, trustedServers: new Set() });
 */
export function createFlowKnowledge(host: FlowHost, known = BUILTIN): FlowKnowledge {
  const entryOf = (tool: Tool) => (tool.source === "builtin" ? known.tools.get(tool.name) : undefined);
  const workspace: Integrity = host.workspaceTrusted ? "trusted" : "untrusted";

  const labeler: Labeler = (input: LabelInput) => {
    const { tool, params, sandbox } = input;
    const server = serverOf(tool);
    if (server !== undefined) {
      const trusted = host.trustedServers.has(server);
      return { integrity: trusted ? "trusted" : "untrusted", confidentiality: "public", what: server };
    }
    const entry = entryOf(tool);
    if (entry === undefined) return declared(input);
    const [i, c] = entry.label;
    if (i === "stored" || c === "stored") return storedLevels(input, entry);
    const integrity: Integrity =
      i === "workspace" ? workspace : i === "shell" ? (sandbox ? "untrusted" : workspace) : i;
    const confidentiality: Confidentiality =
      c === "secret-paths"
        ? strings(params[entry.what ?? "path"]).some(host.isSecret)
          ? "private"
          : "public"
        : c === "shell"
          ? sandbox === "off"
            ? "private"
            : "public"
          : c;
    const levels: LabelLevels & { what?: string } = { integrity, confidentiality };
    const what = whatOf(entry, params);
    if (what) levels.what = what;
    return levels;
  };

  const newHost = (name: string, arg: string): SinkCheck => {
    const unreadable = `${name} to an address toolgate cannot read`;
    return (call) => {
      const value = call.args[arg];
      // No URL at all (the quarantined reader given a path): nothing goes to a host.
      if (value === undefined) return undefined;
      const url = readUrl(value);
      if (url === undefined) return unreadable;
      if (trustedHost(url, call.trustedHosts)) return undefined;
      // A link untrusted public content wrote out whole carries only what its author wrote — but not
      // while the context holds private data (which link is followed could encode it).
      if (!call.privateContext && call.links?.has(url.href)) return undefined;
      return `${name} to ${url.host}, a host not seen in trusted context`;
    };
  };

  const shell: SinkCheck = (call) => {
    if (call.sandbox) return `a shell command with ${call.sandbox === "off" ? "no sandbox" : "the network"}`;
    const command = typeof call.args["command"] === "string" ? call.args["command"] : "";
    if (!known.shellAny.test(command)) return undefined;
    const hit = known.shellSinks.find((s) => s.pattern.test(command));
    return hit ? `a shell command: ${hit.why}` : undefined;
  };

  const USER_MEMORY = "a memory write to the user-level store (read in every project)";
  const userMemory: SinkCheck = ({ args }) =>
    args["action"] === "set" && args["scope"] === "user" ? USER_MEMORY : undefined;

  /** A tool's check, from its source and the data file: what `sinkCheck` keeps per tool. */
  const checkFor = (tool: Tool): SinkCheck | undefined => {
    const server = serverOf(tool);
    if (server !== undefined) {
      const why = `an MCP tool of server ${server} (its arguments leave the machine)`;
      // Only a server the user trusts is believed when it says a tool stays closed-world (asked per call:
      // the host's set is read as it is then).
      if (tool.sendsOut === false) return () => (host.trustedServers.has(server) ? undefined : why);
      return () => why;
    }
    const entry = entryOf(tool);
    if (entry === undefined) {
      const why = `${tool.name} may send data out (a ${tool.kind} tool)`;
      return (tool.sendsOut ?? !READ_ONLY_KINDS.has(tool.kind)) ? () => why : undefined;
    }
    switch (entry.sink) {
      case "new-host":
        return newHost(tool.name, entry.sinkArg ?? "url");
      case "shell":
        return shell;
      case "user-memory":
        return userMemory;
      default:
        return undefined;
    }
  };

  const checks = new WeakMap<Tool, SinkCheck | null>();
  const sinkCheck = (tool: Tool): SinkCheck | undefined => {
    let check = checks.get(tool);
    if (check === undefined) {
      check = checkFor(tool) ?? null;
      checks.set(tool, check);
    }
    return check ?? undefined;
  };

  return { labeler, sinkCheck, sinkOf: (call) => sinkCheck(call.tool)?.(call) };
}
