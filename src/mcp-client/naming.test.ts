import { describe, expect, it } from "vitest";
import { TOOL_NAME_PATTERN } from "../core/index.js";
import { assignPublicNames, type McpRoute, sanitizeNamePart } from "./naming.js";

function names(routes: McpRoute[], reserved?: Set<string>) {
  return Object.fromEntries(
    [...assignPublicNames(routes, reserved)].map(([name, r]) => [`${r.server}/${r.tool}`, name]),
  );
}

describe("assignPublicNames", () => {
  it("names a clean pair mcp__<server>__<tool> and routes it back", () => {
    const table = assignPublicNames([{ server: "github", tool: "create_issue" }]);
    expect([...table]).toEqual([["mcp__github__create_issue", { server: "github", tool: "create_issue" }]]);
  });

  it("keeps a_b + c and a + b_c apart, each routed to its own server (no parsing at underscores)", () => {
    const table = assignPublicNames([
      { server: "a_b", tool: "c" },
      { server: "a", tool: "b_c" },
    ]);
    expect(table.get("mcp__a_b__c")).toEqual({ server: "a_b", tool: "c" });
    expect(table.get("mcp__a__b_c")).toEqual({ server: "a", tool: "b_c" });
  });

  it("gives both members of an exact collision (a__b + c vs a + b__c) a hash suffix", () => {
    const got = names([
      { server: "a__b", tool: "c" },
      { server: "a", tool: "b__c" },
    ]);
    expect(got["a__b/c"]).toMatch(/^mcp__a__b__c_[0-9a-f]{6}$/);
    expect(got["a/b__c"]).toMatch(/^mcp__a__b__c_[0-9a-f]{6}$/);
    expect(got["a__b/c"]).not.toBe(got["a/b__c"]);
  });

  it("suffixes two servers that sanitize to one name, and keeps an exact name that meets a sanitized one", () => {
    const got = names([
      { server: "my.server", tool: "run" },
      { server: "my server", tool: "run" },
      { server: "my_server", tool: "run" },
    ]);
    expect(got["my_server/run"]).toBe("mcp__my_server__run");
    expect(got["my.server/run"]).toMatch(/^mcp__my_server__run_[0-9a-f]{6}$/);
    expect(got["my server/run"]).toMatch(/^mcp__my_server__run_[0-9a-f]{6}$/);
    expect(new Set(Object.values(got)).size).toBe(3);
  });

  it("keeps a sanitized name without suffix when nothing collides", () => {
    expect(names([{ server: "my.srv", tool: "do thing" }])).toEqual({
      "my.srv/do thing": "mcp__my_srv__do_thing",
    });
  });

  it("shortens long names to 64 characters with a hash, keeping distinct tools distinct", () => {
    const long = "t".repeat(80);
    const got = names([
      { server: "s", tool: `${long}1` },
      { server: "s", tool: `${long}2` },
    ]);
    for (const name of Object.values(got)) {
      expect(name.length).toBeLessThanOrEqual(64);
      expect(name).toMatch(TOOL_NAME_PATTERN);
    }
    expect(got[`s/${long}1`]).not.toBe(got[`s/${long}2`]);
  });

  it("never gives out a reserved (built-in) name", () => {
    const got = names([{ server: "x", tool: "y" }], new Set(["mcp__x__y"]));
    expect(got["x/y"]).toMatch(/^mcp__x__y_[0-9a-f]{6}$/);
  });

  it("is deterministic regardless of input order", () => {
    const routes = [
      { server: "a.b", tool: "c" },
      { server: "a_b", tool: "c" },
      { server: "a b", tool: "c" },
    ];
    expect(names(routes)).toEqual(names([...routes].reverse()));
  });

  it.each([
    ["unicode", "résumé", "r_sum_"],
    ["slashes and dots", "a/b.c", "a_b_c"],
    ["dashes kept", "a-b", "a-b"],
  ])("sanitizes %s", (_note, input, output) => {
    expect(sanitizeNamePart(input)).toBe(output);
  });
});
