import { describe, expect, it } from "vitest";
import { ConfigError } from "../core/index.js";
import { parseRoutingPlan, replyFromResponse } from "./response.js";

describe("replyFromResponse", () => {
  it("keeps plain text", () => {
    expect(replyFromResponse("use jira_fetch")).toEqual({ text: "use jira_fetch" });
  });
  it("keeps a model-written JSON call as text", () => {
    const text = '{"name": "grep", "arguments": {"pattern": "x"}}';
    expect(replyFromResponse(text)).toEqual({ text });
  });
  it("unpacks an OpenAI chat completion", () => {
    const call = { id: "c", type: "function", function: { name: "grep", arguments: "{}" } };
    const body = { choices: [{ message: { role: "assistant", content: null, tool_calls: [call] } }] };
    expect(replyFromResponse(JSON.stringify(body))).toEqual({ text: "", toolCalls: [call] });
  });
  it("unpacks an Ollama chat response, with reasoning as thinking", () => {
    const body = {
      model: "qwen3",
      message: { role: "assistant", content: "Answer", reasoning_content: "hmm" },
    };
    expect(replyFromResponse(JSON.stringify(body))).toEqual({ text: "<think>hmm</think>Answer" });
  });
  it("unpacks an Anthropic message", () => {
    const use = { type: "tool_use", id: "t", name: "grep", input: { pattern: "a" } };
    const body = { role: "assistant", content: [{ type: "text", text: "Searching" }, use] };
    expect(replyFromResponse(JSON.stringify(body))).toEqual({ text: "Searching", toolCalls: [use] });
  });
  it("unpacks an OpenAI Responses output", () => {
    const fc = { type: "function_call", name: "grep", arguments: '{"pattern":"b"}', call_id: "x" };
    const body = { output: [{ type: "message", content: [{ type: "output_text", text: "ok" }] }, fc] };
    expect(replyFromResponse(JSON.stringify(body))).toEqual({ text: "ok", toolCalls: [fc] });
  });
  it("unpacks a Gemini response", () => {
    const part = { functionCall: { name: "grep", args: { pattern: "c" } } };
    const body = { candidates: [{ content: { role: "model", parts: [{ text: "go" }, part] } }] };
    expect(replyFromResponse(JSON.stringify(body))).toEqual({ text: "go", toolCalls: [part] });
  });
});

describe("parseRoutingPlan", () => {
  it("reads a routing plan", () => {
    expect(parseRoutingPlan('{"query_type":"x","sub_questions":["a"],"suggested_tools":[]}')).toEqual({
      query_type: "x",
      sub_questions: ["a"],
      suggested_tools: [],
    });
  });
  it("refuses bad JSON with a pinned message", () => {
    expect(() => parseRoutingPlan("{")).toThrow(ConfigError);
    expect(() => parseRoutingPlan("{")).toThrow(/^--routing is not valid JSON: /);
  });
  it("refuses a non-list of tools", () => {
    expect(() => parseRoutingPlan('{"suggested_tools":"vector_search"}')).toThrow(
      "--routing: suggested_tools must be an array of strings",
    );
  });
});
