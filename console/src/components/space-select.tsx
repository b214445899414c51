import { api, type ListPage } from '../api';
import { useApi } from '../use-api';

export interface SpaceOption {
  id: string;
  name: string;
}

/** The organization's Spaces, for filters; the first 100 are plenty for a picker. */
export function useSpaces() {
  return useApi(() => api<ListPage<SpaceOption>>('GET', '/v1/apps', { query: { limit: 100 } }), []);
}

export function SpaceSelect({ value, onChange, spaces }: { value: string; onChange(value: string): void; spaces: SpaceOption[] }) {
  return (
    <label>
      Space
      <select name="app_id" value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        <option value="">All Spaces</option>
        {spaces.map((space) => (
          <option key={space.id} value={space.id}>
            {space.name}
          </option>
        ))}
      </select>
    </label>
  );
}
