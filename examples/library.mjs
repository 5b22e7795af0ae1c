// A runnable example of toolgate as a library (the README shows it; `src/examples.test.ts` runs it).
// Run it after `npm ci`: node examples/library.mjs
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createToolgate, defineTool, okResult } from "toolgate";

// A workspace with one file, and a policy: reads allowed, writes ask, the shell denied.
const root = await mkdtemp(join(tmpdir(), "toolgate-example-"));
await writeFile(join(root, "notes.txt"), "hello from toolgate\n");
const policyText = `
default = "ask"

[[rules]]
tool = ["read_file", "glob", "grep", "ls", "word_count"]
decision = "allow"

[[rules]]
tool = "shell"
decision = "deny"
message = "no shell in this example"
`;

const gate = await createToolgate({ roots: [root], policyText });

// A host tool: same registry, same pipeline, same policy as the built-ins.
gate.register(
  defineTool({
    name: "word_count",
    description: "Counts the words in a text",
    kind: "think",
    risk: "low",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    run: async ({ text }) => okResult(String(text.split(/\s+/).filter(Boolean).length)),
  }),
);

// A person answers `ask` through the message bus (here: approve writes to notes only).
gate.bus.onConfirmation(async (request) => ({
  approved: request.details.locations.every((p) => p.endsWith("notes.txt")),
}));

const read = await gate.execute({ name: "read_file", args: { path: "notes.txt" } });
console.log("read_file:", read.decision, JSON.stringify(read.llmContent));

const count = await gate.execute({ name: "word_count", args: { text: "one two three" } });
console.log("word_count:", count.decision, count.llmContent);

const shell = await gate.execute({ name: "shell", args: { command: "rm -rf /" } });
console.log("shell:", shell.decision, shell.error?.type, shell.error?.message);

const bad = await gate.execute({ name: "read_file", args: { path: 42 } });
console.log("bad args:", bad.error?.type, bad.error?.message);

console.log(
  "openai schema names:",
  gate
    .schemas("openai")
    .map((t) => t.function.name)
    .join(","),
);
await gate.close();
