import { describe, expect, it } from "vitest";
import { findLink, parseLinkHeader } from "./link-header.js";

describe("parseLinkHeader", () => {
  it("reads every link with its parameters, quoted or not", () => {
    expect(
      parseLinkHeader(
        '<https://a.example/v1/run/list?cursor=abc&limit=10>; rel="next", </first>;rel=first; title="A, \\"B\\""',
      ),
    ).toEqual([
      { target: "https://a.example/v1/run/list?cursor=abc&limit=10", params: { rel: "next" } },
      { target: "/first", params: { rel: "first", title: 'A, "B"' } },
    ]);
  });

  it("keeps commas and semicolons inside the target", () => {
    expect(parseLinkHeader('</list?a=1,2;b>; rel="next"')).toEqual([
      { target: "/list?a=1,2;b", params: { rel: "next" } },
    ]);
  });

  it("skips malformed links and keeps the first value of a repeated parameter", () => {
    expect(parseLinkHeader('garbage; rel="next", </ok>; REL="prev"; rel="next"')).toEqual([
      { target: "/ok", params: { rel: "prev" } },
    ]);
  });

  it("reads nothing from an empty header", () => {
    expect(parseLinkHeader("")).toEqual([]);
    expect(parseLinkHeader(" , ")).toEqual([]);
  });
});

describe("findLink", () => {
  it("finds the link whose rel list includes the relation, case-insensitively", () => {
    const header = '</prev>; rel="prev", </next>; rel="Next last"';
    expect(findLink(header, "next")).toBe("/next");
    expect(findLink(header, "last")).toBe("/next");
    expect(findLink(header, "prev")).toBe("/prev");
  });

  it("finds nothing without a matching link or without a header", () => {
    expect(findLink('</prev>; rel="prev", </nextish>; rel="nextish"', "next")).toBeUndefined();
    expect(findLink(null, "next")).toBeUndefined();
  });
});
