/**
 * @module loop/prompts
 * The system instructions a session starts with: what the assistant is, where it works, how tools are
 * called and refused, when to stop; then an agent definition's own instructions.
 */

/** Builds the system message. */
export function systemInstructions(options: {
  root?: string;
  tools: readonly string[];
  agent?: string;
  instructions?: string;
}): string {
  const lines = [
    options.agent
      ? `You are the agent "${options.agent}", working for a person through toolgate.`
      : "You are a careful assistant working for a person through toolgate.",
  ];
  if (options.root) lines.push(`You work in the folder ${options.root}; file paths are relative to it.`);
  if (options.tools.length > 0) {
    lines.push(
      `Tools you may call: ${options.tools.join(", ")}.`,
      "Call tools through the tool-calling interface. If you cannot, write one JSON object per call: " +
        '{"name": "<tool>", "arguments": {...}}.',
      "Every call is checked by a policy; some need the person's approval. A refused or failed call comes " +
        "back as an error message: read it and adapt, do not repeat the same call.",
      "Read before you edit; after an edit, check the result.",
    );
  } else lines.push("You have no tools in this session: answer from what you know.");
  lines.push("When the task is done, reply with the answer and no tool call.");
  if (options.instructions?.trim()) lines.push("", options.instructions.trim());
  return lines.join("\n");
}
