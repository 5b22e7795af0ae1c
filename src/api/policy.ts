/**
 * @module api/policy
 * `toolgate/policy`: the policy engine on its own. Load a policy (TOML, fail closed), evaluate calls purely or
 * through the `PolicyEngine`, explain and lint it, with the argument kinds a host plugs in. This file is the
 * whole public list of the subpath (a test pins it; docs/public-api.md is generated from it): a name added
 * here is public, the policy folder's own front door is not.
 */
export {
  type ArgKindPlugin,
  analyzeCommand,
  type BuiltinPolicyOptions,
  builtinDefaultPolicy,
  type CommandAnalysis,
  type CompiledPolicy,
  type CompiledRule,
  compileToolPattern,
  createCommandKind,
  createPathKind,
  createRecorder,
  createUrlKind,
  type Decision,
  type EventLog,
  type ExplainFilter,
  type ExtendOptions,
  evaluate,
  extendPolicy,
  type LoadOptions,
  lintPolicy,
  loadPolicyFile,
  type MatchResult,
  type PathCanonicalizer,
  type PolicyDecision,
  PolicyEngine,
  type PolicyEngineOptions,
  type PolicyEvent,
  type PolicyLintWarning,
  type PolicyRecorder,
  type PolicyToolInfo,
  type PreparedCall,
  parsePolicy,
  type RiskLevel,
  renderExplanation,
  type ToolPattern,
  validateAgainstTools,
  withGitConfigCheck,
} from "../policy/index.js";
