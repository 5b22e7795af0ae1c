// A toolgate process for the network-grant tests: builds a gate from the built dist/ (argv[2]: JSON with
// `dist`, `roots`, `config`, `policyText`), approves every confirmation, then runs one call per line of stdin
// and answers each with one JSON line. Runs as another user (tgtest) or gets killed, as the test needs.
import { createInterface } from "node:readline";

const options = JSON.parse(process.argv[2]);
const { createToolgate } = await import(options.dist);
const gate = await createToolgate({
  roots: options.roots,
  policyText: options.policyText,
  config: options.config,
});
gate.bus.onConfirmation(async () => ({ approved: true }));
process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid, uid: process.getuid() })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const { id, call } = JSON.parse(line);
  const r = await gate.execute(call);
  const result = { ok: r.ok, llmContent: r.llmContent, data: r.data, sandbox: r.sandbox, error: r.error };
  process.stdout.write(`${JSON.stringify({ id, result })}\n`);
}
await gate.close();
