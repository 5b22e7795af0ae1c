/**
 * @module llm/testdata/prompt-window
 * How the test model server sees a prompt, as the real servers do: the request rendered as a chat template
 * would render it (the tool definitions, then every message with its calls), counted by a tokenizer
 * (default: one token per 4 characters), and what each server does with a prompt longer than its window:
 * - Ollama before 0.12.6 (`ollama: "cut"`): drops the oldest messages until the rest fits `num_ctx`
 *   (system messages and the last message always stay), then cuts what is still too long to exactly
 *   `num_ctx` tokens; it answers 200 and `prompt_eval_count` counts only what it kept;
 * - Ollama 0.12.6 and later (`ollama: "refuse"`): the same unless the request says `truncate: false`, which
 *   makes it refuse with 400 `{"error":"the input length exceeds the context length"}`;
 * - llama.cpp's server: 400 `exceed_context_size_error` with `n_prompt_tokens` and `n_ctx`, for a prompt of
 *   at least `n_ctx` tokens; its listing says `owned_by: "llamacpp"` and `/props` the window;
 * - vLLM: 400 `This model's maximum context length is N tokens. However, your request has M input
 *   tokens.` (and a `max_tokens` that does not fit beside the prompt); its listing says `max_model_len`;
 * - OpenAI: 400 with `code: "context_length_exceeded"`.
 */

/** Counts the tokens of a rendered prompt. */
export type Tokenizer = (text: string) => number;

/** One token per 4 characters: about what real tokenizers make of English and code. */
export const fourCharsPerToken: Tokenizer = (text) => Math.ceil(text.length / 4);

/** Which real server the test server plays with an over-long prompt. */
export interface WindowBehaviour {
  ollama?: "cut" | "refuse";
  openai?: "llama.cpp" | "vllm" | "openai";
}

/** A request body, as far as the window needs it. */
export interface PromptBody {
  messages: { role: string; content?: string | null; [key: string]: unknown }[];
  tools?: unknown[];
  options?: { num_ctx?: unknown; [key: string]: unknown };
  truncate?: unknown;
  max_tokens?: unknown;
}

/** What the server made of one prompt. */
export interface JudgedPrompt {
  api: "ollama" | "openai";
  window: number;
  /** Characters of the whole rendered prompt. */
  chars: number;
  /** Tokens of the whole prompt, as sent. */
  tokens: number;
  /** Tokens the server read (less than `tokens` when it cut). */
  kept: number;
  outcome: "whole" | "cut" | "refused";
  /** The error response, for `refused`. */
  refusal?: { status: number; body: unknown };
}

/** The prompt as a chat template renders it: the tools, then each message with its calls. */
export function renderPrompt(body: PromptBody): string {
  const parts = body.tools?.length ? [`<|tools|>${JSON.stringify(body.tools)}`] : [];
  for (const m of body.messages) {
    const calls = m.tool_calls ? JSON.stringify(m.tool_calls) : "";
    parts.push(`<|${m.role}|>${m.content ?? ""}${calls}<|end|>`);
  }
  return parts.join("\n");
}

/** Judges a request's prompt against the window, as the server `behaviour` names would. */
export function judgePrompt(
  api: "ollama" | "openai",
  body: PromptBody,
  serverWindow: number,
  behaviour: WindowBehaviour,
  tokenize: Tokenizer,
): JudgedPrompt {
  const numCtx = Number(body.options?.num_ctx);
  // Ollama runs at the num_ctx it is sent, but never above the model's own context length.
  const window =
    api === "ollama" && Number.isInteger(numCtx) && numCtx > 0
      ? Math.min(numCtx, serverWindow)
      : serverWindow;
  const text = renderPrompt(body);
  const tokens = tokenize(text);
  const judged: JudgedPrompt = { api, window, chars: text.length, tokens, kept: tokens, outcome: "whole" };
  if (api === "ollama") {
    if (tokens <= window) return judged;
    if ((behaviour.ollama ?? "cut") === "refuse" && body.truncate === false)
      return refused(judged, { error: "the input length exceeds the context length" });
    return { ...judged, kept: ollamaKept(body, window, tokenize), outcome: "cut" };
  }
  const flavour = behaviour.openai ?? "openai";
  if (flavour === "llama.cpp" && tokens >= window)
    return refused(judged, {
      error: {
        code: 400,
        message: `request (${tokens} tokens) exceeds the available context size (${window} tokens), try increasing it`,
        type: "exceed_context_size_error",
        n_prompt_tokens: tokens,
        n_ctx: window,
      },
    });
  const maxTokens = typeof body.max_tokens === "number" ? body.max_tokens : 0;
  if (flavour === "vllm" && (tokens >= window || tokens + maxTokens > window))
    return refused(judged, {
      error: {
        message:
          tokens >= window
            ? `This model's maximum context length is ${window} tokens. However, your request has ${tokens} input tokens. Please reduce the length of the input messages.`
            : `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ${window} tokens and your request has ${tokens} input tokens (${maxTokens} > ${window} - ${tokens}).`,
        type: "BadRequestError",
        param: null,
        code: 400,
      },
    });
  if (flavour === "openai" && tokens > window)
    return refused(judged, {
      error: {
        message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    });
  return judged;
}

function refused(judged: JudgedPrompt, body: unknown): JudgedPrompt {
  return { ...judged, kept: 0, outcome: "refused", refusal: { status: 400, body } };
}

/**
 * What an Ollama that cuts keeps: the oldest messages dropped until the rest fits (system messages and
 * the last message stay), then the runner's cut to exactly the window.
 */
function ollamaKept(body: PromptBody, window: number, tokenize: Tokenizer): number {
  const messages = body.messages;
  for (let i = 0; i < messages.length; i++) {
    const system = messages.slice(0, i).filter((m) => m.role === "system");
    const kept = tokenize(renderPrompt({ ...body, messages: [...system, ...messages.slice(i)] }));
    if (kept <= window) return kept;
    if (i === messages.length - 1) return window;
  }
  return window;
}
