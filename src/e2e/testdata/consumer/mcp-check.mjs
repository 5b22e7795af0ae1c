// Serves a gate from the installed package over MCP (toolgate/mcp's serveMcp) and calls it with the SDK's
// client. Plain JavaScript: the SDK's own declaration files name DOM-only types a strict Node project's type
// check rejects, so this part is only run, not type-checked.
import { mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createToolgate } from "toolgate";
import { serveMcp } from "toolgate/mcp";

const dir = await realpath(await mkdtemp(join(tmpdir(), "tg-consumer-mcp-")));
await writeFile(join(dir, "notes.txt"), "served over MCP\n");
const gate = await createToolgate({ roots: [dir] });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
const serving = await serveMcp(gate, serverSide);
const client = new Client({ name: "consumer", version: "1.0.0" });
await client.connect(clientSide);
const { tools } = await client.listTools();
const result = await client.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
console.log(
  JSON.stringify({
    listsReadFile: tools.some((t) => t.name === "read_file"),
    readOverMcp: JSON.stringify(result.content).includes("served over MCP"),
  }),
);
await client.close();
await serving.close();
