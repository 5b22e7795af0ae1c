/**
 * The state backend contract run against both backends this package ships: the file backend (each handle
 * a new backend over the same folders, as separate gates would be) and the in-process one.
 */
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stateBackendContract } from "../test-support/state-backend-contract.js";
import { createFileStateBackend } from "./file-backend.js";
import { createInProcessStateBackend } from "./in-process-backend.js";
import { createMemoryStore } from "./memory-store.js";

async function tempFolders() {
  const dir = await mkdtemp(join(tmpdir(), "toolgate-state-backend-"));
  const root = join(dir, "ws");
  await mkdir(root);
  return { dir, root, userDir: join(dir, "user-state") };
}

stateBackendContract("file", async () => {
  const { dir, root, userDir } = await tempFolders();
  return {
    open: () => createFileStateBackend({ root, userDir }),
    close: () => rm(dir, { recursive: true, force: true }),
  };
});

stateBackendContract("in-process", async () => {
  const backend = createInProcessStateBackend();
  return { open: () => backend, close: async () => undefined };
});

describe("the file backend", () => {
  it("keeps project state in <root>/.toolgate/state/ and user state in the user folder, meta in the entry", async () => {
    const { dir, root, userDir } = await tempFolders();
    try {
      const backend = createFileStateBackend({ root, userDir });
      expect(backend.memory("project").path).toBe(join(root, ".toolgate", "state", "memory.json"));
      expect(backend.memory("user").path).toBe(join(userDir, "memory.json"));
      expect(backend.todos().path).toBe(join(root, ".toolgate", "state", "todos.json"));
      await createMemoryStore(backend.memory("project")).set("k", "v", { meta: { labels: ["untrusted"] } });
      const file = JSON.parse(await readFile(backend.memory("project").path, "utf8"));
      expect(file).toEqual({
        version: 1,
        kind: "toolgate-memory",
        entries: { k: { value: "v", updatedAt: expect.any(String), meta: { labels: ["untrusted"] } } },
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
