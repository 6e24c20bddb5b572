// The team's words: roles, who may do what (TEAM_ACTIONS), and what the team database and the sync say.
import type { FrenchOf } from './french.shared.js';

export const en = {
  'team.role.support': 'Support',
  'team.role.finance': 'Finance',
  'team.role.back_office': 'Back office',
  'team.role.admin': 'Admin',
  'team.role.receiver': 'Callback server (serve)',
  'team.who.takePayments': 'Taking payments is for support and admins.',
  'team.who.resolveExceptions': 'Resolving exceptions is for back office and admins.',
  'team.who.importCallbacks': 'Importing callbacks is for back office and admins.',
  'team.who.manageOperators': 'Adding, disabling and re-roling operators is for admins.',
  'team.chain.altered':
    'Team record altered: seq {seq, number} does not match its hash chain ({reason}). This desk shows what it verified, through seq {verifiedSeq, number}.',
  'team.chain.nothingYet': 'Team record: nothing verified yet',
  'team.chain.verified': 'Team record verified through seq {seq, number}',
  'team.rollback.restoring':
    'The team database lost events {lostFrom, number}–{lostTo, number}, probably a failover or a restore from backup; this desk holds them and is putting back what it can. It shows what it verified, through seq {seq, number}.',
  'team.rollback.shortRestoring': 'Team database went back: lost seq {lostFrom, number}–{lostTo, number}, restoring',
  'team.rollback.rebased1':
    'The team database lost events {lostFrom, number}–{lostTo, number}, probably a failover or a restore from backup; this desk holds them: {part1}. It follows the team record again from seq {seq, number}.',
  'team.rollback.rebased2':
    'The team database lost events {lostFrom, number}–{lostTo, number}, probably a failover or a restore from backup; this desk holds them: {part1}; {part2}. It follows the team record again from seq {seq, number}.',
  'team.rollback.rebased3':
    'The team database lost events {lostFrom, number}–{lostTo, number}, probably a failover or a restore from backup; this desk holds them: {part1}; {part2}; {part3}. It follows the team record again from seq {seq, number}.',
  'team.rollback.part.restored': 'it put back {restored, plural, one {# event} other {# events}}',
  'team.rollback.part.present': '{present, plural, one {# was} other {# were}} back already',
  'team.rollback.part.unrestored':
    '{unrestored, plural, one {# event} other {# events}} could not be put back by this desk (listed in Settings, Team)',
  'team.rollback.part.allBack': 'all of them are back in the team record (put back by other desks or serve)',
  'team.rollback.shortUnrestored':
    'Team database went back: {unrestored, plural, one {# lost event} other {# lost events}} not put back',
  'team.rollback.shortBack': 'Team database went back: lost events put back',
  'team.notify.warning':
    'Notifications are not arriving: a transaction-mode pool? This desk catches up every {seconds, number} s',
  'team.notify.notChecked': 'Notifications from the team database: not checked yet.',
  'team.notify.arriving': 'Notifications from the team database arrive: other desks’ work shows here at once.',
  'team.notify.notArriving':
    'Notifications from the team database do not reach this desk: a pool in transaction mode (PgBouncer with pool_mode = transaction) hands the connection a desk listens on to other clients between transactions. This desk catches up every {seconds, number} s instead. To fix it, connect this desk directly to PostgreSQL or through a session-mode pool (PgBouncer pool_mode = session).',
  'team.tls.plainText':
    'the team database at {host} is reached in plain text (sslmode disable): references, amounts and e-mails cross the network unencrypted',
  'team.tls.unchecked':
    'the team database at {host} is encrypted but its certificate is not checked (sslmode require): anyone on the network path could pose as it',
} satisfies Record<string, string>;

export const fr: FrenchOf<typeof en> = {
  'team.role.support': 'Support',
  'team.role.finance': 'Finance',
  'team.role.back_office': 'Back-office',
  'team.role.admin': 'Administrateur',
  'team.role.receiver': 'Serveur de rappels (serve)',
  'team.who.takePayments': 'Encaisser des paiements est réservé au support et aux administrateurs.',
  'team.who.resolveExceptions': 'Résoudre les exceptions est réservé au back-office et aux administrateurs.',
  'team.who.importCallbacks': 'Importer des rappels est réservé au back-office et aux administrateurs.',
  'team.who.manageOperators': 'Ajouter, désactiver et changer le rôle des opérateurs est réservé aux administrateurs.',
  'team.chain.altered':
    'Registre de l’équipe altéré : la séquence {seq, number} ne correspond pas à sa chaîne de hachage ({reason}). Ce poste affiche ce qu’il a vérifié, jusqu’à la séquence {verifiedSeq, number}.',
  'team.chain.nothingYet': 'Registre de l’équipe : rien de vérifié pour l’instant',
  'team.chain.verified': 'Registre de l’équipe vérifié jusqu’à la séquence {seq, number}',
  'team.rollback.restoring':
    'La base de l’équipe a perdu les événements {lostFrom, number} à {lostTo, number}, sans doute après une bascule ou une restauration de sauvegarde ; ce poste les détient et remet en place ce qu’il peut. Il affiche ce qu’il a vérifié, jusqu’à la séquence {seq, number}.',
  'team.rollback.shortRestoring':
    'La base de l’équipe est revenue en arrière : séquences {lostFrom, number} à {lostTo, number} perdues, remise en place',
  'team.rollback.rebased1':
    'La base de l’équipe a perdu les événements {lostFrom, number} à {lostTo, number}, sans doute après une bascule ou une restauration de sauvegarde ; ce poste les détient : {part1}. Il suit de nouveau le registre de l’équipe à partir de la séquence {seq, number}.',
  'team.rollback.rebased2':
    'La base de l’équipe a perdu les événements {lostFrom, number} à {lostTo, number}, sans doute après une bascule ou une restauration de sauvegarde ; ce poste les détient : {part1} ; {part2}. Il suit de nouveau le registre de l’équipe à partir de la séquence {seq, number}.',
  'team.rollback.rebased3':
    'La base de l’équipe a perdu les événements {lostFrom, number} à {lostTo, number}, sans doute après une bascule ou une restauration de sauvegarde ; ce poste les détient : {part1} ; {part2} ; {part3}. Il suit de nouveau le registre de l’équipe à partir de la séquence {seq, number}.',
  'team.rollback.part.restored': 'il a remis en place {restored, plural, one {# événement} other {# événements}}',
  'team.rollback.part.present': '{present, plural, one {# était déjà revenu} other {# étaient déjà revenus}}',
  'team.rollback.part.unrestored':
    '{unrestored, plural, one {# événement n’a pas pu être remis} other {# événements n’ont pas pu être remis}} en place par ce poste (liste dans Paramètres, Équipe)',
  'team.rollback.part.allBack':
    'tous sont revenus dans le registre de l’équipe (remis en place par d’autres postes ou par serve)',
  'team.rollback.shortUnrestored':
    'La base de l’équipe est revenue en arrière : {unrestored, plural, one {# événement perdu non remis} other {# événements perdus non remis}} en place',
  'team.rollback.shortBack': 'La base de l’équipe est revenue en arrière : événements perdus remis en place',
  'team.notify.warning':
    'Les notifications n’arrivent pas : un pool en mode transaction ? Ce poste se met à jour toutes les {seconds, number} s',
  'team.notify.notChecked': 'Notifications de la base de l’équipe : pas encore vérifiées.',
  'team.notify.arriving':
    'Les notifications de la base de l’équipe arrivent : le travail des autres postes s’affiche ici aussitôt.',
  'team.notify.notArriving':
    'Les notifications de la base de l’équipe n’atteignent pas ce poste : un pool en mode transaction (PgBouncer avec pool_mode = transaction) confie la connexion sur laquelle un poste écoute à d’autres clients entre deux transactions. Ce poste se met donc à jour toutes les {seconds, number} s. Pour corriger, connectez ce poste directement à PostgreSQL ou via un pool en mode session (PgBouncer pool_mode = session).',
  'team.tls.plainText':
    'la base de l’équipe sur {host} est jointe en clair (sslmode disable) : références, montants et adresses e-mail traversent le réseau sans chiffrement',
  'team.tls.unchecked':
    'la base de l’équipe sur {host} est chiffrée mais son certificat n’est pas vérifié (sslmode require) : n’importe qui sur le chemin réseau pourrait se faire passer pour elle',
};
