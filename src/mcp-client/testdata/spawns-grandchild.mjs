// An MCP stdio server stand-in that starts a grandchild (a long-lived node process) and reports its pid as
// a JSON-RPC notification. It exits when asked (the method "crash"), leaving the grandchild behind unless
// its process group is stopped; with the argument "inherit" the grandchild also holds the server's stdout.
import { spawn } from "node:child_process";

const stdio = process.argv[2] === "inherit" ? ["ignore", "inherit", "ignore"] : "ignore";
const grandchild = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { stdio });
const notify = (method, params) =>
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", method, params })}\n`);
grandchild.on("spawn", () => notify("grandchild", { pid: grandchild.pid }));
process.stdin.on("data", (chunk) => {
  if (String(chunk).includes('"crash"')) process.exit(3);
});
