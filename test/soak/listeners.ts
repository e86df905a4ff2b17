import http from 'node:http';

/** A raw 2026 subscriptions/listen stream of one participant, parsed as it arrives. */
export interface Listener {
  status: number;
  messages: { method?: string; params?: Record<string, unknown> }[];
  close(): void;
}

export function listen(url: URL, token: string, taskIds: string[]): Promise<Listener> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: `listen-${Math.random().toString(36).slice(2)}`,
    method: 'subscriptions/listen',
    params: {
      notifications: { taskIds },
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    },
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'subscriptions/listen',
        },
      },
      (res) => {
        const messages: Listener['messages'] = [];
        let buffer = '';
        res.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const data = buffer.slice(0, cut).split('\n').find((l) => l.startsWith('data: '));
            buffer = buffer.slice(cut + 2);
            if (data) messages.push(JSON.parse(data.slice(6)) as Listener['messages'][number]);
          }
        });
        res.on('error', () => undefined);
        resolve({ status: res.statusCode ?? 0, messages, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
