/**
 * Jupyter Server for the real-API tests: installed from Debian (`jupyter-server`, `python3-ipykernel` for the
 * Python kernel), run on 127.0.0.1 on a free port with a token, as root (`--allow-root`), its notebook root, its
 * configuration, data and runtime folders in a scratch folder. Besides the HTTP API, the tests check what the server
 * has in its root folder (files, directories, checkpoints), in its configuration folder, and the processes it starts
 * (kernels and terminals, by their command lines in /proc).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, readlink, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO } from './golden.js';
import { scratchDir } from './scratch.js';
import { freePort, requireFile, requireProgram, startProcess, type RealServer } from './real-apis.js';

/** The document Jupyter Server 1.23.3 serves at /api/spec.yaml (see test/fixtures/real-apis/README.md). */
export const JUPYTER_SPEC = join(REPO, 'test/fixtures/real-apis/jupyter-server-1.23.3.yaml');
/** An overlay that fixes where the document is wrong about the server: its token, notebook contents, session kernels. */
export const JUPYTER_OVERLAY = join(REPO, 'test/fixtures/real-apis/jupyter-server.overlay.yaml');

/** Installs what the Jupyter checks need (apt-get, when root): the server and the Python kernel. */
export function requireJupyter(): void {
  requireProgram('jupyter-server', 'jupyter-server');
  requireFile('/usr/lib/python3/dist-packages/ipykernel_launcher.py', 'python3-ipykernel');
}

/** A minimal nbformat 4 notebook with one code cell. */
export const notebook = (source: string): Record<string, unknown> => ({
  nbformat: 4, nbformat_minor: 5, metadata: {},
  cells: [{ cell_type: 'code', id: 'c1', source, metadata: {}, outputs: [], execution_count: null }],
});

/** Waits (at most 15 s) until `check` holds, and says whether it did. */
export async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (const end = Date.now() + 15_000; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 200))) if (await check()) return true;
  return false;
}

export interface JupyterServer extends RealServer {
  /** The token the server was started with. */
  readonly token: string;
  /** The folder the server serves notebooks and files from. */
  readonly root: string;
  /** The folder of its configuration (`serverconfig/<section>.json`). */
  readonly configFolder: string;
  /** A request to the server with the token: its status and body (JSON when it is JSON). */
  api(path: string, init?: { method?: string; body?: unknown }): Promise<{ status: number; body: any; text: string }>;
  /** The processes working in the server's folder or its root folder (the server, its kernels and terminals' shells): their ids and command lines. */
  processes(): Promise<{ pid: number; command: string }[]>;
}

/** Up to three starts: the free port can be taken between {@link freePort} and the server's bind. */
export async function startJupyter(): Promise<JupyterServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startJupyterOnce();
    } catch (error) {
      if (attempt >= 3 || !/is not available|already in use/i.test(String(error))) throw error;
    }
  }
}

async function startJupyterOnce(): Promise<JupyterServer> {
  const program = requireProgram('jupyter-server', 'jupyter-server');
  const folder = scratchDir('jupyter');
  const [root, configFolder] = [join(folder, 'root'), join(folder, 'config')];
  await mkdir(root);
  // The kernels and shells the server starts work in its folder, as /proc names it (no symbolic link).
  const realFolder = await realpath(folder);
  const token = randomBytes(16).toString('hex');
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  // Jupyter reads JUPYTER_* variables (JUPYTER_TOKEN among them): leave out any the test process has, and keep
  // its configuration, data, runtime files and trash in the scratch folder.
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('JUPYTER'))),
    HOME: folder,
    JUPYTER_CONFIG_DIR: configFolder,
    JUPYTER_DATA_DIR: join(folder, 'data'),
    JUPYTER_RUNTIME_DIR: join(folder, 'runtime'),
    JUPYTER_PLATFORM_DIRS: '0',
  };
  const api = async (path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: any; text: string }> => {
    const response = await fetch(`${origin}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `token ${token}`, ...(init.body !== undefined && { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    const json = /json/.test(response.headers.get('content-type') ?? '') && text !== '';
    return { status: response.status, body: json ? JSON.parse(text) : text, text };
  };
  const server = await startProcess('Jupyter Server', program, [
    '--no-browser', '--allow-root', '--ip=127.0.0.1', `--port=${port}`, '--port-retries=0',
    `--ServerApp.root_dir=${root}`, `--ServerApp.token=${token}`,
    // Deleted files are removed, not moved to a trash folder.
    '--FileContentsManager.delete_to_trash=False',
  ], folder, origin, async () => (await api('/api/status')).status === 200, env);
  return {
    ...server, token, root, configFolder, api,
    async processes(): Promise<{ pid: number; command: string }[]> {
      const found: { pid: number; command: string }[] = [];
      for (const entry of await readdir('/proc')) {
        if (!/^\d+$/.test(entry) || !`${await readlink(`/proc/${entry}/cwd`).catch(() => '')}/`.startsWith(`${realFolder}/`)) continue;
        const command = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
        // A zombie (ended, not yet reaped) has no command line left.
        if (command !== '') found.push({ pid: Number(entry), command: command.replace(/\0/g, ' ').trim() });
      }
      return found;
    },
  };
}
