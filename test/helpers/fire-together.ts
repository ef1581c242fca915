/** Fires all requests at once: each waits on a common gate so none starts before the others are ready. */
export async function fireTogether<T>(count: number, send: (index: number) => Promise<T>): Promise<T[]> {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const all = Array.from({ length: count }, async (_, index) => {
    await gate;
    return send(index);
  });
  open();
  return Promise.all(all);
}
