import type { Operation } from '../../model/types.js';

/** Most bytes (UTF-8) of the map search_operations' description carries: a map, not a listing. */
export const MAX_MAP_BYTES = 1500;

/** A tag name longer than this is not listed (it is counted among "and N more"): a map names areas, not sentences. */
const MAX_NAME_LENGTH = 100;

/** An area of the API and how many of the selected operations are in it. */
interface Area { readonly name: string; count: number }

/**
 * The map of the API that search_operations' description carries, so that an assistant knows what is there before
 * its first search: the selected operations' tags with how many operations each has (`Tags: Books (5), Authors (1),
 * and 3 more.`), or where no operation has a tag, the first path segments (`Paths: /pets (5), /owners (2).`).
 * Largest first, ties by name (lower-cased, ordinal); at most {@link MAX_MAP_BYTES} bytes, the rest counted as "and N more".
 * Tags that differ only in case are one (search_operations' `tag` matches whatever the case), under the spelling
 * met first. Operations without a tag in an API with tags are not counted; an API without tags whose paths mostly
 * name no area (AWS's `/#X-Amz-Target=…`, S3's `/{Bucket}/{Key}`) has no map. A name too long or with control
 * characters is not listed, only counted. Empty when there is nothing to list.
 */
export function searchMap(operations: readonly Pick<Operation, 'tags' | 'path'>[]): string {
  const tagged = operations.some((op) => op.tags.length > 0);
  const areas = new Map<string, Area>();
  for (const op of operations) {
    const names = tagged ? op.tags : [pathArea(op.path)].filter((area) => area !== '');
    for (const key of new Set(names.map((name) => name.toLowerCase()))) {
      const area = areas.get(key) ?? { name: names.find((name) => name.toLowerCase() === key) ?? key, count: 0 };
      area.count++;
      areas.set(key, area);
    }
  }
  // Paths that mostly start with a parameter (S3's /{Bucket}/{Key}) or at the root (AWS's) map nothing.
  if (!tagged && [...areas.values()].reduce((sum, area) => sum + area.count, 0) < operations.length / 2) return '';
  const sorted = [...areas.entries()].sort(([a, x], [b, y]) => y.count - x.count || (a < b ? -1 : a > b ? 1 : 0)).map(([, area]) => area);
  const label = tagged ? 'Tags' : 'Paths';
  const text = (listed: readonly string[], more: number): string =>
    `${label}: ${[...listed, ...(more > 0 ? [`and ${more} more`] : [])].join(', ')}.`;
  const listed: string[] = [];
  for (const area of sorted) {
    if (!listable(area.name)) continue;
    const item = `${area.name} (${area.count})`;
    if (Buffer.byteLength(text([...listed, item], sorted.length - listed.length - 1)) > MAX_MAP_BYTES) break;
    listed.push(item);
  }
  return listed.length === 0 ? '' : text(listed, sorted.length - listed.length);
}

/** A name a model can read in a one-line map and give back as `tag`. */
function listable(name: string): boolean {
  return name.trim() !== '' && name.length <= MAX_NAME_LENGTH && !/[\p{Cc}\u2028\u2029]/u.test(name);
}

/**
 * The area of a path: its segments up to the first that names something, not a parameter or a version
 * (`/pets/{id}`: `/pets`; `/2010-04-01/Accounts/{Sid}/Calls.json`: `/2010-04-01/Accounts`; `/v1/users`: `/v1/users`),
 * without what follows a `?` or `#` or a file extension; empty at the root.
 */
function pathArea(path: string): string {
  const segments = (path.split(/[?#]/)[0] ?? '').split('/').filter((s) => s !== '');
  const at = segments.findIndex((s) => !/^\{[^}]*\}$/.test(s) && !/^(v\d+[a-z]*\d*|\d[\d.-]*)$/i.test(s));
  if (at < 0) return '';
  return `/${[...segments.slice(0, at), (segments[at] ?? '').replace(/\.(json|xml|ya?ml|txt)$/i, '')].join('/')}`;
}
