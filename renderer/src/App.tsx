import { useEffect, useState } from 'react';
import { screens, type ScreenDef } from './screens/index.js';
import { StatusBar } from './StatusBar.js';
import { useDeskEvent } from './hooks.js';
import { LockScreen, useLock } from './lock/index.js';
import { useMay } from './role.js';
import { useWords, type Say } from './words/index.js';
import type { Words } from '../../main/words/words.shared.js';

function currentPath(): string {
  const p = window.location.hash.replace(/^#\/?/, '');
  return screens.some((s) => s.path === p) ? p : screens[0]!.path;
}

/** Shows the screen at `path` (its #/path route). */
function navigate(path: string): void {
  window.location.hash = `#/${path}`;
}

/** The navigation shortcut as shown to the user ("Ctrl+Shift+1", "Ctrl+Maj+1"). */
function shortcutText(t: Say['t'], key: string): string {
  return t('app.nav.shortcut', { key });
}

/**
 * One screen's link. A screen that is for one team action only (Take payment) says "not for your role"
 * to a role that may not do it, and follows the role the team database holds as it changes.
 */
function NavItem({ screen: s, current }: { screen: ScreenDef; current: boolean }) {
  const offered = useMay(s.for);
  const { t } = useWords();
  const screen = t(s.title);
  const shortcut = shortcutText(t, s.key);
  return (
    <li className={offered ? undefined : 'not-offered'}>
      <a
        href={`#/${s.path}`}
        aria-current={current ? 'page' : undefined}
        aria-keyshortcuts={`Control+Shift+${s.key}`}
        title={
          offered || !s.for
            ? t('app.nav.title', { screen, shortcut })
            : t('app.nav.titleWho', { screen, shortcut, who: t(`team.who.${s.for}`) })
        }
      >
        <span>
          {screen}
          {!offered && <small className="nav-note">{t('app.nav.notForRole')}</small>}
        </span>
        <kbd aria-hidden="true">{shortcut}</kbd>
      </a>
    </li>
  );
}

/** A notice from main: its words (rendered in the person's language) and its English text. */
export interface Notice {
  level: string;
  message: string;
  words?: Words;
}

export function App() {
  const [path, setPath] = useState(currentPath);
  const [notice, setNotice] = useState<Notice>();
  const { t, say } = useWords();

  useEffect(() => {
    const onHash = () => setPath(currentPath());
    window.addEventListener('hashchange', onHash);
    // Ctrl+Shift+<digit>: a headed Chromium takes Alt+<digit> (and Ctrl+<digit> switches tabs) before
    // the page sees it; neither Chromium nor Electron's default menu binds Ctrl+Shift+<digit>. Match the
    // physical key, because Shift turns e.key into "!", "@"... depending on the layout.
    const onKey = (e: KeyboardEvent) => {
      if (!e.ctrlKey || !e.shiftKey || e.altKey || e.metaKey) return;
      const s = screens.find((x) => e.code === `Digit${x.key}`);
      if (s) {
        e.preventDefault();
        navigate(s.path);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('hashchange', onHash);
      window.removeEventListener('keydown', onKey);
    };
  }, []);

  // Move focus to the new screen's heading so keyboard and screen-reader users land on it.
  useEffect(() => {
    document.getElementById('screen-title')?.focus({ preventScroll: true });
  }, [path]);
  // The window's title names the screen, in the person's language (again when it changes).
  useEffect(() => {
    const s = screens.find((x) => x.path === path);
    document.title = s ? t('app.windowTitle', { screen: t(s.title) }) : t('app.name');
  }, [path, t]);

  useDeskEvent('app.notice', setNotice);
  // Another profile is another workspace: remount the screen so everything it shows is refetched.
  const [workspace, setWorkspace] = useState(0);
  useDeskEvent('app.profileChanged', () => setWorkspace((n) => n + 1));

  // Locked: only the lock screen shows. The app stays mounted behind it (display: none), so a payment in
  // progress keeps its state and shows its result after unlock.
  const lock = useLock();

  const active = screens.find((s) => s.path === path) ?? screens[0]!;
  const Active = active.component;
  return (
    <>
      {lock.locked && <LockScreen status={lock.status} notice={notice} onUnlocked={lock.setStatus} />}
      <div className="app" style={lock.locked ? { display: 'none' } : undefined}>
        <nav className="nav" aria-label={t('app.nav.label')}>
          <div className="brand">{t('app.name')}</div>
          <ul>
            {screens.map((s) => (
              <NavItem key={s.path} screen={s} current={s.path === active.path} />
            ))}
          </ul>
        </nav>
        <main className="main">
          {notice && (
            <div
              className={`banner ${notice.level === 'error' ? 'error' : notice.level === 'warning' ? 'warning' : 'info'}`}
              role="status"
            >
              <span>{say(notice.words, notice.message)}</span>
              <button type="button" onClick={() => setNotice(undefined)} aria-label={t('app.notice.dismiss')}>
                ×
              </button>
            </div>
          )}
          <Active key={`${active.path}:${workspace}`} />
        </main>
        <StatusBar />
      </div>
    </>
  );
}
