import { newQuickJSWASMModule, newVariant, RELEASE_SYNC, type QuickJSWASMModule } from 'quickjs-emscripten';

/**
 * The QuickJS WASM modules of this process: loaded lazily, once per memory size, shared by all
 * calls (each call still gets its own runtime and context, js-sandbox.ts).
 *
 * Memory: QuickJS's own allocator limit does not count bytes in this build (Emscripten gives it no
 * block sizes, so it charges 8 bytes per allocation: measured), and by default the WASM heap may
 * grow to 2 GiB of host memory. So each module gets a WebAssembly.Memory we create, whose maximum *is*
 * the memory limit: a hard byte bound on everything the engine holds. We also wrap that memory's
 * grow(): Emscripten calls it whenever malloc needs more heap, and a refused grow is an exact,
 * sticky record that the guest asked for more memory than the limit allows — even if the guest
 * then caught the out-of-memory error and carried on (run-watch.ts).
 *
 * A module is replaced (the next call loads a fresh one, ~10 ms) when its state can no longer be
 * trusted: the host stack overflowed inside the WASM, or QuickJS aborted (js-sandbox.ts).
 */

const WASM_PAGE_BYTES = 64 * 1024;
/** The build's INITIAL_MEMORY: the smallest memory the module accepts, and the smallest limit. */
export const MIN_WASM_MEMORY_BYTES = 16 * 1024 * 1024;
/** Distinct memory limits in use at once; beyond this the least recently used module is dropped. */
const MAX_CACHED_MODULES = 4;

/** The part of WebAssembly.Memory we use (the project's TypeScript lib has no WebAssembly types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(deltaPages: number): number;
}

const WasmMemoryConstructor = (
  globalThis as unknown as {
    WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory };
  }
).WebAssembly.Memory;

export interface LoadedQuickJS {
  readonly quickjs: QuickJSWASMModule;
  /** The maximum size of the module's linear memory, in bytes. */
  readonly memoryBytes: number;
  /** How many times the heap needed to grow past the maximum (only ever increases). */
  readonly refusedGrows: () => number;
}

interface Slot {
  readonly promise: Promise<LoadedQuickJS>;
  loaded?: LoadedQuickJS;
}

const slots = new Map<number, Slot>();
const counters = { loads: 0, discards: 0 };

/** Rounds a memory limit up to whole WASM pages (the unit of a WebAssembly.Memory maximum). */
export function wasmMemoryBytesFor(limitBytes: number): number {
  return Math.max(MIN_WASM_MEMORY_BYTES, Math.ceil(limitBytes / WASM_PAGE_BYTES) * WASM_PAGE_BYTES);
}

/** The module for this memory size, loading it if needed; never one that was discarded meanwhile. */
export async function acquireQuickJS(memoryBytes: number): Promise<LoadedQuickJS> {
  for (;;) {
    const mine = slots.get(memoryBytes) ?? startLoad(memoryBytes);
    // Re-insert to mark it most recently used (Map iteration order is insertion order).
    slots.delete(memoryBytes);
    slots.set(memoryBytes, mine);
    let loaded: LoadedQuickJS;
    try {
      loaded = await mine.promise;
    } catch (error) {
      if (slots.get(memoryBytes) === mine) slots.delete(memoryBytes); // the next call retries
      throw error;
    }
    if (slots.get(memoryBytes) === mine) return loaded;
  }
}

/** Drops `loaded` so the next call loads a fresh module; no-op if it was already replaced. */
export function discardQuickJS(loaded: LoadedQuickJS): void {
  if (slots.get(loaded.memoryBytes)?.loaded !== loaded) return;
  slots.delete(loaded.memoryBytes);
  counters.discards += 1;
}

export function quickJSModuleCounters(): { loads: number; discards: number } {
  return { ...counters };
}

function startLoad(memoryBytes: number): Slot {
  const mine: Slot = { promise: load(memoryBytes) };
  slots.set(memoryBytes, mine);
  void mine.promise.then(
    (loaded) => {
      mine.loaded = loaded;
      counters.loads += 1;
    },
    () => {},
  );
  for (const key of slots.keys()) {
    if (slots.size <= MAX_CACHED_MODULES) break;
    if (key !== memoryBytes) slots.delete(key); // calls already holding it finish normally
  }
  return mine;
}

async function load(memoryBytes: number): Promise<LoadedQuickJS> {
  const pages = memoryBytes / WASM_PAGE_BYTES;
  const memory = new WasmMemoryConstructor({ initial: MIN_WASM_MEMORY_BYTES / WASM_PAGE_BYTES, maximum: pages });
  let refused = 0;
  const grow = memory.grow.bind(memory);
  // Emscripten's heap growth calls memory.grow() from JavaScript and treats a throw as "no more
  // memory" (malloc then fails). An own property shadows the prototype method it would call.
  Object.defineProperty(memory, 'grow', {
    value: (deltaPages: number): number => {
      try {
        return grow(deltaPages);
      } catch (error) {
        refused += 1;
        throw error;
      }
    },
  });
  const quickjs = await newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory: memory }));
  return { quickjs, memoryBytes, refusedGrows: () => refused };
}
