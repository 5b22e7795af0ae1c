// Runs one argv (argv[3], JSON) as whoever starts it, and prints its exit code and the network namespace it
// ran in (`readlink /proc/self/ns/net` with the same prefix: a prefix that failed would prove nothing) as one
// JSON line. Mode
// `control`: in this process's network namespace. Mode `inside`: entered into a fresh grant namespace made by
// the built forwarder (dist/), with its egress proxy — as a network grant makes it, but without the command's
// own bwrap and seccomp filter, so only the namespace stands between the argv and the host.
import { spawnSync } from "node:child_process";

const [mode, argvJson] = process.argv.slice(2);
const argv = JSON.parse(argvJson);
const dist = new URL("../../../../dist/", import.meta.url);
const { sandboxSupport } = await import(new URL("sandbox/detect.js", dist).href);
const { openForwarder } = await import(new URL("sandbox/network/forwarder.js", dist).href);
const { startEgressProxy } = await import(new URL("sandbox/network/proxy.js", dist).href);

let prefix = [];
let cleanup = () => {};
if (mode === "inside") {
  const bwrap = sandboxSupport().bwrap;
  if (!bwrap) throw new Error("bwrap cannot make sandboxes here");
  const proxy = await startEgressProxy({ allowHosts: [] });
  const forwarder = await openForwarder({ socketPath: proxy.socketPath, port: 3128, bwrap });
  prefix = forwarder.enter;
  cleanup = () => {
    forwarder.close();
    proxy.close();
  };
} else if (mode !== "control") {
  throw new Error(`unknown mode ${mode}`);
}
const spawnWith = (words) =>
  spawnSync(words[0], words.slice(1), {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000,
  });
const ns = spawnWith([...prefix, "readlink", "/proc/self/ns/net"]);
const run = spawnWith([...prefix, ...argv]);
cleanup();
const report = { ns: ns.status === 0 ? ns.stdout.trim() : `failed: ${ns.stderr}`, exitCode: run.status };
process.stdout.write(`${JSON.stringify({ ...report, stderr: run.stderr, error: run.error?.message })}\n`);
