import { describe, expect, it } from "vitest";
import { isRunFileName, MAX_FILE_NAME, sanitiseFileName } from "./file-names.js";

describe("run file names", () => {
  it("keeps the last part of a path, in letters, digits, '.', '_' and '-'", () => {
    expect(sanitiseFileName("../../etc/passwd")).toBe("passwd");
    expect(sanitiseFileName("C:\\Users\\me\\report (final).csv")).toBe("report_final_.csv");
    expect(sanitiseFileName("Résumé final.pdf")).toBe("Resume_final.pdf");
    expect(sanitiseFileName("ﬁle①.txt")).toBe("file1.txt");
    expect(sanitiseFileName("a\u0000b.txt")).toBe("a_b.txt");
  });

  it("never gives a hidden file, a dot segment or nothing", () => {
    expect(sanitiseFileName(".htaccess")).toBe("htaccess");
    expect(sanitiseFileName("..")).toBe("file");
    expect(sanitiseFileName("")).toBe("file");
    expect(sanitiseFileName("\u0301")).toBe("file");
  });

  it("shortens a long name to MAX_FILE_NAME characters, keeping its extension", () => {
    const name = sanitiseFileName(`${"x".repeat(300)}.csv`);
    expect(name).toHaveLength(MAX_FILE_NAME);
    expect(name.endsWith(".csv")).toBe(true);
  });

  it("tells a name a run file can have from any other", () => {
    for (const name of ["report.csv", "a-b_c.1", "file"]) expect(isRunFileName(name)).toBe(true);
    for (const name of ["", ".", "..", ".x", "a/b", "a\\b", "é.csv", "a b", "x".repeat(121)]) {
      expect(isRunFileName(name), JSON.stringify(name)).toBe(false);
    }
  });
});
