import { z } from 'zod';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';
import { isIsoTime } from './handoff-history';

/**
 * The morning summary ("while you were away"): what waits for the person, what ended and how, what is ready to
 * merge, spend against envelopes, schedules run and missed. Each section is listed only when it has content,
 * always in this order; a feature adds a section by adding its id here and filling it (engine/summary/).
 */
export const SUMMARY_SECTIONS = [
  { id: 'waiting', title: 'Waiting for you' },
  { id: 'ended', title: 'Finished, failed, stalled or limited' },
  { id: 'ready', title: 'Ready to merge' },
  { id: 'spend', title: 'Spend against envelopes' },
  { id: 'schedules', title: 'Schedules' },
] as const;
export type SummarySectionId = (typeof SUMMARY_SECTIONS)[number]['id'];

/** Where an item opens in the window (the screens of its sidebar). */
export interface SummaryOpen {
  screen: 'inbox' | 'history' | 'graphs' | 'terminals' | 'agents' | 'schedules';
  id: string;
}

export interface SummaryItem {
  /** When it happened; for what waits, since when it waits. */
  at: string;
  /** The sentence a person reads. */
  text: string;
  /** The event kind it comes from, or what it is ("handoff.waiting", "shell.waiting"). */
  kind: string;
  /** The handoff, graph, agent or shell it is about. */
  subject: string | null;
  /** good (passed, approved), bad (failed, rejected, stalled), or plain. */
  tone: 'good' | 'bad' | 'plain';
  /** The host it ran on (an SSH alias); null: this machine. */
  host: string | null;
  /** Further lines: a merge preview's words, its checks. */
  detail: string[];
  open: SummaryOpen | null;
}

export interface SummarySection {
  id: SummarySectionId;
  title: string;
  /** Counts in words ("3 approved, 2 graphs failed"); "" when nothing counts. */
  counts: string;
  items: SummaryItem[];
  /** Items left out past the section's limit (the newest or oldest are kept: see each section). */
  more: number;
}

export interface RoomSummary {
  since: string;
  until: string;
  /** Only the sections with content, in SUMMARY_SECTIONS' order. */
  sections: SummarySection[];
  /** The room's history starts after `since` (its ring dropped older events): the summary may miss some. */
  partial: boolean;
}

export const SUMMARY_METHODS = {
  room_summary: {
    description:
      'While you were away: what waits for you (handoffs to approve, input requests, handoffs addressed to you, agents waiting on a question; oldest first), ' +
      'what finished, failed, stalled or hit a limit since a time (and on which host), what is ready to merge with its checks, spend against envelopes, ' +
      'and schedules run and missed. Only sections with content are listed, always in the same order.',
    capability: 'read',
    input: lazily(() =>
      z
        .object({
          since: z
            .string()
            .max(40, 'a time is ISO 8601, e.g. 2026-01-31T09:00:00Z')
            .refine(isIsoTime, 'a time is ISO 8601, e.g. 2026-01-31T09:00:00Z')
            .optional()
            .describe('what happened since this time (ISO 8601); default: the last 8 hours'),
        })
        .strict(),
    ),
    mcpTool: true,
    readOnly: true,
  },
} satisfies Record<string, MethodSpec>;

export interface SummaryOutputs {
  room_summary: RoomSummary;
}
