/**
 * The relative links of Markdown files and the anchors their headings make, so the docs test can fail on a
 * link to a page or section that does not exist (the manual is spread over `docs/*.md`, and a moved section
 * must not leave links behind). Anchors follow GitHub's rule: the heading's text, lower case, punctuation
 * dropped, spaces turned into `-`, and `-1`, `-2`, … appended to repeats.
 */

/** One relative link: where it is written and what it points at. */
export interface DocLink {
  /** `docs/cli.md:12`. */
  where: string;
  /** The path part, relative to the linking file (empty for a link within the same file). */
  path: string;
  /** The part after `#`, if any. */
  anchor?: string;
}

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | undefined;
  markdown.split(/\r?\n/).forEach((text, i) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(text);
    if (fence) {
      if (open && text.trimStart().startsWith(fence)) fence = undefined;
      return;
    }
    if (open) {
      fence = open[1];
      return;
    }
    out.push({ line: i + 1, text });
  });
  return out;
}

/** GitHub's anchor for a heading text (before the `-N` suffix of repeats). */
export function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1") // a link's text
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** Every anchor a file's headings make, repeats numbered as GitHub does. */
export function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The relative links of a file (not `http:`, `https:`, `mailto:`), outside code blocks and inline code. */
export function relativeLinks(markdown: string, file: string): DocLink[] {
  const links: DocLink[] = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(/`[^`]*`/g, "``");
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const hash = target.indexOf("#");
      const path = hash < 0 ? target : target.slice(0, hash);
      links.push({
        where: `${file}:${line}`,
        path,
        ...(hash < 0 ? {} : { anchor: target.slice(hash + 1) }),
      });
    }
  }
  return links;
}
