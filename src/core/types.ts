/**
 * @module core/types
 * The tool model every part of toolgate speaks: tools, invocations, results, typed errors, and the
 * interfaces the pipeline is wired with (decider, confirmer, approval store, audit sink). Types only.
 */

import type { AuditEntry, TrimmedRange } from "./audit-chain.js";
import type { ContextView } from "./flow-session.js";
import type { Label, LabelDeclaration } from "./labels.js";

/** How dangerous a call is. Ordered: low < medium < high. */
export type RiskLevel = "low" | "medium" | "high";

/** A policy decision. Ordered by strictness: allow < ask < deny. */
export type Decision = "allow" | "ask" | "deny";

/** What a tool does, for UIs and default policy (read-only kinds are allowed by the built-in default). */
export type ToolKind =
  | "read"
  | "search"
  | "think"
  | "edit"
  | "delete"
  | "execute"
  | "fetch"
  | "coordinate"
  | "other";

/** The kinds of tool that only observe. */
export const READ_ONLY_KINDS: ReadonlySet<ToolKind> = new Set(["read", "search", "think"]);

/**
 * What an argument means to the policy: `path` arguments are compared as canonical paths, `command`
 * arguments as parsed shell words, `url` arguments as parsed URLs, `text` as plain strings.
 */
export type ArgKind = "path" | "command" | "url" | "text";

/** A JSON Schema (2020-12) object. */
export type JsonSchema = { [key: string]: unknown };

/** The typed error enumeration. Every failure a caller sees carries one of these. */
export type ToolErrorType =
  | "invalid_params"
  | "tool_not_found"
  | "denied_by_policy"
  | "file_not_found"
  | "file_too_large"
  | "file_exists"
  | "path_not_allowed"
  | "edit_failed"
  | "timeout"
  | "cancelled"
  | "network"
  | "http_error"
  | "execution_failed"
  | "invalid_tool"
  | "internal_error";

/** An error carried in a {@link ToolResult}. `details` holds machine-readable context (path, url, elapsedMs). */
export interface ToolError {
  type: ToolErrorType;
  message: string;
  details?: {
    path?: string;
    url?: string;
    elapsedMs?: number;
    status?: number;
    [key: string]: unknown;
  };
}

/** An image or other binary content a tool returns beside its text (MCP tools may). */
export interface ToolAttachment {
  type: "image" | "audio" | "resource";
  mimeType: string;
  /** base64 data, or a URI for resources. */
  data?: string;
  uri?: string;
}

/** What every tool execution returns. Tools never throw to callers: failures set `error`. */
export interface ToolResult {
  /** What the model sees. */
  llmContent: string;
  /** What a person sees (may be shorter or formatted). */
  returnDisplay: string;
  error?: ToolError;
  attachments?: ToolAttachment[];
  /** Structured data for hosts (never sent to the model by toolgate itself). */
  data?: unknown;
  /** The confinement the call ran under (shell: `workspace-write`, `read-only`, `off`, …), for audit. */
  sandbox?: string;
  /**
   * The result exactly as an upstream MCP server sent it, for a proxy to pass on unchanged (toolgate's own
   * MCP server does). Never sent to the model by toolgate itself.
   */
  upstream?: UpstreamResult;
  /**
   * Where the content came from and what it may hold (docs/injection.md). Set by the pipeline on every
   * result it returns; a tool's own value is replaced.
   */
  label?: Label;
}

/** An MCP `tools/call` result as the upstream server sent it: content blocks, structured content, `_meta`. */
export interface UpstreamResult {
  content: readonly unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/**
 * Details shown to a person who must approve a call. Every text but `sandbox` may carry a model's words;
 * the pipeline makes all of them display-safe (one line, hidden characters written out; a diff or a script
 * keeps its line breaks), and every front end shows them quoted with the `sandbox` line last, in toolgate's
 * own words (`src/core/confirmation.ts`).
 */
export interface ConfirmationDetails {
  toolName: string;
  /** Human-readable summary of this call. */
  description: string;
  risk: RiskLevel;
  /** Paths or URLs the call affects. */
  locations: string[];
  /** What kind of confirmation UI fits. */
  type: "edit" | "exec" | "fetch" | "mcp" | "generic";
  /** A unified diff, for edits. */
  diff?: string;
  /** The exact command as it will run, made safe to display, for shell. */
  command?: string;
  /** The policy's reason for asking. */
  reason?: string;
  /** The rule that decided `ask`, if any. */
  rule?: string;
  /** The agent that made the call, when it is a sub-agent. */
  agent?: string;
  /** The call's own reason for leaving the sandbox (the shell's `justification`): the model's words. */
  justification?: string;
  /**
   * The confinement the call will run under, in toolgate's words (shell: the sandbox profile; other tools:
   * that they are not sandboxed, and where they run). Always set; every front end shows it last.
   */
  sandbox: string;
  /**
   * The context's label when it decided the ask (untrusted or private content the model has read), in
   * toolgate's words with the sources and excerpts quoted (docs/injection.md).
   */
  context?: string;
}

/** Streaming callback for tools that produce output incrementally. */
export type OutputCallback = (chunk: string) => void;

/**
 * One prepared call of a tool. Its methods have the names of the declaration's hooks they come from
 * (`defineTool`'s `describe`, `locations`, `riskFor`, `confirmation`, `sandboxRequest`, `precheck`, `run`),
 * bound to the call's parameters.
 */
export interface ToolInvocation<P = Record<string, unknown>> {
  readonly params: P;
  /** A one-line human-readable summary. */
  describe(): string;
  /** Paths or URLs the call affects. */
  locations(): string[];
  /** The risk of this call: the tool's default risk, raised by arguments where the tool says so. */
  riskFor(): RiskLevel;
  /** The tool's own confirmation details, or `false` when the tool sees nothing to confirm. */
  confirmation(
    signal: AbortSignal,
    context?: { sandbox?: SandboxGrant },
  ): Promise<ConfirmationDetails | false>;
  /** What the call asks beyond the sandbox, if anything (leaving it is always at least `ask`). */
  sandboxRequest?(): SandboxRequest | undefined;
  /**
   * The tool's own refusal of what the call targets, checked before anyone is asked and by a check (a path
   * argument outside the workspace is `path_not_allowed`): throws a `ToolFailure`, else resolves. `run`
   * still checks for itself.
   */
  precheck?(signal: AbortSignal): Promise<void>;
  /**
   * Runs the call; respects `signal` and streams through `updateOutput`. `context` says who
   * is calling (the caller's scope, e.g. an agent's depth for `spawn_agents`).
   */
  run(signal: AbortSignal, updateOutput?: OutputCallback, context?: ExecutionContext): Promise<ToolResult>;
}

/** Who is calling, as the pipeline tells a tool. */
export interface ExecutionContext {
  /** The caller's tool scope, when the call came with one. */
  scope?: ToolScope;
  /** How far the call may leave the sandbox: granted by the deciding rule, or approved by a person. */
  sandbox?: SandboxGrant;
  /**
   * The caller's context (its label and trusted hosts) when the call came with a session: what the model
   * had read when it asked (docs/injection.md). Read only; the pipeline joins the result's label itself.
   */
  context?: ContextView;
  /**
   * A tool-less model call bound to a JSON schema, when the caller has a model (the agent loop passes its
   * own): what the quarantined reader hands untrusted text to (docs/injection.md).
   */
  reader?: StructuredReader;
  /**
   * The text of an earlier tool result still in the caller's context, by its call id, when the caller keeps
   * a conversation (the agent loop passes its own): what the quarantined reader reads by reference.
   */
  recall?: Recall;
}

/** An earlier tool result's text still in the caller's context, by its call id; undefined when it is not. */
export type Recall = (callId: string) => string | undefined;

/** What the quarantined reader asks a model: no tools, a reply bound to `schema` (docs/injection.md). */
export interface StructuredRequest {
  /** What to extract: toolgate's preamble and the calling model's words (the system message). */
  instructions: string;
  /** The untrusted text, as the user message: data to read, never instructions to follow. */
  content: string;
  /** The object schema the reply must follow. */
  schema: JsonSchema;
  signal: AbortSignal;
}

/** The model's reply to a {@link StructuredRequest}: its text (JSON, still to be checked) or its refusal. */
export interface StructuredReply {
  text: string;
  /** The model declined (OpenAI's `refusal`). */
  refusal?: string;
  /** Tool calls the model made although it was given none (a reply that does not answer). */
  toolCalls?: number;
}

/** A tool-less, schema-bound model call (`execute(call, { reader })`; the agent loop passes its model's). */
export type StructuredReader = (request: StructuredRequest) => Promise<StructuredReply>;

/** A declarative tool. */
export interface Tool<P = Record<string, unknown>> {
  /** Name given to models; must match {@link TOOL_NAME_PATTERN}. */
  readonly name: string;
  readonly displayName: string;
  readonly description: string;
  /** JSON Schema 2020-12 for the parameters (an object schema). */
  readonly parameters: JsonSchema;
  readonly kind: ToolKind;
  /** Default risk of a call. */
  readonly risk: RiskLevel;
  /** The policy kind of each argument that is not plain text. */
  readonly argKinds?: Readonly<Record<string, ArgKind>>;
  /** How long output is shortened: `head` keeps the start, `head-tail` keeps both ends (commands). */
  readonly outputMode?: "head" | "head-tail";
  /** Where the tool came from (`builtin`, `mcp:<server>`, `host`). */
  readonly source?: string;
  /**
   * The label of the tool's results, for tools toolgate's label data does not know (host tools). Absent:
   * untrusted and private (docs/injection.md).
   */
  readonly label?: LabelDeclaration;
  /**
   * Whether a call can send data out of the machine (to a network, a remote, another person). Absent: true
   * for every kind but read, search and think. toolgate's data decides for its built-in tools.
   */
  readonly sendsOut?: boolean;
  /**
   * Builds an invocation. The pipeline calls it with parameters it has validated against `parameters`;
   * tools made with `defineTool` validate again themselves, so no caller can hand their hooks anything else.
   * Throws {@link ToolInputError} (`invalid_params`) for parameters it refuses.
   */
  build(params: P): ToolInvocation<P>;
}

/** A call as a model, CLI, MCP client or planner makes it. */
export interface ToolCall {
  name: string;
  args?: unknown;
  /** A caller's id for the call (echoed in audit records). */
  id?: string;
}

/**
 * How far a call may leave the shell sandbox: `network` (sandboxed, with the network), `off` (no sandbox).
 * Absent means fully sealed.
 */
export type SandboxGrant = "network" | "off";

/** A call's own request to leave the sandbox (the shell's `sandbox` argument), with the model's reason. */
export interface SandboxRequest {
  level: SandboxGrant;
  justification?: string;
}

/** The set of tools a caller may use. Calls outside it are "tool not found". */
export interface ToolScope {
  /** Names the caller may call. */
  readonly tools: ReadonlySet<string>;
  /** The agent the scope belongs to (for messages and audit). */
  readonly agent?: string;
  readonly depth?: number;
}

/** A rule reference: which rule decided, and where it was written. */
export interface RuleRef {
  /** Stable id, e.g. `policy.toml#3` or `builtin#read-only`. */
  id: string;
  /** File the rule came from, or `builtin`. */
  source: string;
  /** 1-based position among the file's rules. */
  index: number;
  /** 1-based line of the rule's `[[rules]]` table, when it came from a file. */
  line?: number;
}

/** A policy decision for one call, explained. */
export interface PolicyDecision {
  decision: Decision;
  risk: RiskLevel;
  /** The rule that decided; absent when the default decision applied. */
  rule?: RuleRef;
  /** One line saying why. */
  reason: string;
  /** Message for the model when denied (a rule's `message`). */
  message?: string;
  /** How far the deciding rule lets the call leave the sandbox. */
  sandbox?: SandboxGrant;
  /** Every rule that matched. */
  matched?: RuleRef[];
  /**
   * Arguments the call runs with instead of the given ones: the form the policy checked (a shell command
   * with its brace and glob expansions written out as quoted words), so what runs is what was checked.
   */
  checkedArgs?: Record<string, unknown>;
  /** What the hooks that ran for the call said (hooks/, docs/hooks.md). */
  hooks?: HookReport[];
  /** The labels that decided, when the context's label raised the decision or a rule read it. */
  flow?: FlowVerdict;
  /**
   * The policy's explain trace of this decision (matched rules, their conditions, the outcome), one
   * display-safe line each, when the engine keeps it (`explain`, for the audit log).
   */
  explain?: string[];
}

/** How the context's label took part in a decision (docs/injection.md). */
export interface FlowVerdict {
  /** The context's label the decision was made on. */
  context: Label;
  /** Why the call sends data out, when it does (`web_fetch to a host not seen in trusted context`). */
  sink?: string;
  /** What the label did: `ask` or `deny` by the built-in guard, or `rule` when a rule's `when.context` held. */
  effect: "ask" | "deny" | "rule" | "none";
}

/** One hook's part in a call: which hook, where it is configured, and its answer or why it gave none. */
export interface HookReport {
  hook: string;
  source: string;
  event: "pre_tool" | "post_tool";
  decision?: Decision;
  reason?: string;
  /** The hook failed (exit status, timeout, bad output…): the cause. */
  failure?: string;
  durationMs: number;
}

/** Post-tool hooks: given a call's result, what the model and the person receive instead. Never throws. */
export type PostTool = (request: {
  call: ToolCall;
  tool: Tool;
  args: Record<string, unknown>;
  result: ToolResult;
  signal: AbortSignal;
}) => Promise<ToolResult & { hooks?: HookReport[] }>;

/** What the pipeline asks the policy. */
export interface DecisionRequest {
  tool: Tool;
  invocation: ToolInvocation;
  /** Validated arguments. */
  args: Record<string, unknown>;
  /** The call's risk as the tool computes it. */
  risk: RiskLevel;
  scope?: ToolScope;
  /** The caller's context label, when it passed a session (docs/injection.md). */
  context?: ContextView;
}

/** Decides allow / ask / deny for a call. The policy engine implements it. */
export interface Decider {
  decide(request: DecisionRequest): Promise<PolicyDecision>;
}

/** A person's answer to a confirmation request. */
export interface ConfirmationResponse {
  approved: boolean;
  /** Why (shown to the model when refused). */
  reason?: string;
  /** The person chose "always" for this exact call in this session. */
  always?: boolean;
  /** Who answered, recorded with the decision (default: `caller` for a call's own confirm, else `confirmer`). */
  by?: string;
}

/**
 * One call's question to a person: what to show, and which call asks. The pipeline makes one per `ask`
 * and hands it to the call's own `confirm` (or the gate's message bus, which publishes the same fields).
 */
export interface ConfirmationRequest {
  /** The call's id: `call.id` when the caller gave one, else one the pipeline made for this call. */
  callId: string;
  /** The call as the caller made it (arguments as given, before validation). */
  call: ToolCall;
  /** What the person sees, made safe to display. */
  details: ConfirmationDetails;
  /** The agent whose scope made the call, when it came with one. */
  agent?: string;
  /** The call's signal: when it aborts, the question is withdrawn and the call is cancelled. */
  signal: AbortSignal;
}

/**
 * Answers one call's confirmation request. A rejection, or no answer before the request's signal aborts,
 * is never a yes. `ask` is the pending approval record the pipeline published for the request (its `id`
 * is the one to answer it by in the approval store).
 */
export type Confirm = (request: ConfirmationRequest, ask?: ApprovalRecord) => Promise<ConfirmationResponse>;

/** What answers `ask` for every call that brings no `confirm` of its own. The message bus implements it. */
export interface Confirmer {
  confirm: Confirm;
}

/**
 * Where an ask stands. `pending` until exactly one of the others: `approved` / `denied` by an answer,
 * `expired` when no one answered before `expiresAt` (a deny), `cancelled` when the call was withdrawn.
 */
export type ApprovalState = "pending" | "approved" | "denied" | "expired" | "cancelled";

/** How far an approval reaches: this call only, or (the person said) calls like it from now on. */
export type ApprovalScope = "once" | "always";

/**
 * What "approve always" would add for an ask, as the asking process made it (docs/console.md: the page shows
 * it before anyone confirms): the exact `[[rules]]` table, where it is stored, one call it matches and one
 * it does not — or why no rule can be added (a deny shadows it, no policy file, …). Display-safe text only.
 */
export type AlwaysOffered =
  | { rule: string; file: string; matches: string; notMatches: string }
  | { refused: string };

/** One answer to an ask, as the approval store records it. */
export interface ApprovalAnswer {
  approved: boolean;
  /** Who answered: a person's name, `caller` (a call's own confirm), `confirmer` (the gate's). */
  by: string;
  /** Default `once`. Meaningful only for an approval. */
  scope?: ApprovalScope;
  /** Why (a refusal's reason reaches the model). */
  reason?: string;
}

/** How an ask was settled: who, when (ms since the epoch), and for approvals the scope. */
export interface ApprovalSettlement {
  /** Who answered; `toolgate` when toolgate settled it itself (expiry, no one to ask, a withdrawn call). */
  by: string;
  at: number;
  scope?: ApprovalScope;
  reason?: string;
}

/**
 * One ask as state: what a waiter reads and an answer changes. Holds only display-safe details, never the
 * call's raw arguments. Times are ms since the epoch.
 */
export interface ApprovalRecord {
  /** The store's id for the ask (not the call's id). */
  id: string;
  callId: string;
  tool: string;
  details: ConfirmationDetails;
  agent?: string;
  /** What "always" would add, when the asking process offers it (only then can an answer be "always"). */
  always?: AlwaysOffered;
  /** Which process published it, in a store many share (`[fleet] worker`). */
  worker?: string;
  /**
   * The asking process in a store many processes share (host, pid and start time; the console's groups and
   * batches never join asks of two processes), and its project (the first root).
   */
  process?: string;
  project?: string;
  /** sha256 of the call's canonical arguments: what an "always" rule names (never the arguments). */
  argsDigest?: string;
  createdAt: number;
  expiresAt: number;
  state: ApprovalState;
  /** Present once the state is not `pending`. */
  settled?: ApprovalSettlement;
  /** An approved call's run, in a store that tracks it (fleet mode): started, then finished or interrupted. */
  run?: ApprovalRun;
}

/** An approved call's run: which worker started it when, and how it ended. */
export interface ApprovalRun {
  state: "started" | "finished" | "interrupted";
  worker: string;
  at: number;
  ended?: number;
  /** The worker whose claim found the run's worker gone. */
  claimedBy?: string;
}

/** What `publish` is given: the ask, and how long it may stay pending. */
export interface ApprovalAsk {
  callId: string;
  tool: string;
  details: ConfirmationDetails;
  agent?: string;
  /** sha256 of the call's canonical arguments (`argsDigest`), for an "always" rule. */
  argsDigest?: string;
  /** What "always" would add (see {@link AlwaysOffered}). */
  always?: AlwaysOffered;
  timeoutMs: number;
}

/** The outcome of an answer: it won, or the ask was already settled (or never existed) — `message` says so. */
export type SettleResult =
  | { ok: true; record: ApprovalRecord }
  | { ok: false; record?: ApprovalRecord; message: string };

/** Which records `list` returns. Every field given must match. */
export interface ApprovalFilter {
  state?: ApprovalState | readonly ApprovalState[];
  tool?: string;
  agent?: string;
}

/**
 * The approval store: asks are state that waiters read, and events only wake them, so an answer given
 * before a waiter starts waiting is never missed. A pending ask is settled exactly once — the first answer
 * wins, a later one is told who answered and when — and one past its `expiresAt` is `expired` (a deny) for
 * every reader. Implementations: `InProcessApprovalStore` (the default); shared ones (a file
 * folder, Redis) let other processes answer. Every implementation passes the contract suite
 * (`src/test-support/approval-store-contract.ts`).
 */
export interface ApprovalStore {
  /**
   * Whether people outside this process can see and answer asks (a console, another machine). When
   * false, an ask nobody in this process can answer is refused at once instead of waiting for its expiry.
   */
  readonly shared: boolean;
  /** Records a new pending ask, expiring `timeoutMs` from now. */
  publish(ask: ApprovalAsk): Promise<ApprovalRecord>;
  /** The ask as it stands (an overdue pending one reads as `expired`), or `undefined` for an unknown id. */
  get(id: string): Promise<ApprovalRecord | undefined>;
  /** Approves or denies a pending ask, exactly once. Past its expiry the ask is `expired` and the answer loses. */
  answer(id: string, answer: ApprovalAnswer): Promise<SettleResult>;
  /** Withdraws a pending ask (its call was cancelled): `cancelled`, through the same exactly-once rule. */
  withdraw(id: string): Promise<SettleResult>;
  /**
   * Resolves with the settled record: at once when it is already settled, else when an answer, a
   * withdrawal or its expiry (which the waiter writes, through the same rule) settles it. Rejects with the
   * signal's reason when `signal` aborts first, and for an unknown id.
   */
  wait(id: string, options?: { signal?: AbortSignal }): Promise<ApprovalRecord>;
  /** Records matching `filter`, oldest first (overdue pending ones as `expired`). */
  list(filter?: ApprovalFilter): Promise<ApprovalRecord[]>;
  /** Settles every overdue pending ask as `expired`; returns them. */
  expire(): Promise<ApprovalRecord[]>;
  /** Wake-ups: called with a record each time one is published or settled. Returns a function that stops them. */
  watch(listener: (record: ApprovalRecord) => void): () => void;
  /**
   * Marks an approved ask's call as started, in a store that tracks runs (fleet mode): rejects unless the ask
   * is approved and not started yet, so one approval runs at most once. The returned function marks it
   * finished; a run whose worker dies first is marked `interrupted` by another worker, never run again.
   */
  begin?(id: string): Promise<() => Promise<void>>;
  /** Releases connections or timers the store holds (the gate calls it only for stores it made). */
  close?(): Promise<void>;
}

/** One audit record per call (JSONL). */
export interface AuditRecord {
  time: string;
  tool: string;
  callId?: string;
  agent?: string;
  /** sha256 of the canonical JSON of the arguments (the arguments themselves are not logged). */
  argsDigest: string;
  decision: Decision | null;
  rule: string | null;
  risk: RiskLevel | null;
  outcome: "ok" | ToolErrorType;
  durationMs: number;
  /** The sandbox profile a shell command ran under. */
  sandbox?: string;
  /** The hooks that ran, each with its decision or failure. */
  hooks?: { hook: string; event: string; decision?: Decision; failure?: string }[];
  /** The result's label (docs/injection.md). */
  label?: AuditLabel;
  /** How the context's label took part in the decision, when it did. */
  flow?: { effect: FlowVerdict["effect"]; context: AuditLabel; sink?: string };
  /** The policy's explain trace of the decision, kept at decision time (names rules, never argument values). */
  explain?: string[];
}

/** A label in an audit record: levels and the tools the content came from. */
export interface AuditLabel {
  integrity: Label["integrity"];
  confidentiality: Label["confidentiality"];
  sources: string[];
}

/** Where the pipeline writes each call's record. */
export interface AuditSink {
  /**
   * Keeps one record. A sink that writes to a server returns a promise the pipeline waits for before the
   * call's result is returned: resolved once the record is stored, or buffered while the server is away.
   */
  write(record: AuditRecord): void | Promise<void>;
  /**
   * Sinks that can run out of room (fleet mode's buffer while Redis is away): asked before a call runs, it
   * returns why one more record cannot be kept — the call is then refused, never run unrecorded — or
   * `undefined`, holding a place for the record the call's end will write.
   */
  admit?(): string | undefined;
}

/** An audit log read back (`toolgate audit tail|verify|export`): the JSONL file or fleet mode's stream. */
export interface AuditLog {
  /** What it is, for messages: `the audit file /w/.toolgate/audit.jsonl`, `the Redis stream toolgate:{p}:audit`. */
  readonly where: string;
  /** Every record kept, oldest first. */
  entries(): AsyncIterable<AuditEntry>;
  /** The last `count` records, oldest first. */
  tail(count: number): Promise<AuditEntry[]>;
  /**
   * Calls `onEntry` with every record appended from now until `signal` aborts; resolves then. `onReady` is
   * called once "now" is fixed: a record appended after it is seen.
   */
  follow(onEntry: (entry: AuditEntry) => void, signal: AbortSignal, onReady?: () => void): Promise<void>;
  /** The range trimmed before the first kept record, if any. */
  trimmed(): Promise<TrimmedRange | undefined>;
}

/** Where toolgate reports warnings (registry replacement, skipped agent entries, ...). */
export interface Logger {
  warn(message: string): void;
  info?(message: string): void;
  debug?(message: string): void;
}
