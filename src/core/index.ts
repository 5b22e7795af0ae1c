/**
 * @module core
 * The core's front door: the tool model, registry, validation, truncation, provider schemas and the pipeline
 * — only the names other folders or the package root use; anything else is imported within `core/` by file.
 * Anything added here is public.
 */
export {
  InProcessApprovalStore,
  type InProcessApprovalStoreOptions,
  matchesApprovalFilter,
  pendingApprovalRecord,
  SETTLED_BY_TOOLGATE,
  settledMessage,
  unknownApprovalMessage,
} from "./approval-store.js";
export { type WaitOptions, waitForSettlement } from "./approval-wait.js";
export { argsDigest, FileAuditSink, MemoryAuditSink } from "./audit.js";
export {
  type AuditEntry,
  type BrokenLink,
  type ChainedAuditRecord,
  type ChainReport,
  canonicalRecord,
  describeChain,
  GENESIS,
  recordDigest,
  type TrimmedRange,
  verifyChain,
} from "./audit-chain.js";
export { FileAuditLog } from "./audit-file-log.js";
export { type CheckResult, checkCall } from "./check.js";
export {
  type ConfirmationField,
  callDetails,
  confirmationFields,
  DEFAULT_CONFIRM_TIMEOUT_MS,
  displaySafe,
  displaySafeJson,
  proseSafe,
} from "./confirmation.js";
export { defineTool, type RunContext, type ToolSpec } from "./define-tool.js";
export {
  ConfigError,
  errorResult,
  okResult,
  resultFromThrown,
  ToolFailure,
  ToolInputError,
} from "./errors.js";
export { type CallResult, type ExecuteOptions, executeCall, type PipelineDeps } from "./execute.js";
export { type ContextView, FlowSession, hostsIn, normalUrl, urlsIn } from "./flow-session.js";
export {
  CLEAN,
  type Confidentiality,
  declared,
  describeLabel,
  type Integrity,
  isTainted,
  joinLabels,
  joinStored,
  type Label,
  type LabelDeclaration,
  type Labeler,
  type LabelInput,
  type LabelLevels,
  type LabelSource,
  labelOf,
  ownLabel,
  readStoredLabel,
  type StoredLabel,
  storedLabelOf,
  UNDECLARED,
} from "./labels.js";
export { TOOL_NAME_PATTERN, ToolRegistry } from "./registry.js";
export {
  type AnthropicTool,
  type GeminiFunctionDeclaration,
  type GeminiTool,
  isProviderName,
  type LoweringNote,
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
export {
  type AlwaysRuleOffer,
  type AskOptions,
  askApproval,
  type OfferAlwaysRule,
} from "./steps/confirm.js";
export { sandboxFor } from "./steps/decide.js";
export { compileToolPattern, matchSorted, type ToolPattern } from "./tool-pattern.js";
export { DEFAULT_LIMITS, truncateOutput } from "./truncate.js";
export type {
  AlwaysOffered,
  ApprovalAnswer,
  ApprovalAsk,
  ApprovalFilter,
  ApprovalRecord,
  ApprovalScope,
  ApprovalSettlement,
  ApprovalState,
  ApprovalStore,
  ArgKind,
  AuditLabel,
  AuditLog,
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
  FlowVerdict,
  HookReport,
  JsonSchema,
  Logger,
  PolicyDecision,
  PostTool,
  Recall,
  RiskLevel,
  RuleRef,
  SandboxGrant,
  SettleResult,
  StructuredReader,
  StructuredReply,
  StructuredRequest,
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
export { ParamValidator } from "./validate.js";
