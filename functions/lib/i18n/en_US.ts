/** Server messages in English; every other locale file has the same keys. `{name}` marks a parameter. */
export const en_US = {
  'status.200': 'Success',
  'status.201': 'Created or modified',
  'status.202': 'Queued; it will complete shortly',
  'status.204': 'Deleted',
  'status.400': 'The server is busy; please try again later',
  'status.401': 'You do not have permission to do this',
  'status.403': 'Please log in again',
  'status.404': 'Wrong request path',
  'status.406': 'This format is not available',
  'status.409': 'This record was changed by someone else; reload it and try again',
  'status.410': 'This resource has been permanently deleted',
  'status.413': 'The request is too large',
  'status.422': 'Some fields are not valid',
  'status.429': 'Too many attempts; please try again later',
  'status.500': 'The server is busy; please try again later',
  'status.661': 'You have been forced offline; please log in again',
  'status.662': 'Your account has logged in elsewhere',
  'status.666': 'Your login has timed out; please log in again',
  'error.routeNotFound': 'No such API path: {path}',
  'error.itemNotFound': 'The requested item does not exist',
  'error.invalidJson': 'The request body is not valid JSON',
  'auth.badCredentials': 'Wrong username or password',
  'auth.throttled': 'Too many failed attempts; try again in {minutes} minutes',
  'auth.keyExpired': 'The login key has expired; please try again',
  'auth.undecryptable': 'Could not be decrypted with the session key',
  'auth.accountDisabled': 'This account has been disabled',
  'password.tooShort': 'Must be at least {min} characters',
  'password.tooLong': 'Must be at most {max} characters',
  'password.wrongOriginal': 'The original password is wrong',
  'password.sameAsOriginal': 'The new password must differ from the original one',
  'code.invalid': 'The verification code is wrong or has expired',
  'code.tooSoon': 'Please wait {seconds} seconds before requesting another code',
  'register.usernameTaken': 'This username is already taken',
  'register.mustAgree': 'Accept the service terms to register',
  'username.format': 'Use 3 to 32 letters, digits, dots, dashes, underscores or @',
  'upload.fileMissing': 'Choose a file to upload',
  'upload.notImage': 'Must be a JPG or PNG image',
  'upload.unreadableImage': 'Could not be read as an image',
  'upload.tooBig': 'Must be at most {max} MB',
  'upload.tooFewPixels': 'Must be at least {minWidth} × {minHeight} pixels; this one is {width} × {height}',
  'upload.tooManyPixels': 'Must be at most {maxWidth} × {maxHeight} pixels; this one is {width} × {height}',
  'upload.notPackage': 'Must be a ZIP or APK package',
  'upload.notMultipart': 'Send the file as multipart/form-data',
  'mail.codeSubject': 'Your Pass Cloud verification code',
  'mail.codeBody': 'Your verification code is {code}. It expires in {minutes} minutes. If you did not ask for it, ignore this mail.',
  'terms.title': 'Pass Cloud service terms',
  'terms.content':
    '1. Scope. These terms govern the use of Pass Cloud, a hosted console for face-recognition access control, temperature measurement and intercom devices, by the company that registers (the customer) and the accounts it creates.\n\n' +
    '2. Accounts. The customer keeps its passwords secret, gives each person their own account with only the permissions they need, and is responsible for everything done with its accounts.\n\n' +
    '3. Personal data. Face photos, names, body temperatures, pass records and call recordings are personal data of the customer\'s employees and visitors. The customer is the controller of that data and must have a lawful basis and give the notices the law requires before collecting it. Pass Cloud processes it only to provide the service, keeps each customer\'s data separate from every other customer\'s, and deletes it when the customer deletes it or closes its account.\n\n' +
    '4. Devices. Face terminals and intercoms bound to the customer\'s device binding code act on its behalf. The customer keeps that code confidential and unbinds devices it no longer controls.\n\n' +
    '5. Acceptable use. The service must not be used to track people unlawfully, to store data the customer has no right to hold, or to attack the service or other customers.\n\n' +
    '6. Availability. The service is provided as it is, with reasonable care. Planned upgrades are announced in the console in advance where possible.\n\n' +
    '7. Changes. These terms may change; the console shows the version in force, and continued use after a change means acceptance.',
} as const;

export type MessageId = keyof typeof en_US;
export type Catalog = Record<MessageId, string>;
