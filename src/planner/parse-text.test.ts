import { describe, expect, it } from "vitest";
import { balancedEnd, findJsonValues, parseJsonLenient } from "./json-scan.js";
import { parseNativeCalls } from "./parse-native.js";
import { parseStructuredCalls } from "./parse-text.js";
import { splitThinking } from "./strip-think.js";

describe("splitThinking", () => {
  it("separates a closed think block", () => {
    expect(splitThinking("<think>use jira_fetch?</think>\nAnswer")).toEqual({
      visible: "Answer",
      thinking: "use jira_fetch?",
    });
  });
  it("treats an unterminated block as all thinking", () => {
    expect(splitThinking("Intro <think>still thinking about web_fetch")).toEqual({
      visible: "Intro",
      thinking: "still thinking about web_fetch",
    });
  });
  it("handles <thinking> and upper case", () => {
    expect(splitThinking("<THINKING>x</THINKING>y")).toEqual({ visible: "y", thinking: "x" });
  });
  it("treats text before a lone closing tag as thinking (template opened the block)", () => {
    expect(splitThinking("reasoning here</think>final")).toEqual({
      visible: "final",
      thinking: "reasoning here",
    });
  });
  it("handles several blocks", () => {
    expect(splitThinking("<think>a</think>b<think>c</think>d")).toEqual({ visible: "bd", thinking: "a\nc" });
  });
});

describe("json scanning", () => {
  it("respects brackets inside strings and escaped quotes", () => {
    const text = 'x {"a": "}\\"{"} y';
    expect(balancedEnd(text, 2)).toBe(text.length - 2);
  });
  it("refuses mismatched brackets", () => {
    expect(balancedEnd("{ ]", 0)).toBe(-1);
  });
  it("refuses an unterminated value", () => {
    expect(balancedEnd('{"a": 1', 0)).toBe(-1);
  });
  it("forgives trailing commas only", () => {
    expect(parseJsonLenient('{"a": [1, 2,], }')).toEqual({ value: { a: [1, 2] } });
    expect(parseJsonLenient('{"a": "x,}"}')).toEqual({ value: { a: "x,}" } });
    expect(parseJsonLenient("{'a': 1}")).toBeUndefined();
  });
  it("finds an object after an unbalanced bracket", () => {
    expect(findJsonValues('[ {"a": 1} trailing').map((f) => f.value)).toEqual([{ a: 1 }]);
  });
  it("stays bounded on adversarial input", () => {
    expect(findJsonValues("{".repeat(20_000))).toEqual([]);
  });
});

describe("parseStructuredCalls", () => {
  const rows: Array<[string, string, string, Array<{ name: string; args: unknown }>]> = [
    [
      "a bare object with arguments",
      '{"name": "grep", "arguments": {"pattern": "TODO"}}',
      "JSON in the reply text",
      [{ name: "grep", args: { pattern: "TODO" } }],
    ],
    [
      "arguments as a JSON string",
      '{"name": "grep", "arguments": "{\\"pattern\\": \\"x\\"}"}',
      "JSON in the reply text",
      [{ name: "grep", args: { pattern: "x" } }],
    ],
    [
      "an array with args and parameters",
      '[{"name":"a_tool","args":{"q":1}},{"name":"b_tool","parameters":{"q":2}}]',
      "JSON in the reply text",
      [
        { name: "a_tool", args: { q: 1 } },
        { name: "b_tool", args: { q: 2 } },
      ],
    ],
    [
      "a fenced json block after prose",
      'I will search.\n```json\n{"name": "vector_search", "arguments": {"query": "retry"}}\n```',
      "fenced JSON block",
      [{ name: "vector_search", args: { query: "retry" } }],
    ],
    [
      "tool_call tags (Qwen/Hermes), two of them",
      '<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\n<tool_call>\n{"name": "b", "arguments": {"x": 1}}\n</tool_call>',
      "<tool_call> tags",
      [
        { name: "a", args: {} },
        { name: "b", args: { x: 1 } },
      ],
    ],
    [
      "an unterminated tool_call tag",
      '<tool_call>\n{"name": "a", "arguments": {"k": "v"}}',
      "<tool_call> tags",
      [{ name: "a", args: { k: "v" } }],
    ],
    [
      "Mistral [TOOL_CALLS] array",
      '[TOOL_CALLS] [{"name": "web_fetch", "arguments": {"url": "https://a.com"}}]',
      "[TOOL_CALLS]",
      [{ name: "web_fetch", args: { url: "https://a.com" } }],
    ],
    [
      "Mistral v11 [TOOL_CALLS]name[ARGS]",
      '[TOOL_CALLS]web_fetch[ARGS]{"url": "https://a.com"}',
      "[TOOL_CALLS]",
      [{ name: "web_fetch", args: { url: "https://a.com" } }],
    ],
    [
      "Llama 3.1 python_tag",
      '<|python_tag|>{"name": "jira_fetch", "parameters": {"issue_key": "PROJ-1"}}<|eom_id|>',
      "<|python_tag|>",
      [{ name: "jira_fetch", args: { issue_key: "PROJ-1" } }],
    ],
    [
      "Llama 3.1 function tags",
      '<function=grep>{"pattern": "x"}</function>',
      "<function=…> tags",
      [{ name: "grep", args: { pattern: "x" } }],
    ],
    [
      "OpenAI-shaped call in text",
      '{"type":"function","function":{"name":"grep","arguments":"{\\"pattern\\":\\"y\\"}"}}',
      "JSON in the reply text",
      [{ name: "grep", args: { pattern: "y" } }],
    ],
    [
      "a tool_calls wrapper",
      '{"tool_calls": [{"name": "grep", "arguments": {"pattern": "z"}}]}',
      "JSON in the reply text",
      [{ name: "grep", args: { pattern: "z" } }],
    ],
    [
      "a flat object with the arguments beside the tool name",
      'Action: {"tool": "web_fetch", "url": "https://a.com"}',
      "JSON in the reply text",
      [{ name: "web_fetch", args: { url: "https://a.com" } }],
    ],
    [
      "a bare name-only object",
      'Calling {"name": "list_todos"} now',
      "JSON in the reply text",
      [{ name: "list_todos", args: {} }],
    ],
    [
      "JSON inside think is ignored, the visible call counts",
      '<think>{"name": "jira_fetch", "arguments": {}}</think>{"name": "grep", "arguments": {"pattern": "a"}}',
      "JSON in the reply text",
      [{ name: "grep", args: { pattern: "a" } }],
    ],
  ];
  for (const [note, text, format, calls] of rows) {
    it(note, () => {
      expect(parseStructuredCalls(text)).toEqual({ format, calls, problems: [] });
    });
  }

  const nothing: Array<[string, string]> = [
    ["broken JSON", '{"name": "jira_fetch", "arguments": {"issue_key": "PROJ-1"'],
    ["a broken tool_call tag", '<tool_call>{"name": "jira_fetch", "arguments": {</tool_call>'],
    ["data that is not a call", '{"name": "Ann", "age": 3}'],
    ["a name that is no tool name", '{"action": "Final Answer", "action_input": "done"}'],
    ["only thinking", '<think>{"name": "grep", "arguments": {}}</think>'],
    ["plain prose", "I will use grep to find it."],
  ];
  for (const [note, text] of nothing) {
    it(`finds nothing in ${note}`, () => {
      expect(parseStructuredCalls(text)).toBeUndefined();
    });
  }

  it("reports a call whose arguments string is broken", () => {
    expect(parseStructuredCalls('{"name": "grep", "arguments": "{bad"}')).toEqual({
      format: "JSON in the reply text",
      calls: [],
      problems: [{ name: "grep", reason: "arguments are not valid JSON" }],
    });
  });
});

describe("parseNativeCalls", () => {
  it("reads OpenAI calls (arguments as a string)", () => {
    const calls = [{ id: "c1", type: "function", function: { name: "grep", arguments: '{"pattern":"x"}' } }];
    expect(parseNativeCalls(calls)).toEqual({
      calls: [{ name: "grep", args: { pattern: "x" } }],
      problems: [],
    });
  });
  it("reads Ollama calls (arguments as an object)", () => {
    const calls = [{ function: { name: "web_fetch", arguments: { url: "https://a.com" } } }];
    expect(parseNativeCalls(calls).calls).toEqual([{ name: "web_fetch", args: { url: "https://a.com" } }]);
  });
  it("reads Anthropic tool_use blocks and skips text blocks", () => {
    const blocks = [
      { type: "text", text: "hi" },
      { type: "tool_use", id: "t1", name: "grep", input: { pattern: "q" } },
    ];
    expect(parseNativeCalls(blocks).calls).toEqual([{ name: "grep", args: { pattern: "q" } }]);
  });
  it("reads Gemini functionCall parts", () => {
    expect(parseNativeCalls([{ functionCall: { name: "grep", args: { pattern: "g" } } }]).calls).toEqual([
      { name: "grep", args: { pattern: "g" } },
    ]);
  });
  it("reports arguments that are not JSON", () => {
    const calls = [{ type: "function", function: { name: "grep", arguments: "{pattern: x" } }];
    expect(parseNativeCalls(calls)).toEqual({
      calls: [],
      problems: [{ name: "grep", reason: "arguments are not valid JSON" }],
    });
  });
});
