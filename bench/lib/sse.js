// Raw SSE readers over node:http (a 2026 subscriptions/listen stream, or the bare baseline's /fanout), each
// message parsed as it arrives and handed to onMessage with its arrival time.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export function openSse(url, { token, body, headers = {}, onMessage }) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: body ? 'POST' : 'GET',
        headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`SSE ${url} answered HTTP ${res.statusCode}`));
        }
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          const at = performance.now();
          buffer += chunk;
          let cut;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const data = frame.split('\n').find((l) => l.startsWith('data: '));
            if (data) onMessage(JSON.parse(data.slice(6)), at);
          }
        });
        res.on('error', () => {});
        resolve({ close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

/** A 2026 subscriptions/listen for task ids. */
export function listenTasks(url, token, taskIds, onMessage) {
  return openSse(url, {
    token,
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
    body: {
      jsonrpc: '2.0',
      id: `listen-${Math.random().toString(36).slice(2)}`,
      method: 'subscriptions/listen',
      params: {
        notifications: { taskIds },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
        },
      },
    },
    onMessage,
  });
}
