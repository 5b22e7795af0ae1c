/**
 * The race between the survey and bwrap's mounts, run for real: a background command (itself sandboxed)
 * swaps a folder the survey pins with a link to the home folder as fast as it can (`renameat2` with
 * RENAME_EXCHANGE, in a loop), while foreground commands try to write the real home folder. Each try either
 * runs with every mount where it was planned, or is stopped (by the check inside the namespace, by bwrap, or by
 * the survey failing closed) — it never writes the home folder. Bounded by the number of tries, not by time.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { arch } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { CHECK_FAILED_PREFIX } from "./verify.js";

const TRIES = 120;
/** renameat2's system call number (RENAME_EXCHANGE swaps two names atomically). */
const RENAMEAT2 = arch() === "arm64" ? 276 : 316;

let base: string;
let ws: string;
let home: string;
let gate: Toolgate;
const savedHome = process.env.HOME;

beforeAll(async () => {
  // Outside /tmp (the sandbox's /tmp is private), where the root folder is read-only inside.
  base = await mkdtemp("/var/tmp/toolgate-race-");
  ws = join(base, "ws");
  home = join(base, "home");
  await mkdir(ws, { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(join(home, ".profile"), "original\n");
  process.env.HOME = home;
  gate = await createToolgate({
    roots: [ws],
    policyText: 'default = "allow"\n',
    config: { sandbox: { mode: "workspace-write" } },
  });
  gate.bus.onConfirmation(async () => ({ approved: true }));
});

afterAll(async () => {
  process.env.HOME = savedHome;
  await gate?.close();
  await rm(base, { recursive: true, force: true });
});

it(`a folder swapped for a link to the home folder during ${TRIES} commands never lets one write there`, async () => {
  // The swapper makes `xx/.vscode` (a protected folder the next surveys cover, pinning `xx`), and a link
  // `yy` to the home folder, then exchanges `xx` and `yy` without pause until it is stopped. The check after
  // each command moves the link away (a link leading outside the workspace): the swapper makes it again.
  const link = relative(ws, home);
  const swapper = [
    "mkdir -p xx/.vscode && echo '{}' > xx/.vscode/tasks.json && ln -s " + link + " yy && echo ready",
    `exec perl -e 'print "swapping\\n"; $|=1; my ($x, $y) = ("xx", "yy"); while (1) { next if syscall(${RENAMEAT2}, -100, $x, -100, $y, 2) == 0; my $gone = (-e $x || -l $x) ? $y : $x; (-e $gone || -l $gone) and die "renameat2: $!"; symlink("${link}", $gone) or die "symlink: $!" }'`,
  ].join(" && ");
  const started = await gate.execute({ name: "shell", args: { command: swapper, background: true } });
  expect(started.ok, started.llmContent).toBe(true);
  const id = (started.data as { id: string }).id;
  // Wait (for state) until it swaps.
  for (let i = 0; i < 600; i++) {
    const read = await gate.execute({ name: "shell_processes", args: { action: "read", id } });
    const data = read.data as { stdout?: string; status?: string; stderr?: string };
    if (data.stdout?.includes("swapping")) break;
    expect(data.status, `${data.stderr}`).toBe("running");
    await new Promise((done) => setTimeout(done, 100));
  }
  const outcomes = { ran: 0, stopped: 0, refused: 0, bwrap: 0, locked: 0 };
  for (let i = 0; i < TRIES; i++) {
    const result = await gate.execute({
      name: "shell",
      args: { command: `echo pwned-${i} >> "${home}/.profile"; echo pwned > "${home}/planted"; true` },
    });
    const text = `${result.llmContent}`;
    if (result.ok) outcomes.ran++;
    else if (text.includes(CHECK_FAILED_PREFIX)) outcomes.stopped++;
    else if (/kept changing|moved|disappeared|is now a/.test(text)) outcomes.refused++;
    // bwrap turns each descriptor into its path and finds it gone, or mounted and found another file there
    // (`--bind-fd`'s "Race condition binding dirfd"): it stops before any command runs.
    else if (/^bwrap: (Can't|Failed|Race condition)/m.test(text)) outcomes.bwrap++;
    // The check after a command met the folder mid-swap and could not look through it: it fails closed, and
    // every later command in the workspace is refused until the person has looked.
    else if (text.includes("are refused: the check after an earlier command could not finish"))
      outcomes.locked++;
    else throw new Error(`unexpected outcome: ${text}`);
    // Checked after every try: the real home folder is as it was.
    expect(readFileSync(join(home, ".profile"), "utf8")).toBe("original\n");
    expect(existsSync(join(home, "planted"))).toBe(false);
  }
  const read = await gate.execute({ name: "shell_processes", args: { action: "read", id } });
  console.log(`race: ${JSON.stringify(outcomes)} of ${TRIES} tries`);
  const state = read.data as { status: string; stderr: string };
  expect(state.status, `the swapper ran throughout: ${state.stderr}`).toBe("running");
  await gate.execute({ name: "shell_processes", args: { action: "stop", id } });
  expect(outcomes.ran + outcomes.stopped + outcomes.refused + outcomes.bwrap + outcomes.locked).toBe(TRIES);
  expect(readdirSync(home).sort()).toEqual([".profile"]);
}, 1_800_000);
