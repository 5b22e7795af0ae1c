/**
 * @module toolgate
 * The public API: `createToolgate(options)` and the types a host needs. Anything added here is public
 * (a test pins this list).
 */

export { MessageBus } from "./bus/index.js";
export type { ToolgateConfig, ToolgateSettings } from "./config/index.js";
export type {
  AnthropicTool,
  ArgKind,
  Confirm,
  ConfirmationDetails,
  ConfirmationRequest,
  ConfirmationResponse,
  Decision,
  GeminiFunctionDeclaration,
  GeminiTool,
  JsonSchema,
  Logger,
  LoweringNote,
  ObjectSchema,
  OllamaProperty,
  OllamaTool,
  OpenAIChatTool,
  OpenAIResponsesTool,
  PolicyDecision,
  ProviderName,
  ProviderTool,
  ProviderToolMap,
  RiskLevel,
  Tool,
  ToolCall,
  ToolError,
  ToolErrorType,
  ToolInvocation,
  ToolKind,
  ToolResult,
  ToolScope,
} from "./core/index.js";
export {
  type CallResult,
  ConfigError,
  defineTool,
  type ExecuteOptions,
  errorResult,
  okResult,
  PROVIDER_NAMES,
  ToolFailure,
  ToolInputError,
  ToolRegistry,
  truncateOutput,
} from "./core/index.js";
export {
  type ChatMessage,
  type ChatModel,
  type ChatReply,
  createChatModel,
  type LlmSettings,
  ModelError,
  resolveLlmSettings,
} from "./llm/index.js";
export {
  AgentSession,
  type Answer,
  type Asker,
  attachToolPool,
  ConfirmationBroker,
  createAgentRunner,
  type LoopEvent,
  readTranscript,
  renderTranscript,
  type SessionOptions,
  sessionsDir,
  Transcript,
  type TurnResult,
} from "./loop/index.js";
export {
  DEFAULT_PROFILE,
  type ModelReply,
  mergeProfiles,
  type PlanInput,
  type PlannedCall,
  type PlannerProfile,
  type PlanResult,
  parsePlannerProfile,
  plan,
  profileForTools,
  type RoutingPlan,
  type SkippedCall,
  type ToolRule,
} from "./planner/index.js";
export {
  type MemoryEntry,
  type MemoryStore,
  memoryFilePath,
  openMemoryStore,
  openTodoStore,
  projectStateDir,
  StateError,
  type StateScope,
  type TodoChange,
  type TodoItem,
  type TodoStatus,
  type TodoStore,
  todosFilePath,
  userStateDir,
} from "./state/index.js";
export { createToolgate, type Toolgate, type ToolgateOptions } from "./toolgate.js";
