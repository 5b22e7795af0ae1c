import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("public API", () => {
  it("exports exactly the intended runtime names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "AgentSession",
      "ConfigError",
      "ConfirmationBroker",
      "FlowSession",
      "InProcessApprovalStore",
      "MessageBus",
      "ModelError",
      "PROVIDER_NAMES",
      "StateError",
      "ToolFailure",
      "ToolInputError",
      "ToolRegistry",
      "Transcript",
      "attachToolPool",
      "createAgentRunner",
      "createChatModel",
      "createFileStateBackend",
      "createInProcessStateBackend",
      "createMemoryStore",
      "createTodoStore",
      "createToolgate",
      "defineTool",
      "errorResult",
      "memoryFilePath",
      "okResult",
      "openMemoryStore",
      "openTodoStore",
      "projectStateDir",
      "readTranscript",
      "renderTranscript",
      "resolveLlmSettings",
      "sessionsDir",
      "structuredReader",
      "todosFilePath",
      "truncateOutput",
      "userStateDir",
    ]);
  });
});
