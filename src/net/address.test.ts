import { describe, expect, it } from "vitest";
import { classifyAddress, v6ToGroups } from "./address.js";

describe("classifyAddress", () => {
  const refused: Array<[string, string]> = [
    ["127.0.0.1", "loopback address"],
    ["127.255.3.4", "loopback address"],
    ["10.1.2.3", "private address"],
    ["172.16.0.1", "private address"],
    ["172.31.255.255", "private address"],
    ["192.168.1.1", "private address"],
    ["169.254.1.1", "link-local address"],
    ["169.254.169.254", "cloud metadata address"],
    ["100.100.100.200", "cloud metadata address"],
    ["100.64.0.1", "carrier-grade NAT (shared) address"],
    ["100.127.255.255", "carrier-grade NAT (shared) address"],
    ["0.0.0.0", "unspecified ('this network') address"],
    ["0.1.2.3", "unspecified ('this network') address"],
    ["224.0.0.1", "multicast address"],
    ["239.255.255.250", "multicast address"],
    ["255.255.255.255", "broadcast address"],
    ["240.0.0.1", "reserved address"],
    ["198.18.0.1", "benchmarking address"],
    ["::", "unspecified address"],
    ["::1", "loopback address"],
    ["::ffff:127.0.0.1", "IPv4-mapped IPv6 address embedding 127.0.0.1, a loopback address"],
    ["::ffff:7f00:1", "IPv4-mapped IPv6 address embedding 127.0.0.1, a loopback address"],
    ["::ffff:a9fe:a9fe", "IPv4-mapped IPv6 address embedding 169.254.169.254, a cloud metadata address"],
    ["::7f00:1", "IPv4-compatible IPv6 address embedding 127.0.0.1, a loopback address"],
    ["::ffff:0:7f00:1", "IPv4-translated IPv6 address embedding 127.0.0.1, a loopback address"],
    ["64:ff9b::7f00:1", "NAT64 address embedding 127.0.0.1, a loopback address"],
    ["64:ff9b::10.0.0.1", "NAT64 address embedding 10.0.0.1, a private address"],
    ["64:ff9b:1::1", "local-use NAT64 address"],
    ["2002:7f00:1::", "6to4 address embedding 127.0.0.1, a loopback address"],
    ["2002:c0a8:101::1", "6to4 address embedding 192.168.1.1, a private address"],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo address embedding 127.0.0.1, a loopback address"],
    ["fc00::1", "private (unique local) address"],
    ["fd12:3456::1", "private (unique local) address"],
    ["fd00:ec2::254", "cloud metadata address"],
    ["fe80::1", "link-local address"],
    ["fe80::1%eth0", "link-local address"],
    ["fec0::1", "site-local address"],
    ["ff02::1", "multicast address"],
    ["2001:db8::1", "documentation address"],
    ["not-an-ip", "not an IP address"],
  ];
  it.each(refused)("refuses %s (%s)", (ip, why) => {
    expect(classifyAddress(ip)).toBe(why);
  });

  const publicAddresses = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "172.32.0.1",
    "100.128.0.1",
    "169.253.255.255",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ];
  it.each(publicAddresses)("accepts public address %s", (ip) => {
    expect(classifyAddress(ip)).toBeUndefined();
  });
});

describe("v6ToGroups", () => {
  it.each([
    ["::1", [0, 0, 0, 0, 0, 0, 0, 1]],
    ["1::", [1, 0, 0, 0, 0, 0, 0, 0]],
    ["::ffff:1.2.3.4", [0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]],
    ["1:2:3:4:5:6:7:8", [1, 2, 3, 4, 5, 6, 7, 8]],
  ])("parses %s", (ip, groups) => {
    expect(v6ToGroups(ip)).toEqual(groups);
  });
  it.each(["1:2:3", "1::2::3", "::g", "1:2:3:4:5:6:7:8:9", "::1.2.3.256"])("rejects %s", (ip) => {
    expect(v6ToGroups(ip)).toBeUndefined();
  });
});
