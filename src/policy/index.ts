/**
 * @module policy
 * The policy engine's front door: loading policies (TOML, fail closed), the pure `evaluate`, the
 * `PolicyEngine` decider, the built-in default policy and explain traces.
 * Everything exported here is public; anything added here becomes public too.
 */
export type { Candidates, ToolPattern } from "./candidates.js";
export { RuleIndex, toolPattern } from "./candidates.js";
export type { CompileOptions } from "./compile.js";
export { compilePolicy, compileRule, pluginList } from "./compile.js";
export {
  compileGlob,
  compileSafeRegex,
  scalarList,
  scalarText,
  stringList,
  typeName,
} from "./conditions/operands.js";
export { createPathKind, type PathCanonicalizer, type PathValue } from "./conditions/path.js";
export type { TextValue } from "./conditions/text.js";
export { textPlugin } from "./conditions/text.js";
export { createUrlKind, type UrlValue } from "./conditions/url.js";
export {
  BUILTIN_DEFAULT_DECISION,
  BUILTIN_RULES,
  type BuiltinPolicyOptions,
  builtinDefaultPolicy,
  sensitiveReadRules,
} from "./default.js";
export type { PolicyEngineOptions } from "./engine.js";
export { PolicyEngine } from "./engine.js";
export { evaluate, matchRule } from "./evaluate.js";
export type { ExampleContext } from "./examples.js";
export { checkExamples, ruleNamesTool } from "./examples.js";
export type { EventLog, ExplainFilter } from "./explain.js";
export { createRecorder, filterEvents, renderExplanation } from "./explain.js";
export {
  GIT_HAZARD_KEYS,
  type GitConfigEntry,
  type GitHazardKey,
  hazardsInConfig,
  parseGitConfig,
  repositoryHazards,
  withGitConfigCheck,
} from "./git-config-hazards.js";
export { closestName, editDistance, lintPolicy, type PolicyLintWarning } from "./lint.js";
export type { ExtendOptions, LoadOptions } from "./load.js";
export { extendPolicy, loadPolicyFile, parsePolicy, parsePolicyObject } from "./load.js";
export type {
  CompiledCondition,
  CompiledPolicy,
  CompiledRule,
  ConditionOutcome,
  ExampleSpec,
  PolicyEvent,
  PolicyRecorder,
  PolicySpec,
  PolicyToolInfo,
  PreparedCall,
  RuleSpec,
} from "./model.js";
export {
  DECISIONS,
  higherRisk,
  isDecision,
  isRiskLevel,
  isStricter,
  RISK_LEVELS,
  stricter,
} from "./order.js";
export { analyzeCommand, type CommandAnalysis, createCommandKind } from "./shell/index.js";
export { RULE_KEYS, TOOL_KINDS, TOP_LEVEL_KEYS } from "./spec.js";
export { validateAgainstTools } from "./tools-check.js";
export type {
  ArgKindPlugin,
  AskBecause,
  ConditionTest,
  MatchResult,
  OperatorCompiler,
  PrepareContext,
} from "./types.js";
export { stricterOnly, type UntrustedOutcome } from "./untrusted.js";
