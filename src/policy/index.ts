/**
 * @module policy
 * The policy engine's front door, published as `toolgate/policy`: loading policies (TOML, fail closed), the
 * pure `evaluate`, the `PolicyEngine` decider, the built-in default policy, argument kinds, explain traces,
 * lint, and the tool-name pattern dialect rules use. Everything exported here is public (a test pins the
 * list); anything added here becomes public too.
 */
export {
  compileToolPattern,
  type Decision,
  matchSorted,
  type PolicyDecision,
  type RiskLevel,
  type ToolPattern,
} from "../core/index.js";
export { createPathKind, type PathCanonicalizer } from "./conditions/path.js";
export { createUrlKind } from "./conditions/url.js";
export { type BuiltinPolicyOptions, builtinDefaultPolicy, builtinPolicyText } from "./default.js";
export { PolicyEngine, type PolicyEngineOptions } from "./engine.js";
export { evaluate, matchRule } from "./evaluate.js";
export { createRecorder, type EventLog, type ExplainFilter, renderExplanation } from "./explain.js";
export {
  type ContextCondition,
  compileContextCondition,
  contextHolds,
} from "./flow/context-condition.js";
export { guardCall } from "./flow/guard.js";
export {
  createFlowKnowledge,
  type FlowHost,
  type FlowKnowledge,
  loadFlowData,
  type SinkCall,
} from "./flow/knowledge.js";
export { withGitConfigCheck } from "./git-config-hazards.js";
export { lintPolicy, type PolicyLintWarning } from "./lint.js";
export { type ExtendOptions, extendPolicy, type LoadOptions, loadPolicyFile, parsePolicy } from "./load.js";
export type {
  CompiledPolicy,
  CompiledRule,
  PolicyEvent,
  PolicyRecorder,
  PolicyToolInfo,
  PreparedCall,
} from "./model.js";
export {
  analyzeCommand,
  type CommandAnalysis,
  type CommandKindOptions,
  createCommandKind,
} from "./shell/index.js";
export { validateAgainstTools } from "./tools-check.js";
export type { ArgKindPlugin, MatchResult } from "./types.js";
export { stricterOnly, type UntrustedOutcome } from "./untrusted.js";
