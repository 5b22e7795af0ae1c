/**
 * @module llm/overflow
 * Recognises a server's "the prompt is longer than my context window" refusal, in each server's own words,
 * and reads the numbers it gives: llama.cpp's server (`exceed_context_size_error`, with `n_prompt_tokens`
 * and `n_ctx` beside the message), vLLM (`This model's maximum context length is N tokens. However, your
 * request has M input tokens.`), OpenAI (`code: "context_length_exceeded"`), Ollama when told not to cut
 * (`truncate: false`: `the input length exceeds the context length`, or llama.cpp's refusal passed on).
 * Such a refusal is a `context_overflow` ModelError: the loop compacts and tries once more.
 */
import { ModelError, oneLine } from "./errors.js";

/** What a refusal says: the prompt's size and the window, in the server's tokens, when it says them. */
export interface OverflowFacts {
  promptTokens?: number;
  window?: number;
}

/** Phrases and codes of an over-long prompt, as the servers write them (lower-case). */
const SIGNS = [
  "context_length_exceeded", // OpenAI's error code
  "exceed_context_size_error", // llama.cpp's error type
  "exceeds the available context size", // llama.cpp
  "larger than the max context size", // llama.cpp, a prompt over a slot's size
  "maximum context length is", // vLLM, OpenAI, DeepSeek
  "input length exceeds the context length", // Ollama 0.12+ with truncate: false
  "prompt is longer than the context length", // Ollama with context shift off
];

/** The refusal's facts when `text` (an error body or message) is an over-long-prompt refusal, else undefined. */
export function overflowFacts(text: string): OverflowFacts | undefined {
  const lower = text.toLowerCase();
  if (!SIGNS.some((sign) => lower.includes(sign))) return undefined;
  const facts: OverflowFacts = {};
  // The fields may be escaped: Ollama passes llama.cpp's JSON refusal on as the text of its own error.
  const prompt =
    number(/n_prompt_tokens\\?"\s*:\s*(\d+)/, text) ??
    number(/request \((\d+) tokens\)/i, text) ??
    number(/input \((\d+) tokens\)/i, text) ??
    number(/(\d+) in the messages/i, text) ??
    number(/your request has (\d+) input tokens/i, text) ??
    number(/resulted in (\d+) tokens/i, text);
  const window =
    number(/n_ctx\\?"\s*:\s*(\d+)/, text) ??
    number(/available context size \((\d+) tokens\)/i, text) ??
    number(/max context size \((\d+) tokens\)/i, text) ??
    number(/maximum context length is (\d+) tokens/i, text);
  if (prompt !== undefined) facts.promptTokens = prompt;
  if (window !== undefined) facts.window = window;
  return facts;
}

function number(pattern: RegExp, text: string): number | undefined {
  const match = pattern.exec(text);
  const n = match ? Number(match[1]) : Number.NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** A `context_overflow` ModelError, when the status and body are such a refusal; else undefined. */
export function overflowError(status: number, body: string, serverText: string): ModelError | undefined {
  if (status !== 400 && status !== 413 && status !== 422) return undefined;
  const facts = overflowFacts(body);
  return facts ? contextOverflowError(facts, `${serverText} (${status})`, status) : undefined;
}

/**
 * The error the loop recovers from: the prompt did not fit the model's window. `said` is what the server
 * (or the detector) said, for the message.
 */
export function contextOverflowError(facts: OverflowFacts, said: string, status?: number): ModelError {
  const { promptTokens: prompt, window } = facts;
  const sizes =
    prompt !== undefined && window !== undefined
      ? ` (${prompt} tokens for a window of ${window})`
      : prompt !== undefined
        ? ` (${prompt} tokens)`
        : window !== undefined
          ? ` of ${window} tokens`
          : "";
  const error = new ModelError(
    "context_overflow",
    `the prompt did not fit the model's context window${sizes}: ${oneLine(said, 200)}`,
    status,
  );
  error.overflow = facts;
  return error;
}
