/**
 * @module policy/flow/url-read
 * A URL argument as the injection guard reads it: its host (lower case, no trailing dot) and its whole form
 * (`href`), exactly as the WHATWG parser (`new URL`) gives them. The common shape — `http(s)://` and a plain
 * host name, then a path, query or fragment of characters the parser keeps as they are — is read by one scan
 * of the text, with no parser and no allocation when the text is already in its normal form; every other
 * text goes to the parser. The scan says "not mine" at the first character it is not sure of, so it never
 * answers differently from the parser (tested on a table of tricky URLs and on generated ones,
 * `url-read.test.ts`).
 */

/** A URL as the guard reads it. */
export interface ParsedUrl {
  /** Lower case, without a trailing dot. */
  host: string;
  /** `new URL(text).href`. */
  href: string;
  /**
   * The host's parent domains a trusted host could be (two labels or more, never an address): worked out
   * once per URL read, so the guard's subdomain check allocates nothing.
   */
  parents: readonly string[];
}

const NONE: readonly string[] = Object.freeze([]);

/** `a.b.example.com` → `["b.example.com", "example.com"]`; a bare top-level name or an address is never one. */
function parentsOf(host: string): readonly string[] {
  let out: string[] | undefined;
  for (let at = host.indexOf("."); at !== -1; at = host.indexOf(".", at + 1)) {
    const parent = host.slice(at + 1);
    if (!parent.includes(".") || /^[\d.]+$/.test(parent)) continue;
    if (out === undefined) out = [parent];
    else out.push(parent);
  }
  return out ?? NONE;
}

/** The URL as the guard reads it, from a host already lower case without a trailing dot. */
function read(host: string, href: string): ParsedUrl {
  return { host, href, parents: parentsOf(host) };
}

const HOST = 1;
const TAIL = 2;
/**
 * By ASCII code: `HOST` for what the scan accepts in a host name (letters, digits, `-`, `.`), `TAIL` for what
 * the parser keeps unchanged in a path, query and fragment of an http(s) URL (no percent-encode set holds
 * them). Everything else — space, controls and tab or newline (which the parser strips), `\` (a slash to
 * it), quotes, `<>`, backquote, braces, `^`, `|`, brackets, non-ASCII — sends the text to the parser.
 */
const CLASS = new Uint8Array(128);
for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")
  CLASS[c.charCodeAt(0)] = HOST | TAIL;
for (const c of "_~!$&()*+,;=:@/?#%") CLASS[c.charCodeAt(0)] = TAIL;

const SLASH = 0x2f;
const DOT = 0x2e;

/** Whether `text` starts with `scheme://` (ASCII, any case); `scheme` is lower case. */
function startsWithScheme(text: string, scheme: string): boolean {
  for (let i = 0; i < scheme.length; i++)
    if ((text.charCodeAt(i) | 0x20) !== scheme.charCodeAt(i)) return false;
  return text.startsWith("://", scheme.length);
}

/**
 * The common shape read without the parser, or undefined when the text is anything else. Sent to the parser:
 * a port, user info, an IP address or a host whose last label starts with a digit (the parser reads numbers
 * as IPv4), an `xn--` label (punycode the parser checks), an empty label or a trailing dot, a `/.` or `%2e`
 * anywhere after the host (dot segments the parser removes), and every character `CLASS` does not accept.
 */
export function quickUrl(text: string): ParsedUrl | undefined {
  const at = startsWithScheme(text, "https") ? 8 : startsWithScheme(text, "http") ? 7 : 0;
  if (at === 0) return undefined;
  const scheme = at === 8 ? "https://" : "http://";
  let upper = !text.startsWith(scheme);
  let end = at;
  let label = at;
  for (; end < text.length; end++) {
    const c = text.charCodeAt(end);
    if (c === DOT) {
      if (end === label) return undefined;
      label = end + 1;
      continue;
    }
    if (c >= 128 || (CLASS[c]! & HOST) === 0) break;
    if (c < 0x61 && c > 0x40) upper = true;
    // `xn--` starting a label: punycode, which the parser checks.
    if (end === label + 3 && c === 0x2d && text.charCodeAt(end - 1) === 0x2d) {
      if ((text.charCodeAt(label) | 0x20) === 0x78 && (text.charCodeAt(label + 1) | 0x20) === 0x6e)
        return undefined;
    }
  }
  // An empty last label (the host empty or ending with a dot), or a last label that could be a number.
  if (end === label) return undefined;
  const last = text.charCodeAt(label);
  if (last >= 0x30 && last <= 0x39) return undefined;
  const host = text.slice(at, end);
  const tail = end;
  if (end < text.length) {
    const first = text.charCodeAt(end);
    // The host ends at a path, query or fragment, never at anything else (`:`, `@`, `%`, ...).
    if (first !== SLASH && first !== 0x3f && first !== 0x23) return undefined;
    for (; end < text.length; end++) {
      const c = text.charCodeAt(end);
      if (c >= 128 || (CLASS[c]! & TAIL) === 0) return undefined;
      if (c === DOT && text.charCodeAt(end - 1) === SLASH) return undefined;
      if (c === 0x25 && text.charCodeAt(end + 1) === 0x32 && (text.charCodeAt(end + 2) | 0x20) === 0x65)
        return undefined;
    }
  }
  const lower = upper ? host.toLowerCase() : host;
  if (!upper && text.charCodeAt(tail) === SLASH) return read(lower, text);
  const rest = text.slice(tail);
  return read(lower, `${scheme}${lower}${rest.startsWith("/") ? rest : `/${rest}`}`);
}

/** What the parser gives, or null when the text is no URL or has no host. */
export function parsedUrl(text: string): ParsedUrl | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const name = url.hostname.toLowerCase();
  const host = name.endsWith(".") ? name.slice(0, -1) : name;
  return host === "" ? null : read(host, url.href);
}

/**
 * URLs already read, by their exact text. A session asks about the same URLs again (a page re-read, a
 * link followed, a call retried or explained), and a string always parses the same way, so the cache cannot
 * change an answer. Two generations stand in for a least-recently-used list without a delete per hit: a hit
 * in the older one moves to the newer; when the newer is full the older is dropped. Bounded (2 × 512 URLs of
 * at most 2,048 characters), so a model inventing URLs cannot grow it.
 */
let recent = new Map<string, ParsedUrl | null>();
let older = new Map<string, ParsedUrl | null>();
const GENERATION = 512;
const CACHED_CHARS = 2048;

/**
 * A URL argument read once: its host as the guard compares it and its whole form, or undefined when it is
 * not a string or not a URL with a host.
 * @example readUrl("https://Docs.Example.com/a") // { host: "docs.example.com", href: "https://docs.example.com/a" }
 */
export function readUrl(value: unknown): ParsedUrl | undefined {
  if (typeof value !== "string") return undefined;
  if (value.length > CACHED_CHARS) return quickUrl(value) ?? parsedUrl(value) ?? undefined;
  // The cache first: a text asked about again costs one lookup, and the host it gives is a string the
  // trusted-host set has already hashed.
  let parsed = recent.get(value);
  if (parsed !== undefined) return parsed ?? undefined;
  parsed = older.get(value);
  if (parsed === undefined) parsed = quickUrl(value) ?? parsedUrl(value);
  if (recent.size >= GENERATION) {
    older = recent;
    recent = new Map();
  }
  recent.set(value, parsed);
  return parsed ?? undefined;
}
