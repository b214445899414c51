import { useState } from 'preact/hooks';

/** A key's secret, shown once (after creating or rotating it), with a button that copies it. */
export function KeySecret({ name, secret, onDone }: { name: string; secret: string; onDone(): void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  }
  return (
    <article aria-label="New secret" class="key-secret">
      <header>
        Secret of <strong>{name}</strong>
      </header>
      <p role="alert">
        <strong>Copy this key now: it is shown only once.</strong> Switchyard keeps only its hash, so it cannot show it again; if it is lost, rotate the key.
      </p>
      <p>
        <code data-secret>{secret}</code>
      </p>
      <div class="actions">
        <button type="button" onClick={copy}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Done, I stored it
        </button>
      </div>
      {copied === 'failed' && <p class="error">The browser did not allow copying: select the key and copy it by hand.</p>}
    </article>
  );
}
