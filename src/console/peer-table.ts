/**
 * @module console/peer-table
 * Reads the kernel's socket tables (/proc/net/tcp and tcp6) for the console's peer checks without letting
 * anyone stall it (red team A1): a table costs O(every TCP socket of the machine) to read, a number any
 * local user controls, so it is read asynchronously (the kernel writes it out on a worker thread, never on
 * the event loop), one read at a time, and each read answers every lookup that was waiting when it began —
 * a flood of connections makes reads no more frequent, and a lookup waits for at most the read under way
 * and the next one, whoever else is connecting. Matching is one pass over the rows with a set of the
 * wanted address pairs.
 */
import { readFile } from "node:fs/promises";

/** Which table a row lives in. */
export type ProcTable = "tcp" | "tcp6";

/** One socket's row: its owner and its inode (0 when no process holds it any more). */
export interface SocketRow {
  uid: number;
  inode: number;
}

/** An address pair as the tables write it: `local_address rem_address` (see console/peer-uid.ts procAddress). */
export interface RowKey {
  table: ProcTable;
  /** e.g. `0100007F:A1B2 0100007F:1F90`. */
  pair: string;
}

interface Waiting {
  keys: readonly RowKey[];
  resolve: (rows: SocketRow[]) => void;
}

/**
 * Adds to `found` the rows of `text` (one table) whose address pair is in `wanted`. The pair starts two
 * characters after the row's `sl:` and is of fixed width (two hex address:port fields and a space).
 */
export function collectRows(text: string, wanted: ReadonlySet<string>, found: Map<string, SocketRow[]>) {
  if (wanted.size === 0) return;
  const width = (wanted.values().next().value as string).length;
  let start = text.indexOf("\n") + 1; // the header
  while (start > 0 && start < text.length) {
    const end = text.indexOf("\n", start);
    const line = text.slice(start, end === -1 ? text.length : end);
    start = end + 1;
    const at = line.indexOf(": ") + 2;
    const pair = line.slice(at, at + width);
    if (!wanted.has(pair)) continue;
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
    const cols = line.trim().split(/\s+/);
    const rows = found.get(pair) ?? [];
    rows.push({ uid: Number(cols[7]), inode: Number(cols[9]) });
    found.set(pair, rows);
  }
}

/** The socket tables of one machine, read on demand by the lookups waiting for them. */
export class PeerTable {
  private waiting: Waiting[] = [];
  private reading = false;

  constructor(private readonly procNet = "/proc/net") {}

  /**
   * The rows named by `keys`, from a read of the tables that begins after this call (so a connection
   * accepted before it is in it). Tables that cannot be read give no rows.
   */
  lookup(keys: readonly RowKey[]): Promise<SocketRow[]> {
    return new Promise((resolve) => {
      this.waiting.push({ keys, resolve });
      if (!this.reading) void this.drain();
    });
  }

  /** Reads while lookups wait: each read answers every lookup waiting when it began. */
  private async drain(): Promise<void> {
    this.reading = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting;
        this.waiting = [];
        const found = new Map<string, SocketRow[]>();
        for (const table of ["tcp", "tcp6"] as const) {
          const wanted = new Set(
            batch.flatMap((w) => w.keys.filter((k) => k.table === table).map((k) => k.pair)),
          );
          if (wanted.size === 0) continue;
          const text = await readFile(`${this.procNet}/${table}`)
            .then((b) => b.toString("latin1"))
            .catch(() => "");
          collectRows(text, wanted, found);
        }
        for (const w of batch) w.resolve(w.keys.flatMap((k) => found.get(k.pair) ?? []));
      }
    } finally {
      this.reading = false;
    }
  }
}
