import type { Catalog } from './en_US.ts';

export const de_DE: Catalog = {
  'status.200': 'Erfolgreich',
  'status.201': 'Erstellt oder geändert',
  'status.202': 'In der Warteschlange; wird in Kürze abgeschlossen',
  'status.204': 'Gelöscht',
  'status.400': 'Der Server ist ausgelastet. Bitte versuchen Sie es später erneut',
  'status.401': 'Sie haben keine Berechtigung für diesen Vorgang',
  'status.403': 'Bitte melden Sie sich erneut an',
  'status.404': 'Falscher Anfragepfad',
  'status.406': 'Dieses Format ist nicht verfügbar',
  'status.409': 'Dieser Datensatz wurde von einer anderen Person geändert. Bitte laden Sie ihn neu und versuchen Sie es erneut',
  'status.410': 'Diese Ressource wurde endgültig gelöscht',
  'status.413': 'Die Anfrage ist zu groß',
  'status.422': 'Einige Felder sind ungültig',
  'status.429': 'Zu viele Versuche. Bitte versuchen Sie es später erneut',
  'status.500': 'Der Server ist ausgelastet. Bitte versuchen Sie es später erneut',
  'status.661': 'Sie wurden zwangsweise abgemeldet. Bitte melden Sie sich erneut an',
  'status.662': 'Ihr Konto wurde an einem anderen Ort angemeldet',
  'status.666': 'Ihre Sitzung ist abgelaufen. Bitte melden Sie sich erneut an',
  'error.routeNotFound': 'API-Pfad nicht vorhanden: {path}',
  'error.itemNotFound': 'Das angeforderte Element ist nicht vorhanden',
  'error.invalidJson': 'Der Anfragetext ist kein gültiges JSON',
  'auth.badCredentials': 'Falscher Benutzername oder falsches Passwort',
  'auth.throttled': 'Zu viele fehlgeschlagene Versuche. Bitte versuchen Sie es in {minutes} Minuten erneut',
  'auth.keyExpired': 'Der Anmeldeschlüssel ist abgelaufen. Bitte versuchen Sie es erneut',
  'auth.undecryptable': 'Konnte mit dem Sitzungsschlüssel nicht entschlüsselt werden',
  'auth.accountDisabled': 'Dieses Konto wurde deaktiviert',
  'password.tooShort': 'Muss mindestens {min} Zeichen lang sein',
  'password.tooLong': 'Darf höchstens {max} Zeichen lang sein',
  'password.wrongOriginal': 'Das bisherige Passwort ist falsch',
  'password.sameAsOriginal': 'Das neue Passwort muss sich vom bisherigen unterscheiden',
  'code.invalid': 'Der Bestätigungscode ist falsch oder abgelaufen',
  'code.tooSoon': 'Bitte warten Sie {seconds} Sekunden, bevor Sie einen neuen Code anfordern',
  'register.usernameTaken': 'Dieser Benutzername ist bereits vergeben',
  'register.mustAgree': 'Bitte akzeptieren Sie die Nutzungsbedingungen, um sich zu registrieren',
  'username.format': 'Verwenden Sie 3 bis 32 Buchstaben, Ziffern, Punkte, Bindestriche, Unterstriche oder @',
  'upload.fileMissing': 'Wählen Sie eine Datei zum Hochladen aus',
  'upload.notImage': 'Muss ein JPG- oder PNG-Bild sein',
  'upload.unreadableImage': 'Konnte nicht als Bild gelesen werden',
  'upload.tooBig': 'Darf höchstens {max} MB groß sein',
  'upload.tooFewPixels': 'Muss mindestens {minWidth} × {minHeight} Pixel groß sein; dieses Bild hat {width} × {height}',
  'upload.tooManyPixels': 'Darf höchstens {maxWidth} × {maxHeight} Pixel groß sein; dieses Bild hat {width} × {height}',
  'upload.notPackage': 'Muss ein ZIP- oder APK-Paket sein',
  'upload.notMultipart': 'Senden Sie die Datei als multipart/form-data',
  'mail.codeSubject': 'Ihr Pass Cloud-Bestätigungscode',
  'mail.codeBody': 'Ihr Bestätigungscode lautet {code}. Er ist {minutes} Minuten lang gültig. Falls Sie ihn nicht angefordert haben, ignorieren Sie bitte diese E-Mail.',
  'terms.title': 'Nutzungsbedingungen von Pass Cloud',
  'terms.content':
    '1. Geltungsbereich. Diese Bedingungen regeln die Nutzung von Pass Cloud, einer gehosteten Konsole für Geräte zur Zutrittskontrolle mit Gesichtserkennung, zur Temperaturmessung und für Gegensprechanlagen, durch das Unternehmen, das sich registriert (der Kunde), und die von ihm angelegten Konten.\n\n' +
    '2. Konten. Der Kunde hält seine Passwörter geheim, gibt jeder Person ein eigenes Konto mit nur den Berechtigungen, die sie benötigt, und ist für alle Handlungen verantwortlich, die mit seinen Konten vorgenommen werden.\n\n' +
    '3. Personenbezogene Daten. Gesichtsfotos, Namen, Körpertemperaturen, Zutrittsprotokolle und Gesprächsaufzeichnungen sind personenbezogene Daten der Beschäftigten und Besucher des Kunden. Der Kunde ist Verantwortlicher für diese Daten und muss vor ihrer Erhebung über eine Rechtsgrundlage verfügen und die gesetzlich vorgeschriebenen Informationen erteilen. Pass Cloud verarbeitet diese Daten ausschließlich zur Erbringung des Dienstes, hält die Daten jedes Kunden von denen aller anderen Kunden getrennt und löscht sie, wenn der Kunde sie löscht oder sein Konto schließt.\n\n' +
    '4. Geräte. Gesichtserkennungsterminals und Gegensprechanlagen, die an den Gerätebindungscode des Kunden gebunden sind, handeln in seinem Namen. Der Kunde hält diesen Code vertraulich und hebt die Bindung von Geräten auf, über die er keine Kontrolle mehr hat.\n\n' +
    '5. Zulässige Nutzung. Der Dienst darf nicht dazu verwendet werden, Personen rechtswidrig zu verfolgen, Daten zu speichern, zu deren Aufbewahrung der Kunde nicht berechtigt ist, oder den Dienst oder andere Kunden anzugreifen.\n\n' +
    '6. Verfügbarkeit. Der Dienst wird im vorliegenden Zustand und mit angemessener Sorgfalt bereitgestellt. Geplante Upgrades werden nach Möglichkeit vorab in der Konsole angekündigt.\n\n' +
    '7. Änderungen. Diese Bedingungen können sich ändern; die Konsole zeigt die jeweils gültige Fassung an, und die weitere Nutzung nach einer Änderung gilt als Zustimmung.',
};
