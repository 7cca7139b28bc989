import type { Catalog } from './en_US.ts';

export const id_ID: Catalog = {
  'status.200': 'Berhasil',
  'status.201': 'Berhasil dibuat atau diubah',
  'status.202': 'Masuk antrean; akan segera selesai',
  'status.204': 'Berhasil dihapus',
  'status.400': 'Server sedang sibuk; silakan coba lagi nanti',
  'status.401': 'Anda tidak memiliki izin untuk melakukan tindakan ini',
  'status.403': 'Silakan masuk kembali',
  'status.404': 'Jalur permintaan salah',
  'status.406': 'Format ini tidak tersedia',
  'status.409': 'Data ini telah diubah oleh orang lain; muat ulang lalu coba lagi',
  'status.410': 'Sumber daya ini telah dihapus secara permanen',
  'status.413': 'Ukuran permintaan terlalu besar',
  'status.422': 'Beberapa kolom tidak valid',
  'status.429': 'Terlalu banyak percobaan; silakan coba lagi nanti',
  'status.500': 'Server sedang sibuk; silakan coba lagi nanti',
  'status.661': 'Anda telah dikeluarkan secara paksa; silakan masuk kembali',
  'status.662': 'Akun Anda telah masuk di tempat lain',
  'status.666': 'Sesi masuk Anda telah habis; silakan masuk kembali',
  'error.routeNotFound': 'Jalur API tidak ditemukan: {path}',
  'error.itemNotFound': 'Item yang diminta tidak ada',
  'error.invalidJson': 'Isi permintaan bukan JSON yang valid',
  'auth.badCredentials': 'Nama pengguna atau kata sandi salah',
  'auth.throttled': 'Terlalu banyak percobaan gagal; coba lagi dalam {minutes} menit',
  'auth.keyExpired': 'Kunci masuk telah kedaluwarsa; silakan coba lagi',
  'auth.undecryptable': 'Tidak dapat didekripsi dengan kunci sesi',
  'auth.accountDisabled': 'Akun ini telah dinonaktifkan',
  'password.tooShort': 'Minimal {min} karakter',
  'password.tooLong': 'Maksimal {max} karakter',
  'password.wrongOriginal': 'Kata sandi lama salah',
  'password.sameAsOriginal': 'Kata sandi baru harus berbeda dari kata sandi lama',
  'code.invalid': 'Kode verifikasi salah atau telah kedaluwarsa',
  'code.tooSoon': 'Harap tunggu {seconds} detik sebelum meminta kode lain',
  'register.usernameTaken': 'Nama pengguna ini sudah digunakan',
  'register.mustAgree': 'Setujui ketentuan layanan untuk mendaftar',
  'username.format': 'Gunakan 3 hingga 32 karakter berupa huruf, angka, titik, tanda hubung, garis bawah, atau @',
  'upload.fileMissing': 'Pilih file yang akan diunggah',
  'upload.notImage': 'Harus berupa gambar JPG atau PNG',
  'upload.unreadableImage': 'Tidak dapat dibaca sebagai gambar',
  'upload.tooBig': 'Maksimal {max} MB',
  'upload.tooFewPixels': 'Minimal {minWidth} × {minHeight} piksel; gambar ini berukuran {width} × {height}',
  'upload.tooManyPixels': 'Maksimal {maxWidth} × {maxHeight} piksel; gambar ini berukuran {width} × {height}',
  'upload.notPackage': 'Harus berupa paket ZIP atau APK',
  'upload.notMultipart': 'Kirim file sebagai multipart/form-data',
  'mail.codeSubject': 'Kode verifikasi Pass Cloud Anda',
  'mail.codeBody': 'Kode verifikasi Anda adalah {code}. Kode ini berlaku selama {minutes} menit. Jika Anda tidak memintanya, abaikan email ini.',
  'terms.title': 'Ketentuan layanan Pass Cloud',
  'terms.content':
    '1. Ruang lingkup. Ketentuan ini mengatur penggunaan Pass Cloud, konsol terkelola untuk perangkat kontrol akses pengenalan wajah, pengukuran suhu, dan interkom, oleh perusahaan yang mendaftar (pelanggan) dan akun-akun yang dibuatnya.\n\n' +
    '2. Akun. Pelanggan menjaga kerahasiaan kata sandinya, memberikan akun tersendiri kepada setiap orang dengan izin yang hanya sebatas kebutuhannya, dan bertanggung jawab atas segala tindakan yang dilakukan dengan akun-akunnya.\n\n' +
    '3. Data pribadi. Foto wajah, nama, suhu tubuh, catatan akses, dan rekaman panggilan merupakan data pribadi karyawan dan pengunjung pelanggan. Pelanggan adalah pengendali data tersebut dan wajib memiliki dasar hukum yang sah serta menyampaikan pemberitahuan yang diwajibkan oleh hukum sebelum mengumpulkannya. Pass Cloud memproses data tersebut semata-mata untuk menyediakan layanan, memisahkan data setiap pelanggan dari data pelanggan lainnya, dan menghapusnya apabila pelanggan menghapusnya atau menutup akunnya.\n\n' +
    '4. Perangkat. Terminal wajah dan interkom yang terikat pada kode pengikatan perangkat milik pelanggan bertindak atas nama pelanggan. Pelanggan menjaga kerahasiaan kode tersebut dan melepas ikatan perangkat yang tidak lagi berada di bawah kendalinya.\n\n' +
    '5. Penggunaan yang dapat diterima. Layanan tidak boleh digunakan untuk melacak orang secara melanggar hukum, menyimpan data yang tidak berhak dimiliki pelanggan, atau menyerang layanan maupun pelanggan lain.\n\n' +
    '6. Ketersediaan. Layanan disediakan sebagaimana adanya, dengan kehati-hatian yang wajar. Peningkatan terjadwal akan diumumkan terlebih dahulu di konsol apabila memungkinkan.\n\n' +
    '7. Perubahan. Ketentuan ini dapat berubah; konsol menampilkan versi yang berlaku, dan penggunaan yang berkelanjutan setelah adanya perubahan berarti penerimaan atas perubahan tersebut.',
};
