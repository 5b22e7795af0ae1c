/**
 * (spec 002) end to end: every acceptance criterion once, through `createToolgate` →
 * `gate.execute` with the real policy engine and its path plug-in — validation errors, typed errors naming the
 * path, and allow / ask / deny under the built-in default policy and a file policy denying `secrets/**`.
 */
import { existsSync } from "node:fs";
import { readFile, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import iconv from "iconv-lite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConfirmationDetails } from "../core/index.js";
import type { Toolgate } from "../index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { openGate, outcome, SECRETS_POLICY, writeTree } from "./fixtures.js";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
const CORPUS: Record<string, string | Buffer> = {
  "ten.txt": Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join(""),
  "big.txt": "x".repeat(2000),
  "image.png": PNG,
  "latin1.txt": Buffer.from("café crème\n", "latin1"),
  "utf16.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode("héllo\r\nwörld\r\n", "utf-16le")]),
  "docs/a.md": "alpha\n",
  "docs/b.md": "bravo\n",
  ".gitignore": "ignored/\n*.log\n",
  "find/ignored/needle.ts": "needle ignored\n",
  "find/app.log": "needle log\n",
  "find/src/a.ts": "const needle = 1;\n// NEEDLE upper\n",
  "find/src/b.js": "function needle() {}\n",
  "find/src/deep/c.ts": "no match\n",
  "find/src/.hidden.ts": "needle hidden\n",
  "secrets/key.txt": "s3cret\n",
  ".env": "API_KEY=1\n",
  "certs/server.pem": "-----BEGIN PRIVATE KEY-----\n",
};

let root: string;
let gate: Toolgate; // built-in default policy, nobody to answer an ask
let approving: Toolgate; // built-in default policy, a person who approves every ask
const asked: ConfirmationDetails[] = [];

beforeAll(async () => {
  root = await tempWorkspace();
  await writeTree(root, CORPUS);
  await symlink(".env", join(root, "env-alias.txt"));
  gate = await openGate(root, { policy: false, config: { files: { max_file_bytes: 1000 } } });
  approving = await openGate(root, { policy: false });
  approving.bus.onConfirmation(async (request) => {
    asked.push(request.details);
    return { approved: true };
  });
});
afterAll(async () => {
  await Promise.all([gate.close(), approving.close()]);
  await rm(root, { recursive: true, force: true });
});

const read = (args: object) => gate.execute({ name: "read_file", args });

describe("reading, through the pipeline (built-in default policy allows reads)", () => {
  it("whole file and line ranges, allowed by the built-in read-only rule", async () => {
    const whole = await read({ path: "ten.txt" });
    expect(whole).toMatchObject({ ok: true, decision: "allow", rule: "builtin#read-only", risk: "low" });
    expect(whole.llmContent).toBe(CORPUS["ten.txt"]);
    expect((await read({ path: "ten.txt", startLine: 9 })).llmContent).toBe("line 9\nline 10\n");
    expect((await read({ path: "ten.txt", endLine: 2 })).llmContent).toBe("line 1\nline 2\n");
    expect((await read({ path: "ten.txt", startLine: 4, endLine: 5 })).llmContent).toBe("line 4\nline 5\n");
  });

  it("a missing file is file_not_found naming the path", async () => {
    const result = await read({ path: "nope/missing.txt" });
    expect(result.error).toEqual({
      type: "file_not_found",
      message: "file not found: nope/missing.txt",
      details: { path: "nope/missing.txt", reason: "not_found" },
    });
    expect(result.llmContent).toBe("Error (file_not_found): file not found: nope/missing.txt");
  });

  it("a file over the configured limit is file_too_large with size and limit", async () => {
    expect((await read({ path: "big.txt" })).error).toMatchObject({
      type: "file_too_large",
      message:
        'file "big.txt" is too large: 2000 bytes, limit 1000 bytes; read a range with startLine and endLine',
      details: { path: "big.txt", size: 2000, limit: 1000 },
    });
  });

  it("a binary file is described, not dumped", async () => {
    expect((await read({ path: "image.png" })).llmContent).toBe(
      "image.png is a binary file (PNG image, 12 B); its content is not shown.",
    );
  });

  it("read_many_files combines files under path headers", async () => {
    const result = await gate.execute({ name: "read_many_files", args: { patterns: ["docs/*.md"] } });
    expect(result).toMatchObject({ ok: true, decision: "allow" });
    expect(result.llmContent).toBe("--- docs/a.md ---\nalpha\n\n--- docs/b.md ---\nbravo\n");
  });

  it("legacy and UTF-16 encodings are detected, decoded and reported", async () => {
    const latin1 = await read({ path: "latin1.txt" });
    expect(latin1.llmContent).toBe("café crème\n");
    expect(latin1.data).toMatchObject({ encoding: "iso-8859-1" });
    const utf16 = await read({ path: "utf16.txt" });
    expect(utf16.returnDisplay).toBe("Read utf16.txt (2 lines, utf-16le with BOM, CRLF)");
  });

  it.each([
    ["read_file", { path: ".env" }, "builtin#sensitive-read"],
    ["read_file", { path: "certs/server.pem" }, "builtin#sensitive-read"],
    ["read_file", { path: "env-alias.txt" }, "builtin#sensitive-read"],
    ["read_many_files", { paths: ["ten.txt", ".env"] }, "builtin#sensitive-read-many"],
  ])("reads of secrets ask (and, unanswered, are denied): %s %j", async (name, args, rule) => {
    const result = await gate.execute({ name, args });
    expect(result).toMatchObject({ decision: "ask", rule, error: { type: "denied_by_policy" } });
    expect(result.llmContent).not.toContain("API_KEY");
  });

  it.each([
    [{}, "invalid arguments for read_file: missing required parameter 'path'"],
    [{ path: 1 }, "invalid arguments for read_file: parameter 'path' must be a string"],
    [
      { path: "ten.txt", startLine: 0 },
      "invalid arguments for read_file: parameter 'startLine' must be >= 1",
    ],
    [
      { path: "ten.txt", startLine: 3, endLine: 2 },
      "invalid arguments for read_file: startLine (3) must not be greater than endLine (2)",
    ],
    [{ path: "ten.txt", extra: 1 }, "invalid arguments for read_file: unknown parameter 'extra'"],
  ])("invalid arguments %j are invalid_params before the policy is asked", async (args, message) => {
    const result = await read(args);
    expect(result).toMatchObject({ ok: false, decision: null, error: { type: "invalid_params", message } });
  });
});

describe("writing, through the pipeline", () => {
  it("under the built-in default a write asks; with nobody to answer it is denied and nothing is written", async () => {
    const result = await gate.execute({ name: "write_file", args: { path: "new.txt", content: "hi\n" } });
    expect(outcome(result)).toEqual({ decision: "ask", error: "denied_by_policy" });
    expect(result.error?.message).toBe(
      "write_file was denied: it was not approved: no one was available to approve it",
    );
    expect(existsSync(join(root, "new.txt"))).toBe(false);
  });

  it("an approved write creates the file and its parents; the person saw a diff", async () => {
    asked.length = 0;
    const args = { path: "made/deep/new.txt", content: "hello\n" };
    const result = await approving.execute({ name: "write_file", args });
    expect(result).toMatchObject({
      ok: true,
      decision: "ask",
      llmContent: "Created made/deep/new.txt (6 B, utf-8, LF)",
    });
    expect(await readFile(join(root, "made/deep/new.txt"), "utf8")).toBe("hello\n");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ toolName: "write_file", type: "edit", risk: "medium" });
    expect(asked[0]!.diff).toContain("+hello\n");
  });

  it("an existing file without overwrite is file_exists; with overwrite it is replaced", async () => {
    const call = (overwrite: boolean) =>
      approving.execute({ name: "write_file", args: { path: "docs/a.md", content: "ALPHA\n", overwrite } });
    expect((await call(false)).error).toEqual({
      type: "file_exists",
      message: "file already exists: docs/a.md (set overwrite to true to replace it)",
      details: { path: "docs/a.md" },
    });
    expect(await readFile(join(root, "docs/a.md"), "utf8")).toBe("alpha\n");
    expect((await call(true)).ok).toBe(true);
    expect(await readFile(join(root, "docs/a.md"), "utf8")).toBe("ALPHA\n");
  });

  it("edit_file applies every edit; names the failing edit; counts ambiguous matches", async () => {
    await approving.execute({
      name: "write_file",
      args: { path: "e.ts", content: "const a = 1;\nconst b = 2;\nfoo\nfoo\n" },
    });
    const edit = (edits: object[]) => approving.execute({ name: "edit_file", args: { path: "e.ts", edits } });
    const ok = await edit([
      { oldText: "a = 1", newText: "a = 10" },
      { oldText: "b = 2", newText: "b = 20" },
    ]);
    expect(ok.llmContent).toBe("Edited e.ts: 2 edits, 2 replacements (utf-8, LF)");
    const missing = await edit([
      { oldText: "a = 10", newText: "a = 11" },
      { oldText: "zzz", newText: "" },
    ]);
    expect(missing.error).toMatchObject({ type: "edit_failed", details: { path: "e.ts", edit: 2 } });
    expect(missing.error?.message).toMatch(/^edit 2 of 2 failed: oldText not found in e\.ts: "zzz"/);
    const ambiguous = await edit([{ oldText: "foo", newText: "bar" }]);
    expect(ambiguous.error?.message).toMatch(/^edit 1 of 1 failed: oldText matches 2 times in e\.ts/);
    expect(await readFile(join(root, "e.ts"), "utf8")).toBe("const a = 10;\nconst b = 20;\nfoo\nfoo\n");
  });

  it.each([
    ["UTF-8 with BOM", (t: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(t)])],
    [
      "UTF-16LE with BOM, CRLF",
      (t: string) =>
        Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(t.replace(/\n/g, "\r\n"), "utf-16le")]),
    ],
    ["Latin-1", (t: string) => Buffer.from(t, "latin1")],
  ])("%s survives read → edit → read byte-exactly except for the edit", async (name, encode) => {
    const path = `enc-${name.replace(/\W+/g, "-")}.txt`;
    await writeTree(root, { [path]: encode("première ligne\nà éditer\nfin\n") });
    expect(
      (await approving.execute({ name: "read_file", args: { path } })).llmContent.replace(/\r/g, ""),
    ).toBe("première ligne\nà éditer\nfin\n");
    const edit = await approving.execute({
      name: "edit_file",
      args: { path, edits: [{ oldText: "à éditer", newText: "éditée" }] },
    });
    expect(edit.error).toBeUndefined();
    expect((await readFile(join(root, path))).equals(encode("première ligne\néditée\nfin\n"))).toBe(true);
  });

  it("a write outside the allowed root is path_not_allowed naming the path and the roots", async () => {
    const result = await approving.execute({
      name: "write_file",
      args: { path: "../escape.txt", content: "x" },
    });
    expect(result.error).toMatchObject({
      type: "path_not_allowed",
      message: `path "../escape.txt" is outside the workspace roots; allowed roots: ${root}`,
      details: { path: "../escape.txt", reason: "outside_root" },
    });
    expect(existsSync(join(root, "..", "escape.txt"))).toBe(false);
  });
});

describe("discovery, through the pipeline (.gitignore respected)", () => {
  const run = async (name: string, args: object) => {
    const result = await gate.execute({ name, args: { path: "find", ...args } });
    expect(result).toMatchObject({ ok: true, decision: "allow", rule: "builtin#read-only" });
    return result.llmContent;
  };

  it("glob: matches, maxResults, hidden files only on request", async () => {
    expect(await run("glob", { pattern: "**/*.ts" })).toBe("find/src/a.ts\nfind/src/deep/c.ts");
    expect(await run("glob", { pattern: "**/*.ts", maxResults: 1 })).toBe(
      "find/src/a.ts\n(1 more not shown; limit 1, set maxResults or narrow the pattern)",
    );
    expect(await run("glob", { pattern: "**/*.ts", includeHidden: true })).toBe(
      "find/src/.hidden.ts\nfind/src/a.ts\nfind/src/deep/c.ts",
    );
  });

  it("grep: lines with path and number, case rules, filePattern", async () => {
    expect(await run("grep", { pattern: "needle" })).toBe(
      "find/src/a.ts:1: const needle = 1;\nfind/src/a.ts:2: // NEEDLE upper\nfind/src/b.js:1: function needle() {}",
    );
    expect(await run("grep", { pattern: "NEEDLE", caseSensitive: true })).toBe(
      "find/src/a.ts:2: // NEEDLE upper",
    );
    expect(await run("grep", { pattern: "needle", filePattern: "*.js" })).toBe(
      "find/src/b.js:1: function needle() {}",
    );
  });

  it("ls: formatted listing, recursive, maxDepth", async () => {
    expect(await run("ls", {})).toBe("find/\nsrc/");
    const top = "find/src/\ndeep/\n.hidden.ts  14 B\na.ts  34 B\nb.js  21 B";
    expect(await run("ls", { path: "find/src" })).toBe(top);
    expect(await run("ls", { path: "find/src", recursive: true })).toBe(
      "find/src/\ndeep/\n  c.ts  9 B\n.hidden.ts  14 B\na.ts  34 B\nb.js  21 B",
    );
    expect(await run("ls", { path: "find/src", recursive: true, maxDepth: 1 })).toBe(top);
  });
});

describe("a policy file denying writes to secrets/** (path conditions on canonical paths)", () => {
  let secrets: Toolgate;
  beforeAll(async () => {
    await symlink("secrets", join(root, "alias"));
    secrets = await openGate(root, { policyText: SECRETS_POLICY });
  });
  afterAll(() => secrets.close());

  it.each([
    ["write_file", { path: "secrets/key.txt", content: "pwned", overwrite: true }],
    ["write_file", { path: "secrets/new.txt", content: "pwned" }],
    ["write_file", { path: "./docs/../secrets/key.txt", content: "pwned", overwrite: true }],
    ["write_file", { path: "alias/key.txt", content: "pwned", overwrite: true }],
    ["edit_file", { path: "secrets/key.txt", edits: [{ oldText: "s3cret", newText: "pwned" }] }],
    ["edit_file", { path: "alias/key.txt", edits: [{ oldText: "s3cret", newText: "pwned" }] }],
  ])("denies %s %j with the rule's message", async (name, args) => {
    const result = await secrets.execute({ name, args });
    expect(result).toMatchObject({ decision: "deny", rule: "inline policy#1" });
    expect(result.error).toEqual({
      type: "denied_by_policy",
      message: `${name} was denied: secrets are read-only`,
    });
    expect(await readFile(join(root, "secrets/key.txt"), "utf8")).toBe("s3cret\n");
    expect(existsSync(join(root, "secrets/new.txt"))).toBe(false);
  });

  it.each(["other.txt", "docs/new.md", "made/deeper/new.txt"])(
    "allows creating %s: a new file outside secrets/ is not caught by the deny rule",
    async (path) => {
      const result = await secrets.execute({ name: "write_file", args: { path, content: "x\n" } });
      expect(outcome(result)).toEqual({ decision: "allow", error: null });
      expect(await readFile(join(root, path), "utf8")).toBe("x\n");
    },
  );

  it("a rule allowing writes under src/** lets a new file be created there, and nothing else", async () => {
    const only = await openGate(root, {
      policyText:
        'default = "deny"\n[[rules]]\ntool = "write_file"\ndecision = "allow"\nwhen.path = { glob = "src/**" }\n',
    });
    const made = await only.execute({ name: "write_file", args: { path: "src/fresh.ts", content: "" } });
    const other = await only.execute({ name: "write_file", args: { path: "fresh.ts", content: "" } });
    await only.close();
    expect(outcome(made)).toEqual({ decision: "allow", error: null });
    expect(outcome(other)).toEqual({ decision: "deny", error: "denied_by_policy" });
    expect(existsSync(join(root, "fresh.ts"))).toBe(false);
  });

  it("still allows reading secrets and writing elsewhere", async () => {
    expect(outcome(await secrets.execute({ name: "read_file", args: { path: "secrets/key.txt" } }))).toEqual({
      decision: "allow",
      error: null,
    });
    const edit = await secrets.execute({
      name: "edit_file",
      args: { path: "docs/b.md", edits: [{ oldText: "bravo", newText: "BRAVO" }] },
    });
    expect(outcome(edit)).toEqual({ decision: "allow", error: null });
    expect(await readFile(join(root, "docs/b.md"), "utf8")).toBe("BRAVO\n");
  });
});
