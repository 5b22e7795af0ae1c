/**
 * @module tools/atlassian/storage
 * Confluence storage format (XHTML with `ac:`/`ri:` macros) to Markdown: macros become plain HTML first
 * (code blocks, panels, page links, images, task lists), then turndown over a linkedom document.
 */
import { parseHTML } from "linkedom";
import TurndownService from "../web/turndown.js";

type TurndownNode = Parameters<TurndownService["turndown"]>[0];
interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
  getAttribute?(name: string): string | null;
  replaceWith(...nodes: unknown[]): void;
}
interface DomDocument {
  body: DomNode;
  createElement(
    tag: string,
  ): DomNode & { innerHTML: string; textContent: string; setAttribute(n: string, v: string): void };
  createTextNode(text: string): unknown;
  querySelectorAll(selector: string): ArrayLike<DomNode>;
}

interface TableNode {
  nodeName: string;
  parentNode: TableNode | null;
  querySelector?(selector: string): unknown;
}

/** True for the first row of its table (it gets the header separator). */
function isFirstRow(row: TableNode): boolean {
  let table = row.parentNode;
  while (table && table.nodeName !== "TABLE") table = table.parentNode;
  return !table?.querySelector || table.querySelector("tr") === row;
}

let service: TurndownService | undefined;

function turndown(): TurndownService {
  if (service) return service;
  service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  service.remove(["script", "style"]);
  // Confluence pages are full of tables; keep them as Markdown tables, not a column of loose cells.
  service.addRule("tableCell", {
    filter: ["th", "td"],
    replacement: (content) =>
      ` ${content
        .replace(/\s*\n+\s*/g, " ")
        .trim()
        .replace(/\|/g, "\\|")} |`,
  });
  service.addRule("tableRow", {
    filter: "tr",
    replacement: (content, node) => {
      const row = `|${content}\n`;
      if (!isFirstRow(node as unknown as TableNode)) return row;
      const cells = (content.match(/ \|/g) ?? []).length - (content.match(/\\\| /g) ?? []).length;
      return `${row}|${" --- |".repeat(Math.max(1, cells))}\n`;
    },
  });
  service.addRule("tableSection", { filter: ["thead", "tbody", "tfoot"], replacement: (content) => content });
  service.addRule("table", { filter: "table", replacement: (content) => `\n\n${content.trim()}\n\n` });
  return service;
}

/**
 * Makes the XML parse as HTML: `<![CDATA[…]]>` bodies become escaped text (the HTML parser would make them
 * comments), and self-closing `ac:`/`ri:` elements get closing tags (HTML ignores `/>` on unknown elements,
 * which would swallow everything after them).
 */
function prepare(xml: string): string {
  return xml
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_m, body: string) =>
      body.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"),
    )
    .replace(/<((?:ac|ri):[\w-]+)((?:\s[^<>]*?)?)\s*\/>/g, "<$1$2></$1>");
}

function children(node: DomNode, name: string): DomNode | undefined {
  return Array.from(node.childNodes).find((c) => c.nodeName.toLowerCase() === name);
}

/** Replaces every element matching `tag` (deepest first) with what `make` returns. */
function replaceAll(doc: DomDocument, tag: string, make: (el: DomNode) => unknown): void {
  const found = Array.from(doc.querySelectorAll(tag.replace(":", "\\:"))).reverse();
  for (const el of found) el.replaceWith(make(el));
}

function macros(doc: DomDocument): void {
  replaceAll(doc, "ac:structured-macro", (el) => {
    const name = (el.getAttribute?.("ac:name") ?? "").toLowerCase();
    const plain = children(el, "ac:plain-text-body");
    const rich = children(el, "ac:rich-text-body");
    if (name === "code" || name === "noformat") {
      const pre = doc.createElement("pre");
      const code = doc.createElement("code");
      const lang = Array.from(el.childNodes).find(
        (c) => c.nodeName.toLowerCase() === "ac:parameter" && c.getAttribute?.("ac:name") === "language",
      );
      if (lang?.textContent) code.setAttribute("class", `language-${lang.textContent.trim()}`);
      code.textContent = plain?.textContent ?? "";
      (pre as unknown as { appendChild(n: unknown): void }).appendChild(code);
      return pre;
    }
    if (rich) {
      const quote = doc.createElement("blockquote");
      const label = ["info", "note", "warning", "tip"].includes(name)
        ? `<p><strong>${name}:</strong></p>`
        : "";
      quote.innerHTML = label + ((rich as unknown as { innerHTML: string }).innerHTML ?? "");
      return quote;
    }
    return doc.createTextNode("");
  });
  replaceAll(doc, "ac:link", (el) => {
    const page = children(el, "ri:page");
    const body = children(el, "ac:link-body") ?? children(el, "ac:plain-text-link-body");
    return doc.createTextNode(body?.textContent || page?.getAttribute?.("ri:content-title") || "");
  });
  replaceAll(doc, "ac:image", (el) => {
    const file = children(el, "ri:attachment")?.getAttribute?.("ri:filename");
    const url = children(el, "ri:url")?.getAttribute?.("ri:value");
    return doc.createTextNode(`[image: ${file ?? url ?? "embedded"}]`);
  });
  replaceAll(doc, "ac:task", (el) => {
    const done = (children(el, "ac:task-status")?.textContent ?? "").trim() === "complete";
    const li = doc.createElement("li");
    li.textContent = `[${done ? "x" : " "}] ${(children(el, "ac:task-body")?.textContent ?? "").trim()}`;
    return li;
  });
  replaceAll(doc, "ac:task-list", (el) => {
    const ul = doc.createElement("ul");
    ul.innerHTML = (el as unknown as { innerHTML: string }).innerHTML;
    return ul;
  });
  replaceAll(doc, "ac:emoticon", () => doc.createTextNode(""));
}

/**
 * Converts Confluence storage-format XHTML to Markdown.
 * @example storageToMarkdown("<h1>Deploy</h1><p>Run <code>make</code></p>") // "# Deploy\n\nRun `make`"
 */
export function storageToMarkdown(storage: string): string {
  const { document } = parseHTML(
    `<!doctype html><html><body>${prepare(storage)}</body></html>`,
  ) as unknown as {
    document: DomDocument;
  };
  macros(document);
  return turndown()
    .turndown(document.body as unknown as TurndownNode)
    .trim();
}
