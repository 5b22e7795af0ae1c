/**
 * @module utils/load-once
 * A lazy loader run at most once at a time: heavy dependencies (the MCP SDK) are imported on first use, so a
 * front door that re-exports their users stays cheap to import.
 */

/** `load` run once; a failed load is not kept, so the next caller tries again. */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    if (pending) return pending;
    const started = load();
    pending = started;
    started.catch(() => {
      if (pending === started) pending = undefined;
    });
    return started;
  };
}
