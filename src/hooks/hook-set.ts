/**
 * @module hooks/hook-set
 * A gate's hooks at work. Pre-tool hooks run after the policy, in the decide step (as a {@link Decider} around
 * the policy engine), all matching ones in parallel; the strictest answer wins, a hook's `allow` lifts the
 * policy's `ask` only for the user's own hooks with `hooks_may_allow`, and nothing lifts a `deny`. Post-tool
 * hooks run on the result before it is shaped: `block` withholds it from the model, `additionalContext` is
 * appended, labelled. A failing hook denies (or withholds), unless the user's own config says `hooks_fail = "open"`.
 */
import { randomUUID } from "node:crypto";
import {
  compileToolPattern,
  type Decider,
  type Decision,
  type DecisionRequest,
  type HookReport,
  type PolicyDecision,
  type PostTool,
  type ToolResult,
} from "../core/index.js";
import { SHELL_FIXED_ENV, sanitizeEnv } from "../tools/index.js";
import { type HostFormat, hostNames } from "./mapping.js";
import { runHook } from "./run-hook.js";
import type { HookEvent, HookSpec } from "./sources.js";
import { compileMatcher } from "./sources.js";
import { type HookCall, hookInput, verdictOf } from "./verdict.js";

export interface HookSetOptions {
  hooks: readonly HookSpec[];
  /** The workspace: the hooks' working directory and `CLAUDE_PROJECT_DIR` / `GEMINI_PROJECT_DIR`. */
  cwd: string;
  /** Variables the host passes (scrubbed like the shell's: secrets and loader hooks dropped). */
  env?: Record<string, string>;
  /** `hooks_may_allow` from the user's own config. */
  mayAllow: boolean;
  /** `hooks_fail = "open"` from the user's own config. */
  failOpen: boolean;
  sessionId?: string;
}

const ORDER: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

/** A hook's answer for one call, with its report. */
interface Answer {
  spec: HookSpec;
  report: HookReport;
  context?: string;
}

/** Whether a hook is for a tool: given toolgate's name, and the host's names for a format (computed on demand). */
type HookTest = (tool: string, host: (format: HostFormat) => readonly string[]) => boolean;

/** A hook's test, compiled once: no call pays for a regex or a pattern it has already seen. */
function hookTest(spec: HookSpec): HookTest {
  if ("tools" in spec.match) {
    const patterns = spec.match.tools.map((p) => compileToolPattern(p));
    return (tool) => patterns.some((p) => p.test(tool));
  }
  const format = spec.format;
  const matcher = compileMatcher(spec.match.matcher, format);
  if (!matcher) return () => true;
  return format === "toolgate" ? (tool) => matcher([tool]) : (_tool, host) => matcher(host(format));
}

export class HookSet {
  readonly hooks: readonly HookSpec[];
  private readonly env: Record<string, string>;
  private readonly sessionId: string;
  private readonly tests: readonly { spec: HookSpec; test: HookTest }[];

  constructor(private readonly options: HookSetOptions) {
    this.hooks = options.hooks;
    this.tests = options.hooks.map((spec) => ({ spec, test: hookTest(spec) }));
    this.sessionId = options.sessionId ?? randomUUID();
    // The shell's environment: allowlisted variables, no secrets, git's safety switches.
    this.env = {
      ...sanitizeEnv(process.env, options.env ?? {}),
      ...SHELL_FIXED_ENV,
      CLAUDE_PROJECT_DIR: options.cwd,
      GEMINI_PROJECT_DIR: options.cwd,
      TOOLGATE_PROJECT_DIR: options.cwd,
    };
  }

  /** The hooks of `event` that match `tool` (by toolgate's patterns, or the host's matcher on the host's name). */
  matching(event: HookEvent, tool: string, args: Record<string, unknown>): HookSpec[] {
    const names: Partial<Record<HostFormat, readonly string[]>> = {};
    const host = (format: HostFormat) => (names[format] ??= hostNames(format, tool, args));
    const out: HookSpec[] = [];
    for (const { spec, test } of this.tests) if (spec.event === event && test(tool, host)) out.push(spec);
    return out;
  }

  /** The policy engine with the pre-tool hooks after it. */
  decider(inner: Decider): Decider {
    return { decide: async (request) => this.pre(request, await inner.decide(request)) };
  }

  /** The policy's decision with the pre-tool hooks' answers folded in (strictest wins). */
  async pre(
    request: DecisionRequest,
    decision: PolicyDecision,
    signal?: AbortSignal,
  ): Promise<PolicyDecision> {
    // Nothing lifts a deny: the hooks need not run.
    if (decision.decision === "deny") return decision;
    const specs = this.matching("pre_tool", request.tool.name, request.args);
    if (specs.length === 0) return decision;
    const call = this.call("pre_tool", request.tool.name, request.args);
    const answers = await Promise.all(specs.map((spec) => this.ask(spec, call, signal)));
    return this.fold(decision, answers);
  }

  /** Post-tool hooks, as the pipeline's `postTool`. */
  readonly post: PostTool = async ({ call, tool, args, result, signal }) => {
    const specs = this.matching("post_tool", tool.name, args);
    if (specs.length === 0) return result;
    const hookCall = this.call("post_tool", tool.name, args, call.id, result);
    const answers = await Promise.all(specs.map((spec) => this.ask(spec, hookCall, signal)));
    return { ...this.shape(tool.name, result, answers), hooks: answers.map((a) => a.report) };
  };

  private call(
    event: HookEvent,
    tool: string,
    args: Record<string, unknown>,
    callId: string = randomUUID(),
    result?: ToolResult,
  ): HookCall {
    return {
      event,
      tool,
      args,
      cwd: this.options.cwd,
      sessionId: this.sessionId,
      callId,
      ...(result
        ? {
            result: {
              llmContent: result.llmContent,
              returnDisplay: result.returnDisplay,
              ...(result.error ? { error: { type: result.error.type, message: result.error.message } } : {}),
            },
          }
        : {}),
    };
  }

  private async ask(spec: HookSpec, call: HookCall, signal?: AbortSignal): Promise<Answer> {
    const run = await runHook({
      command: spec.command,
      timeoutMs: spec.timeoutMs,
      input: JSON.stringify(hookInput(spec, call)),
      cwd: this.options.cwd,
      env: this.env,
      ...(signal ? { signal } : {}),
    });
    const verdict = verdictOf(run);
    const report: HookReport = {
      hook: spec.name,
      source: spec.source,
      event: spec.event,
      durationMs: Math.round(run.durationMs),
      ...(verdict.decision ? { decision: verdict.decision } : {}),
      ...(verdict.reason ? { reason: verdict.reason } : {}),
      ...(verdict.failure ? { failure: verdict.failure } : {}),
    };
    return { spec, report, ...(verdict.context ? { context: verdict.context } : {}) };
  }

  /** Failures first (they deny unless failing open), then the strictest answer. */
  private fold(policy: PolicyDecision, answers: Answer[]): PolicyDecision {
    const hooks = answers.map((a) => a.report);
    const notes: string[] = [];
    let decision = policy.decision;
    let reason = policy.reason;
    for (const { report } of answers.filter((a) => a.report.failure)) {
      if (this.options.failOpen) {
        notes.push(`hook \`${report.hook}\` failed (${report.failure}); ignored (hooks_fail = "open")`);
        continue;
      }
      return {
        ...policy,
        decision: "deny",
        reason: `hook \`${report.hook}\` failed: it ${report.failure} (hooks fail closed)`,
        hooks,
      };
    }
    const answered = answers.filter((a) => a.report.decision && !a.report.failure);
    const strictest = answered.reduce<Answer | undefined>(
      (top, a) => (!top || ORDER[a.report.decision!] > ORDER[top.report.decision!] ? a : top),
      undefined,
    );
    const said = (a: Answer) => `hook \`${a.report.hook}\` said: ${a.report.reason ?? a.report.decision}`;
    if (strictest && ORDER[strictest.report.decision!] > ORDER[decision]) {
      decision = strictest.report.decision!;
      reason = `${decision === "ask" ? "asked" : "denied"} because ${said(strictest)}`;
      return { ...policy, decision, reason, message: reason, hooks };
    }
    if (decision === "ask" && strictest?.report.decision === "allow") {
      const allowers = answered.filter((a) => a.report.decision === "allow");
      const lifts = this.options.mayAllow && allowers.every((a) => a.spec.origin === "user");
      if (lifts)
        return {
          ...policy,
          decision: "allow",
          reason: `allowed because ${said(allowers[0]!)} (hooks_may_allow)`,
          hooks,
        };
      notes.push(
        this.options.mayAllow
          ? "a workspace hook's allow does not lift an ask"
          : "a hook's allow lifts an ask only with hooks_may_allow = true in your own config",
      );
    }
    if (notes.length > 0) reason = `${reason}; ${notes.join("; ")}`;
    return { ...policy, reason, hooks };
  }

  /** A result after post-tool hooks: blocked or failed → withheld from the model; context appended. */
  private shape(tool: string, result: ToolResult, answers: Answer[]): ToolResult {
    const withheld = answers.find(
      (a) => a.report.decision === "deny" || (a.report.failure && !this.options.failOpen),
    );
    if (withheld) {
      const { hook, failure, reason } = withheld.report;
      const why = failure
        ? `hook \`${hook}\` failed: it ${failure} (hooks fail closed)`
        : `hook \`${hook}\` blocked it: ${reason ?? "no reason given"}`;
      const message = `${tool}'s output was withheld: ${why}`;
      return {
        ...result,
        llmContent: message,
        returnDisplay: `${result.returnDisplay}\n[${message}]`,
        error: { type: "denied_by_policy", message },
      };
    }
    const added = answers
      .filter((a) => a.context)
      .map((a) => `\n\n[context from hook \`${a.report.hook}\`]\n${a.context}`)
      .join("");
    return added ? { ...result, llmContent: `${result.llmContent}${added}` } : result;
  }
}
