/**
 * @module console/peer-uid
 * Which local user a TCP connection comes from. The console's port is open to every user of the machine,
 * but the kernel records the owner of each socket: the connecting socket's row in /proc/net/tcp (or tcp6)
 * — the one whose local end is our peer's address and port and whose remote end is ours — holds the uid
 * that made it, and the inode of the socket while a process holds it. The console serves only its own uid
 * (console/serve.ts), whatever address a local peer connects from, which closes the "another local user"
 * class at once: guessing tokens, locking the owner out of sign-in, using a stolen token or session. The
 * rows are read by console/peer-table.ts. Linux only; elsewhere the check cannot be made and the console
 * says so when it starts.
 */

import type { Socket } from "node:net";
import { endianness } from "node:os";
import type { PeerTable, RowKey, SocketRow } from "./peer-table.js";

/** The ends of one TCP connection as the server sees them. */
export interface ConnectionEnds {
  remoteAddress: string;
  remotePort: number;
  localAddress: string;
  localPort: number;
}

/** Whether `address` is a loopback address (127.0.0.0/8, ::1, or 127.x mapped into IPv6). */
export function isLoopbackAddress(address: string): boolean {
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === "::1";
}

/** The 16 bytes of an IPv6 address (`::` shortening and a dotted IPv4 tail allowed), or undefined. */
function ipv6Bytes(address: string): number[] | undefined {
  let text = address;
  const tail: number[] = [];
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    tail.push(...dotted.slice(1).map(Number));
    text = `${text.slice(0, dotted.index)}0:0`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const head = groups(halves[0] ?? "");
  const rest = halves.length === 2 ? groups(halves[1] ?? "") : [];
  const missing = 8 - head.length - rest.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const words = [...head, ...Array<string>(missing).fill("0"), ...rest];
  if (words.some((w) => !/^[0-9a-f]{1,4}$/i.test(w))) return undefined;
  const bytes = words.flatMap((w) => [Number.parseInt(w, 16) >> 8, Number.parseInt(w, 16) & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

const hex2 = (byte: number) => byte.toString(16).toUpperCase().padStart(2, "0");

/**
 * An address and port as /proc/net/tcp{,6} writes them: the address as 32-bit words each in the machine's
 * byte order, the port in hex. Which table holds it: IPv4 addresses are in `tcp`, IPv6 ones in `tcp6`.
 * @example procAddress("127.0.0.1", 8080) // { table: "tcp", text: "0100007F:1F90" } on little-endian
 */
export function procAddress(address: string, port: number): { table: "tcp" | "tcp6"; text: string } {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  const bytes = v4 ? v4.slice(1).map(Number) : ipv6Bytes(address);
  if (!bytes) throw new Error(`not an IP address: ${JSON.stringify(address)}`);
  let text = "";
  for (let i = 0; i < bytes.length; i += 4) {
    const word = bytes.slice(i, i + 4);
    text += (endianness() === "LE" ? word.reverse() : word).map(hex2).join("");
  }
  return { table: v4 ? "tcp" : "tcp6", text: `${text}:${port.toString(16).toUpperCase().padStart(4, "0")}` };
}

/**
 * The rows that can name the connecting socket of `ends` (the peer's side: its local end is our remote
 * one): in the table of its family, and for an IPv4-mapped peer in both (its socket may be IPv4 or IPv6).
 */
export function peerRowKeys(ends: ConnectionEnds): RowKey[] {
  const keys: RowKey[] = [];
  const pairs: [string, string][] = [[ends.remoteAddress, ends.localAddress]];
  const unmapped = (a: string) => (a.startsWith("::ffff:") && a.includes(".") ? a.slice(7) : undefined);
  const [remote4, local4] = [unmapped(ends.remoteAddress), unmapped(ends.localAddress)];
  if (remote4 && local4) pairs.push([remote4, local4]);
  for (const [remote, local] of pairs) {
    const peer = procAddress(remote, ends.remotePort);
    keys.push({ table: peer.table, pair: `${peer.text} ${procAddress(local, ends.localPort).text}` });
  }
  return keys;
}

/** Who a connection comes from: a local user (verified by the kernel's table), or another machine. */
export type Peer = { uid: number } | { remote: string } | { refused: string };

/**
 * Who the connection of `ends` comes from, given the rows found for its peer socket (fail closed). Any row
 * means the peer is on this machine, whatever its source address (red team P1: a local user can connect
 * to 127.0.0.1 from the machine's other addresses): it must be the owner's, and still held by a process —
 * a closed socket's row has no inode and shows uid 0 (red team P2), which proves nobody. No row: another
 * machine, which only a console started with `remoteAllowed` serves (its token protects it); a loopback
 * peer without a row is refused.
 */
export function judgePeer(
  ends: ConnectionEnds,
  rows: readonly SocketRow[],
  ownUid: number,
  remoteAllowed: boolean,
): Peer {
  if (rows.length === 0) {
    if (remoteAllowed && !isLoopbackAddress(ends.remoteAddress)) return { remote: ends.remoteAddress };
    return {
      refused: `refused: the console cannot tell which user this connection comes from (no socket of ${ends.remoteAddress} port ${ends.remotePort} in /proc/net/tcp*), and serves only its owner (uid ${ownUid})`,
    };
  }
  if (rows.some((r) => r.inode === 0))
    return {
      refused: `refused: the connecting socket (${ends.remoteAddress} port ${ends.remotePort}) was already closed, so the console cannot tell whose it was, and serves only its owner (uid ${ownUid})`,
    };
  const other = rows.find((r) => r.uid !== ownUid);
  if (other)
    return {
      refused: `refused: this console serves only the user who started it (uid ${ownUid}); this connection comes from uid ${other.uid}`,
    };
  return { uid: ownUid };
}

/** The ends of an accepted socket, or undefined when it is already gone. */
function endsOf(socket: Socket): ConnectionEnds | undefined {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  return remoteAddress && remotePort && localAddress && localPort
    ? { remoteAddress, remotePort, localAddress, localPort }
    : undefined;
}

/**
 * The peer checks of one console: each connection is looked up once, when it is accepted (before the
 * peer can close its socket and leave an ownerless row), and its requests wait for that answer.
 */
export class PeerChecks {
  private readonly checks = new Map<string, Promise<Peer>>();

  constructor(
    private readonly table: PeerTable,
    private readonly ownUid: number,
    private readonly remoteAllowed: boolean,
  ) {}

  /** The check of `socket`'s connection, started now unless it was (a TLS socket shares its TCP socket's). */
  of(socket: Socket): Promise<Peer> {
    const ends = endsOf(socket);
    if (!ends)
      return Promise.resolve({
        refused: "refused: the console cannot tell where this connection comes from",
      });
    const key = `${ends.remoteAddress} ${ends.remotePort} ${ends.localAddress} ${ends.localPort}`;
    let check = this.checks.get(key);
    if (!check) {
      check = this.table
        .lookup(peerRowKeys(ends))
        .then((rows) => judgePeer(ends, rows, this.ownUid, this.remoteAllowed));
      this.checks.set(key, check);
      socket.once("close", () => this.checks.delete(key));
    }
    return check;
  }
}
