import jsonata from "jsonata";
import { describe, expect, it } from "vitest";
import { FUNCTION_NAMES, functionNameProblems } from "./function-names.js";

describe("the functions an expression may call", () => {
  it("are each a function JSONata has, $totp apart (bound by the engine)", async () => {
    for (const name of FUNCTION_NAMES.filter((one) => one !== "totp")) {
      expect(await jsonata(`$type($${name})`).evaluate({}), name).toBe("function");
    }
  });

  it("an unbound $name called, or a bare function name called, is reported; bound ones are not", () => {
    expect(functionNameProblems("$uppercse(x)")).toEqual([
      'unknown function "$uppercse"; did you mean "$uppercase"?',
    ]);
    expect(functionNameProblems("sum(x)")).toEqual([
      '"sum" is not a function; did you mean "$sum"?',
    ]);
    expect(functionNameProblems("items.($f := function($a) { $a }; $f(1))")).toEqual([]);
    expect(functionNameProblems("$map(xs, function($v, $i) { $i })")).toEqual([]);
    // A bare name far from every function may be a lambda kept in an object; left to run time.
    expect(functionNameProblems("obj.handler(1)")).toEqual([]);
    expect(functionNameProblems("unknownthing(1)")).toEqual([]);
    expect(functionNameProblems("a +")).toEqual([]);
  });
});
