/**
 * @module planner/extract-url
 * HTTP(S) URLs and Confluence references in free text. A URL ends before whitespace, non-ASCII text (CJK),
 * quotes and angle brackets; trailing punctuation and unbalanced closing brackets are trimmed, balanced ones
 * (Wikipedia's `Foo_(bar)`) kept. A Confluence reference is the word confluence/wiki, a page URL or a page id.
 */

// RFC 3986 characters minus quotes; everything else (spaces, CJK, full-width punctuation, <>"'`) ends a URL.
export const URL_CANDIDATE = /https?:\/\/[A-Za-z0-9\-._~:/?#[\]@!$&()*+,;=%]+/gi;
const TRAILING_PUNCTUATION = /[.,;:!?*]$/;
const PAIRS: Record<string, string> = { ")": "(", "]": "[" };

function count(text: string, ch: string): number {
  let n = 0;
  for (const c of text) if (c === ch) n++;
  return n;
}

/** Trims trailing punctuation and closing brackets that have no opening partner inside the URL. */
function trimUrl(raw: string): string {
  let url = raw;
  for (;;) {
    const last = url.at(-1) ?? "";
    if (TRAILING_PUNCTUATION.test(last)) url = url.slice(0, -1);
    else if (last in PAIRS && count(url, last) > count(url, PAIRS[last]!)) url = url.slice(0, -1);
    else return url;
  }
}

/**
 * HTTP(S) URLs in `text`, in order, without duplicates; each parses with `new URL` and has a host.
 * @example findUrls("总结https://example.com的内容") // ["https://example.com"]
 */
export function findUrls(text: string): string[] {
  const urls: string[] = [];
  for (const match of text.matchAll(URL_CANDIDATE)) {
    const url = trimUrl(match[0]);
    try {
      if (!new URL(url).hostname) continue;
    } catch {
      continue;
    }
    if (!urls.includes(url)) urls.push(url);
  }
  return urls;
}

/** The first URL in `text`, if any. */
export function findUrl(text: string): string | undefined {
  return findUrls(text)[0];
}

const CONFLUENCE_WORD = /(?<![A-Za-z0-9_])(?:confluence|wikis?)(?![A-Za-z0-9_])/i;
const PAGE_ID_IN_URL = /(?:\/pages\/(?:viewpage\.action\?pageId=)?|[?&]pageId=)(\d{2,})/i;
const PAGE_ID_CUE =
  /(?<![A-Za-z])(?:page[\s_-]*id|page|pageid)\s*[:#=：]?\s*(\d{3,})(?![0-9])|页面\s*(?:ID|id|编号|号)?\s*[:#=：]?\s*(\d{3,})(?![0-9])/i;

// Words inside URLs count only for Confluence-shaped URLs: `en.wikipedia.org/wiki/X` is not a wiki page of ours.
const CONFLUENCE_URL = /\/wiki\/spaces\/|\/display\/[^/]+\/|\/pages\/|[?&]pageId=|\/\/confluence\./i;
const DISPLAY_TITLE = /\/display\/[^/?#]+\/([^/?#]+)/i;

/** A Confluence reference found in a text. */
export interface ConfluenceRef {
  /** A page title from a `/display/SPACE/Page+Title` URL. */
  title?: string;
  /** The page id, from a page URL or an explicit "page 12345" / "页面 12345". */
  pageId?: string;
  /** True when the text says confluence or wiki as a word (not "wikipedia"). */
  mentioned: boolean;
}

/**
 * The Confluence reference in `text`, or `undefined` when there is none.
 * @example findConfluenceRef("see https://acme.atlassian.net/wiki/spaces/ENG/pages/98765/Deploy") // { pageId: "98765", mentioned: true }
 */
export function findConfluenceRef(text: string): ConfluenceRef | undefined {
  let pageId: string | undefined;
  for (const url of findUrls(text)) {
    const m = PAGE_ID_IN_URL.exec(url);
    if (m) {
      pageId = m[1];
      break;
    }
  }
  if (!pageId) {
    const cue = PAGE_ID_CUE.exec(text);
    if (cue) pageId = cue[1] ?? cue[2];
  }
  const urls = findUrls(text);
  const mentioned =
    urls.some((url) => CONFLUENCE_URL.test(url)) || CONFLUENCE_WORD.test(text.replace(URL_CANDIDATE, " "));
  if (!pageId && !mentioned) return undefined;
  const ref: ConfluenceRef = { mentioned };
  if (pageId) ref.pageId = pageId;
  for (const url of urls) {
    const title = DISPLAY_TITLE.exec(url)?.[1];
    if (title) {
      ref.title = decodeTitle(title);
      break;
    }
  }
  return ref;
}

function decodeTitle(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " ")).trim();
  } catch {
    return raw.replace(/\+/g, " ").trim();
  }
}
