import type { Catalog } from './en_US.ts';

export const it_IT: Catalog = {
  'status.200': 'Operazione riuscita',
  'status.201': 'Creato o modificato',
  'status.202': 'In coda; verrà completato a breve',
  'status.204': 'Eliminato',
  'status.400': 'Il server è occupato; riprova più tardi',
  'status.401': 'Non disponi dell\'autorizzazione per questa operazione',
  'status.403': 'Effettua di nuovo l\'accesso',
  'status.404': 'Percorso della richiesta errato',
  'status.406': 'Questo formato non è disponibile',
  'status.409': 'Questo record è stato modificato da un altro utente; ricaricalo e riprova',
  'status.410': 'Questa risorsa è stata eliminata definitivamente',
  'status.413': 'La richiesta è troppo grande',
  'status.422': 'Alcuni campi non sono validi',
  'status.429': 'Troppi tentativi; riprova più tardi',
  'status.500': 'Il server è occupato; riprova più tardi',
  'status.661': 'Sei stato disconnesso forzatamente; effettua di nuovo l\'accesso',
  'status.662': 'È stato effettuato l\'accesso al tuo account da un altro dispositivo',
  'status.666': 'La sessione è scaduta; effettua di nuovo l\'accesso',
  'error.routeNotFound': 'Percorso API inesistente: {path}',
  'error.itemNotFound': 'L\'elemento richiesto non esiste',
  'error.invalidJson': 'Il corpo della richiesta non è un JSON valido',
  'auth.badCredentials': 'Nome utente o password errati',
  'auth.throttled': 'Troppi tentativi non riusciti; riprova tra {minutes} minuti',
  'auth.keyExpired': 'La chiave di accesso è scaduta; riprova',
  'auth.undecryptable': 'Impossibile decrittografare con la chiave di sessione',
  'auth.accountDisabled': 'Questo account è stato disattivato',
  'password.tooShort': 'Deve contenere almeno {min} caratteri',
  'password.tooLong': 'Deve contenere al massimo {max} caratteri',
  'password.wrongOriginal': 'La password attuale non è corretta',
  'password.sameAsOriginal': 'La nuova password deve essere diversa da quella attuale',
  'code.invalid': 'Il codice di verifica è errato o scaduto',
  'code.tooSoon': 'Attendi {seconds} secondi prima di richiedere un altro codice',
  'register.usernameTaken': 'Questo nome utente è già in uso',
  'register.mustAgree': 'Per registrarti devi accettare i termini del servizio',
  'username.format': 'Usa da 3 a 32 caratteri tra lettere, cifre, punti, trattini, trattini bassi o @',
  'upload.fileMissing': 'Scegli un file da caricare',
  'upload.notImage': 'Deve essere un\'immagine JPG o PNG',
  'upload.unreadableImage': 'Impossibile leggere il file come immagine',
  'upload.tooBig': 'Deve essere al massimo di {max} MB',
  'upload.tooFewPixels': 'Deve essere di almeno {minWidth} × {minHeight} pixel; questa immagine è di {width} × {height}',
  'upload.tooManyPixels': 'Deve essere al massimo di {maxWidth} × {maxHeight} pixel; questa immagine è di {width} × {height}',
  'upload.notPackage': 'Deve essere un pacchetto ZIP o APK',
  'upload.notMultipart': 'Invia il file come multipart/form-data',
  'mail.codeSubject': 'Il tuo codice di verifica Pass Cloud',
  'mail.codeBody': 'Il tuo codice di verifica è {code}. Scade tra {minutes} minuti. Se non l\'hai richiesto, ignora questa e-mail.',
  'terms.title': 'Termini del servizio Pass Cloud',
  'terms.content':
    '1. Ambito. I presenti termini disciplinano l\'utilizzo di Pass Cloud, una console in hosting per dispositivi di controllo accessi con riconoscimento facciale, misurazione della temperatura e citofonia, da parte dell\'azienda che si registra (il cliente) e degli account da essa creati.\n\n' +
    '2. Account. Il cliente mantiene segrete le proprie password, assegna a ciascuna persona un account personale con i soli permessi necessari ed è responsabile di tutte le operazioni effettuate con i propri account.\n\n' +
    '3. Dati personali. Le foto del volto, i nomi, le temperature corporee, i registri dei passaggi e le registrazioni delle chiamate sono dati personali dei dipendenti e dei visitatori del cliente. Il cliente è titolare del trattamento di tali dati e, prima di raccoglierli, deve disporre di una base giuridica idonea e fornire le informative previste dalla legge. Pass Cloud tratta tali dati al solo scopo di fornire il servizio, mantiene i dati di ciascun cliente separati da quelli di tutti gli altri clienti e li elimina quando il cliente li elimina o chiude il proprio account.\n\n' +
    '4. Dispositivi. I terminali di riconoscimento facciale e i citofoni associati al codice di associazione dispositivi del cliente agiscono per conto di quest\'ultimo. Il cliente mantiene riservato tale codice e dissocia i dispositivi che non controlla più.\n\n' +
    '5. Uso consentito. Il servizio non deve essere utilizzato per tracciare persone illecitamente, per archiviare dati che il cliente non ha il diritto di detenere o per attaccare il servizio o altri clienti.\n\n' +
    '6. Disponibilità. Il servizio è fornito «così com\'è», con ragionevole diligenza. Gli aggiornamenti pianificati vengono annunciati in anticipo nella console, ove possibile.\n\n' +
    '7. Modifiche. I presenti termini possono essere modificati; la console mostra la versione in vigore e l\'uso continuato del servizio dopo una modifica ne costituisce accettazione.',
};
