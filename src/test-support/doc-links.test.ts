import { describe, expect, it } from "vitest";
import { headingAnchors, relativeLinks, slug } from "./doc-links.js";

describe("slug", () => {
  it.each([
    ["### `read_file`", "read_file"],
    ["The shell's environment", "the-shells-environment"],
    ["Network safety (SSRF)", "network-safety-ssrf"],
    ["`.mcp.json` — external MCP servers", "mcpjson--external-mcp-servers"],
    ["Chat with a local model: `toolgate chat`", "chat-with-a-local-model-toolgate-chat"],
    ["Quick start 1: the command, no model", "quick-start-1-the-command-no-model"],
    ["See [the docs](x.md)", "see-the-docs"],
  ])("%s → %s", (heading, anchor) => {
    expect(slug(heading.replace(/^#+\s*/, ""))).toBe(anchor);
  });
});

describe("headingAnchors", () => {
  it("numbers repeats and ignores headings inside code blocks", () => {
    const md = ["# Tools", "## `web_fetch`", "```sh", "# not a heading", "```", "## `web_fetch`"].join("\n");
    expect([...headingAnchors(md)]).toEqual(["tools", "web_fetch", "web_fetch-1"]);
  });
});

describe("relativeLinks", () => {
  it("finds relative links with their line and anchor, not URLs, code or inline code", () => {
    const md = [
      "See [cli](docs/cli.md) and [exit codes](docs/cli.md#exit-codes).", // 1
      "[web](https://example.com) [mail](mailto:a@b.c) [here](#install)", // 2
      "`[not](a.md)`", // 3
      "```md", // 4
      "[not](b.md)", // 5
      "```", // 6
    ].join("\n");
    expect(relativeLinks(md, "README.md")).toEqual([
      { where: "README.md:1", path: "docs/cli.md" },
      { where: "README.md:1", path: "docs/cli.md", anchor: "exit-codes" },
      { where: "README.md:2", path: "", anchor: "install" },
    ]);
  });
});
