/**
 * Gives as many of the choosers as possible a name of their own from their candidates (a maximum
 * bipartite matching, Kuhn's augmenting paths). Choosers are served in order, each with its first free
 * candidate; when all of its candidates are held, a holder moves to another of its own candidates if
 * it can. So a name goes to whoever has no other, and an operation with few fitting names is not left
 * with a counter because an earlier one with many took its only one.
 */
export function matchNames<K>(choosers: readonly { key: K; candidates: readonly string[] }[], taken: ReadonlySet<string>): Map<K, string> {
  const holder = new Map<string, number>();
  const held: (string | undefined)[] = choosers.map(() => undefined);
  const seat = (index: number, visited: Set<string>): boolean => {
    for (const name of choosers[index]?.candidates ?? []) {
      if (taken.has(name) || visited.has(name)) continue;
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
  choosers.forEach((_, index) => seat(index, new Set()));
  return new Map(choosers.flatMap((c, index) => (held[index] === undefined ? [] : [[c.key, held[index] as string] as [K, string]])));
}
