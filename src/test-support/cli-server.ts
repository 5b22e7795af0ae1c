/**
 * One Node process that runs many `toolgate` command lines: the built CLI (`dist/cli/run.js`, the code
 * `dist/cli/main.js` runs) behind a TCP socket on 127.0.0.1, and a bash function `toolgate` that sends it
 * its working directory and arguments and prints what came back, returning the exit code. Shell examples
 * then pay Node's start-up once instead of once per command (seconds each on a loaded 2-core machine).
 * Each command gets its own context, as in the binary: no terminal, stdin closed, the server's environment.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./cli.js";

const SERVER = `import net from "node:net";
import { Readable } from "node:stream";
const { runCli } = await import(process.argv[2]);
const server = net.createServer((socket) => {
  let buffer = Buffer.alloc(0);
  let started = false;
  socket.on("error", () => {});
  socket.on("data", async (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    const parts = buffer.toString("utf8").split("\\0");
    if (started || parts.length < 3 || parts.length < Number(parts[1]) + 3) return;
    started = true;
    const [cwd, count] = parts;
    let out = "";
    let err = "";
    const io = {
      stdout: (t) => { out += t; },
      stderr: (t) => { err += t; },
      stdin: Readable.from([]),
      isTTY: false,
      env: process.env,
      cwd,
    };
    let code;
    try {
      code = await runCli(parts.slice(2, 2 + Number(count)), io);
    } catch (error) {
      err += "runCli threw: " + String(error && error.stack ? error.stack : error) + "\\n";
      code = 70;
    }
    const b64 = (s) => Buffer.from(s, "utf8").toString("base64");
    socket.end(code + "\\n" + b64(out) + "\\n" + b64(err) + "\\n");
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write("PORT " + server.address().port + "\\n"));
`;

/** The bash function standing in for the binary; `TG_CLI_PORT` names the server's port. */
export const BASH_TOOLGATE_FUNCTION = `toolgate() {
  local code out err
  exec 3<>"/dev/tcp/127.0.0.1/$TG_CLI_PORT" || return 70
  printf '%s\\0' "$PWD" "$#" "$@" >&3
  IFS= read -r code <&3; IFS= read -r out <&3; IFS= read -r err <&3
  exec 3<&-
  printf '%s' "$out" | base64 -d
  printf '%s' "$err" | base64 -d >&2
  return "\${code:-70}"
}
`;

export interface CliServer {
  port: number;
  close(): void;
}

/** Starts the server in its own process with `env` (its HOME and XDG folders are what commands see). */
export async function startCliServer(dir: string, env: NodeJS.ProcessEnv): Promise<CliServer> {
  const script = join(dir, "cli-server.mjs");
  await writeFile(script, SERVER);
  const runJs = pathToFileURL(join(REPO_ROOT, "dist", "cli", "run.js")).href;
  const child: ChildProcess = spawn(process.execPath, [script, runJs], {
    cwd: dir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /PORT (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.on("exit", (code) =>
      reject(new Error(`the CLI server exited (${code}) before listening: ${stderr}`)),
    );
  });
  return { port, close: () => child.kill("SIGKILL") };
}
