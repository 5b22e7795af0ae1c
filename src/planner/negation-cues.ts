/**
 * @module planner/negation-cues
 * The data behind negation detection: clause boundaries, cues that negate what follows them in a clause,
 * cues that negate the mention right before them, and the words a comma-separated list may carry.
 * English words match on ASCII-letter boundaries so they work beside CJK text; Chinese cues are substrings.
 */

/** Ends a sentence: negation never crosses it. `.` only before whitespace, so `v1.2` is not a boundary. */
export const HARD_BOUNDARY = /[.!?;](?=\s|$)|[。！？；\n]/g;

/** English words that end a clause inside a sentence (a contrast or a new step). */
const SOFT_WORDS = ["but", "however", "although", "though", "so", "then", "instead(?!\\s+of)", "whereas"];
/** Chinese words that end a clause. */
const SOFT_CJK = [
  "但是",
  "但",
  "不过",
  "可是",
  "然而",
  "而是",
  "所以",
  "因此",
  "然后",
  "改用",
  "换成",
  "转而",
];

/** Ends a clause: commas and contrast words. A list continuing after a comma keeps its negation. */
export const SOFT_BOUNDARY = new RegExp(
  `[,，]|(?<![A-Za-z])(?:${SOFT_WORDS.join("|")})(?![A-Za-z])|${SOFT_CJK.join("|")}`,
  "gi",
);

/** English cues that negate every tool mentioned after them in the same clause. */
const PRE_EN = [
  "don't",
  "do not",
  "doesn't",
  "does not",
  "didn't",
  "did not",
  "won't",
  "will not",
  "wouldn't",
  "would not",
  "shouldn't",
  "should not",
  "needn't",
  "need not",
  "no need",
  "not",
  "no",
  "without",
  "never",
  "avoid",
  "avoiding",
  "instead of",
  "rather than",
  "skip",
  "skipping",
  "except",
  "excluding",
  "unnecessary",
  "cannot",
  "can't",
  "neither",
  "nor",
];

/** Chinese cues that negate every tool mentioned after them in the same clause. */
const PRE_CJK = [
  "不需要",
  "不需",
  "无需",
  "无须",
  "毋须",
  "不用",
  "不要",
  "别用",
  "别调用",
  "别去",
  "没必要",
  "没有必要",
  "不必",
  "不该",
  "不应该",
  "不应",
  "不能用",
  "不会用",
  "不使用",
  "不调用",
  "不考虑",
  "避免",
  "而不是",
  "排除",
  "跳过",
];

/** Matches any pre-mention cue. */
export const PRE_CUE = new RegExp(
  `(?<![A-Za-z'])(?:${PRE_EN.map((cue) => cue.replace(/ /g, "\\s+")).join("|")})(?![A-Za-z'])|${PRE_CJK.join("|")}`,
  "gi",
);

/** Matches, right after a mention, a cue that negates it ("jira_fetch is not needed", "web_fetch 不需要"). */
export const POST_CUE = new RegExp(
  "^[\\s`'\"*)\\]]*(?:tool\\s+|工具\\s*)?(?:" +
    [
      "(?:(?:is|are|was|would\\s+be|will\\s+be|seems|looks)\\s+)?(?:not\\s+(?:needed|necessary|required|relevant|applicable|useful|helpful|appropriate|possible|an\\s+option)|unnecessary|irrelevant|useless|inapplicable)",
      "(?:isn't|aren't|wasn't)\\s+(?:needed|necessary|required|relevant|applicable|useful|helpful|an\\s+option)",
      "(?:can't|cannot|won't|doesn't|does\\s+not|will\\s+not)\\s+(?:be\\s+used|help|apply|work|fit)",
      "(?:是|也|并|都)?(?:不需要|不必要|没必要|没有必要|不适用|用不上|用不到|不相关|无关|没用|不用|不能用|无法使用|派不上用场|不合适)",
    ].join("|") +
    ")(?![A-Za-z])",
  "i",
);

/** Words a comma-continued list may contain besides tool names ("…, web_fetch, or confluence_fetch either"). */
export const LIST_FILLER =
  /(?<![A-Za-z])(?:and|or|nor|either|too|here|now|tools?|also)(?![A-Za-z])|和|或者|或|以及|及|与|工具|也|都|了|[\s`'"*/&、]/gi;
