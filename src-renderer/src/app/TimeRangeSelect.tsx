import { TIME_RANGES, sinceOf, type TimeRangeId } from './time-range';

/** "When": the time window History and Activity filter by; says the window chosen and where it starts. */
export function TimeRangeSelect(props: { value: TimeRangeId; onChange(range: TimeRangeId, since: string | undefined): void }): React.JSX.Element {
  return (
    <label>
      When{' '}
      <select
        aria-label="Filter by time"
        value={props.value}
        onChange={(e) => {
          const range = e.target.value as TimeRangeId;
          props.onChange(range, sinceOf(range));
        }}
      >
        {TIME_RANGES.map((r) => (
          <option key={r.id} value={r.id}>
            {r.label}
          </option>
        ))}
      </select>
    </label>
  );
}
