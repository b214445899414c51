import type { SpaceView } from '../../../src/schemas/apps';
import { api, type ListPage } from '../api';
import { LoadState } from '../components/status';
import { dateTime } from '../format';
import { href } from '../route';
import { useApi } from '../use-api';

/** The organization's main Spaces (a sandbox is reached from its main Space). */
export function SpacesPage() {
  const spaces = useApi(() => api<ListPage<SpaceView>>('GET', '/v1/apps', { query: { limit: 100 } }), []);
  return (
    <section>
      <h1>Spaces</h1>
      <LoadState state={spaces} />
      {spaces.data && (
        <div class="overflow-auto">
          <table data-spaces>
            <thead>
              <tr>
                <th>Name</th>
                <th>Description</th>
                <th>Active</th>
                <th>Sandbox</th>
                <th>Modified</th>
              </tr>
            </thead>
            <tbody>
              {spaces.data.data.map((space) => (
                <tr key={space.id}>
                  <td>
                    <a href={href('spaces', space.id)}>{space.name}</a>
                  </td>
                  <td>{space.description}</td>
                  <td>{space.is_active ? 'yes' : 'no'}</td>
                  <td>{space.sandbox_status}</td>
                  <td>{dateTime(space.modified_on)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {spaces.data?.data.length === 0 && <p>No Spaces yet.</p>}
    </section>
  );
}
