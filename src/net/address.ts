/**
 * @module net/address
 * Which IP addresses a fetch may connect to. Classifies IPv4 and IPv6 addresses (including IPv4 embedded in
 * IPv6: mapped, compatible, NAT64, 6to4, Teredo) and says why a non-public one is refused. An address of this
 * machine's own interfaces (a server's public IPv4, a laptop's global IPv6) is refused as loopback is — every
 * service bound to the wildcard address answers there — and so is any address of a network an interface is
 * directly attached to (the neighbours a private range would name, on a public prefix).
 */
import { isIPv4, isIPv6 } from "node:net";
import { networkInterfaces } from "node:os";

/** Known cloud metadata endpoints, named in the refusal so the reason is obvious. */
const METADATA_V4 = new Set(["169.254.169.254", "169.254.170.2", "100.100.100.200", "192.0.0.192"]);
const METADATA_V6 = new Set(["fd00:ec2:0:0:0:0:0:254"]);

/** [first octets as a 32-bit number, prefix length, why]. Order matters only for the wording. */
const V4_RANGES: ReadonlyArray<readonly [string, number, string]> = [
  ["0.0.0.0", 8, "unspecified ('this network') address"],
  ["10.0.0.0", 8, "private address"],
  ["100.64.0.0", 10, "carrier-grade NAT (shared) address"],
  ["127.0.0.0", 8, "loopback address"],
  ["169.254.0.0", 16, "link-local address"],
  ["172.16.0.0", 12, "private address"],
  ["192.0.0.0", 24, "IETF protocol assignment address"],
  ["192.0.2.0", 24, "documentation address"],
  ["192.88.99.0", 24, "6to4 relay anycast address"],
  ["192.168.0.0", 16, "private address"],
  ["198.18.0.0", 15, "benchmarking address"],
  ["198.51.100.0", 24, "documentation address"],
  ["203.0.113.0", 24, "documentation address"],
  ["224.0.0.0", 4, "multicast address"],
  ["240.0.0.0", 4, "reserved address"],
];

const V4_TABLE = V4_RANGES.map(([base, bits, why]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { base: ((v4ToNumber(base) ?? 0) & mask) >>> 0, mask, why };
});

/** Parses a dotted-quad IPv4 address to a 32-bit unsigned number (undefined if not one). */
export function v4ToNumber(ip: string): number | undefined {
  const parts = ip.split(".");
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const v = Number(part);
    if (v > 255) return undefined;
    n = n * 256 + v;
  }
  return n >>> 0;
}

function numberToV4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}

/** Parses an IPv6 address (with optional embedded dotted IPv4 tail, no zone) to 8 16-bit groups. */
export function v6ToGroups(ip: string): number[] | undefined {
  let text = ip.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  const lastColon = text.lastIndexOf(":");
  const maybeV4 = text.slice(lastColon + 1);
  if (maybeV4.includes(".")) {
    // Rewrite a dotted IPv4 tail as two hex groups, then parse as plain IPv6.
    const n = v4ToNumber(maybeV4);
    if (n === undefined) return undefined;
    text = `${text.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (s: string) =>
    s === "" ? [] : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  const head = parse(halves[0] ?? "");
  const rest = halves.length === 2 ? parse(halves[1] ?? "") : [];
  if ([...head, ...rest].some((g) => Number.isNaN(g))) return undefined;
  let groups: number[];
  if (halves.length === 2) {
    const fill = 8 - head.length - rest.length;
    if (fill < 1) return undefined;
    groups = [...head, ...new Array<number>(fill).fill(0), ...rest];
  } else {
    groups = head;
  }
  return groups.length === 8 ? groups : undefined;
}

/** Why an IPv4 address is refused, or undefined when it is public. */
export function classifyV4(ip: string): string | undefined {
  const n = v4ToNumber(ip);
  if (n === undefined) return "unparseable IPv4 address";
  if (METADATA_V4.has(ip)) return "cloud metadata address";
  if (n === 0xffffffff) return "broadcast address";
  for (const range of V4_TABLE) {
    if ((n & range.mask) >>> 0 === range.base) return range.why;
  }
  return ownV4(n);
}

/** Why an IPv6 address is refused (checking any IPv4 address it embeds), or undefined when it is public. */
export function classifyV6(ip: string): string | undefined {
  const g = v6ToGroups(ip);
  if (!g) return "unparseable IPv6 address";
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = (hi: number, lo: number) => numberToV4(((hi << 16) | lo) >>> 0);
  const viaV4 = (v4: string, how: string) => {
    const why = classifyV4(v4);
    return why ? `${how} embedding ${v4}, a ${why}` : undefined;
  };
  if (METADATA_V6.has(g.map((x) => x.toString(16)).join(":"))) return "cloud metadata address";
  const firstSixZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (firstSixZero && g5 === 0 && g6 === 0 && g7 === 0) return "unspecified address";
  if (firstSixZero && g5 === 0 && g6 === 0 && g7 === 1) return "loopback address";
  if (firstSixZero && g5 === 0xffff) return viaV4(embedded(g6, g7), "IPv4-mapped IPv6 address");
  if (firstSixZero && g5 === 0) return viaV4(embedded(g6, g7), "IPv4-compatible IPv6 address");
  // ::ffff:0:a.b.c.d (IPv4-translated, RFC 2765).
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) {
    return viaV4(embedded(g6, g7), "IPv4-translated IPv6 address");
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return viaV4(embedded(g6, g7), "NAT64 address");
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return "local-use NAT64 address";
  if (g0 === 0x2002) return viaV4(embedded(g1, g2), "6to4 address");
  if (g0 === 0x2001 && g1 === 0) {
    // Teredo: the client's IPv4 is stored inverted in the last 32 bits.
    return (
      viaV4(embedded(g6 ^ 0xffff, g7 ^ 0xffff), "Teredo address") ?? viaV4(embedded(g2, g3), "Teredo address")
    );
  }
  if (g0 === 0x2001 && g1 === 0x0db8) return "documentation address";
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return "discard-only address";
  if ((g0 & 0xfe00) === 0xfc00) return "private (unique local) address";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local address";
  if ((g0 & 0xffc0) === 0xfec0) return "site-local address";
  if ((g0 & 0xff00) === 0xff00) return "multicast address";
  return ownV6(g);
}

/** Shorter prefixes than these are not taken as "directly attached" (they would cover much of the internet). */
const MIN_ATTACHED_V4 = 16;
const MIN_ATTACHED_V6 = 32;
const OWN = "address of this machine's own network interfaces (services bound to every address answer there)";
const ATTACHED = "address of a network this machine is directly attached to";

/** Read at each check (one getifaddrs call): an address added after start-up counts at once. */
function interfaceAddresses() {
  return Object.values(networkInterfaces()).flatMap((list) => list ?? []);
}

/** Why an otherwise public IPv4 address (as a number) is refused: this machine's own or a neighbour's. */
function ownV4(n: number): string | undefined {
  let why: string | undefined;
  for (const own of interfaceAddresses()) {
    const address = own.family === "IPv4" ? v4ToNumber(own.address) : undefined;
    if (address === undefined) continue;
    if (address === n) return OWN;
    const bits = Number(own.cidr?.split("/")[1] ?? 32);
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if (bits >= MIN_ATTACHED_V4 && ((address ^ n) & mask) >>> 0 === 0) why = ATTACHED;
  }
  return why;
}

/** Why an otherwise public IPv6 address (as groups) is refused: this machine's own or a neighbour's. */
function ownV6(groups: readonly number[]): string | undefined {
  let why: string | undefined;
  for (const own of interfaceAddresses()) {
    const address = own.family === "IPv6" ? v6ToGroups(own.address) : undefined;
    if (!address) continue;
    if (address.every((g, i) => g === groups[i])) return OWN;
    const bits = Number(own.cidr?.split("/")[1] ?? 128);
    if (bits >= MIN_ATTACHED_V6 && samePrefix(address, groups, bits)) why = ATTACHED;
  }
  return why;
}

function samePrefix(a: readonly number[], b: readonly number[], bits: number): boolean {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if (((a[i] ?? 0) & mask) !== ((b[i] ?? 0) & mask)) return false;
  }
  return true;
}

/**
 * Why connecting to `ip` is refused, or undefined when it is a public address.
 * @example classifyAddress("::ffff:7f00:1") // "IPv4-mapped IPv6 address embedding 127.0.0.1, a loopback address"
 */
export function classifyAddress(ip: string): string | undefined {
  if (isIPv4(ip)) return classifyV4(ip);
  if (isIPv6(ip)) return classifyV6(ip);
  return "not an IP address";
}
