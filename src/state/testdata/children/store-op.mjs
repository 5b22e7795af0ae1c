// Test child: runs store operations against the compiled dist/ and prints one JSON line per operation.
// Usage: node store-op.mjs <distStateIndexUrl> <storeFile> <staleMs> <op> [<op> ...]
// Ops (JSON): {"set":[key, sizeBytes]} | {"get":key} | {"setMany":[prefix, count]} | {"addMany":[prefix, count]}
//            | {"blobs":[fromSeq, toSeq]}   (kill test: sets "blob" to blobFor(seq), prints {"done":seq})
//            | {"ls":dir}                   (prints the directory's entries)
//            | {"hold":true}                (takes the store lock, prints {"locked":true}, never returns)
// Under `ulimit -f` the kernel sends SIGXFSZ to a writer past the limit, which would kill us; with a handler
// installed the write fails with EFBIG instead, which is the disk-full path the test wants to see.
process.on("SIGXFSZ", () => {});
const [distUrl, file, staleArg, ...ops] = process.argv.slice(2);
const state = await import(distUrl);
const staleMs = Number(staleArg);
const lockOptions = { staleMs };
const memory = state.openMemoryStore(file, {
  ...lockOptions,
  logger: { warn: (m) => print({ warning: m }) },
});
const print = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

/** The kill test's value for write number `seq`: every 10th is 1–5 MB, the rest are short. */
function blobFor(seq) {
  const size = seq % 10 === 0 ? 1_000_000 + ((seq * 7919) % 4_000_000) : 100;
  const head = `seq:${seq}:`;
  return head + "x".repeat(Math.max(0, size - head.length));
}

for (const raw of ops) {
  const op = JSON.parse(raw);
  try {
    if (op.set) {
      await memory.set(op.set[0], "v".repeat(op.set[1]));
      print({ ok: true });
    } else if (op.get !== undefined) {
      const value = await memory.get(op.get);
      print({ ok: true, length: value === undefined ? null : value.length });
    } else if (op.setMany) {
      const [prefix, count] = op.setMany;
      for (let i = 0; i < count; i++) await memory.set(`${prefix}-${i}`, `value ${prefix} ${i}`);
      print({ ok: true });
    } else if (op.addMany) {
      const todos = state.openTodoStore(file, { ...lockOptions, maxItems: 100_000 });
      const [prefix, count] = op.addMany;
      const ids = [];
      for (let i = 0; i < count; i++) ids.push((await todos.add(`${prefix} ${i}`)).item.id);
      print({ ok: true, ids });
    } else if (op.blobs) {
      const [from, to] = op.blobs;
      for (let seq = from; seq <= to; seq++) {
        await memory.set("blob", blobFor(seq));
        print({ done: seq });
      }
    } else if (op.ls) {
      const { readdirSync } = await import("node:fs");
      print({ ok: true, names: readdirSync(op.ls).sort() });
    } else if (op.hold) {
      const { withFileLock } = await import(new URL("./file-lock.js", distUrl).href);
      await withFileLock(file, { staleMs }, async () => {
        print({ locked: true });
        await new Promise(() => setInterval(() => {}, 1000));
      });
    }
  } catch (error) {
    print({ error: { name: error.name, code: error.code, message: error.message } });
  }
}
