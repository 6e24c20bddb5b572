// What the status bar says of the connection (main/app/status.ts) and of the polls.
import type { FrenchOf } from './french.shared.js';

export const en = {
  'status.startingSandbox': 'Starting the sandbox…',
  'status.connecting': 'Connecting…',
  'status.startingShort': 'starting',
  'status.startFailed': 'Start-up failed: {reason}',
  'status.notConfigured': '{reason}',
  'status.noConnection': 'no service connection: set the base URL and keys in Settings',
  'status.poll.authentication': '{reason}',
  'status.poll.validation': '{reason}',
  'status.poll.forbidden': '{reason}',
  'status.poll.not_found': '{reason}',
  'status.poll.rate_limited': '{reason}',
  'status.poll.unavailable': '{reason}',
  'status.poll.network': '{reason}',
  'status.poll.unreadable': '{reason}',
  'status.poll.unknown_outcome': '{reason}',
  'status.poll.not_configured': '{reason}',
  'status.poll.other': '{reason}',
  'status.pollUnusable': "the service's answer was not usable: {reason}",
  'status.catchingUp': 'Catching up with the team: {behind, plural, one {# event} other {# events}} behind',
  'status.signInToReach': 'Sign in as {login} to reach the team database.',
  'status.checkingSignatures': 'Checking signatures: {checked, number} of {total, number}',
  'status.checkingSignaturesFailed':
    'Checking signatures: {checked, number} of {total, number} ({failed, number} did not verify)',
  'status.refused':
    "{refused, plural, one {# of this desk's events was not accepted by the team database: its collection says why} other {# of this desk's events were not accepted by the team database: their collections say why}}",
  'status.connectingTeam': 'Connecting to the team database…',
  'status.teamUnreachable': 'Team database unreachable — showing the local copy, last synced {lastSyncTime}',
  'status.teamUnreachableNever': 'Team database unreachable — showing the local copy, not synced yet',
  'status.teamUnreachableWaiting':
    'Team database unreachable — showing the local copy, last synced {lastSyncTime}; {pending, plural, one {# event of this desk waits} other {# events of this desk wait}} to be sent, none is lost',
  'status.teamUnreachableNeverWaiting':
    'Team database unreachable — showing the local copy, not synced yet; {pending, plural, one {# event of this desk waits} other {# events of this desk wait}} to be sent, none is lost',
} satisfies Record<string, string>;

export const fr: FrenchOf<typeof en> = {
  'status.startingSandbox': 'Démarrage du bac à sable…',
  'status.connecting': 'Connexion…',
  'status.startingShort': 'démarrage',
  'status.startFailed': 'Échec du démarrage : {reason}',
  'status.notConfigured': '{reason}',
  'status.noConnection': 'pas de connexion au service : saisissez l’URL de base et les clés dans Paramètres',
  'status.poll.authentication': '{reason}',
  'status.poll.validation': '{reason}',
  'status.poll.forbidden': '{reason}',
  'status.poll.not_found': '{reason}',
  'status.poll.rate_limited': '{reason}',
  'status.poll.unavailable': '{reason}',
  'status.poll.network': '{reason}',
  'status.poll.unreadable': '{reason}',
  'status.poll.unknown_outcome': '{reason}',
  'status.poll.not_configured': '{reason}',
  'status.poll.other': '{reason}',
  'status.pollUnusable': 'la réponse du service était inutilisable : {reason}',
  'status.catchingUp': 'Rattrapage de l’équipe : {behind, plural, one {# événement} other {# événements}} de retard',
  'status.signInToReach': 'Connectez-vous en tant que {login} pour joindre la base de l’équipe.',
  'status.checkingSignatures': 'Vérification des signatures : {checked, number} sur {total, number}',
  'status.checkingSignaturesFailed':
    'Vérification des signatures : {checked, number} sur {total, number} ({failed, number} non vérifiées)',
  'status.refused':
    '{refused, plural, one {# événement de ce poste n’a pas été accepté par la base de l’équipe : son encaissement dit pourquoi} other {# événements de ce poste n’ont pas été acceptés par la base de l’équipe : leurs encaissements disent pourquoi}}',
  'status.connectingTeam': 'Connexion à la base de l’équipe…',
  'status.teamUnreachable':
    'Base de l’équipe injoignable — copie locale affichée, dernière synchronisation à {lastSyncTime}',
  'status.teamUnreachableNever': 'Base de l’équipe injoignable — copie locale affichée, pas encore synchronisée',
  'status.teamUnreachableWaiting':
    'Base de l’équipe injoignable — copie locale affichée, dernière synchronisation à {lastSyncTime} ; {pending, plural, one {# événement de ce poste attend} other {# événements de ce poste attendent}} d’être envoyés, aucun n’est perdu',
  'status.teamUnreachableNeverWaiting':
    'Base de l’équipe injoignable — copie locale affichée, pas encore synchronisée ; {pending, plural, one {# événement de ce poste attend} other {# événements de ce poste attendent}} d’être envoyés, aucun n’est perdu',
};
