import { describe, expect, it } from "vitest";
import { adfToText } from "./adf.js";

const text = (t: string) => ({ type: "text", text: t });
const para = (...content: unknown[]) => ({ type: "paragraph", content });
const doc = (...content: unknown[]) => ({ type: "doc", version: 1, content });

describe("adfToText", () => {
  it("passes a v2 string through", () => {
    expect(adfToText("h1. Title")).toBe("h1. Title");
  });
  it("returns nothing for null or junk", () => {
    expect(adfToText(null)).toBe("");
    expect(adfToText({ no: "type" })).toBe("");
  });
  it("nests bullet lists", () => {
    const nested = {
      type: "bulletList",
      content: [
        {
          type: "listItem",
          content: [
            para(text("a")),
            { type: "bulletList", content: [{ type: "listItem", content: [para(text("b"))] }] },
          ],
        },
      ],
    };
    expect(adfToText(doc(nested))).toBe("- a\n  - b");
  });
  it("renders status, date, hard breaks and marks", () => {
    const value = doc(
      para(
        { type: "status", attrs: { text: "DONE", color: "green" } },
        text(" on "),
        { type: "date", attrs: { timestamp: "1709251200000" } },
        { type: "hardBreak" },
        { type: "text", text: "x", marks: [{ type: "code" }] },
        { type: "text", text: "gone", marks: [{ type: "strike" }] },
      ),
    );
    expect(adfToText(value)).toBe("[DONE] on 2024-03-01\n`x`~~gone~~");
  });
  it("keeps the text of node types it does not know", () => {
    expect(adfToText(doc({ type: "futureThing", content: [para(text("kept"))] }))).toBe("kept");
  });
  it("quotes panels", () => {
    expect(
      adfToText(doc({ type: "panel", attrs: { panelType: "info" }, content: [para(text("note"))] })),
    ).toBe("> note");
  });
});
