/**
 * @module sandbox/network/lookup-queue
 * A bound on one proxy's name lookups. `getaddrinfo` runs in libuv's thread pool, of which only two threads take
 * slow work like it, shared by the whole toolgate process, and a lookup in flight cannot be called back: a
 * command that asks for hundreds of names at once would hold them up for every later lookup of toolgate's,
 * long after it ended. So a proxy sends at most {@link MAX_LOOKUPS} at once; the rest wait here, and a waiting
 * lookup is dropped when its client leaves or the proxy closes — it never reaches the resolver.
 */
import type { ResolvedAddress, Resolver } from "../../net/index.js";

/** Lookups one proxy has in flight at once (libuv's share of slow threads is two of its four). */
export const MAX_LOOKUPS = 2;

interface Waiting {
  start(): void;
  drop(): void;
}

/** A resolver per request (`signal`: its client left, or the proxy closed) behind one shared bound. */
export function lookupQueue(lookup: Resolver, limit = MAX_LOOKUPS): (signal: AbortSignal) => Resolver {
  let running = 0;
  const waiting: Waiting[] = [];
  const next = () => {
    while (running < limit && waiting.length > 0) waiting.shift()?.start();
  };
  return (signal) => (host) =>
    new Promise<ResolvedAddress[]>((resolve, reject) => {
      if (signal.aborted) return reject(new Error("aborted"));
      const entry: Waiting = {
        start: () => {
          signal.removeEventListener("abort", entry.drop);
          running++;
          const done = () => {
            running--;
            next(); // before the caller hears back: the next waiting lookup is on its way first
          };
          lookup(host).then(
            (addresses) => {
              done();
              resolve(addresses);
            },
            (error: unknown) => {
              done();
              reject(error);
            },
          );
        },
        drop: () => {
          const at = waiting.indexOf(entry);
          if (at >= 0) waiting.splice(at, 1);
          reject(new Error("aborted"));
        },
      };
      signal.addEventListener("abort", entry.drop, { once: true });
      waiting.push(entry);
      next();
    });
}
