/**
 * The Django REST framework app of the framework tests (test/fixtures/frameworks/django/, a lending library: the
 * project `library`, the app `catalog`), on what Debian bookworm ships: python3-django 3.2,
 * python3-djangorestframework 3.14, python3-djangorestframework-spectacular 0.25 (drf-spectacular, which writes the
 * OpenAPI document the app serves at /api/schema/) and python3-django-filters 23. The packages are installed with
 * apt-get on first use (as root, as CI runs); the app runs on Debian's own Python (/usr/bin/python3, whatever python3
 * comes first on PATH) under `manage.py runserver --noreload` on 127.0.0.1, its migrations applied at start to a
 * SQLite database in a scratch folder (uploaded files under media/ there), which the tests read (the sqlite3 CLI,
 * and the files themselves).
 *
 * Two users are made at start, each with a DRF token: `librarian` (staff: may delete) and `reader` (may create and
 * change, not delete).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { REPO } from '../golden.js';
import { scratchDir } from '../scratch.js';
import { fetchJson, freePort, requireFile, requireProgram, startProcess, withFreshPorts, type RealServer } from '../real-apis.js';

/** The project's folder (manage.py, and the overlay that fixes its document). */
export const DJANGO_APP = join(REPO, 'test/fixtures/frameworks/django');
/** Declares the cover upload's field as the file it is (drf-spectacular writes it as a URI string). */
export const DJANGO_COVER_OVERLAY = join(DJANGO_APP, 'cover-file.overlay.yaml');

const PYTHON = '/usr/bin/python3';
const DIST_PACKAGES = '/usr/lib/python3/dist-packages';

/** Debian's Python with Django, Django REST framework, drf-spectacular and django-filter (apt-get when missing), and the sqlite3 CLI. */
export function ensureDjango(): void {
  requireFile(PYTHON, 'python3');
  requireFile(join(DIST_PACKAGES, 'django/__init__.py'), 'python3-django');
  requireFile(join(DIST_PACKAGES, 'rest_framework/__init__.py'), 'python3-djangorestframework');
  requireFile(join(DIST_PACKAGES, 'drf_spectacular/__init__.py'), 'python3-djangorestframework-spectacular');
  requireFile(join(DIST_PACKAGES, 'django_filters/__init__.py'), 'python3-django-filters');
  requireProgram('sqlite3', 'sqlite3');
}

/** The versions of the packages the app runs on, as Python reports them. */
export function djangoVersions(): { django: string; djangorestframework: string; drfSpectacular: string; djangoFilter: string } {
  const script = 'import json, django, rest_framework, drf_spectacular, django_filters; '
    + 'print(json.dumps({"django": django.__version__, "djangorestframework": rest_framework.__version__, "drfSpectacular": drf_spectacular.__version__, "djangoFilter": django_filters.__version__}))';
  return JSON.parse(execFileSync(PYTHON, ['-c', script], { encoding: 'utf8', env: pythonEnv({}) })) as ReturnType<typeof djangoVersions>;
}

export interface DjangoServer extends RealServer {
  /** The document drf-spectacular serves (YAML). */
  readonly documentUrl: string;
  /** The DRF tokens of the staff user `librarian` and of the user `reader` (sent as `Authorization: Token <key>`). */
  readonly tokens: { readonly librarian: string; readonly reader: string };
  /** The SQLite database file. */
  readonly database: string;
  /** MEDIA_ROOT: uploaded files are stored under it (a FileField's column names the path relative to it). */
  readonly media: string;
  /** Rows of a query run on the database file with the sqlite3 CLI (JSON mode). */
  rows(sql: string): Record<string, unknown>[];
  /** A request to the app (path from the root), as the librarian. */
  api(path: string, init?: Parameters<typeof fetchJson>[1]): Promise<any>;
}

/** The project on a free port of 127.0.0.1: a new database in a scratch folder, migrated, with the two users. */
export function startDjango(): Promise<DjangoServer> {
  // runserver says "That port is already in use": said as withFreshPorts understands it, so that it tries another port.
  return withFreshPorts(() => startOnce().catch((error: unknown) => {
    throw /port is already in use/i.test(String(error)) ? new Error(`address already in use: ${String(error)}`) : error;
  }));
}

/** The environment for Debian's Python: no bytecode written into the repository, nothing of another Python's. */
function pythonEnv(more: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1', DJANGO_SETTINGS_MODULE: 'library.settings', ...more };
  for (const name of ['PYTHONPATH', 'PYTHONHOME', 'PYTHONSTARTUP', 'VIRTUAL_ENV']) delete env[name];
  return env;
}

/** The two users and their tokens, made with the project's own models. */
const USERS = [
  'import sys',
  'from django.contrib.auth.models import User',
  'from rest_framework.authtoken.models import Token',
  'Token.objects.create(user=User.objects.create_user("librarian", is_staff=True), key=sys.argv[1])',
  'Token.objects.create(user=User.objects.create_user("reader"), key=sys.argv[2])',
].join('\n');

async function startOnce(): Promise<DjangoServer> {
  ensureDjango();
  const sqlite3 = requireProgram('sqlite3', 'sqlite3');
  const folder = scratchDir('django');
  const env = pythonEnv({ LIBRARY_DATA: folder });
  const manage = (...args: string[]): string => execFileSync(PYTHON, [join(DJANGO_APP, 'manage.py'), ...args], { cwd: DJANGO_APP, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  manage('migrate', '--no-input', '-v', '0');
  const tokens = { librarian: randomBytes(20).toString('hex'), reader: randomBytes(20).toString('hex') };
  // A script with the project's settings (as `manage.py shell` runs one), given the keys as its arguments.
  execFileSync(PYTHON, ['-c', `import django\ndjango.setup()\n${USERS}`, tokens.librarian, tokens.reader], { cwd: DJANGO_APP, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const documentUrl = `${origin}/api/schema/`;
  const server = await startProcess('Django (runserver)', PYTHON, [join(DJANGO_APP, 'manage.py'), 'runserver', `127.0.0.1:${port}`, '--noreload'], folder, origin,
    async () => (await fetch(documentUrl, { signal: AbortSignal.timeout(1_000) })).ok, env);
  const database = join(folder, 'library.sqlite3');
  return {
    ...server,
    documentUrl,
    tokens,
    database,
    media: join(folder, 'media'),
    rows: (sql) => JSON.parse(execFileSync(sqlite3, ['-json', database, sql], { encoding: 'utf8' }) || '[]') as Record<string, unknown>[],
    api: (path, init = {}) => fetchJson(`${origin}${path}`, { ...init, headers: { authorization: `Token ${tokens.librarian}`, ...init.headers } }),
  };
}
