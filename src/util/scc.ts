/**
 * Tarjan's algorithm, iterative (deep graphs must not overflow the stack): the strongly connected
 * components of the graph reachable from `roots` that hold a cycle (more than one member, or a self-edge),
 * each sorted with `compare`.
 */
export function cyclicComponents<T>(
  roots: Iterable<T>,
  successors: (v: T) => readonly T[],
  compare?: (a: T, b: T) => number,
): T[][] {
  const index = new Map<T, number>();
  const low = new Map<T, number>();
  const onStack = new Set<T>();
  const stack: T[] = [];
  const out: T[][] = [];
  let counter = 0;
  const visit = (v: T) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
  };
  for (const root of roots) {
    if (index.has(root)) continue;
    const work: Array<{ v: T; next: readonly T[]; i: number }> = [{ v: root, next: successors(root), i: 0 }];
    visit(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.i < frame.next.length) {
        const w = frame.next[frame.i++]!;
        if (!index.has(w)) {
          visit(w);
          work.push({ v: w, next: successors(w), i: 0 });
        } else if (onStack.has(w)) {
          low.set(frame.v, Math.min(low.get(frame.v)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(frame.v)!));
      if (low.get(frame.v) !== index.get(frame.v)) continue;
      const comp: T[] = [];
      let w: T;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== frame.v);
      if (comp.length > 1 || frame.next.includes(frame.v)) out.push(comp.sort(compare));
    }
  }
  return out;
}
