/**
 * @module console/peer-uid
 * Which local user a loopback TCP connection comes from. A loopback port is open to every user of the
 * machine, but the kernel records the owner of each socket: the connecting socket's row in /proc/net/tcp
 * (or tcp6) — the one whose local end is our peer's address and port and whose remote end is ours — holds
 * the uid that made it. The console serves only its own uid on loopback (console/serve.ts), which closes
 * the "another local user" class at once: guessing tokens, locking the owner out of sign-in, using a stolen
 * session. Linux only; elsewhere the check cannot be made and the console says so when it starts.
 */
import { readFileSync } from "node:fs";
import { endianness } from "node:os";

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
 * The uid that owns the connecting socket of `ends` (the peer's side), read from /proc/net; undefined when
 * no row names it (not Linux, or the peer is not on this machine).
 */
export function peerUid(ends: ConnectionEnds, procNet = "/proc/net"): number | undefined {
  const peer = procAddress(ends.remoteAddress, ends.remotePort);
  const ours = procAddress(ends.localAddress, ends.localPort);
  let table: string;
  try {
    table = readFileSync(`${procNet}/${peer.table}`, "utf8");
  } catch {
    return undefined;
  }
  for (const line of table.split("\n").slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
    const cols = line.trim().split(/\s+/);
    if (cols[1] === peer.text && cols[2] === ours.text) return Number(cols[7]);
  }
  return undefined;
}

/**
 * Why the console refuses a connection, or undefined: a loopback peer must be the console's own user.
 * A peer whose row cannot be found is refused too (fail closed): nobody can tell who it is.
 */
export function peerRefusal(ends: ConnectionEnds, ownUid: number, procNet = "/proc/net"): string | undefined {
  if (!isLoopbackAddress(ends.remoteAddress)) return undefined;
  const uid = peerUid(ends, procNet);
  if (uid === ownUid) return undefined;
  if (uid === undefined)
    return `refused: the console cannot tell which user this loopback connection comes from (no row for ${ends.remoteAddress} port ${ends.remotePort} in ${procNet}/tcp*), and serves only its owner (uid ${ownUid})`;
  return `refused: this console serves only the user who started it (uid ${ownUid}); this connection comes from uid ${uid}`;
}
