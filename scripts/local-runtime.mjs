// Installs node-llama-cpp (the `local` provider's optional runtime, loaded only when used) for the tests when it
// is missing. It is not a saved dependency: npm records only some of its per-platform optional packages in the
// lock file, and `npm ci` then refuses the lock; listed as a peer, `npm install --no-save` skips it. `npm test` runs this first; it does nothing when installed.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
try {
  require.resolve("node-llama-cpp/package.json");
} catch {
  console.log(
    "installing node-llama-cpp 3.22.1, the local model runtime the tests use (~700 MB download, into this " +
      "project's node_modules/, not saved in package.json; later runs reuse it)",
  );
  const r = spawnSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "node-llama-cpp@3.22.1"], {
    stdio: "inherit",
  });
  process.exit(r.status ?? 1);
}
