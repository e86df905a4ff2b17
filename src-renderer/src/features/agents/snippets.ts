/**
 * Copy-ready configuration for the usual MCP clients: one source, shared with `ce participant add`, the serve
 * banner and docs/agents.md (src-main/common/connect-snippets.ts).
 */
export { connectSnippets, type Snippet } from '../../../../src-main/common/connect-snippets';
