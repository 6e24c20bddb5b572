// What the idle lock and the team sign-in answer (main/lock/, main/team/unlocker.ts).
import type { FrenchOf } from './french.shared.js';

export const en = {
  'lock.locked': 'Merchant Desk is locked: unlock it to continue.',
  'lock.tooManyTries': 'Too many wrong tries: wait {seconds, plural, one {# s} other {# s}} and try again.',
  'lock.noPassphraseYet': 'No lock passphrase is set yet: choose one first.',
  'lock.wrongPassword': 'Wrong password.',
  'lock.wrongPassphrase': 'Wrong passphrase.',
  'lock.passphraseTooShort': 'passphrase must be at least {min, number} characters',
  'lock.passphraseTooLong': 'passphrase must be at most {max, number} characters',
  'lock.passphraseAlreadySet': 'A lock passphrase is already set; unlock with it.',
  'lock.keychain': 'The lock passphrase cannot be read from the OS keychain.',
  'lock.disabled': 'An admin disabled the login {login}: it cannot sign in until an admin enables it again.',
  'lock.ownPassword': 'An operator signs in with their own team password; an admin sets it.',
  'lock.offlineMismatch':
    'Cannot reach the team database ({why}), and this is not the password last used at this desk, so it cannot be checked offline. Check the network and try again.',
  'lock.tls':
    'Cannot sign in: {why}. Check the TLS settings of the team connection (Settings, Connection) with whoever runs the database.',
  'lock.cannotSignIn': 'Cannot sign in: {why}. Check the network and try again.',
} satisfies Record<string, string>;

export const fr: FrenchOf<typeof en> = {
  'lock.locked': 'Merchant Desk est verrouillé : déverrouillez-le pour continuer.',
  'lock.tooManyTries': 'Trop d’essais erronés : attendez {seconds, plural, one {# s} other {# s}} puis réessayez.',
  'lock.noPassphraseYet': 'Aucune phrase secrète de verrouillage n’est encore définie : choisissez-en une d’abord.',
  'lock.wrongPassword': 'Mot de passe incorrect.',
  'lock.wrongPassphrase': 'Phrase secrète incorrecte.',
  'lock.passphraseTooShort': 'la phrase secrète doit compter au moins {min, number} caractères',
  'lock.passphraseTooLong': 'la phrase secrète doit compter au plus {max, number} caractères',
  'lock.passphraseAlreadySet': 'Une phrase secrète de verrouillage est déjà définie ; déverrouillez avec elle.',
  'lock.keychain': 'La phrase secrète de verrouillage ne peut pas être lue dans le trousseau du système.',
  'lock.disabled':
    'Un administrateur a désactivé l’identifiant {login} : il ne peut plus se connecter tant qu’un administrateur ne l’a pas réactivé.',
  'lock.ownPassword':
    'Chaque opérateur se connecte avec son propre mot de passe d’équipe ; c’est un administrateur qui le définit.',
  'lock.offlineMismatch':
    'La base de l’équipe est injoignable ({why}), et ce n’est pas le dernier mot de passe utilisé sur ce poste : il ne peut donc pas être vérifié hors ligne. Vérifiez le réseau et réessayez.',
  'lock.tls':
    'Connexion impossible : {why}. Vérifiez les réglages TLS de la connexion d’équipe (Paramètres, Connexion) avec la personne qui gère la base.',
  'lock.cannotSignIn': 'Connexion impossible : {why}. Vérifiez le réseau et réessayez.',
};
