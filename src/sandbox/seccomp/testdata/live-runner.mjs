/**
 * Runs live.json's commands as whoever starts it (live.test.ts: a non-root user) and prints one JSON line per
 * command: { note, stdout, stderr, exitCode }. Mode `filtered`: through toolgate's own shell tool — the real
 * pipeline, sandbox and seccomp filter. Mode `control`: the same bwrap arguments without the filter (the plan's
 * argv minus `--seccomp N`, its descriptor left empty), only for rows that name a control. Uses the built `dist/`.
 * Usage: node live-runner.mjs MODE WORKSPACE SUBSTITUTIONS_JSON
 */
import { readFileSync } from "node:fs";

const [mode, ws, substitutions] = process.argv.slice(2);
const dist = new URL("../../../../dist/", import.meta.url);
const { createToolgate } = await import(new URL("index.js", dist).href);
const { prepareSandbox, DEFAULT_SANDBOX_SETTINGS } = await import(new URL("sandbox/index.js", dist).href);
const { runCommand } = await import(new URL("tools/shell/run-command.js", dist).href);
const { findShell } = await import(new URL("tools/shell/process-group.js", dist).href);

const rows = JSON.parse(readFileSync(new URL("live.json", import.meta.url), "utf8")).cases;
const subs = JSON.parse(substitutions);
const fill = (command) => command.replace(/\{(\w+)\}/g, (whole, name) => subs[name] ?? whole);
const print = (note, stdout, stderr, exitCode) =>
  process.stdout.write(`${JSON.stringify({ note, stdout, stderr, exitCode })}\n`);

if (mode === "filtered") {
  const gate = await createToolgate({
    roots: [ws],
    policyText: '[[rules]]\ntool = "shell"\ndecision = "allow"\n',
    config: { sandbox: { mode: "workspace-write" } },
    logger: { warn: () => undefined },
  });
  gate.bus.onConfirmation(async () => ({ approved: true }));
  for (const row of rows) {
    const result = await gate.execute({
      name: "shell",
      args: { command: fill(row.command), timeout: 120_000 },
    });
    const data = result.data ?? {};
    print(row.note, data.stdout ?? result.llmContent, data.stderr ?? "", data.exitCode ?? null);
  }
  await gate.close();
} else if (mode === "control") {
  const settings = { ...DEFAULT_SANDBOX_SETTINGS, mode: "workspace-write" };
  for (const row of rows.filter((r) => r.control !== undefined)) {
    const confinement = prepareSandbox(settings, { roots: [ws], cwd: ws });
    const at = confinement.argv.indexOf("--seccomp");
    if (at < 0) throw new Error("the sandbox's argv has no --seccomp: the control would prove nothing");
    const argv = confinement.argv.filter((_, i) => i !== at && i !== at + 1);
    // The other descriptors (bwrap's arguments, the mounts' sources) keep their numbers; the filter's is empty.
    const filterSlot = Number(confinement.argv[at + 1]) - 3;
    const fds = confinement.fds.map((fd, i) => (i === filterSlot ? { data: new Uint8Array() } : fd));
    const outcome = await runCommand({
      command: fill(row.command),
      cwd: ws,
      env: { PATH: process.env.PATH, HOME: process.env.HOME ?? "/", LANG: "C.UTF-8" },
      shell: findShell(),
      maxOutputBytes: 1 << 20,
      timeoutMs: 120_000,
      launcher: { argv, release: confinement.release, fds },
    });
    print(row.note, outcome.stdout, outcome.stderr, outcome.exit.code);
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
