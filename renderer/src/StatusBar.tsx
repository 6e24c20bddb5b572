import { useAppStatus } from './hooks.js';
import { AsOf } from './ui/index.js';
import type { AppStatus } from '../../main/ipc/contract/app.js';
import { LockNowButton } from './lock/index.js';
import { chainWords, rollbackWords } from '../../main/team/chain-words.shared.js';

const CONNECTION_TEXT: Record<AppStatus['connection'], string> = {
  starting: 'Connecting…',
  online: 'Online',
  offline: 'Offline',
  error: 'Service error',
  not_configured: 'Not configured',
};

/** While starting, the message says what is starting (e.g. "Starting the sandbox…") on its own. */
function connectionText(s: AppStatus): string {
  if (s.connection === 'starting' && s.message) return s.message;
  // A team desk's offline message says it all: "Team database unreachable — showing the local copy, …";
  // so does its alarm: "Team record altered: seq N does not match its hash chain …".
  if (s.team && (s.connection === 'offline' || s.connection === 'error') && s.message) return s.message;
  // Online, a team desk still says what the team database refused of its events (never silent).
  if (s.team && s.connection === 'online' && s.message) return `${CONNECTION_TEXT.online} — ${s.message}`;
  return CONNECTION_TEXT[s.connection] + (s.message && s.connection !== 'online' ? `: ${s.message}` : '');
}

export function StatusBar() {
  const { status: s, error } = useAppStatus();
  return (
    <footer className="status-bar" aria-label="Status">
      {!s ? (
        <span>{error ? 'Status unavailable' : 'Starting…'}</span>
      ) : (
        <>
          <span data-testid="status-profile">
            Profile: <strong>{s.profile}</strong>
          </span>
          <span data-testid="status-connection" className={`conn conn-${s.connection}`} title={s.message ?? undefined}>
            <span className="dot" aria-hidden="true" /> {connectionText(s)}
          </span>
          {s.team ? (
            <span data-testid="status-last-sync">
              <AsOf at={s.team.lastSyncAt} prefix="Last synced" />
            </span>
          ) : (
            <span data-testid="status-last-poll">
              <AsOf at={s.lastSuccessfulPoll} prefix="Last successful poll" />
            </span>
          )}
          {s.team?.catchingUp && s.team.catchingUp.totalSeq > 0 && (
            // How far a desk that catches up with the team is (the connection's text says how many behind).
            <progress
              data-testid="status-catching-up"
              aria-label="Catching up with the team"
              max={s.team.catchingUp.totalSeq}
              value={Math.min(s.team.catchingUp.copiedSeq, s.team.catchingUp.totalSeq)}
            />
          )}
          {s.team && (
            <span data-testid="status-team">
              {s.team.signedIn ? (
                <>
                  Signed in: <strong>{s.team.login}</strong>
                  {s.team.role ? ` (${s.team.role.replace('_', ' ')})` : ''}
                </>
              ) : (
                `Not signed in (${s.team.login})`
              )}
            </span>
          )}
          {s.team?.transportWarning && (
            <span data-testid="status-transport" className="warn-text" title={s.team.transportWarning}>
              Warning: {s.team.transportWarning}
            </span>
          )}
          {s.team?.signedIn && s.team.chain && (
            <span
              data-testid="status-record"
              className={chainWords(s.team.chain).alarm ? 'warn-text' : undefined}
              role={chainWords(s.team.chain).alarm ? 'alert' : undefined}
            >
              {chainWords(s.team.chain).alarm
                ? `Team record altered at seq ${s.team.chain.broken!.seq.toLocaleString('en')}`
                : chainWords(s.team.chain).text}
            </span>
          )}
          {s.team?.signedIn &&
            s.team.rollback &&
            !s.team.chain?.broken &&
            (s.team.rollback.phase === 'restoring' || s.team.rollback.unrestoredCount > 0) && (
              // A record that went back in time (a failover, a restore from backup): not the tamper alarm.
              <span
                data-testid="status-rollback"
                className="warn-text"
                role="status"
                title={rollbackWords(s.team.rollback).text}
              >
                {rollbackWords(s.team.rollback).short}
              </span>
            )}
          {s.keychain === 'unavailable' && <span className="warn-text">Keychain unavailable</span>}
        </>
      )}
      <LockNowButton />
    </footer>
  );
}
