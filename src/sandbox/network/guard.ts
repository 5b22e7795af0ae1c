/**
 * @module sandbox/network/guard
 * What keeps the egress proxy inside its own failures: nothing a command or a server sends may throw into the
 * event loop (an uncaught exception ends toolgate and every command it runs). Every handler runs through
 * `guarded` or `onSettled`, which turn a throw into a closed connection; `inTurn` serves a connection's
 * pipelined requests one at a time, so one connection never holds more than one upstream socket.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

/** Pipelined requests one connection may have waiting; past it the connection is closed. */
const MAX_WAITING = 32;

/** Runs `fn`; a throw destroys `peer` (the command sees its connection close) instead of ending toolgate. */
export function guarded(fn: () => void, peer: { destroy(): unknown }): void {
  try {
    fn();
  } catch {
    peer.destroy();
  }
}

/** `ok` or `fail` by how `promise` settles; a throw from either runs `onThrow` (never an unhandled rejection). */
export function onSettled<T>(
  promise: Promise<T>,
  ok: (value: T) => void,
  fail: (error: Error) => void,
  onThrow: () => void,
): void {
  promise.then(ok, fail).catch(() => {
    try {
      onThrow();
    } catch {
      // nothing left to close
    }
  });
}

interface Turns {
  busy: boolean;
  waiting: (() => void)[];
}
const turns = new WeakMap<Duplex, Turns>();

/**
 * Runs `handle` for `req` once every earlier request of its connection has been answered (its response closed).
 * Node parses pipelined requests at once and would otherwise serve them all together; the connection is paused
 * while requests wait, and closed when too many do.
 */
export function inTurn(req: IncomingMessage, res: ServerResponse, handle: () => void): void {
  const socket = req.socket;
  let state = turns.get(socket);
  if (!state) {
    state = { busy: false, waiting: [] };
    turns.set(socket, state);
  }
  const own = state;
  const start = () => {
    own.busy = true;
    if (own.waiting.length === 0) socket.resume();
    res.once("close", () => {
      own.busy = false;
      const next = own.waiting.shift();
      if (next && !socket.destroyed) next();
    });
    handle();
  };
  if (!own.busy) {
    start();
    return;
  }
  if (own.waiting.length >= MAX_WAITING) {
    socket.destroy();
    return;
  }
  socket.pause();
  own.waiting.push(start);
}
