/**
 * The documentation holds together: every relative link in README.md and docs/*.md leads to a file that exists,
 * and its `#anchor` to a heading of the target page (GitHub's heading slugs); README.md stays a short front door
 * that links every page of docs/. External links are not fetched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const README = join(REPO, 'README.md');
const DOCS = join(REPO, 'docs');
const MAX_README_LINES = 300;

/** The markdown files whose links are checked: README.md and every docs/*.md. */
function pages(): string[] {
  return [README, ...readdirSync(DOCS).filter((name) => name.endsWith('.md')).sort().map((name) => join(DOCS, name))];
}

/** The lines of a markdown text outside fenced code blocks. */
function proseLines(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (marker !== undefined) {
      fence = marker;
    } else {
      lines.push(line);
    }
  }
  return lines;
}

/** GitHub's anchor for a heading: its text lower-cased, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '');
  return text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors a markdown page has: one per heading, repeated headings numbered as GitHub numbers them. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** The targets of the inline links and images of a markdown page, outside code blocks and code spans. */
function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(markdown)) {
    const text = line.replace(/(`+)(.*?)\1/g, (_, _ticks: string, code: string) => code.replace(/[[\]()]/g, ' '));
    for (const match of text.matchAll(/\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1] ?? '');
  }
  return targets;
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** What is wrong with the relative links of one page, one line per broken link. */
function brokenLinks(page: string): string[] {
  const markdown = readFileSync(page, 'utf8');
  const problems: string[] = [];
  for (const target of linkTargets(markdown)) {
    if (isExternal(target)) continue;
    const hash = target.indexOf('#');
    const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const file = path === '' ? page : resolve(dirname(page), path);
    const where = `${relative(REPO, page)}: (${target})`;
    if (target === '') {
      problems.push(`${where}: empty link`);
    } else if (!existsSync(file)) {
      problems.push(`${where}: no file ${relative(REPO, file)}`);
    } else if (anchor !== undefined) {
      if (!file.endsWith('.md') || !statSync(file).isFile()) problems.push(`${where}: an anchor into a file that is not markdown`);
      else if (!anchors(readFileSync(file, 'utf8')).has(anchor)) problems.push(`${where}: no heading #${anchor} in ${relative(REPO, file)}`);
    }
  }
  return problems;
}

test('heading anchors are GitHub slugs', () => {
  assert.equal(slug('Overlays: fixing a spec you cannot edit'), 'overlays-fixing-a-spec-you-cannot-edit');
  assert.equal(slug('Generated project layout (`init`)'), 'generated-project-layout-init');
  assert.equal(slug("The server's search and the reference ranking"), 'the-servers-search-and-the-reference-ranking');
  assert.equal(slug('Paging of tools/list'), 'paging-of-toolslist');
  assert.equal(slug('snake_case and [a link](x.md)'), 'snake_case-and-a-link');
  assert.deepEqual([...anchors('# A\n\n```sh\n# not a heading\n```\n\n## A\n')], ['a', 'a-1']);
  assert.deepEqual(linkTargets('[a](x.md) `[b](y.md)` [`c`](z.md#h "title")\n```\n[d](w.md)\n```'), ['x.md', 'z.md#h']);
});

test('every relative link in README.md and docs/*.md leads to a file and heading that exist', () => {
  const problems = pages().flatMap(brokenLinks);
  assert.deepEqual(problems, [], `broken links:\n${problems.join('\n')}`);
});

test(`README.md has at most ${MAX_README_LINES} lines`, () => {
  const lines = readFileSync(README, 'utf8').replace(/\n$/, '').split('\n').length;
  assert.ok(lines <= MAX_README_LINES, `README.md has ${lines} lines; move details to a page under docs/`);
});

test('README.md links every page of docs/, and every page has a title', () => {
  const readme = readFileSync(README, 'utf8');
  const linked = new Set(linkTargets(readme).filter((target) => !isExternal(target))
    .map((target) => resolve(REPO, decodeURIComponent(target.split('#')[0] ?? ''))));
  const docs = pages().slice(1);
  assert.ok(docs.length > 0, 'docs/ has pages');
  const unlinked = docs.filter((page) => !linked.has(page)).map((page) => relative(REPO, page));
  assert.deepEqual(unlinked, [], 'pages README.md does not link');
  const untitled = docs.filter((page) => !/^# \S/.test(readFileSync(page, 'utf8'))).map((page) => relative(REPO, page));
  assert.deepEqual(untitled, [], 'pages that do not start with a # title');
});
