import type { EventRule } from '../room/index';

/** A graph's events are read by the graph's owner or assignee (the graph id is the event's graphId, or its subject). */
export const GRAPH_EVENTS: EventRule = {
  prefix: 'graph.',
  visible: "EXISTS (SELECT 1 FROM tasks t WHERE t.id = coalesce(json_extract(e.data, '$.graphId'), e.subject) AND (t.owner = @me OR t.assignee = @me))",
};
