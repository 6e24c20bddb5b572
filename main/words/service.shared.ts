// What the payments service client says of a call (main/service/): refusals, outages and answers it could
// not read. `said` is the service's own message (": ...") or a description of the body it sent: detail said
// as it came.
import type { FrenchOf } from './french.shared.js';

export const en = {
  'service.op.balances': 'the balance inquiry',
  'service.op.providers': 'the payment options list',
  'service.op.initialize': 'the charge (initialize)',
  'service.keysRefused':
    'The service refused the merchant keys for {what} (HTTP 401){said}. Check the public and secret key in Settings.',
  'service.forbidden': 'The service does not allow {what} for this merchant account (HTTP 403){said}.',
  'service.notFound': 'The service has no {what} at {origin} (HTTP 404){said}. Check the base URL in Settings.',
  'service.rateLimited': 'The service is limiting the rate of requests (HTTP 429).',
  'service.rateLimitedWait':
    'The service is limiting the rate of requests (HTTP 429); retry after {seconds, number} s.',
  'service.chargeFailed':
    'The service failed while handling the charge (HTTP {status}){said}. It may or may not have created the collection: check it before charging again, and only re-send the same merchant_reference.',
  'service.unavailable': 'The service is unavailable (HTTP {status}){said}. Try again later.',
  'service.chargeUnexpected':
    'The service answered the charge with an unexpected HTTP {status}{said}; the outcome is unknown.',
  'service.unexpected': 'The service answered {what} with an unexpected HTTP {status}{said}.',
  'service.duplicate': 'The service already has a collection with this merchant_reference (HTTP {status}){said}.',
  'service.rejected': 'The service rejected {subject} (HTTP {status}){said}.',
  'service.rejectedRequest': 'The service rejected {what} request (HTTP {status}){said}.',
  'service.notJson': 'The service answered {what} (HTTP {status}) with {body}.',
  'service.notEnvelope': 'The service answered {what} (HTTP {status}) with JSON that is not its response envelope.',
  'service.noData': 'The service answered {what} (HTTP {status}) without data.',
  'service.badValue': "The service's answer to {what} has a bad value at {where}.",
  'service.statusWord': 'The service answered {what} with status {word}{said}.',
  'service.statusWordUnknown':
    '{first} Whether it created the collection is unknown: check it before charging again, and only re-send the same merchant_reference.',
  'service.noAnswer': 'No answer from the service at {origin} for {what} within {duration}.',
  'service.unreachable': 'Could not reach the service at {origin} for {what}: {why}.',
  'service.notSent': '{first} Nothing was sent: it is safe to try again with the same merchant_reference.',
  'service.sentNoAnswer':
    'The charge was sent but no answer came within {duration}: the outcome is unknown. Check it before charging again, and only re-send the same merchant_reference.',
  'service.sentBroken':
    'The charge was sent but {why} before an answer: the outcome is unknown. Check it before charging again, and only re-send the same merchant_reference.',
  'service.chargeUnknown': '{first} The outcome of the charge is unknown: check it before charging again.',
  'service.acceptedBadValue':
    'The service accepted the charge (HTTP {status}) but its answer has a bad value at {where}; the outcome is unknown.',
  'service.acceptedNoReference':
    'The service accepted the charge (HTTP {status}) but did not say which merchant_reference it made; the outcome is unknown.',
  'service.acceptedOtherReference':
    'The service accepted the charge (HTTP {status}) for a different merchant_reference than was sent; the outcome is unknown.',
  'service.badBaseUrl': 'The service base URL "{url}" is not an http(s) URL without user:password.',
  'service.noPublicKey': 'No merchant public key is set: enter the keys in Settings.',
  'service.noSecretBalances':
    'No merchant secret key is set: the balance inquiry needs it. Enter the keys in Settings.',
  'service.noSecretCharge': 'No merchant secret key is set: charging needs it. Enter the keys in Settings.',
  'service.transactionType': 'transaction_type must be a word such as COLLECTION.',
  'service.amount': 'amount must be a positive whole number of minor units.',
  'service.currency': 'currency must be a 3-letter ISO code such as UGX.',
  'service.currencyUnknown': 'currency {currency} is not one Merchant Desk knows the decimals of.',
  'service.code.ECONNREFUSED': 'the connection was refused ({code})',
  'service.code.ECONNRESET': 'the connection was reset ({code})',
  'service.code.UND_ERR_SOCKET': 'the connection was closed ({code})',
  'service.code.EPIPE': 'the connection was closed ({code})',
  'service.code.ENOTFOUND': 'the host name was not found ({code})',
  'service.code.EAI_AGAIN': 'the host name could not be looked up ({code})',
  'service.code.ENETUNREACH': 'the network is unreachable ({code})',
  'service.code.EHOSTUNREACH': 'the host is unreachable ({code})',
  'service.code.UND_ERR_CONNECT_TIMEOUT': 'connecting timed out ({code})',
  'service.code.tls': 'the TLS certificate was not accepted ({code})',
  'service.code.other': 'the connection failed ({code})',
} satisfies Record<string, string>;

export const fr: FrenchOf<typeof en> = {
  'service.op.balances': 'la consultation des soldes',
  'service.op.providers': 'la liste des moyens de paiement',
  'service.op.initialize': 'le débit (initialisation)',
  'service.keysRefused':
    'Le service a refusé les clés du marchand pour {what} (HTTP 401){said}. Vérifiez la clé publique et la clé secrète dans Paramètres.',
  'service.forbidden': 'Le service n’autorise pas {what} pour ce compte marchand (HTTP 403){said}.',
  'service.notFound':
    'Le service ne propose pas {what} à {origin} (HTTP 404){said}. Vérifiez l’URL de base dans Paramètres.',
  'service.rateLimited': 'Le service limite le rythme des demandes (HTTP 429).',
  'service.rateLimitedWait':
    'Le service limite le rythme des demandes (HTTP 429) ; réessayez dans {seconds, number} s.',
  'service.chargeFailed':
    'Le service a échoué en traitant le débit (HTTP {status}){said}. Il a pu créer l’encaissement ou non : vérifiez-le avant de débiter à nouveau, et ne renvoyez que la même merchant_reference.',
  'service.unavailable': 'Le service est indisponible (HTTP {status}){said}. Réessayez plus tard.',
  'service.chargeUnexpected':
    'Le service a répondu au débit par un code HTTP {status} inattendu{said} ; le résultat est inconnu.',
  'service.unexpected': 'Le service a répondu à {what} par un code HTTP {status} inattendu{said}.',
  'service.duplicate': 'Le service a déjà un encaissement avec cette merchant_reference (HTTP {status}){said}.',
  'service.rejected': 'Le service a rejeté {subject} (HTTP {status}){said}.',
  'service.rejectedRequest': 'Le service a rejeté la demande pour {what} (HTTP {status}){said}.',
  'service.notJson': 'Le service a répondu à {what} (HTTP {status}) par {body}.',
  'service.notEnvelope':
    'Le service a répondu à {what} (HTTP {status}) par du JSON qui n’est pas son enveloppe de réponse.',
  'service.noData': 'Le service a répondu à {what} (HTTP {status}) sans données.',
  'service.badValue': 'La réponse du service à {what} contient une valeur incorrecte à {where}.',
  'service.statusWord': 'Le service a répondu à {what} avec le statut {word}{said}.',
  'service.statusWordUnknown':
    '{first} Impossible de savoir s’il a créé l’encaissement : vérifiez-le avant de débiter à nouveau, et ne renvoyez que la même merchant_reference.',
  'service.noAnswer': 'Pas de réponse du service à {origin} pour {what} en {duration}.',
  'service.unreachable': 'Impossible de joindre le service à {origin} pour {what} : {why}.',
  'service.notSent': '{first} Rien n’a été envoyé : vous pouvez réessayer sans risque avec la même merchant_reference.',
  'service.sentNoAnswer':
    'Le débit a été envoyé mais aucune réponse n’est arrivée en {duration} : le résultat est inconnu. Vérifiez-le avant de débiter à nouveau, et ne renvoyez que la même merchant_reference.',
  'service.sentBroken':
    'Le débit a été envoyé mais {why} avant la réponse : le résultat est inconnu. Vérifiez-le avant de débiter à nouveau, et ne renvoyez que la même merchant_reference.',
  'service.chargeUnknown': '{first} Le résultat du débit est inconnu : vérifiez-le avant de débiter à nouveau.',
  'service.acceptedBadValue':
    'Le service a accepté le débit (HTTP {status}) mais sa réponse contient une valeur incorrecte à {where} ; le résultat est inconnu.',
  'service.acceptedNoReference':
    'Le service a accepté le débit (HTTP {status}) sans dire quelle merchant_reference il a créée ; le résultat est inconnu.',
  'service.acceptedOtherReference':
    'Le service a accepté le débit (HTTP {status}) pour une autre merchant_reference que celle envoyée ; le résultat est inconnu.',
  'service.badBaseUrl': 'L’URL de base du service « {url} » n’est pas une URL http(s) sans identifiant:mot de passe.',
  'service.noPublicKey': 'Aucune clé publique du marchand n’est saisie : saisissez les clés dans Paramètres.',
  'service.noSecretBalances':
    'Aucune clé secrète du marchand n’est saisie : la consultation des soldes en a besoin. Saisissez les clés dans Paramètres.',
  'service.noSecretCharge':
    'Aucune clé secrète du marchand n’est saisie : le débit en a besoin. Saisissez les clés dans Paramètres.',
  'service.transactionType': 'transaction_type doit être un mot comme COLLECTION.',
  'service.amount': 'le montant doit être un nombre entier positif d’unités mineures.',
  'service.currency': 'la devise doit être un code ISO de 3 lettres comme XAF.',
  'service.currencyUnknown': 'Merchant Desk ne connaît pas les décimales de la devise {currency}.',
  'service.code.ECONNREFUSED': 'la connexion a été refusée ({code})',
  'service.code.ECONNRESET': 'la connexion a été réinitialisée ({code})',
  'service.code.UND_ERR_SOCKET': 'la connexion a été fermée ({code})',
  'service.code.EPIPE': 'la connexion a été fermée ({code})',
  'service.code.ENOTFOUND': 'le nom d’hôte est introuvable ({code})',
  'service.code.EAI_AGAIN': 'le nom d’hôte n’a pas pu être résolu ({code})',
  'service.code.ENETUNREACH': 'le réseau est inaccessible ({code})',
  'service.code.EHOSTUNREACH': 'l’hôte est inaccessible ({code})',
  'service.code.UND_ERR_CONNECT_TIMEOUT': 'la connexion a expiré ({code})',
  'service.code.tls': 'le certificat TLS n’a pas été accepté ({code})',
  'service.code.other': 'la connexion a échoué ({code})',
};
