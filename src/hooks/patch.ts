/**
 * @module hooks/patch
 * toolgate's file writes and edits as Codex's hook scripts see them: Codex shows every file change to its hooks
 * as one `apply_patch` call whose `tool_input.command` is the patch text (`*** Begin Patch`, `*** Add File: PATH`
 * or `*** Update File: PATH`, lines prefixed `+` and `-`, `*** End Patch`). A write is an added file, each edit
 * an `@@` hunk of removed then added lines. The text is split on every newline, so a text that ends with one
 * shows a last empty `+` (or `-`) line: that keeps it exact both ways. The patch is only read by scripts;
 * toolgate never applies it.
 */

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const UPDATE = "*** Update File: ";

/** What a patch says: a whole file written (`add`), or edits (`update`) of old text to new text. */
export type PatchView =
  | { kind: "add"; path: string; content: string }
  | { kind: "update"; path: string; edits: { oldText: string; newText: string }[] };

const lines = (prefix: string, text: string) => text.split("\n").map((line) => `${prefix}${line}`);

/**
 * The patch text of a write or edits.
 * @example renderPatch({ kind: "add", path: ".env", content: "A=1" }) // "*** Begin Patch\n*** Add File: .env\n+A=1\n*** End Patch\n"
 */
export function renderPatch(view: PatchView): string {
  const body =
    view.kind === "add"
      ? [`${ADD}${view.path}`, ...lines("+", view.content)]
      : [
          `${UPDATE}${view.path}`,
          ...view.edits.flatMap((e) => ["@@", ...lines("-", e.oldText), ...lines("+", e.newText)]),
        ];
  return `${[BEGIN, ...body, END].join("\n")}\n`;
}

/** Reads back a patch {@link renderPatch} wrote; throws naming what is wrong with anything else. */
export function parsePatch(patch: string): PatchView {
  const rows = patch.replace(/\n$/, "").split("\n");
  if (rows[0] !== BEGIN || rows.at(-1) !== END) throw new Error("not a patch: no Begin/End Patch lines");
  const header = rows[1] ?? "";
  const body = rows.slice(2, -1);
  const text = (prefix: string, from: string[]) => from.map((r) => r.slice(prefix.length)).join("\n");
  if (header.startsWith(ADD)) {
    if (!body.every((r) => r.startsWith("+"))) throw new Error("an added file's lines must start with +");
    return { kind: "add", path: header.slice(ADD.length), content: text("+", body) };
  }
  if (!header.startsWith(UPDATE)) throw new Error(`not a patch of one file: ${JSON.stringify(header)}`);
  const edits: { oldText: string; newText: string }[] = [];
  let hunk: { old: string[]; new: string[] } | undefined;
  const close = () => {
    if (hunk) edits.push({ oldText: text("-", hunk.old), newText: text("+", hunk.new) });
  };
  for (const row of body) {
    if (row === "@@") {
      close();
      hunk = { old: [], new: [] };
    } else if (hunk && row.startsWith("-") && hunk.new.length === 0) hunk.old.push(row);
    else if (hunk && row.startsWith("+")) hunk.new.push(row);
    else throw new Error(`unexpected patch line ${JSON.stringify(row)}`);
  }
  close();
  return { kind: "update", path: header.slice(UPDATE.length), edits };
}
