// A signed-in console user over plain HTTP (no browser): the session cookie, the CSRF token from
// the pages, and the preview → apply forms, as a browser posts them.

export interface ConsoleUser {
  base: string;
  cookie: string;
  csrf: string;
  get(path: string): Promise<{ status: number; text: string }>;
  post(path: string, form: Record<string, string>): Promise<{ status: number; text: string; location: string | null }>;
  /** Previews a rewind to these offsets (JSON), then applies it: resolves with the job's path. */
  rewind(connector: string, offsets: unknown): Promise<string>;
  /** The same user against another console (a replica behind the same load balancer). */
  at(base: string): ConsoleUser;
}

/** Signs in through the one-time login link. */
export async function signInByLink(loginUrl: string): Promise<ConsoleUser> {
  const res = await fetch(loginUrl, { redirect: 'manual' });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  if (!cookie) throw new Error(`no session cookie from ${loginUrl} (${res.status})`);
  return userWith(loginUrl.slice(0, loginUrl.indexOf('/login')), cookie);
}

export async function userWith(base: string, cookie: string): Promise<ConsoleUser> {
  const page = await fetch(`${base}/connectors`, { headers: { cookie } });
  const html = await page.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!csrf) throw new Error(`no CSRF token on ${base}/connectors (${page.status}): ${html.slice(0, 300)}`);
  // The old address redirected to the context's (/ctx/<context>/connectors): paths are sent in that context.
  const context = /^\/ctx\/[^/]+/.exec(new URL(page.url).pathname)?.[0] ?? '';
  return make(base, cookie, csrf, context);
}

function make(base: string, cookie: string, csrf: string, context: string): ConsoleUser {
  const at = (path: string): string => `${base}${path.startsWith('/ctx/') ? '' : context}${path}`;
  const user: ConsoleUser = {
    base, cookie, csrf,
    get: async (path) => {
      const res = await fetch(at(path), { headers: { cookie }, redirect: 'manual' });
      return { status: res.status, text: await res.text() };
    },
    post: async (path, form) => {
      const res = await fetch(at(path), {
        method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...form, csrf }).toString(),
      });
      return { status: res.status, text: await res.text(), location: res.headers.get('location') };
    },
    rewind: async (connector, offsets) => {
      const preview = await user.post(`/connectors/${encodeURIComponent(connector)}/preview`, { mode: 'json', offsets: JSON.stringify(offsets) });
      const apply = /action="((?:\/ctx\/[^/"]+)?\/plans\/[^"]+\/apply)"/.exec(preview.text)?.[1];
      if (preview.status !== 200 || !apply) throw new Error(`preview of ${connector} answered ${preview.status}: ${preview.text.slice(0, 500)}`);
      const applied = await user.post(apply, { confirm: connector });
      if (applied.status !== 303 || !/^(\/ctx\/[^/]+)?\/jobs\//.test(applied.location ?? '')) throw new Error(`apply answered ${applied.status}: ${applied.text.slice(0, 500)}`);
      return applied.location ?? '';
    },
    at: (other) => make(other, cookie, csrf, context),
  };
  return user;
}
