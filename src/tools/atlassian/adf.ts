/**
 * @module tools/atlassian/adf
 * Atlassian Document Format (Jira Cloud REST v3 descriptions and comments) to readable Markdown-ish text.
 * Unknown node types keep their text content, so nothing a newer schema adds is lost.
 */

/** One ADF node (`doc`, `paragraph`, `text`, ...). */
export interface AdfNode {
  type: string;
  text?: string;
  attrs?: Record<string, unknown>;
  marks?: Array<{ type: string; attrs?: Record<string, unknown> }>;
  content?: AdfNode[];
}

function isNode(value: unknown): value is AdfNode {
  return typeof value === "object" && value !== null && typeof (value as AdfNode).type === "string";
}

function attr(node: AdfNode, name: string): string {
  const value = node.attrs?.[name];
  return typeof value === "string" || typeof value === "number" ? String(value) : "";
}

function markText(node: AdfNode): string {
  let text = node.text ?? "";
  for (const mark of node.marks ?? []) {
    if (mark.type === "code") text = `\`${text}\``;
    else if (mark.type === "strong") text = `**${text}**`;
    else if (mark.type === "em") text = `*${text}*`;
    else if (mark.type === "strike") text = `~~${text}~~`;
    else if (mark.type === "link" && typeof mark.attrs?.href === "string")
      text = `[${text}](${mark.attrs.href})`;
  }
  return text;
}

function inline(nodes: AdfNode[] | undefined): string {
  return (nodes ?? []).map((n) => render(n, "")).join("");
}

function blocks(nodes: AdfNode[] | undefined, indent: string): string {
  return (nodes ?? [])
    .map((n) => render(n, indent))
    .filter((s) => s.trim() !== "")
    .join("\n\n");
}

function list(node: AdfNode, indent: string, ordered: boolean): string {
  const start = Number(node.attrs?.order ?? 1) || 1;
  return (node.content ?? [])
    .map((item, i) => {
      const marker = ordered ? `${start + i}. ` : "- ";
      const body = blocks(item.content, `${indent}  `).replace(/\n\n/g, "\n");
      return `${indent}${marker}${body.trimStart()}`;
    })
    .join("\n");
}

function table(node: AdfNode): string {
  const rows = (node.content ?? []).map((row) =>
    (row.content ?? []).map((cell) =>
      blocks(cell.content, "")
        .replace(/\s*\n+\s*/g, " ")
        .replace(/\|/g, "\\|"),
    ),
  );
  if (rows.length === 0) return "";
  const width = Math.max(...rows.map((r) => r.length));
  const line = (cells: string[]) => `| ${[...cells, ...Array(width - cells.length).fill("")].join(" | ")} |`;
  return [line(rows[0]!), line(Array(width).fill("---")), ...rows.slice(1).map(line)].join("\n");
}

function render(node: AdfNode, indent: string): string {
  switch (node.type) {
    case "text":
      return markText(node);
    case "hardBreak":
      return "\n";
    case "mention":
      return attr(node, "text") || `@${attr(node, "id")}`;
    case "emoji":
      return attr(node, "text") || attr(node, "shortName");
    case "inlineCard":
    case "blockCard":
    case "embedCard":
      return attr(node, "url");
    case "status":
      return `[${attr(node, "text")}]`;
    case "date": {
      const ms = Number(attr(node, "timestamp"));
      return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString().slice(0, 10) : "";
    }
    case "paragraph":
      return indent + inline(node.content);
    case "heading":
      return `${"#".repeat(Math.min(6, Number(node.attrs?.level ?? 1) || 1))} ${inline(node.content)}`;
    case "bulletList":
      return list(node, indent, false);
    case "orderedList":
      return list(node, indent, true);
    case "codeBlock":
      return `\`\`\`${attr(node, "language")}\n${inline(node.content)}\n\`\`\``;
    case "blockquote":
    case "panel":
      return blocks(node.content, "")
        .split("\n")
        .map((l) => `> ${l}`)
        .join("\n");
    case "rule":
      return "---";
    case "table":
      return table(node);
    case "expand":
    case "nestedExpand":
      return [attr(node, "title"), blocks(node.content, indent)].filter(Boolean).join("\n\n");
    case "mediaSingle":
    case "mediaGroup":
    case "media":
      return "[attachment]";
    default:
      return node.content ? blocks(node.content, indent) : (node.text ?? "");
  }
}

/**
 * Converts an ADF document (or a plain string, as REST v2 returns) to text.
 * @example adfToText({ type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text: "hi" }] }] }) // "hi"
 */
export function adfToText(value: unknown): string {
  if (typeof value === "string") return value;
  if (!isNode(value)) return "";
  return render(value, "").trim();
}
