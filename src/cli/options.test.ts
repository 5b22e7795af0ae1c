import { describe, expect, it } from "vitest";
import { UsageError } from "./exit-codes.js";
import { GLOBAL_OPTIONS, splitGlobals } from "./globals.js";
import { optionLines, parseOptions, renderCommandHelp } from "./options.js";

const OPTIONS = {
  yes: { type: "boolean", short: "y", description: "approve" },
  batch: { type: "string", value: "FILE", description: "one call per line" },
} as const;

describe("splitGlobals (the global option table)", () => {
  it.each([
    [["call", "read_file", "--json"], { json: true }, ["call", "read_file"]],
    [["--workspace", "/w", "tools"], { workspace: "/w" }, ["tools"]],
    [
      ["--config=c.toml", "policy", "validate", "p.toml"],
      { config: "c.toml" },
      ["policy", "validate", "p.toml"],
    ],
    [["agents", "list", "--json", "--debug"], { json: true, debug: true }, ["agents", "list"]],
    [["call", "--help"], { help: true }, ["call"]],
    [["-h"], { help: true }, []],
    [["-V"], { version: true }, []],
    [["call", "--batch", "-", "--yes"], {}, ["call", "--batch", "-", "--yes"]],
    [["call", "x", "--", "--json"], {}, ["call", "x", "--json"]],
    [["call", "-yV"], {}, ["call", "-yV"]],
  ])("%j → globals %j, rest %j", (argv, globals, rest) => {
    expect(splitGlobals(argv)).toEqual({
      globals: { json: false, debug: false, help: false, version: false, ...globals },
      rest,
    });
  });

  it.each([[["tools", "--workspace"]], [["tools", "--policy="]], [["tools", "--config", "--json"]]])(
    "refuses %j: a value is missing",
    (argv) => {
      expect(() => splitGlobals(argv)).toThrowError(UsageError);
      expect(() => splitGlobals(argv)).toThrowError(/^--(workspace|policy|config) needs a value$/);
    },
  );
});

describe("parseOptions", () => {
  it("parses a command's flags and positionals", () => {
    expect(parseOptions("toolgate call", ["read_file", "-y", "--batch=f"], OPTIONS)).toEqual({
      values: { yes: true, batch: "f" },
      positionals: ["read_file"],
    });
  });

  it.each([
    [["--foo"], 'unknown option --foo for "toolgate call" (see toolgate call --help)'],
    [["-x"], 'unknown option -x for "toolgate call" (see toolgate call --help)'],
    [["--batch"], 'option --batch needs a value for "toolgate call" (see toolgate call --help)'],
    [["--yes=1"], 'option --yes takes no value for "toolgate call" (see toolgate call --help)'],
  ])("refuses %j naming the flag and the command", (argv, message) => {
    expect(() => parseOptions("toolgate call", argv, OPTIONS)).toThrowError(UsageError);
    expect(() => parseOptions("toolgate call", argv, OPTIONS)).toThrowError(message);
  });

  it("names the sub-command, and points at the command's help", () => {
    expect(() => parseOptions("toolgate policy check", ["--strict"], {})).toThrowError(
      'unknown option --strict for "toolgate policy check" (see toolgate policy --help)',
    );
  });
});

describe("help text", () => {
  it("lines up flags and what they do", () => {
    expect(optionLines(OPTIONS)).toEqual([
      "  -y, --yes         approve",
      "      --batch FILE  one call per line",
    ]);
  });

  it("a command's help has its usage, summary, flags and examples", () => {
    const text = renderCommandHelp("toolgate call TOOL | toolgate call --batch FILE", {
      summary: "Runs a call.",
      options: OPTIONS,
      examples: ["toolgate call ls"],
    });
    expect(text).toBe(
      [
        "Usage: toolgate call TOOL",
        "       toolgate call --batch FILE",
        "",
        "Runs a call.",
        "",
        "Options:",
        "  -y, --yes         approve",
        "      --batch FILE  one call per line",
        "",
        "Global flags (--workspace, --policy, --config, --json, --debug): see toolgate --help",
        "",
        "Example:",
        "  toolgate call ls",
        "",
      ].join("\n"),
    );
  });

  it("every global flag has a description", () => {
    for (const spec of Object.values(GLOBAL_OPTIONS)) expect(spec.description.length).toBeGreaterThan(5);
  });
});
