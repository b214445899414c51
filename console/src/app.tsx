import { useEffect, useState } from 'preact/hooks';
import { onUnauthorized } from './api';
import { BatchesPage } from './pages/batches';
import { KeysPage } from './pages/keys';
import { CostsPage } from './pages/costs';
import { LogDetailPage } from './pages/log-detail';
import { LogsPage } from './pages/logs';
import { PromptsPage } from './pages/prompts';
import { SignIn } from './pages/sign-in';
import { SpaceDetailPage } from './pages/space-detail';
import { SpacesPage } from './pages/spaces';
import { href, useLocation, type Location } from './route';
import { session } from './session';

const NAV = [
  ['spaces', 'Spaces'],
  ['logs', 'Logs'],
  ['costs', 'Cost & savings'],
  ['prompts', 'Prompt review'],
  ['batches', 'Batches'],
  ['keys', 'Keys'],
] as const;

function Page({ location }: { location: Location }) {
  switch (location.page) {
    case 'spaces':
      return location.id ? <SpaceDetailPage appId={location.id} /> : <SpacesPage />;
    case 'logs':
      return location.id ? <LogDetailPage logId={location.id} /> : <LogsPage />;
    case 'costs':
      return <CostsPage />;
    case 'prompts':
      return <PromptsPage />;
    case 'batches':
      return <BatchesPage />;
    case 'keys':
      return <KeysPage />;
    default:
      return <p>No such page.</p>;
  }
}

export function App() {
  const [signedIn, setSignedIn] = useState(() => session.key() !== null);
  const location = useLocation();
  useEffect(
    () =>
      onUnauthorized(() => {
        session.signOut();
        setSignedIn(false);
      }),
    [],
  );
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;
  return (
    <>
      <header class="container">
        <nav>
          <ul>
            <li>
              <strong>Switchyard</strong>
            </li>
          </ul>
          <ul>
            {NAV.map(([page, label]) => (
              <li key={page}>
                <a href={href(page)} aria-current={location.page === page ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
            <li>
              <button
                class="secondary outline"
                type="button"
                onClick={() => {
                  session.signOut();
                  setSignedIn(false);
                }}
              >
                Sign out
              </button>
            </li>
          </ul>
        </nav>
      </header>
      <main class="container">
        <Page location={location} />
      </main>
    </>
  );
}
