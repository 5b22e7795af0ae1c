import { describe, expect, it } from "vitest";
import { pageToMarkdown } from "./html.js";

const para = (word: string) =>
  `<p>${`${word} explains how the widgets fit together and why each one keeps its own state. `.repeat(6)}</p>`;
const options = { baseUrl: "https://example.com/docs/", wantChars: 50_000 };

describe("pageToMarkdown: the main content", () => {
  it("a page's only <article> holding most of the text is converted as the page marks it", () => {
    const html = `<html><head><title>Widgets</title></head><body>
      <nav><a href="/">Home</a> SITE-NAVIGATION</nav>
      <article><h1>Widgets</h1>${para("FIRST")}${para("SECOND")}
      <div class="social-share">SHARE-LINKS</div><a href="setup.html">setup</a></article>
      <footer>SITE-FOOTER</footer></body></html>`;
    const page = pageToMarkdown(html, options);
    expect(page.title).toBe("Widgets");
    expect(page.markdown).toContain("# Widgets");
    expect(page.markdown).toContain("FIRST explains");
    expect(page.markdown).toContain("SECOND explains");
    // Kept as the page has it (Readability would drop a share box), links made absolute.
    expect(page.markdown).toContain("SHARE-LINKS");
    expect(page.markdown).toContain("[setup](https://example.com/docs/setup.html)");
    for (const absent of ["SITE-NAVIGATION", "SITE-FOOTER"]) expect(page.markdown).not.toContain(absent);
  });

  it("a <main> is used when there is no single <article>", () => {
    const html = `<html><body><nav>SITE-NAVIGATION</nav><main>${para("MAIN")}<article>${para("ONE")}</article>
      <article>${para("TWO")}</article></main></body></html>`;
    const page = pageToMarkdown(html, options);
    for (const word of ["MAIN", "ONE", "TWO"]) expect(page.markdown).toContain(`${word} explains`);
    expect(page.markdown).not.toContain("SITE-NAVIGATION");
  });

  it("an <article> with less than half of the text is not taken for the page's content", () => {
    const html = `<html><body><article><p>TEASER only.</p></article>
      <div class="content">${para("BODY")}${para("MORE")}</div></body></html>`;
    const page = pageToMarkdown(html, options);
    expect(page.markdown).toContain("BODY explains");
    expect(page.markdown).toContain("MORE explains");
  });
});
