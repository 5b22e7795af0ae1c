/**
 * @module core
 * Public surface of the core: the tool model, registry, validation, truncation and the pipeline.
 * Anything added here is public.
 */
export { argsDigest, FileAuditSink, MemoryAuditSink } from "./audit.js";
export { type CheckResult, checkCall } from "./check.js";
export {
  callDetails,
  confirmationDetails,
  confirmationTypeFor,
  displaySafe,
  isHiddenCharacter,
} from "./confirmation.js";
export {
  type ConfirmationContext,
  defineTool,
  type RunContext,
  type ToolSpec,
} from "./define-tool.js";
export {
  ConfigError,
  errorResult,
  isAbortError,
  okResult,
  resultFromThrown,
  ToolFailure,
  ToolInputError,
} from "./errors.js";
export { type CallResult, type ExecuteOptions, executeCall, type PipelineDeps } from "./execute.js";
export {
  compareNames,
  type RegistryListener,
  type RegistryOptions,
  TOOL_NAME_PATTERN,
  ToolRegistry,
} from "./registry.js";
export {
  type AnthropicTool,
  type GeminiFunctionDeclaration,
  type GeminiTool,
  isProviderName,
  type LoweringNote,
  type LoweringResult,
  lowerTools,
  type ObjectSchema,
  type OllamaProperty,
  type OllamaTool,
  type OpenAIChatTool,
  type OpenAIResponsesTool,
  PROVIDER_NAMES,
  type ProviderName,
  type ProviderTool,
  type ProviderToolMap,
  SchemaCache,
} from "./schemas/index.js";
export { compileToolPattern, matchSorted, type ToolPattern } from "./tool-pattern.js";
export {
  DEFAULT_LIMITS,
  type TruncateOptions,
  type Truncation,
  type TruncationLimits,
  truncateOutput,
  truncationIndicator,
} from "./truncate.js";
export type {
  ArgKind,
  AuditRecord,
  AuditSink,
  Confirm,
  ConfirmationDetails,
  ConfirmationRequest,
  ConfirmationResponse,
  Confirmer,
  Decider,
  Decision,
  DecisionRequest,
  ExecutionContext,
  JsonSchema,
  Logger,
  OutputCallback,
  PolicyDecision,
  RiskLevel,
  RuleRef,
  SandboxGrant,
  SandboxRequest,
  Tool,
  ToolAttachment,
  ToolCall,
  ToolError,
  ToolErrorType,
  ToolInvocation,
  ToolKind,
  ToolResult,
  ToolScope,
  UpstreamResult,
} from "./types.js";
export { READ_ONLY_KINDS } from "./types.js";
export { ParamValidator, plainProblems, type ValidationOutcome } from "./validate.js";
