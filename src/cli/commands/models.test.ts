/**
 * `toolgate models pull|list|rm` as a user runs them (in-process, the dispatcher the binary runs; `run`, which
 * loads the model runtime, as the real binary), a loopback server standing in for Hugging Face (through
 * `HF_ENDPOINT`, the mirror variable Hugging Face's own tools read) serving a generated GGUF model, and a user
 * state folder of the test's own. The runtime offer is tested on a copy of the built
 * package that cannot see node-llama-cpp, against a loopback npm registry serving a stand-in package.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import type http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, tempWorkspace, toolgate } from "../../test-support/cli.js";
import { toolgateInProcess } from "../../test-support/cli-in-process.js";
import { tinyModel } from "../../test-support/tiny-gguf.js";
import { startServer, type TestServer } from "../../test-support/web-servers.js";

const MODEL = tinyModel({ script: ["Hello", "▁from", "▁the", "▁tiny", "▁model."] });
const SHA = createHash("sha256").update(MODEL).digest("hex");
const CATALOG_PATH = "/Qwen/Qwen3-1.7B-GGUF/resolve/main/Qwen3-1.7B-Q8_0.gguf";
const SLOW = 120_000;

let hub: TestServer;
let home: string;

beforeAll(async () => {
  hub = await startServer((req, res) => serveModel(req, res));
  home = await mkdtemp(join(tmpdir(), "tg-models-cli-"));
});
afterAll(async () => {
  await hub.close();
  await rm(home, { recursive: true, force: true });
});

/** The catalogue path states its checksum as Hugging Face does; `/plain/` files state none. */
function serveModel(req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = req.url ?? "";
  if (path !== CATALOG_PATH && !path.startsWith("/plain/")) {
    res.writeHead(404).end("not found");
    return;
  }
  res.writeHead(200, {
    "content-length": String(MODEL.length),
    ...(path === CATALOG_PATH ? { "x-linked-etag": `"${SHA}"` } : {}),
  });
  res.end(MODEL);
}

/** A fresh user state folder (through XDG_CONFIG_HOME) and the environment pointing at the loopback hub. */
async function user(): Promise<{ env: Record<string, string>; models: string; state: string }> {
  const config = await mkdtemp(join(home, "user-"));
  const state = join(config, "toolgate", "state");
  return { env: { XDG_CONFIG_HOME: config, HF_ENDPOINT: hub.origin }, models: join(state, "models"), state };
}

describe("toolgate models", () => {
  it(
    "lists what can be pulled, pulls the default model verified, lists it, and removes it",
    async () => {
      const { env, models } = await user();
      const empty = await toolgateInProcess(["models", "list"], { env });
      expect(empty.code).toBe(0);
      expect(empty.stdout).toContain(`no models in ${models}`);
      expect(empty.stdout).toMatch(/qwen3-1\.7b \(default\) {2}~2\.2 GB {2}Apache-2\.0/);

      const pull = await toolgateInProcess(["models", "pull"], { env });
      expect(pull.stderr).toContain(`pulling qwen3-1.7b from ${hub.hostPort} (~2.2 GB, Apache-2.0)`);
      expect(pull.stderr).toMatch(/qwen3-1\.7b: \d+\.\d \/ \d+\.\d MB/);
      // The runtime is the project's own here: nothing to offer.
      expect(pull.stderr).not.toContain("node-llama-cpp");
      const file = join(models, "Qwen3-1.7B-Q8_0.gguf");
      expect(pull.stdout).toBe(
        `pulled qwen3-1.7b: ${file} (${(MODEL.length / 1e6).toFixed(1)} MB, sha256 ${SHA})\n`,
      );
      expect(pull.code).toBe(0);
      expect((await readFile(file)).equals(MODEL)).toBe(true);
      expect(await readdir(models)).toEqual(["Qwen3-1.7B-Q8_0.gguf"]);

      const listed = await toolgateInProcess(["models", "list", "--json"], { env });
      expect(JSON.parse(listed.stdout)).toMatchObject({
        dir: models,
        models: [{ name: "qwen3-1.7b", path: file, bytes: MODEL.length }],
      });

      const removed = await toolgateInProcess(["models", "rm", "qwen3-1.7b"], { env });
      expect([removed.code, removed.stdout]).toEqual([0, "removed qwen3-1.7b\n"]);
      expect(existsSync(file)).toBe(false);
      const again = await toolgateInProcess(["models", "rm", "qwen3-1.7b"], { env });
      expect(again.code).toBe(2);
      expect(again.stderr).toContain(`no model qwen3-1.7b in ${models}`);
    },
    SLOW,
  );

  it(
    "pulls a URL only against a checksum, and keeps nothing of a file that does not match",
    async () => {
      const { env, models } = await user();
      const url = `${hub.origin}/plain/tiny.gguf`;
      const unverifiable = await toolgateInProcess(["models", "pull", url], { env });
      expect(unverifiable.code).toBe(2);
      expect(unverifiable.stderr).toContain("pass --sha256 HEX (the server states none)");
      expect(existsSync(join(models, "tiny.gguf"))).toBe(false);

      const wrong = await toolgateInProcess(["models", "pull", url, "--sha256", "0".repeat(64)], { env });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain("does not match its checksum");
      expect(await readdir(models)).toEqual([]);

      const right = await toolgateInProcess(["models", "pull", url, "--sha256", SHA], { env });
      expect(right.code).toBe(0);
      expect((await readFile(join(models, "tiny.gguf"))).equals(MODEL)).toBe(true);
    },
    SLOW,
  );

  it("says what it knows when a name or the mirror is wrong", async () => {
    const { env } = await user();
    const unknown = await toolgateInProcess(["models", "pull", "llama-9000"], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown model "llama-9000": use one of qwen3-1.7b, qwen3-4b');
    const mirror = await toolgateInProcess(["models", "pull"], {
      env: { ...env, HF_ENDPOINT: "ftp://mirror" },
    });
    expect(mirror.code).toBe(2);
    expect(mirror.stderr).toContain('HF_ENDPOINT "ftp://mirror" is not an http(s) URL');
    const verb = await toolgateInProcess(["models", "fetch"], { env });
    expect(verb.code).toBe(2);
    expect(verb.stderr).toContain("usage: toolgate models pull");
  });
});

describe("run with no model server", () => {
  it(
    "never downloads without --yes; with it, pulls the default model and answers with it",
    async () => {
      const { env, models } = await user();
      const closed = await startServer(() => {});
      await closed.close();
      // One llama.cpp thread: its threads spin-wait for each other, which a busy 2-core machine makes very slow.
      const workspace = await tempWorkspace({ ".toolgate/config.toml": "[llm]\nthreads = 1\n" });
      try {
        const noServer = { ...env, OLLAMA_HOST: closed.hostPort };
        const before = hub.requests.length;
        const refused = await toolgate(["run", "say hello"], { cwd: workspace, env: noServer });
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain(closed.hostPort);
        expect(hub.requests.length).toBe(before);
        expect(existsSync(models)).toBe(false);

        const agreed = await toolgate(["run", "--yes", "say hello"], { cwd: workspace, env: noServer });
        expect(agreed.stderr).toContain("pulling qwen3-1.7b");
        expect(agreed.stdout).toContain("Hello from the tiny model.");
        expect(agreed.code).toBe(0);
        expect(existsSync(join(models, "Qwen3-1.7B-Q8_0.gguf"))).toBe(true);
      } finally {
        await rm(workspace, { recursive: true, force: true });
      }
    },
    SLOW * 2,
  );
});

describe("the runtime offer, where node-llama-cpp is not installed", () => {
  let pkg: string;
  let registry: TestServer;
  let tarball: Buffer;

  beforeAll(async () => {
    // The built package beside a node_modules that has every dependency except the runtime.
    pkg = await mkdtemp(join(home, "pkg-"));
    await cp(join(REPO_ROOT, "dist"), join(pkg, "dist"), { recursive: true });
    await cp(join(REPO_ROOT, "package.json"), join(pkg, "package.json"));
    await mkdir(join(pkg, "node_modules"));
    for (const name of await readdir(join(REPO_ROOT, "node_modules"))) {
      if (name === "node-llama-cpp" || name === "@node-llama-cpp" || name === ".bin") continue;
      await symlink(join(REPO_ROOT, "node_modules", name), join(pkg, "node_modules", name));
    }
    // A stand-in runtime package, packed by npm itself, served by a loopback registry.
    const src = await mkdtemp(join(home, "stand-in-"));
    await writeFile(
      join(src, "package.json"),
      JSON.stringify({ name: "node-llama-cpp", version: "3.22.1", type: "module", main: "index.js" }),
    );
    await writeFile(join(src, "index.js"), "export const standIn = true;\n");
    const packed = await run("npm", ["pack", "--silent", "--pack-destination", src], { cwd: src });
    tarball = await readFile(join(src, packed.stdout.trim()));
    registry = await startServer((req, res) => {
      if (req.url === "/node-llama-cpp") {
        const dist = {
          tarball: `http://127.0.0.1:${registry.port}/node-llama-cpp/-/node-llama-cpp-3.22.1.tgz`,
          shasum: createHash("sha1").update(tarball).digest("hex"),
          integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
        };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            name: "node-llama-cpp",
            "dist-tags": { latest: "3.22.1" },
            versions: { "3.22.1": { name: "node-llama-cpp", version: "3.22.1", main: "index.js", dist } },
          }),
        );
      } else if (req.url?.endsWith(".tgz")) {
        res.writeHead(200, { "content-type": "application/octet-stream" }).end(tarball);
      } else res.writeHead(404).end("{}");
    });
  }, SLOW);
  afterAll(async () => {
    await registry?.close();
  });

  function pkgToolgate(args: string[], env: Record<string, string>) {
    return run(process.execPath, [join(pkg, "dist", "bin", "toolgate.js"), ...args], {
      cwd: pkg,
      env: {
        ...process.env,
        ...env,
        npm_config_registry: registry.origin,
        npm_config_cache: join(pkg, "npm-cache"),
        npm_config_update_notifier: "false",
      },
    });
  }

  it(
    "without a yes, downloads the model and says how to get the runtime; with --yes, installs it into the state folder",
    async () => {
      const { env, models, state } = await user();
      const declined = await pkgToolgate(["models", "pull"], env);
      expect(declined.code).toBe(0);
      expect(declined.stderr).toContain(
        "not installing node-llama-cpp: the model is downloaded, but `chat --provider local` needs it (run this again with --yes",
      );
      expect(existsSync(join(models, "Qwen3-1.7B-Q8_0.gguf"))).toBe(true);
      expect(existsSync(join(state, "runtime"))).toBe(false);

      const agreed = await pkgToolgate(["models", "pull", "--yes"], env);
      expect(agreed.code).toBe(0);
      const installed = JSON.parse(
        await readFile(join(state, "runtime", "node_modules", "node-llama-cpp", "package.json"), "utf8"),
      );
      expect(installed.version).toBe("3.22.1");
      expect(registry.requests.some((r) => r.url.endsWith("node-llama-cpp-3.22.1.tgz"))).toBe(true);

      // Found in the state folder from now on: no more offers.
      const third = await pkgToolgate(["models", "pull"], env);
      expect(third.code).toBe(0);
      expect(third.stderr).not.toContain("node-llama-cpp");
    },
    SLOW * 2,
  );
});

function run(
  file: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { ...options, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
