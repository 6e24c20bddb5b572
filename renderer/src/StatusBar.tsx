import { useAppStatus } from './hooks.js';
import { AsOf } from './ui/index.js';
import type { AppStatus } from '../../main/ipc/contract/app.js';
import { LockNowButton } from './lock/index.js';
import { chainWords, rollbackWords } from '../../main/team/chain-words.shared.js';
import { useWords, type Say } from './words/index.js';

/** While starting, the message says what is starting (e.g. "Starting the sandbox…") on its own. */
function connectionText({ t, say }: Say, s: AppStatus): string {
  const message = s.message ? say(s.words, s.message) : null;
  const connection = t(`app.status.connection.${s.connection}`);
  if (s.connection === 'starting' && message) return message;
  // A team desk's offline message says it all: "Team database unreachable — showing the local copy, …";
  // so does its alarm: "Team record altered: seq N does not match its hash chain …".
  if (s.team && (s.connection === 'offline' || s.connection === 'error') && message) return message;
  // Online, a team desk still says what the team database refused of its events (never silent).
  if (s.team && s.connection === 'online' && message) return t('app.status.onlineWith', { message });
  return message && s.connection !== 'online' ? t('app.status.connectionWith', { connection, message }) : connection;
}

export function StatusBar() {
  const { status: s, error } = useAppStatus();
  const w = useWords();
  const { t, say } = w;
  return (
    <footer className="status-bar" aria-label={t('app.status.label')}>
      {!s ? (
        <span>{error ? t('app.status.unavailable') : t('app.status.starting')}</span>
      ) : (
        <>
          <span data-testid="status-profile">
            {t('app.status.profile')} <strong>{t(`app.profile.${s.profile}`)}</strong>
          </span>
          <span
            data-testid="status-connection"
            className={`conn conn-${s.connection}`}
            title={s.message ? say(s.words, s.message) : undefined}
          >
            <span className="dot" aria-hidden="true" /> {connectionText(w, s)}
          </span>
          {s.team ? (
            <span data-testid="status-last-sync">
              <AsOf at={s.team.lastSyncAt} prefix={t('app.status.lastSynced')} />
            </span>
          ) : (
            <span data-testid="status-last-poll">
              <AsOf at={s.lastSuccessfulPoll} prefix={t('app.status.lastPoll')} />
            </span>
          )}
          {s.team?.catchingUp && s.team.catchingUp.totalSeq > 0 && (
            // How far a desk that catches up with the team is (the connection's text says how many behind).
            <progress
              data-testid="status-catching-up"
              aria-label={t('app.status.catchingUp')}
              max={s.team.catchingUp.totalSeq}
              value={Math.min(s.team.catchingUp.copiedSeq, s.team.catchingUp.totalSeq)}
            />
          )}
          {s.team && (
            <span data-testid="status-team">
              {s.team.signedIn ? (
                <>
                  {t('app.status.signedIn')} <strong translate="no">{s.team.login}</strong>
                  {s.team.role ? ` (${t(`app.role.${s.team.role}`)})` : ''}
                </>
              ) : (
                t('app.status.notSignedIn', { login: s.team.login })
              )}
            </span>
          )}
          {s.team?.transportWarning && (
            <span
              data-testid="status-transport"
              className="warn-text"
              title={say(s.team.transportWarningWords, s.team.transportWarning)}
            >
              {t('app.status.transportWarning', {
                warning: say(s.team.transportWarningWords, s.team.transportWarning),
              })}
            </span>
          )}
          {s.team?.signedIn && s.team.chain && (
            <span
              data-testid="status-record"
              className={chainWords(s.team.chain).alarm ? 'warn-text' : undefined}
              role={chainWords(s.team.chain).alarm ? 'alert' : undefined}
            >
              {chainWords(s.team.chain).alarm
                ? t('app.status.recordAltered', { seq: s.team.chain.broken!.seq })
                : say(chainWords(s.team.chain).words)}
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
                title={say(rollbackWords(s.team.rollback).words)}
              >
                {say(rollbackWords(s.team.rollback).shortWords)}
              </span>
            )}
          {s.keychain === 'unavailable' && <span className="warn-text">{t('app.status.keychainUnavailable')}</span>}
        </>
      )}
      <LockNowButton />
    </footer>
  );
}
