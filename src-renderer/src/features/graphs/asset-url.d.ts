// Vite turns `import url from '<file>?url'` into the built asset's URL (used for elk's worker script).
declare module '*?url' {
  const url: string;
  export default url;
}
