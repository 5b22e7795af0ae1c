/**
 * @module net/vet
 * The address rules every outbound connection of toolgate keeps, written once: a destination's name is checked,
 * resolved once, and every address vetted (no loopback, private, link-local or metadata address unless the
 * allow list names the host); the socket is then pinned to the vetted addresses. `safeFetch` uses it for each
 * hop, the shell sandbox's egress proxy for each CONNECT and each forwarded request.
 */
import { createRequire } from "node:module";
import { isIP, type LookupFunction } from "node:net";
import { classifyAddress } from "./address.js";
import { networkError } from "./errors.js";
import { blockedName, type HostRule, isAllowedTarget, type Target } from "./target.js";

/** One resolved address. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all its addresses. Injectable so tests can map a name to any address. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** How refusals are worded: what was being done, and how to permit the host. */
export interface VetWording {
  /** `fetch` → "refused to fetch URL", "network error fetching URL". */
  verb: string;
  /** The -ing form used in network errors (`fetching`). */
  doing: string;
  /** Appended to a refusal: how to permit the host. */
  hint: string;
  /** How the destination is named in messages (default: the URL). */
  subject?: string;
}

/** `safeFetch`'s wording (its messages are pinned by tests and documented). */
export const FETCH_WORDING: VetWording = {
  verb: "fetch",
  doing: "fetching",
  hint: "(add the host to allow_hosts to permit it)",
};

// dns is loaded on the first lookup, not with every `toolgate` start-up.
const load = createRequire(import.meta.url);
const dnsPromises = () => (load("node:dns") as typeof import("node:dns")).promises;

/** Name resolution through the system resolver: every address, in the resolver's order. */
export const defaultLookup: Resolver = (host) => dnsPromises().lookup(host, { all: true, verbatim: true });

/**
 * Checks the name and every resolved address; returns the addresses a socket may use (all vetted). Throws a
 * `network` NetError (`blocked_host`, `blocked_address`, `dns`) naming the reason.
 * @example const addresses = await vetTarget(toTarget(url), parseAllowHosts([]), defaultLookup, signal);
 */
export async function vetTarget(
  target: Target,
  rules: readonly HostRule[],
  lookup: Resolver,
  signal: AbortSignal,
  wording: VetWording = FETCH_WORDING,
): Promise<ResolvedAddress[]> {
  const allowed = isAllowedTarget(target, rules);
  const url = target.url.href;
  const subject = wording.subject ?? url;
  const { verb, doing, hint } = wording;
  if (!allowed) {
    const why = blockedName(target.host);
    if (why) {
      throw networkError(
        "blocked_host",
        url,
        `refused to ${verb} ${subject}: ${target.host} is ${why} ${hint}`,
      );
    }
  }
  const family = isIP(target.host);
  let addresses: ResolvedAddress[];
  if (family !== 0) {
    addresses = [{ address: target.host, family }];
  } else {
    try {
      addresses = await abortable(lookup(target.host), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      const code = (error as { code?: string }).code ?? "unknown error";
      throw networkError(
        "dns",
        url,
        `network error ${doing} ${subject}: DNS lookup of ${target.host} failed (${code})`,
      );
    }
    if (addresses.length === 0) {
      throw networkError("dns", url, `network error ${doing} ${subject}: ${target.host} has no addresses`);
    }
  }
  if (!allowed) {
    for (const { address } of addresses) {
      const why = classifyAddress(address);
      if (!why) continue;
      const who = family !== 0 ? address : `${target.host} resolves to ${address}, which`;
      const article = /^[aeiou]/i.test(why) ? "an" : "a";
      throw networkError(
        "blocked_address",
        url,
        `refused to ${verb} ${subject}: ${who} is ${article} ${why} ${hint}`,
        {
          address,
        },
      );
    }
  }
  return addresses;
}

/**
 * A socket `lookup` that answers only with the vetted addresses, so the connection cannot reach anything
 * else whatever DNS says by then (Node tries them in turn when it asks for all, as with happy eyeballs).
 */
export function pinnedLookup(resolved: readonly ResolvedAddress[]): LookupFunction {
  return (_host, opts, callback) => {
    if ((opts as { all?: boolean }).all) {
      (callback as (e: null, a: ResolvedAddress[]) => void)(null, [...resolved]);
    } else callback(null, resolved[0]?.address ?? "", resolved[0]?.family ?? 4);
  };
}

/** `promise`, or a rejection as soon as `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error("aborted"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
