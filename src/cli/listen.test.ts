import { describe, expect, it } from "vitest";
import { UsageError } from "./exit-codes.js";
import { parseListen } from "./listen.js";

describe("parseListen", () => {
  it.each([
    ["127.0.0.1:8931", { host: "127.0.0.1", port: 8931 }],
    [":8931", { host: "127.0.0.1", port: 8931 }],
    ["[::1]:0", { host: "::1", port: 0 }],
    ["localhost:65535", { host: "localhost", port: 65535 }],
    ["0.0.0.0:80", { host: "0.0.0.0", port: 80 }],
  ])("reads %s", (value, want) => {
    expect(parseListen(value)).toEqual(want);
  });

  it.each(["8931", "127.0.0.1", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:80x", "::1:80", "[::1]80", ""])(
    "refuses %j as bad usage naming the flag",
    (value) => {
      expect(() => parseListen(value, "--listen")).toThrow(UsageError);
      expect(() => parseListen(value, "--listen")).toThrow(/^--listen wants HOST:PORT/);
    },
  );
});
