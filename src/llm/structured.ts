/**
 * @module llm/structured
 * The quarantined reader's model call (docs/injection.md): one chat turn with no tools, the untrusted text as
 * the user message, and the reply bound to a JSON schema in the provider's structured-output mode
 * (`ChatRequest.schema`). The reply is handed back as text: the tool parses and validates it, since a server
 * may ignore the mode.
 */
import type { StructuredReader } from "../core/index.js";
import type { ChatModel } from "./types.js";

/**
 * A reader over the model `current()` returns at call time (the session's, which `/model` may switch).
 * @example await gate.execute(call, { reader: structuredReader(() => model) })
 */
export function structuredReader(current: () => ChatModel): StructuredReader {
  return async (request) => {
    const reply = await current().chat({
      messages: [
        { role: "system", content: request.instructions },
        { role: "user", content: request.content },
      ],
      // Never tools: the model reading untrusted text must have nothing to call.
      tools: [],
      schema: { name: "quarantined_read", schema: request.schema },
      signal: request.signal,
    });
    return {
      text: reply.text,
      ...(reply.refusal ? { refusal: reply.refusal } : {}),
      ...(reply.toolCalls.length > 0 ? { toolCalls: reply.toolCalls.length } : {}),
    };
  };
}
