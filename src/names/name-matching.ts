/**
 * Gives as many of the choosers as possible a name of their own from their candidates (a maximum
 * bipartite matching, Kuhn's augmenting paths). Choosers are served in order, each with its first free
 * candidate; when all of its candidates are held, a holder moves to another of its own candidates if
 * it can. So a name goes to whoever has no other, and an operation with few fitting names is not left
 * with a counter because an earlier one with many took its only one. The names a failed search met are
 * all held by choosers whose candidates are all among them, so no later search can free one: they are
 * not searched again, which keeps thousands of choosers competing for the same names linear.
 */
export function matchNames<K>(choosers: readonly { key: K; candidates: readonly string[] }[], taken: ReadonlySet<string>): Map<K, string> {
  const holder = new Map<string, number>();
  const held: (string | undefined)[] = choosers.map(() => undefined);
  const settled = new Set<string>();
  const seat = (index: number, visited: Set<string>): boolean => {
    for (const name of choosers[index]?.candidates ?? []) {
      if (taken.has(name) || settled.has(name) || visited.has(name)) continue;
      visited.add(name);
      const other = holder.get(name);
      if (other === undefined || seat(other, visited)) {
        holder.set(name, index);
        held[index] = name;
        return true;
      }
    }
    return false;
  };
  choosers.forEach((_, index) => {
    const visited = new Set<string>();
    if (!seat(index, visited)) for (const name of visited) settled.add(name);
  });
  return new Map(choosers.flatMap((c, index) => (held[index] === undefined ? [] : [[c.key, held[index] as string] as [K, string]])));
}
