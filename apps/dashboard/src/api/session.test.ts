import { afterEach, describe, expect, it } from "vitest";
import { storedKey } from "./session.js";

afterEach(() => storedKey.clear());

describe("the kept API key", () => {
  it("is kept in this tab only unless remembered", () => {
    storedKey.write("sk_tab");
    expect(sessionStorage.getItem("skillrun.apiKey")).toBe("sk_tab");
    expect(localStorage.getItem("skillrun.apiKey")).toBeNull();
    expect(storedKey.read()).toBe("sk_tab");
  });

  it("is kept for every tab of this browser when remembered on this device", () => {
    storedKey.write("sk_device", true);
    expect(localStorage.getItem("skillrun.apiKey")).toBe("sk_device");
    expect(sessionStorage.getItem("skillrun.apiKey")).toBeNull();
    expect(storedKey.read()).toBe("sk_device");
  });

  it("signing in again replaces a remembered key, and signing out forgets both", () => {
    storedKey.write("sk_device", true);
    storedKey.write("sk_tab");
    expect(localStorage.getItem("skillrun.apiKey")).toBeNull();
    expect(storedKey.read()).toBe("sk_tab");
    localStorage.setItem("skillrun.apiKey", "sk_other");
    storedKey.clear();
    expect(storedKey.read()).toBeNull();
    expect(localStorage.getItem("skillrun.apiKey")).toBeNull();
  });
});
