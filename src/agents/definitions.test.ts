import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadAgentDefinitions, parseAgentDefinition } from "./definitions.js";

describe("parseAgentDefinition", () => {
  it("reads front matter and body", () => {
    const text =
      "---\nname: researcher\ndescription: Finds things\ntools: [search_hybrid, 'entities_*']\nmax_depth: 3\n---\nYou research.\n";
    expect(parseAgentDefinition(text, "/x/researcher.md")).toEqual({
      name: "researcher",
      description: "Finds things",
      tools: ["search_hybrid", "entities_*"],
      maxDepth: 3,
      instructions: "You research.",
      file: "/x/researcher.md",
    });
  });

  it("defaults name to the file name, tools to none, max_depth to 2; accepts a comma list", () => {
    expect(parseAgentDefinition("---\ndescription: d\n---\n", "/x/helper.md")).toMatchObject({
      name: "helper",
      tools: [],
      maxDepth: 2,
      instructions: "",
    });
    expect(
      parseAgentDefinition("---\ndescription: d\ntools: read_file, grep\n---\n", "/x/a.md").tools,
    ).toEqual(["read_file", "grep"]);
  });

  it("reports unknown keys as warnings and still loads", () => {
    const warnings: string[] = [];
    parseAgentDefinition("---\ndescription: d\nmodel: big\n---\n", "/x/a.md", warnings);
    expect(warnings).toEqual(['/x/a.md: unknown key "model" ignored']);
  });

  it.each([
    [
      "no front matter",
      "just text",
      "no YAML front matter: the file must start with a line '---' and close it with '---'",
    ],
    [
      "unclosed front matter",
      "---\ndescription: d\n",
      "no YAML front matter: the file must start with a line '---' and close it with '---'",
    ],
    ["bad YAML", "---\ndescription: [unclosed\n---\n", /^the front matter is not valid YAML: /],
    ["a list as front matter", "---\n- a\n---\n", "the front matter must be a YAML mapping"],
    ["no description", "---\nname: a\n---\n", '"description" must be a non-empty string'],
    [
      "tools not a list",
      "---\ndescription: d\ntools: {a: 1}\n---\n",
      '"tools" must be a list of tool names or patterns',
    ],
    [
      "tools with a number",
      "---\ndescription: d\ntools: [1]\n---\n",
      '"tools" must be a list of tool names or patterns',
    ],
    [
      "negative max_depth",
      "---\ndescription: d\nmax_depth: -1\n---\n",
      '"max_depth" must be a whole number ≥ 0, not -1',
    ],
    [
      "fractional max_depth",
      "---\ndescription: d\nmax_depth: 1.5\n---\n",
      '"max_depth" must be a whole number ≥ 0, not 1.5',
    ],
    [
      "bad name",
      "---\nname: 'a b'\ndescription: d\n---\n",
      `"name" must be letters, digits, '_', '-' or '.', not "a b"`,
    ],
  ])("refuses %s", (_note, text, reason) => {
    expect(() => parseAgentDefinition(text, "/x/a.md")).toThrow(reason);
  });
});

describe("loadAgentDefinitions", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "toolgate-agents-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("has no agents when the folder does not exist", async () => {
    expect(await loadAgentDefinitions(root)).toEqual({ agents: [], problems: [], warnings: [] });
  });

  it("loads good files sorted by name, and reports malformed ones with file and reason", async () => {
    const dir = join(root, ".toolgate", "agents");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "zeta.md"), "---\ndescription: last\ntools: ['*']\n---\nZ");
    await writeFile(join(dir, "alpha.md"), "---\ndescription: first\n---\nA");
    await writeFile(join(dir, "broken.md"), "---\ndescription: [\n---\n");
    await writeFile(join(dir, "dup.md"), "---\nname: alpha\ndescription: again\n---\n");
    await writeFile(join(dir, "notes.txt"), "not an agent");
    const loaded = await loadAgentDefinitions(root);
    expect(loaded.agents.map((a) => a.name)).toEqual(["alpha", "zeta"]);
    expect(loaded.problems).toHaveLength(2);
    expect(loaded.problems[0]?.file).toBe(join(dir, "broken.md"));
    expect(loaded.problems[0]?.reason).toMatch(/^the front matter is not valid YAML: /);
    expect(loaded.problems[1]).toEqual({
      file: join(dir, "dup.md"),
      reason: `agent "alpha" is already defined in ${join(dir, "alpha.md")}`,
    });
  });
});
