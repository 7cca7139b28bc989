import type { Catalog } from './en_US.ts';

export const es_ES: Catalog = {
  'status.200': 'Operación correcta',
  'status.201': 'Creado o modificado',
  'status.202': 'En cola; se completará en breve',
  'status.204': 'Eliminado',
  'status.400': 'El servidor está ocupado; inténtelo de nuevo más tarde',
  'status.401': 'No tiene permiso para realizar esta acción',
  'status.403': 'Vuelva a iniciar sesión',
  'status.404': 'Ruta de solicitud incorrecta',
  'status.406': 'Este formato no está disponible',
  'status.409': 'Otra persona ha modificado este registro; vuelva a cargarlo e inténtelo de nuevo',
  'status.410': 'Este recurso se ha eliminado de forma permanente',
  'status.413': 'La solicitud es demasiado grande',
  'status.422': 'Algunos campos no son válidos',
  'status.429': 'Demasiados intentos; inténtelo de nuevo más tarde',
  'status.500': 'El servidor está ocupado; inténtelo de nuevo más tarde',
  'status.661': 'Se ha cerrado su sesión de forma forzada; vuelva a iniciar sesión',
  'status.662': 'Se ha iniciado sesión con su cuenta desde otro lugar',
  'status.666': 'Su sesión ha caducado; vuelva a iniciar sesión',
  'error.routeNotFound': 'No existe la ruta de API: {path}',
  'error.itemNotFound': 'El elemento solicitado no existe',
  'error.invalidJson': 'El cuerpo de la solicitud no es un JSON válido',
  'auth.badCredentials': 'Nombre de usuario o contraseña incorrectos',
  'auth.throttled': 'Demasiados intentos fallidos; inténtelo de nuevo dentro de {minutes} minutos',
  'auth.keyExpired': 'La clave de inicio de sesión ha caducado; inténtelo de nuevo',
  'auth.undecryptable': 'No se ha podido descifrar con la clave de sesión',
  'auth.accountDisabled': 'Esta cuenta se ha desactivado',
  'password.tooShort': 'Debe tener al menos {min} caracteres',
  'password.tooLong': 'Debe tener como máximo {max} caracteres',
  'password.wrongOriginal': 'La contraseña actual es incorrecta',
  'password.sameAsOriginal': 'La nueva contraseña debe ser distinta de la actual',
  'code.invalid': 'El código de verificación es incorrecto o ha caducado',
  'code.tooSoon': 'Espere {seconds} segundos antes de solicitar otro código',
  'register.usernameTaken': 'Este nombre de usuario ya está en uso',
  'register.mustAgree': 'Acepte las condiciones del servicio para registrarse',
  'username.format': 'Utilice entre 3 y 32 caracteres: letras, dígitos, puntos, guiones, guiones bajos o @',
  'upload.fileMissing': 'Elija un archivo para subir',
  'upload.notImage': 'Debe ser una imagen JPG o PNG',
  'upload.unreadableImage': 'No se ha podido leer como imagen',
  'upload.tooBig': 'Debe ocupar como máximo {max} MB',
  'upload.tooFewPixels': 'Debe tener al menos {minWidth} × {minHeight} píxeles; esta imagen tiene {width} × {height}',
  'upload.tooManyPixels': 'Debe tener como máximo {maxWidth} × {maxHeight} píxeles; esta imagen tiene {width} × {height}',
  'upload.notPackage': 'Debe ser un paquete ZIP o APK',
  'upload.notMultipart': 'Envíe el archivo como multipart/form-data',
  'mail.codeSubject': 'Su código de verificación de Pass Cloud',
  'mail.codeBody': 'Su código de verificación es {code}. Caduca dentro de {minutes} minutos. Si no lo ha solicitado, ignore este correo.',
  'terms.title': 'Condiciones del servicio de Pass Cloud',
  'terms.content':
    '1. Ámbito. Estas condiciones regulan el uso de Pass Cloud, una consola alojada para dispositivos de control de acceso con reconocimiento facial, medición de temperatura e interfonía, por parte de la empresa que se registra (el cliente) y de las cuentas que esta crea.\n\n' +
    '2. Cuentas. El cliente mantiene en secreto sus contraseñas, asigna a cada persona su propia cuenta con solo los permisos que necesita y es responsable de todo lo que se haga con sus cuentas.\n\n' +
    '3. Datos personales. Las fotos faciales, los nombres, las temperaturas corporales, los registros de paso y las grabaciones de llamadas son datos personales de los empleados y visitantes del cliente. El cliente es el responsable del tratamiento de dichos datos y, antes de recogerlos, debe contar con una base jurídica y facilitar la información que exija la ley. Pass Cloud trata dichos datos únicamente para prestar el servicio, mantiene los datos de cada cliente separados de los de todos los demás clientes y los elimina cuando el cliente los elimina o cierra su cuenta.\n\n' +
    '4. Dispositivos. Los terminales faciales e interfonos vinculados al código de vinculación de dispositivos del cliente actúan en su nombre. El cliente mantiene ese código en confidencialidad y desvincula los dispositivos que ya no controla.\n\n' +
    '5. Uso aceptable. El servicio no debe utilizarse para rastrear a personas de forma ilícita, para almacenar datos que el cliente no tenga derecho a conservar ni para atacar el servicio o a otros clientes.\n\n' +
    '6. Disponibilidad. El servicio se presta tal cual, con una diligencia razonable. Las actualizaciones programadas se anuncian con antelación en la consola siempre que sea posible.\n\n' +
    '7. Cambios. Estas condiciones pueden cambiar; la consola muestra la versión vigente, y el uso continuado tras un cambio implica su aceptación.',
};
