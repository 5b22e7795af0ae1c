/**
 * @module tools/web/html
 * HTML to Markdown for web_fetch: a DOM from linkedom, the main content (the page's one `<article>` or
 * `<main>` when it holds most of the text, else Readability's pick, or the elements a CSS selector picks),
 * Markdown from turndown. Work is bounded: only as much HTML as the output needs is parsed, once.
 */
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "./turndown.js";

/** What a page became. */
export interface MarkdownPage {
  title: string;
  markdown: string;
  /** Characters of (cleaned) HTML left unconverted because the output already had enough. */
  omittedHtmlChars: number;
  /** With a selector: how many elements matched. */
  matches?: number;
}

/** Options of {@link pageToMarkdown}. */
export interface PageOptions {
  /** The page's final URL: relative links and images are made absolute against it. */
  baseUrl: string;
  /** CSS selector: convert only the matching elements (the whole document is searched). */
  selector?: string;
  /** How many Markdown characters the caller will keep; conversion stops once it has them. */
  wantChars: number;
}

/** Thrown for a CSS selector the DOM cannot evaluate. */
export class SelectorError extends Error {
  override readonly name = "SelectorError";
}

/** Elements whose content never belongs in the output; stripped from the text before any parsing. */
const STRIP_OPEN = /<(script|style|noscript|template|svg|iframe|object|embed|canvas)\b|<!--/gi;
/** The first slice of HTML converted; it grows fourfold while the output is short and HTML remains. */
const MIN_BUDGET = 256 * 1024;

type Node = Parameters<TurndownService["turndown"]>[0];
type Element = { getAttribute(n: string): string | null; setAttribute(n: string, v: string): void };
type Doc = {
  title: string;
  body: unknown;
  querySelectorAll(selector: string): ArrayLike<unknown>;
};
type TextNode = { textContent: string | null };

let service: TurndownService | undefined;

/** One turndown service per process: its rules are stateless. */
function turndown(): TurndownService {
  if (service) return service;
  service = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "*",
  });
  service.remove(["script", "style", "noscript", "template", "iframe", "object", "embed", "canvas", "form"]);
  // Inline data: images can be megabytes of base64; keep their alt text only.
  service.addRule("dataImages", {
    filter: (node) => node.nodeName === "IMG" && (node.getAttribute("src") ?? "").startsWith("data:"),
    replacement: (_content, node) => (node as unknown as Element).getAttribute("alt") ?? "",
  });
  return service;
}

/**
 * Removes stripped elements and comments in one linear pass. An element that is never closed runs to the end
 * (as a browser would treat an unclosed script), so hostile markup cannot make this quadratic.
 */
export function stripNonContent(html: string): string {
  const out: string[] = [];
  let from = 0;
  STRIP_OPEN.lastIndex = 0;
  for (let m = STRIP_OPEN.exec(html); m; m = STRIP_OPEN.exec(html)) {
    out.push(html.slice(from, m.index));
    let end: number;
    if (m[0] === "<!--") {
      const close = html.indexOf("-->", m.index + 4);
      end = close < 0 ? html.length : close + 3;
    } else {
      const closer = new RegExp(`</${m[1]}\\s*>`, "gi");
      closer.lastIndex = m.index + m[0].length;
      const close = closer.exec(html);
      end = close ? close.index + close[0].length : html.length;
    }
    from = end;
    STRIP_OPEN.lastIndex = end;
  }
  out.push(html.slice(from));
  return out.join("");
}

/** Cuts HTML at a tag boundary at or before `budget` characters. */
function cut(html: string, budget: number): string {
  if (html.length <= budget) return html;
  const lt = html.lastIndexOf("<", budget);
  return html.slice(0, lt > budget / 2 ? lt : budget);
}

function absolutize(document: Doc, baseUrl: string): void {
  for (const [selector, attr] of [
    ["a[href]", "href"],
    ["img[src]", "src"],
  ] as const) {
    const nodes = document.querySelectorAll(selector);
    for (let i = 0; i < nodes.length; i++) {
      const el = nodes[i] as Element;
      const value = el.getAttribute(attr);
      if (!value || value.startsWith("#") || value.startsWith("data:")) continue;
      try {
        el.setAttribute(attr, new URL(value, baseUrl).href);
      } catch {
        // Leave a link that does not parse as it is.
      }
    }
  }
}

function parse(html: string, baseUrl: string): Doc {
  const { document } = parseHTML(html) as unknown as { document: Doc };
  absolutize(document, baseUrl);
  return document;
}

/**
 * The page's own main content: its only `<article>`, else its only `<main>`, when that holds at least half
 * of the body's text. Such a page says where its content is, so Readability (about half of a conversion's
 * time) is not needed to guess it.
 */
function markedContent(document: Doc): Node | undefined {
  const bodyText = textLength(document.body);
  if (bodyText === 0) return undefined;
  for (const tag of ["article", "main"]) {
    const found = document.querySelectorAll(tag);
    if (found.length !== 1) continue;
    if (textLength(found[0]) * 2 >= bodyText) return found[0] as Node;
  }
  return undefined;
}

function textLength(node: unknown): number {
  return ((node as TextNode | null)?.textContent ?? "").trim().length;
}

/** Main content (marked by the page or found by Readability), or the whole body when none is worth keeping. */
function mainContent(html: string, baseUrl: string): { title: string; markdown: string } {
  const document = parse(html, baseUrl);
  const title = (document.title ?? "").trim();
  const marked = markedContent(document);
  if (marked !== undefined) return { title, markdown: turndown().turndown(marked).trim() };
  let article: ReturnType<Readability<Node>["parse"]> = null;
  try {
    article = new Readability<Node>(document as never, { serializer: (node) => node as Node }).parse();
  } catch {
    article = null;
  }
  if (article?.content && (article.textContent ?? "").trim().length > 0) {
    return { title: title || (article.title ?? ""), markdown: turndown().turndown(article.content).trim() };
  }
  // Readability changes the DOM as it works; convert a fresh one.
  const fresh = parse(html, baseUrl);
  return {
    title,
    markdown: fresh.body
      ? turndown()
          .turndown(fresh.body as Node)
          .trim()
      : "",
  };
}

/**
 * Converts an HTML page to Markdown.
 * @example pageToMarkdown(html, { baseUrl: "https://example.com/", wantChars: 50_000 }).markdown
 */
export function pageToMarkdown(html: string, options: PageOptions): MarkdownPage {
  const cleaned = stripNonContent(html);
  if (options.selector !== undefined) return selected(cleaned, options.selector, options.baseUrl);
  let budget = Math.max(MIN_BUDGET, options.wantChars * 4);
  for (;;) {
    const slice = cut(cleaned, budget);
    const { title, markdown } = mainContent(slice, options.baseUrl);
    const rest = cleaned.length - slice.length;
    if (rest === 0 || markdown.length > options.wantChars) return { title, markdown, omittedHtmlChars: rest };
    budget *= 4;
  }
}

function selected(html: string, selector: string, baseUrl: string): MarkdownPage {
  const document = parse(html, baseUrl);
  let nodes: ArrayLike<unknown>;
  try {
    nodes = document.querySelectorAll(selector);
  } catch (error) {
    throw new SelectorError(`invalid CSS selector ${JSON.stringify(selector)}: ${(error as Error).message}`);
  }
  const parts: string[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const markdown = turndown()
      .turndown(nodes[i] as Node)
      .trim();
    if (markdown) parts.push(markdown);
  }
  return {
    title: (document.title ?? "").trim(),
    markdown: parts.join("\n\n"),
    omittedHtmlChars: 0,
    matches: nodes.length,
  };
}
