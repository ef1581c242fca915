/**
 * The few browser globals the tests touch inside `page.evaluate`. Those functions run in the
 * page, but they are type-checked with the server's tsconfig, which has no DOM library (adding
 * it would hide DOM use in server code), so they reach the globals through these types:
 * `const { document } = globalThis as unknown as BrowserGlobals;`.
 */
export interface BrowserElement {
  classList: { contains(name: string): boolean };
  closest(selector: string): BrowserElement | null;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  textContent: string | null;
}

export interface BrowserGlobals {
  document: { activeElement: BrowserElement | null; body: BrowserElement; documentElement: { scrollWidth: number } };
  sessionStorage: { length: number };
  location: { hash: string };
  getComputedStyle(element: BrowserElement): { outlineStyle: string };
  /** A marker a test sets to prove later that the page was not reloaded. */
  sameDocument?: boolean;
}
