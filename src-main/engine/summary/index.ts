/**
 * The summary's face: room_summary, the morning summary ("while you were away"). It owns no table: it reads the
 * room's history, handoffs, shells and merge previews as its caller (through the reads engine.ts hands it), and
 * takes each feature's live part through a SummaryContributor. A kind of event lands in a section by its entry
 * in common/event-text.ts; a section itself is an entry of SUMMARY_SECTIONS (common/methods/summary.ts).
 */
export { summaryFeature, type SummaryContributor, type SummaryRead, type SummaryWindow } from './summary-feature';
export { type SectionContent } from './summary-sections';
export { spendContributor, schedulesContributor } from './overnight-contributors';
