import type { Catalog } from './en_US.ts';

export const fr_FR: Catalog = {
  'status.200': 'Opération réussie',
  'status.201': 'Créé ou modifié',
  'status.202': 'En file d\'attente ; l\'opération sera bientôt terminée',
  'status.204': 'Supprimé',
  'status.400': 'Le serveur est occupé ; veuillez réessayer plus tard',
  'status.401': 'Vous n\'êtes pas autorisé à effectuer cette action',
  'status.403': 'Veuillez vous reconnecter',
  'status.404': 'Chemin de requête incorrect',
  'status.406': 'Ce format n\'est pas disponible',
  'status.409': 'Cet enregistrement a été modifié par une autre personne ; rechargez-le et réessayez',
  'status.410': 'Cette ressource a été définitivement supprimée',
  'status.413': 'La requête est trop volumineuse',
  'status.422': 'Certains champs ne sont pas valides',
  'status.429': 'Trop de tentatives ; veuillez réessayer plus tard',
  'status.500': 'Le serveur est occupé ; veuillez réessayer plus tard',
  'status.661': 'Vous avez été déconnecté de force ; veuillez vous reconnecter',
  'status.662': 'Une connexion à votre compte a été effectuée depuis un autre emplacement',
  'status.666': 'Votre session a expiré ; veuillez vous reconnecter',
  'error.routeNotFound': 'Chemin d\'API inexistant : {path}',
  'error.itemNotFound': 'L\'élément demandé n\'existe pas',
  'error.invalidJson': 'Le corps de la requête n\'est pas un JSON valide',
  'auth.badCredentials': 'Nom d\'utilisateur ou mot de passe incorrect',
  'auth.throttled': 'Trop de tentatives infructueuses ; réessayez dans {minutes} minutes',
  'auth.keyExpired': 'La clé de connexion a expiré ; veuillez réessayer',
  'auth.undecryptable': 'Impossible de déchiffrer avec la clé de session',
  'auth.accountDisabled': 'Ce compte a été désactivé',
  'password.tooShort': 'Doit comporter au moins {min} caractères',
  'password.tooLong': 'Doit comporter au plus {max} caractères',
  'password.wrongOriginal': 'Le mot de passe actuel est incorrect',
  'password.sameAsOriginal': 'Le nouveau mot de passe doit être différent de l\'actuel',
  'code.invalid': 'Le code de vérification est incorrect ou a expiré',
  'code.tooSoon': 'Veuillez patienter {seconds} secondes avant de demander un nouveau code',
  'register.usernameTaken': 'Ce nom d\'utilisateur est déjà pris',
  'register.mustAgree': 'Acceptez les conditions d\'utilisation pour vous inscrire',
  'username.format': 'Utilisez de 3 à 32 caractères : lettres, chiffres, points, tirets, traits de soulignement ou @',
  'upload.fileMissing': 'Choisissez un fichier à importer',
  'upload.notImage': 'Doit être une image JPG ou PNG',
  'upload.unreadableImage': 'Impossible de lire le fichier en tant qu\'image',
  'upload.tooBig': 'Ne doit pas dépasser {max} MB',
  'upload.tooFewPixels': 'Doit mesurer au moins {minWidth} × {minHeight} pixels ; cette image mesure {width} × {height}',
  'upload.tooManyPixels': 'Doit mesurer au plus {maxWidth} × {maxHeight} pixels ; cette image mesure {width} × {height}',
  'upload.notPackage': 'Doit être un paquet ZIP ou APK',
  'upload.notMultipart': 'Envoyez le fichier au format multipart/form-data',
  'mail.codeSubject': 'Votre code de vérification Pass Cloud',
  'mail.codeBody': 'Votre code de vérification est {code}. Il expire dans {minutes} minutes. Si vous n\'en avez pas fait la demande, ignorez cet e-mail.',
  'terms.title': 'Conditions d\'utilisation de Pass Cloud',
  'terms.content':
    '1. Champ d\'application. Les présentes conditions régissent l\'utilisation de Pass Cloud, une console hébergée destinée aux dispositifs de contrôle d\'accès par reconnaissance faciale, de mesure de la température et d\'interphonie, par l\'entreprise qui s\'inscrit (le client) et par les comptes qu\'elle crée.\n\n' +
    '2. Comptes. Le client garde ses mots de passe secrets, attribue à chaque personne un compte individuel doté uniquement des autorisations dont elle a besoin, et est responsable de toutes les actions effectuées avec ses comptes.\n\n' +
    '3. Données personnelles. Les photos de visage, les noms, les températures corporelles, les historiques de passage et les enregistrements d\'appels sont des données personnelles des employés et des visiteurs du client. Le client est responsable du traitement de ces données et doit disposer d\'une base légale et fournir les informations exigées par la loi avant de les collecter. Pass Cloud ne traite ces données qu\'aux fins de la fourniture du service, conserve les données de chaque client séparément de celles de tous les autres clients et les supprime lorsque le client les supprime ou clôture son compte.\n\n' +
    '4. Appareils. Les terminaux de reconnaissance faciale et les interphones associés au code d\'association d\'appareils du client agissent en son nom. Le client garde ce code confidentiel et dissocie les appareils qu\'il ne contrôle plus.\n\n' +
    '5. Utilisation acceptable. Le service ne doit pas être utilisé pour suivre des personnes de manière illicite, pour stocker des données que le client n\'a pas le droit de détenir, ni pour attaquer le service ou d\'autres clients.\n\n' +
    '6. Disponibilité. Le service est fourni en l\'état, avec une diligence raisonnable. Les mises à niveau planifiées sont annoncées à l\'avance dans la console dans la mesure du possible.\n\n' +
    '7. Modifications. Les présentes conditions peuvent être modifiées ; la console affiche la version en vigueur, et la poursuite de l\'utilisation du service après une modification vaut acceptation de celle-ci.',
};
