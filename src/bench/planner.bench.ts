/**
 * @module bench/planner
 * Planner speed: the reply corpus, a 200 KB reasoning reply, and an adversarial `{{{…` reply, through
 * `plan` — beside the original implementation's naive extraction (substring search for each tool name,
 * `[A-Z]+-\d+` and `https?://\S+` over the query) measured in the same run.
 */
import { readFileSync } from "node:fs";
import { plan } from "../planner/index.js";
import { fmt, measureSync, report } from "./harness.js";

interface CorpusCase {
  query: string;
  reply: string | { text?: string; toolCalls?: unknown[] };
}

const SCOPE = [
  "grep_search",
  "vector_search",
  "hybrid_search",
  "local_file_qa",
  "read_file",
  "graph_related",
  "jira_fetch",
  "web_fetch",
  "confluence_fetch",
  "grep",
  "glob",
];

/** The seed's fallback: every tool whose name occurs anywhere, plus the two regexes it used. */
function naive(query: string, text: string): Array<{ name: string; args: unknown }> {
  const calls: Array<{ name: string; args: unknown }> = [];
  for (const name of SCOPE) if (text.includes(name)) calls.push({ name, args: { query } });
  /[A-Z]+-\d+/.exec(query);
  /https?:\/\/\S+/.exec(query);
  return calls;
}

function loadCorpus(): CorpusCase[] {
  const url = new URL("../../src/planner/testdata/corpus.json", import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as CorpusCase[];
}

function big(): string {
  const sentences = [
    "The user asks about PROJ-123 and the release notes at https://example.com/notes.",
    "I could use jira_fetch, but maybe vector_search is enough.",
    "不需要 web_fetch，因为文档在本地。",
    'Example config: {"retries": 3, "backoff": "exponential"}.',
    "Let me think about grep_search versus hybrid_search for a while.",
  ];
  let text = "<think>\n";
  for (let i = 0; text.length < 200_000; i++) text += `${sentences[i % sentences.length]} `;
  return `${text}\n</think>\nI will use jira_fetch and vector_search.`;
}

export default async function run(): Promise<void> {
  const corpus = loadCorpus().map((c) => ({
    query: c.query,
    reply: typeof c.reply === "string" ? { text: c.reply } : c.reply,
  }));
  let i = 0;
  const ours = measureSync(() => {
    const c = corpus[i++ % corpus.length]!;
    return plan({ query: c.query, reply: c.reply, scope: SCOPE });
  }, 20_000);
  i = 0;
  const anchor = measureSync(() => {
    const c = corpus[i++ % corpus.length]!;
    return naive(c.query, c.reply.text ?? "");
  }, 20_000);
  report({
    name: `corpus reply (${corpus.length} replies), p50`,
    ours: fmt(ours.p50),
    anchor: fmt(anchor.p50),
    ratio: ours.p50 / anchor.p50,
    target: "< 1 ms per reply",
    pass: ours.p50 < 1,
  });

  const large = big();
  const query = "PROJ-123 的状态？总结https://example.com/notes的内容";
  const oursBig = measureSync(() => plan({ query, reply: { text: large }, scope: SCOPE }), 30, 3);
  const anchorBig = measureSync(() => naive(query, large), 30, 3);
  report({
    name: "200 KB reasoning reply, p50",
    ours: fmt(oursBig.p50),
    anchor: fmt(anchorBig.p50),
    ratio: oursBig.p50 / anchorBig.p50,
    target: "< 100 ms",
    pass: oursBig.p50 < 100,
  });

  // Every `{"a":` opens a plausible object that never closes: the worst case for the bracket scanner.
  const visible = large.replace("<think>", "").replace("</think>", "");
  const oursVisible = measureSync(() => plan({ query, reply: { text: visible }, scope: SCOPE }), 30, 3);
  const anchorVisible = measureSync(() => naive(query, visible), 30, 3);
  report({
    name: "200 KB reply without think tags (all of it scanned for calls and mentions), p50",
    ours: fmt(oursVisible.p50),
    anchor: fmt(anchorVisible.p50),
    ratio: oursVisible.p50 / anchorVisible.p50,
    target: "< 100 ms",
    pass: oursVisible.p50 < 100,
  });

  const hostile = '{"a":'.repeat(40_000);
  const oursHostile = measureSync(() => plan({ query: "q", reply: { text: hostile }, scope: SCOPE }), 10, 2);
  const anchorHostile = measureSync(() => naive("q", hostile), 10, 2);
  report({
    name: "adversarial 200 KB of unclosed objects, p50",
    ours: fmt(oursHostile.p50),
    anchor: fmt(anchorHostile.p50),
    ratio: oursHostile.p50 / anchorHostile.p50,
    target: "< 250 ms (bounded scan)",
    pass: oursHostile.p50 < 250,
  });
}
