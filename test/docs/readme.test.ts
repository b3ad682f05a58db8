/**
 * The README stands alone: every link it makes points at a file of this repository, and
 * it names no path outside it (a reader of a clone has nothing else).
 */
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

t.test('every relative link of the README is a file or folder of the repository', async (t) => {
  const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/i.test(l));
  t.ok(links.length >= 10, `the README links to its docs (${links.length} links)`);
  for (const link of links) {
    const target = resolve(root, link);
    t.notOk(relative(root, target).startsWith('..'), `${link} stays inside the repository`);
    t.ok(existsSync(target), `${link} exists`);
  }
});

t.test('the README names no path outside the repository', async (t) => {
  const outside = readme.split('\n').map((line, i) => ({ line, n: i + 1 })).filter(({ line }) => /(^|[\s`(\[])\.\.\//.test(line));
  t.same(outside, [], 'no ../ paths');
});
