// `node --import ./loader.mjs out/main/app.js`: the built main process, with the `electron` module resolved to
// the harness's stand-in (main-electron.mjs). Nothing else is changed.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
      export async function resolve(specifier, context, next) {
        if (specifier === 'electron') return { url: ${JSON.stringify(new URL('./main-electron.mjs', import.meta.url).href)}, shortCircuit: true };
        return next(specifier, context);
      }`),
);
