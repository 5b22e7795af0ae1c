/**
 * @module planner/confluence-query
 * The search text for `confluence_fetch {query}` (seed 003-D4): the question without what only says "look in
 * Confluence" — URLs, the words confluence/wiki with the phrases around them ("search the wiki for",
 * "in our confluence space", "在Confluence上找", "wiki里的"), request verbs, and punctuation. When nothing that
 * can be searched for is left ("wiki?", "查一下confluence"), there is no search text and so no call.
 */

import { URL_CANDIDATE } from "./extract-url.js";

// English. The place: "(in|on|from) (the|our) (team's) wiki|confluence (page|space|site)". Stopping at a word
// edge keeps "wikipedia" and "confluences" intact.
const EN_PLACE_WORD = String.raw`(?:the\s+|our\s+|my\s+|your\s+)?(?:team(?:'s)?\s+|company(?:'s)?\s+)?(?:confluence|wikis?)(?:\s+(?:pages?|spaces?|sites?|articles?|docs?))?(?![\w-])`;
const EN_PHRASES: readonly RegExp[] = [
  // "what does the wiki say about X", "what do we have in confluence on X"
  new RegExp(String.raw`\bwhat\s+(?:does|do)\s+${EN_PLACE_WORD}\s+say\s+(?:about|on|regarding)\s+`, "gi"),
  new RegExp(String.raw`\bwhat\s+do\s+we\s+have\s+(?:in|on)\s+${EN_PLACE_WORD}\s+(?:about|on|for)\s+`, "gi"),
  // "search the wiki for X", "look in confluence for X", "the wiki page about X"
  new RegExp(
    String.raw`(?:\b(?:in|on|from|at|inside|into|through)\s+)?${EN_PLACE_WORD}\s*(?:for|about|on|regarding|that\s+(?:covers|describes|explains))\s+`,
    "gi",
  ),
  // "X in our confluence space", "X on the wiki"
  new RegExp(String.raw`\b(?:in|on|from|at|inside|into|through)\s+${EN_PLACE_WORD}`, "gi"),
];
/** What is left of the place once the phrases are gone: the words themselves ("wiki: X", "Confluence X"). */
const EN_PLACE = new RegExp(EN_PLACE_WORD, "gi");

/** A request left at the end once its place is gone: "how do I get VPN access? check the wiki". */
const EN_TAIL = /[\s,;:.!?-]*\b(?:please\s+)?(?:check|see|search|look(?:\s+it)?\s+up|look)(?:\s+please)?$/i;

/** Requests at the start: "please can you search for", "look up", "find me", "show me". */
const EN_LEAD =
  /^(?:(?:please|pls|hey|hi)[\s,]+)*(?:(?:can|could|would)\s+you\s+)?(?:(?:please)\s+)?(?:search(?:\s+for)?|look\s+(?:up|for|in(?:to)?)|lookup|find(?:\s+me)?|fetch|get(?:\s+me)?|show\s+me|open|check|pull\s+up|read)\b\s*/i;

// Chinese. The place, with what ties it to the rest: "在Confluence上", "wiki里的", "confluence 页面中" — only with
// one of those around it (else the bare word goes with the English ones, and "the wiki" with its article).
const ZH_PLACE =
  /(?:在|从|去|到)\s*(?:confluence|wikis?)\s*(?:页面|空间|文档)?\s*(?:上面|里面|上|里|中|内)?\s*的?|(?:confluence|wikis?)\s*(?:(?:页面|空间|文档)\s*(?:上面|里面|上|里|中|内)?|上面|里面|上|里|中|内)\s*的?/gi;
/** Requests at the start: "帮我找一下", "请搜索", "查一下", "看看" (only there: 查 is also inside 检查). */
const ZH_REQUEST =
  /^(?:请|帮我|帮忙|麻烦你?|能不能|可以)?\s*(?:查找|查询|搜索|搜一下|搜|查一下|查|找一下|找|看一下|看看|打开|获取)(?:一下)?/;
/** "关于X的页面", "有没有关于X的文档": the words around the topic. */
const ZH_ABOUT = /(?:有没有|有无)?\s*(?:关于|有关)/g;
const ZH_TAIL =
  /的(?:页面|文档|文章|资料|内容|说明)$|(?:是什么|在哪里?|有哪些|怎么写的?|写了什么)$|[吗呢吧啊]$/;

/** Words that carry nothing on their own at either end of what is left. */
const EDGE_WORDS =
  /^(?:the|a|an|our|my|your|for|about|on|in|of|to|please|me|us|any|some|page|pages|docs?|的|一下|一些)$/i;

/** Punctuation and symbols at either end (ASCII and full-width). */
const EDGE_PUNCTUATION = /^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu;

/** Something worth searching for: a letter or a digit. */
const SEARCHABLE = /[\p{L}\p{N}]/u;

/**
 * The Confluence search text of `text`, or `undefined` when nothing is left once the phrases that only point
 * at Confluence are removed.
 * @example confluenceSearchText("search the wiki for the on-call runbook") // "on-call runbook"
 * @example confluenceSearchText("在Confluence上找部署文档") // "部署文档"
 * @example confluenceSearchText("wiki?") // undefined
 */
export function confluenceSearchText(text: string): string | undefined {
  let rest = text.replace(URL_CANDIDATE, " ");
  for (const phrase of EN_PHRASES) rest = rest.replace(phrase, " ");
  // The Chinese place before the bare words: "在Confluence上" goes whole, not as "在 上".
  rest = rest.replace(ZH_PLACE, " ").replace(EN_PLACE, " ").replace(ZH_ABOUT, " ");
  rest = tidy(tidy(rest).replace(EN_TAIL, ""));
  // A request verb leads only once the place around it is gone ("search the wiki for X" → "search X").
  rest = tidy(rest.replace(EN_LEAD, " ").replace(ZH_REQUEST, " "));
  for (let previous = ""; previous !== rest; ) {
    previous = rest;
    rest = tidy(rest.replace(ZH_TAIL, ""));
    const words = rest.split(" ");
    while (words.length > 0 && EDGE_WORDS.test(words[0]!)) words.shift();
    while (words.length > 0 && EDGE_WORDS.test(words.at(-1)!)) words.pop();
    rest = words.join(" ");
  }
  return SEARCHABLE.test(rest) ? rest : undefined;
}

/** Spaces collapsed, punctuation trimmed from both ends. */
function tidy(text: string): string {
  return text.replace(/\s+/g, " ").replace(EDGE_PUNCTUATION, "").trim();
}
