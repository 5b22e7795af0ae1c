/**
 * @module console/pages
 * The console's two HTML pages and its style sheet. No inline script or style (the CSP forbids both): the
 * page's behaviour is the static `/app.js`. The only values put into HTML are escaped.
 */
/** `text` safe inside HTML text and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function page(title: string, body: string, head = ""): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/style.css">
${head}</head>
<body>
${body}
</body>
</html>
`;
}

/**
 * The sign-in form: a labelled token field (and the name answers are recorded under). `/login.js` posts it
 * and keeps the session it returns in sessionStorage.
 */
export function loginPage(): string {
  return page(
    "Sign in — toolgate console",
    `<main>
<h1>toolgate console</h1>
<p id="login-error" class="error" role="alert"></p>
<form id="login" method="post" action="/login">
<p><label for="token">Console token</label>
<input id="token" name="token" type="password" autocomplete="off" required></p>
<p><label for="name">Your name (recorded with each answer)</label>
<input id="name" name="name" type="text" autocomplete="username" maxlength="64"></p>
<p><button type="submit">Sign in</button></p>
</form>
</main>`,
    `<script type="module" src="/login.js"></script>
`,
  );
}

/** The console: pending asks and the audit view; `/app.js` fills them (nothing of the session is in it). */
export function appPage(): string {
  return page(
    "toolgate console",
    `<header>
<h1>toolgate console</h1>
<p>Signed in as <span id="who"></span> · <span id="status" role="status">connecting…</span></p>
<nav aria-label="Views"><a href="#pending">Pending approvals</a> · <a href="#audit">Audit log</a></nav>
</header>
<div id="stopped" class="stopped" role="alert" hidden>
<p class="reason"></p>
<p>A page reloaded now would come from whoever holds the port. Sign in again only once you have started the console yourself.</p>
<p><button id="sign-in-again" type="button">Sign in again</button></p>
</div>
<main>
<section id="pending" aria-labelledby="pending-title">
<h2 id="pending-title">Pending approvals</h2>
<p class="meta">Grouped by agent and worker, oldest first. A group's asks are its agent's current turn: <em>Approve all</em> and <em>Deny all</em> answer them together, or none of them when one was decided meanwhile.</p>
<p id="none">Nothing is waiting for approval.</p>
<div id="asks"></div>
<h3 id="expired-title">Expired</h3>
<ul id="expired" aria-labelledby="expired-title"></ul>
<div id="announce" class="visually-hidden" role="status" aria-live="polite"></div>
</section>
<section id="keyboard" aria-labelledby="keyboard-title">
<h2 id="keyboard-title">Keyboard</h2>
<dl class="keys">
<dt><kbd>j</kbd> or <kbd>↓</kbd></dt><dd>next ask</dd>
<dt><kbd>k</kbd> or <kbd>↑</kbd></dt><dd>previous ask</dd>
<dt><kbd>a</kbd></dt><dd>approve the ask in focus, once</dd>
<dt><kbd>d</kbd></dt><dd>deny: to its reason field; <kbd>Enter</kbd> there denies, <kbd>Escape</kbd> goes back</dd>
<dt><kbd>Shift</kbd>+<kbd>a</kbd></dt><dd>approve always: shows the rule first; <kbd>Enter</kbd> on <em>Add the rule and approve</em> adds it</dd>
<dt><kbd>Tab</kbd></dt><dd>every button and field, in order</dd>
</dl>
</section>
<section id="audit" aria-labelledby="audit-title">
<h2 id="audit-title">Audit log</h2>
<form id="audit-filter">
<label for="audit-tool">Tool</label> <input id="audit-tool" name="tool" type="text">
<label for="audit-decision">Decision</label>
<select id="audit-decision" name="decision">
<option value="">any</option><option value="allow">allow</option><option value="ask">ask</option><option value="deny">deny</option>
</select>
<label for="audit-agent">Agent</label> <input id="audit-agent" name="agent" type="text">
<label for="audit-since">From</label> <input id="audit-since" name="since" type="datetime-local" step="1">
<label for="audit-until">To</label> <input id="audit-until" name="until" type="datetime-local" step="1">
<button type="submit">Filter</button>
<label for="audit-tail">Live tail</label> <input id="audit-tail" type="checkbox">
</form>
<p id="audit-file"></p>
<table id="audit-table">
<caption>Most recent calls first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Tool</th><th scope="col">Decision</th><th scope="col">Rule</th><th scope="col">Outcome</th><th scope="col">Agent</th><th scope="col">Detail</th></tr></thead>
<tbody></tbody>
</table>
<p><button id="audit-more" type="button" hidden>Older records</button></p>
</section>
</main>`,
    `<script type="module" src="/app.js"></script>
`,
  );
}

/** The style sheet: system fonts, light and dark following the system. */
export const STYLE = `:root { color-scheme: light dark; --fg: #1b1b1b; --bg: #fff; --muted: #555; --line: #ccc; --accent: #0b57d0; --bad: #b3261e; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e6e6; --bg: #161616; --muted: #aaa; --line: #444; --accent: #8ab4f8; --bad: #f2b8b5; } }
body { font: 1rem/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 0 auto; max-width: 70rem; padding: 1rem; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.2rem; }
label { margin-right: .5rem; }
input, select, button, textarea { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: .3rem .5rem; }
button { cursor: pointer; border-color: var(--accent); }
button:focus-visible, input:focus-visible, a:focus-visible, textarea:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.error, .lost { color: var(--bad); }
.stopped { border: 3px solid var(--bad); border-radius: 6px; padding: .5rem 1rem; margin-bottom: 1rem; }
.stopped .reason { color: var(--bad); font-weight: 600; }
.ask { border: 1px solid var(--line); border-radius: 6px; padding: .75rem; margin-bottom: 1rem; content-visibility: auto; contain-intrinsic-size: auto 18rem; }
.ask h3 { font-size: 1rem; margin: 0 0 .5rem; overflow-wrap: anywhere; }
.field { margin: .25rem 0; }
.field .label { color: var(--muted); }
.quoted { white-space: pre-wrap; overflow-wrap: anywhere; border-left: 3px solid var(--line); padding-left: .5rem; margin: .1rem 0 .1rem 1rem; font-family: ui-monospace, monospace; max-height: 30rem; overflow: auto; }
.meta { color: var(--muted); font-size: .9rem; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-top: .5rem; }
input { max-width: 100%; box-sizing: border-box; }
.group { border: 2px solid var(--line); border-radius: 8px; padding: .75rem; margin-bottom: 1.25rem; }
.group h3 { margin: 0; font-size: 1.1rem; overflow-wrap: anywhere; }
.group-asks { list-style: none; padding: 0; margin-top: .75rem; }
.ask h4 { font-size: 1rem; margin: 0 0 .5rem; overflow-wrap: anywhere; }
.ask:focus-visible, .ask:focus { outline: 3px solid var(--accent); outline-offset: 2px; }
.countdown { font-weight: 600; }
.countdown.expiring { color: var(--bad); border: 2px solid var(--bad); border-radius: 4px; padding: .2rem .4rem; }
.always { border: 2px dashed var(--accent); border-radius: 6px; padding: .5rem; margin-top: .5rem; }
.keys { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
.keys dd { margin: 0; }
kbd { font-family: ui-monospace, monospace; border: 1px solid var(--line); border-radius: 3px; padding: 0 .25rem; }
#audit-filter { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.trace { white-space: pre-wrap; overflow-wrap: anywhere; font-family: ui-monospace, monospace; margin: .25rem 0 0 1rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; border-bottom: 1px solid var(--line); padding: .25rem .5rem; overflow-wrap: anywhere; }
`;
