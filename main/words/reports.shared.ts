// The Reports screen and what main says of an export (main/reports/, operations/export.ts).
import type { FrenchOf } from './french.shared.js';

export const en = {
  'reports.prepareFailed': 'Could not prepare the exports',
  'reports.loading': 'Loading export settings…',
  'reports.folder':
    "Files are saved in the app's exports folder, {folder} (open it in your file manager to find them); you choose the file name.",
  'reports.balances': 'Balance report',
  'reports.balancesAbout':
    'Per currency and wallet type: opening, closing, lowest, highest and change over the days chosen, plus a second file with every snapshot.',
  'reports.collections': 'Collections CSV',
  'reports.collectionsAbout':
    'Every collection with each source\u2019s status, the reconciliation outcome and any resolution note. Leave the dates empty for all of them.',
  'reports.phase.starting': 'Starting',
  'reports.phase.reconciling': 'Reconciling before export',
  'reports.phase.writing': 'Writing rows',
  'reports.exportBalancesChoose': 'Export balance report…',
  'reports.exportBalances': 'Export balance report',
  'reports.exportCollectionsChoose': 'Export collections…',
  'reports.exportCollections': 'Export collections',
  'reports.failed': 'Export failed',
  'reports.from': 'From',
  'reports.fromOptional': 'From (optional)',
  'reports.to': 'To',
  'reports.toOptional': 'To (optional)',
  'reports.bom': 'Add a byte-order mark (for Excel)',
  'reports.fileName': 'File name',
  'reports.fileNameHint': 'Saved in {folder}. A name only, ending in .csv; nothing is overwritten.',
  'reports.result': '{title} result',
  'reports.rows': 'Exported {rows, plural, one {# row} other {# rows}}.',
  'reports.file': '{path} ({size})',
  'reports.openFolder': 'Open {folder} in your file manager to find {files, plural, one {it} other {them}}.',
  'reports.chooseFirst': 'Choose the first day of the report.',
  'reports.chooseLast': 'Choose the last day of the report.',
  'reports.lastAfterFirst': 'The last day must be on or after the first day.',
  'reports.nameNeeded': 'Enter a file name ending in .csv.',
  'reports.notChosen': 'No file was chosen; nothing was exported.',
  'reports.failedLog': 'The export failed; the details are in the log.',
  'reports.cancelled': 'Export cancelled; the partial file was removed.',
} satisfies Record<string, string>;

export const fr: FrenchOf<typeof en> = {
  'reports.prepareFailed': 'Impossible de préparer les exports',
  'reports.loading': 'Chargement des réglages d’export…',
  'reports.folder':
    'Les fichiers sont enregistrés dans le dossier d’export de l’application, {folder} (ouvrez-le dans votre gestionnaire de fichiers pour les trouver) ; vous choisissez le nom du fichier.',
  'reports.balances': 'Rapport des soldes',
  'reports.balancesAbout':
    'Par devise et type de portefeuille : ouverture, clôture, plus bas, plus haut et variation sur les jours choisis, plus un second fichier avec chaque relevé.',
  'reports.collections': 'Encaissements (CSV)',
  'reports.collectionsAbout':
    'Chaque encaissement avec le statut de chaque source, le résultat du rapprochement et la note de résolution éventuelle. Laissez les dates vides pour les avoir tous.',
  'reports.phase.starting': 'Démarrage',
  'reports.phase.reconciling': 'Rapprochement avant l’export',
  'reports.phase.writing': 'Écriture des lignes',
  'reports.exportBalancesChoose': 'Exporter le rapport des soldes…',
  'reports.exportBalances': 'Exporter le rapport des soldes',
  'reports.exportCollectionsChoose': 'Exporter les encaissements…',
  'reports.exportCollections': 'Exporter les encaissements',
  'reports.failed': 'Échec de l’export',
  'reports.from': 'Du',
  'reports.fromOptional': 'Du (facultatif)',
  'reports.to': 'Au',
  'reports.toOptional': 'Au (facultatif)',
  'reports.bom': 'Ajouter une marque d’ordre des octets (pour Excel)',
  'reports.fileName': 'Nom du fichier',
  'reports.fileNameHint':
    'Enregistré dans {folder}. Un nom seulement, se terminant par .csv ; rien n’est écrasé.',
  'reports.result': 'Résultat : {title}',
  'reports.rows': '{rows, plural, one {# ligne exportée} other {# lignes exportées}}.',
  'reports.file': '{path} ({size})',
  'reports.openFolder':
    'Ouvrez {folder} dans votre gestionnaire de fichiers pour {files, plural, one {le trouver} other {les trouver}}.',
  'reports.chooseFirst': 'Choisissez le premier jour du rapport.',
  'reports.chooseLast': 'Choisissez le dernier jour du rapport.',
  'reports.lastAfterFirst': 'Le dernier jour doit être égal ou postérieur au premier jour.',
  'reports.nameNeeded': 'Saisissez un nom de fichier se terminant par .csv.',
  'reports.notChosen': 'Aucun fichier n’a été choisi ; rien n’a été exporté.',
  'reports.failedLog': 'L’export a échoué ; le détail est dans le journal.',
  'reports.cancelled': 'Export annulé ; le fichier partiel a été supprimé.',
};
