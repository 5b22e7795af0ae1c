/**
 * @module mcp-client/content
 * Turns an MCP `tools/call` result into a toolgate {@link ToolResult}: text joined for the model, images,
 * audio and resources as attachments, `structuredContent` as data, `isError` as a tool error — and keeps
 * an oversized result from flooding the model (truncated with a note, never fatal). The server's own result
 * rides along unchanged (`upstream`), so toolgate serving the tool passes every block on as it came.
 */

import type { ToolAttachment, ToolResult, UpstreamResult } from "../core/index.js";
import { errorResult } from "../core/index.js";

/** Limits on what one MCP result may contribute. */
export interface ContentLimits {
  /** Characters of text kept for the model. Default 200,000. */
  maxChars: number;
  /** Total base64 characters of attachments kept. Default 10 MB. */
  maxAttachmentChars: number;
}

export const DEFAULT_CONTENT_LIMITS: ContentLimits = {
  maxChars: 200_000,
  maxAttachmentChars: 10 * 1024 * 1024,
};

/** The parts of an MCP CallToolResult this module reads (the SDK's type, loosened to what servers send). */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  toolResult?: unknown;
  _meta?: unknown;
}

type Block = Record<string, unknown>;

/**
 * Maps an MCP result. `name` is the public tool name, used in messages.
 * @example
 * mcpResultToToolResult("mcp__s__echo", { content: [{ type: "text", text: "hi" }] }).llmContent // "hi"
 */
export function mcpResultToToolResult(
  name: string,
  result: McpCallResult,
  limits: ContentLimits = DEFAULT_CONTENT_LIMITS,
): ToolResult {
  const blocks: Block[] = Array.isArray(result.content)
    ? result.content.filter((b): b is Block => b !== null && typeof b === "object")
    : [];
  const texts: string[] = [];
  const attachments: ToolAttachment[] = [];
  let attachmentChars = 0;
  let dropped = 0;
  const attach = (a: ToolAttachment, size: number) => {
    if (attachmentChars + size > limits.maxAttachmentChars) {
      dropped++;
      return;
    }
    attachmentChars += size;
    attachments.push(a);
  };
  for (const block of blocks) {
    const type = block.type;
    if (type === "text") {
      texts.push(String(block.text ?? ""));
    } else if (type === "image" || type === "audio") {
      const data = String(block.data ?? "");
      const mimeType = String(block.mimeType ?? "application/octet-stream");
      texts.push(`[${type}: ${mimeType}, ${base64Bytes(data)} bytes]`);
      attach({ type, mimeType, data }, data.length);
    } else if (type === "resource" && block.resource && typeof block.resource === "object") {
      const r = block.resource as Block;
      const uri = String(r.uri ?? "");
      const mimeType = String(r.mimeType ?? "application/octet-stream");
      if (typeof r.text === "string") texts.push(`[resource ${uri}]\n${r.text}`);
      else {
        const data = String(r.blob ?? "");
        texts.push(`[resource ${uri}: ${mimeType}, ${base64Bytes(data)} bytes]`);
        attach({ type: "resource", mimeType, uri, data }, data.length);
      }
    } else if (type === "resource_link") {
      const uri = String(block.uri ?? "");
      const label = typeof block.name === "string" && block.name !== "" ? ` (${block.name})` : "";
      texts.push(`[resource link ${uri}${label}]`);
      attach(
        { type: "resource", mimeType: String(block.mimeType ?? "application/octet-stream"), uri },
        uri.length,
      );
    } else {
      texts.push(`[unsupported content block: ${String(type)}]`);
    }
  }
  if (dropped > 0)
    texts.push(`[${dropped} attachment(s) omitted: over ${limits.maxAttachmentChars} characters in total]`);
  // Old servers answer with `toolResult` instead of `content`.
  if (blocks.length === 0 && result.toolResult !== undefined) texts.push(stringify(result.toolResult));
  let text = texts.join("\n");
  if (texts.length === 0 && result.structuredContent !== undefined)
    text = stringify(result.structuredContent);
  text = truncate(text, limits.maxChars);
  const upstream = upstreamOf(result, blocks);
  if (result.isError === true) {
    return {
      ...errorResult("execution_failed", `${name} reported an error: ${text || "(no message)"}`),
      upstream,
    };
  }
  const out: ToolResult = { llmContent: text, returnDisplay: text, upstream };
  if (attachments.length > 0) out.attachments = attachments;
  if (result.structuredContent !== undefined) out.data = result.structuredContent;
  return out;
}

/** The server's own result, kept for a proxy: every block as sent, structured content, `_meta`, isError. */
function upstreamOf(result: McpCallResult, blocks: readonly Block[]): UpstreamResult {
  const out: UpstreamResult = { content: blocks };
  if (result.structuredContent !== undefined) out.structuredContent = result.structuredContent;
  if (result.isError === true) out.isError = true;
  if (result._meta !== null && typeof result._meta === "object" && !Array.isArray(result._meta))
    out._meta = result._meta as Record<string, unknown>;
  return out;
}

/** Keeps the first `max` characters and says how many were omitted. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[... output truncated: ${text.length - max} of ${text.length} characters omitted ...]`;
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function stringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
