/**
 * @module bench/trust
 * What trust bound to content costs a gate's creation (issue 27 item 5): in a trusted workspace with a policy,
 * a config and a `.mcp.json`, the check `createToolgate` makes — read the trust list, find the files trust
 * covers, read each and compare its sha256 with the one recorded — beside the anchor doing the same file-system
 * and hashing work by hand (read and parse the list, the same stats and one folder listing, read and hash the
 * same files). Interleaved call by call. Target: within 1.5× of the anchor.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reviewWorkspace, trustReview } from "../trust/index.js";
import { everyFileTrusted, TRUSTED_FILES, trustLookup } from "../workspace/index.js";
import { fmt, interleaved, report } from "./harness.js";

const CALLS = 2000;

export default async function run(): Promise<void> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "tg-bench-trust-")));
  const store = join(await mkdtemp(join(tmpdir(), "tg-bench-trust-xdg-")), "toolgate", "trusted.json");
  try {
    await mkdir(join(root, ".toolgate", "agents"), { recursive: true });
    await writeFile(
      join(root, ".toolgate", "policy.toml"),
      'default = "ask"\n[[rules]]\ntool = "ls"\ndecision = "allow"\n',
    );
    await writeFile(join(root, ".toolgate", "config.toml"), "[limits]\nmax_lines = 500\n");
    await writeFile(
      join(root, ".mcp.json"),
      JSON.stringify({ mcpServers: { a: { command: "node", args: ["a.js"] } } }),
    );
    await trustReview(await reviewWorkspace(root, []), store);

    const ours = async () => {
      if (!(await everyFileTrusted(root, trustLookup(store)))) throw new Error("not trusted");
    };
    const literal = TRUSTED_FILES.filter((f) => !f.path.includes("*")).map((f) => join(root, f.path));
    const byHand = async () => {
      const list = JSON.parse(readFileSync(store, "utf8")) as {
        trusted: { files: Record<string, { sha256: string }> }[];
      };
      const files = list.trusted[0]!.files;
      const present = (
        await Promise.all(
          literal.map((f) =>
            stat(f).then(
              () => f,
              () => undefined,
            ),
          ),
        )
      ).filter((f): f is string => f !== undefined);
      await readdir(join(root, ".toolgate", "agents")).catch(() => []);
      for (const file of present) {
        const digest = createHash("sha256")
          .update(await readFile(file))
          .digest("hex");
        if (files[file.slice(root.length + 1)]?.sha256 !== digest) throw new Error(`${file} not trusted`);
      }
    };
    const [o, a] = await interleaved(ours, byHand, CALLS);
    const ratio = o.p50 / a.p50;
    report({
      name: `the trust check of a gate's creation (list + 3 covered files), ${CALLS} calls interleaved (p50 / p99)`,
      ours: `${fmt(o.p50)} / ${fmt(o.p99)}`,
      anchor: `${fmt(a.p50)} / ${fmt(a.p99)} (the same reads, stats, listing and hashes by hand)`,
      ratio,
      target: "≤ 1.5× at p50",
      pass: ratio <= 1.5,
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
