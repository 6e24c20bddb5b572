// The desk's language, kept in <dataDir>/language.json: one choice per desk, not per profile (a profile
// switch keeps it), written atomically like active-profile.json. Missing or unreadable means the
// operating system's language. The window applies it at once (renderer/src/words/).
import fs from 'node:fs';
import path from 'node:path';
import { LANGUAGE_CHOICES, type LanguageChoice } from '../words/words.shared.js';

export function languageFile(dataDir: string): string {
  return path.join(path.resolve(dataDir), 'language.json');
}

/** The stored choice; 'system' when there is none or it is not one we know. */
export function readLanguage(dataDir: string): LanguageChoice {
  try {
    const v = (JSON.parse(fs.readFileSync(languageFile(dataDir), 'utf8')) as { language?: unknown }).language;
    if (v === 'pseudo' || (LANGUAGE_CHOICES as readonly unknown[]).includes(v)) return v as LanguageChoice;
  } catch {
    /* missing or unreadable: the system's language */
  }
  return 'system';
}

/** Records the choice (a temporary file, then rename: never half written). */
export function writeLanguage(dataDir: string, choice: LanguageChoice): void {
  const file = languageFile(dataDir);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ language: choice }) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
}
