/**
 * @module core/flow-session
 * The context label of one conversation (docs/injection.md): the join of the labels of every result that
 * entered a model's context, and the URL hosts seen in trusted content (the user's own words, trusted
 * results) — a fetch to one of those is not a new way out. The agent loop keeps one per session, a library
 * host passes one to `execute(call, { session })`, the MCP server one per client session. Only joins: a
 * label never goes down, so compaction (which drops messages, never this object) keeps the join.
 */
import { CLEAN, joinLabels, type Label } from "./labels.js";

/** What the policy reads of a context. */
export interface ContextView {
  readonly label: Label;
  /** Hosts (lower case) named in trusted content. */
  readonly trustedHosts: ReadonlySet<string>;
  /**
   * Whole URLs (normalised) that untrusted public content in the context wrote out: fetching one of those
   * carries nothing but what its author wrote (a link followed, as a browser would).
   */
  readonly links?: ReadonlySet<string>;
}

/** Hosts a text names in `http(s)://` URLs. Bounded: a huge result is read for its first 256 KiB only. */
const URL_HOST = /\bhttps?:\/\/([a-z0-9.-]+)(?::\d+)?/gi;
const SCAN_CHARS = 256 * 1024;

/** Whole URLs in text: up to white space, quotes or brackets; trailing punctuation is not part of one. */
const URL_WHOLE = /\bhttps?:\/\/[^\s"'<>`()[\]{}]+/gi;
/** How many links a session keeps (the first ones; a link beyond them is a new destination, so asked). */
export const MAX_LINKS = 4096;

/** A URL as the guard compares it (`new URL(...).href`), or undefined when it is not one. */
export function normalUrl(text: string): string | undefined {
  try {
    return new URL(text).href;
  } catch {
    return undefined;
  }
}

/** The whole URLs in `text`, normalised. */
export function urlsIn(text: string): string[] {
  const urls: string[] = [];
  for (const match of text.slice(0, SCAN_CHARS).matchAll(URL_WHOLE)) {
    const url = normalUrl(match[0].replace(/[.,;:!?]+$/, ""));
    if (url) urls.push(url);
  }
  return urls;
}

/** The hosts of the URLs in `text`, lower case, without a trailing dot. */
export function hostsIn(text: string): string[] {
  const hosts: string[] = [];
  for (const match of text.slice(0, SCAN_CHARS).matchAll(URL_HOST))
    hosts.push(match[1]!.toLowerCase().replace(/\.$/, ""));
  return hosts;
}

/**
 * One conversation's context label.
 * @example
 * const session = new FlowSession();
 * session.noteTrusted("Summarise https://docs.example.com/api"); // the user's task
 * await gate.execute(call, { session }); // the result's label joins session.label
 */
export class FlowSession implements ContextView {
  #label: Label = CLEAN;
  readonly #hosts = new Set<string>();
  readonly #links = new Set<string>();

  get label(): Label {
    return this.#label;
  }

  get trustedHosts(): ReadonlySet<string> {
    return this.#hosts;
  }

  get links(): ReadonlySet<string> {
    return this.#links;
  }

  /**
   * Joins a result's label; a trusted result's URL hosts count as seen in trusted context, an untrusted
   * public result's whole URLs as links it offers.
   */
  add(label: Label, content?: string): void {
    this.#label = joinLabels(this.#label, label);
    if (!content) return;
    if (label.integrity === "trusted") this.noteTrusted(content);
    else if (label.confidentiality === "public") this.#noteLinks(urlsIn(content));
  }

  #noteLinks(urls: Iterable<string>): void {
    for (const url of urls) {
      if (this.#links.size >= MAX_LINKS) return;
      this.#links.add(url);
    }
  }

  /** Text the user (or their own configuration) wrote: its URL hosts are trusted destinations. */
  noteTrusted(text: string): void {
    for (const host of hostsIn(text)) this.#hosts.add(host);
  }

  /** A clean session for a sub-agent: it starts with nothing read (its result comes back labelled). */
  child(): FlowSession {
    return new FlowSession();
  }

  /** What a transcript keeps, to resume with the same label. */
  toJSON(): { label: Label; trustedHosts: string[]; links: string[] } {
    return { label: this.#label, trustedHosts: [...this.#hosts], links: [...this.#links] };
  }

  /** A session resumed from what `toJSON` wrote (a transcript's last label). */
  static from(saved: {
    label?: Label;
    trustedHosts?: readonly string[];
    links?: readonly string[];
  }): FlowSession {
    const session = new FlowSession();
    if (saved.label) session.add(saved.label);
    for (const host of saved.trustedHosts ?? []) session.#hosts.add(host);
    session.#noteLinks((saved.links ?? []).flatMap((l) => normalUrl(l) ?? []));
    return session;
  }
}
