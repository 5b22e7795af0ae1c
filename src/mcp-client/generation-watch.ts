/**
 * @module mcp-client/generation-watch
 * Tells a served MCP client when the tools behind a rebuilding registry changed: asks for the current
 * generation now and then (cheap when nothing changed: the pool stats its config files) and calls the
 * listener when its number moves — after an `.mcp.json` edit, or an upstream server's own `list_changed`
 * (the pool marks itself stale; the next ask rebuilds it).
 */

export interface GenerationWatchOptions {
  /** How often to ask (ms). Default 1000. */
  intervalMs?: number;
  /** Reports a failed ask (the watch goes on). */
  onError?(error: Error): void;
}

/**
 * Watches `current()`'s generation number; returns a function that stops watching.
 * @example const stop = watchGenerations(() => gate.tools(), () => serving.notifyToolsChanged());
 */
export function watchGenerations(
  current: () => Promise<{ number: number }>,
  changed: () => void,
  options: GenerationWatchOptions = {},
): () => void {
  let last: number | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    try {
      const { number } = await current();
      if (stopped) return;
      if (last !== undefined && number !== last) changed();
      last = number;
    } catch (error) {
      options.onError?.(error as Error);
    }
    // One ask at a time: the next is scheduled when this one is done (a rebuild may take a while).
    if (!stopped) timer = setTimeout(tick, options.intervalMs ?? 1000).unref();
  };
  void tick();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
