import type { Catalog } from './en_US.ts';

export const zh_TW: Catalog = {
  'status.200': '操作成功',
  'status.201': '已建立或修改',
  'status.202': '已加入佇列，即將完成',
  'status.204': '已刪除',
  'status.400': '伺服器忙碌中，請稍後再試',
  'status.401': '您沒有執行此操作的權限',
  'status.403': '請重新登入',
  'status.404': '請求路徑錯誤',
  'status.406': '不支援此格式',
  'status.409': '此記錄已被他人修改，請重新載入後再試',
  'status.410': '此資源已被永久刪除',
  'status.413': '請求內容過大',
  'status.422': '部分欄位無效',
  'status.429': '嘗試次數過多，請稍後再試',
  'status.500': '伺服器忙碌中，請稍後再試',
  'status.661': '您已被強制登出，請重新登入',
  'status.662': '您的帳號已在其他地方登入',
  'status.666': '登入已逾時，請重新登入',
  'error.routeNotFound': 'API 路徑不存在：{path}',
  'error.itemNotFound': '要求的項目不存在',
  'error.invalidJson': '請求內容不是有效的 JSON',
  'auth.badCredentials': '使用者名稱或密碼錯誤',
  'auth.throttled': '失敗次數過多，請於 {minutes} 分鐘後再試',
  'auth.keyExpired': '登入金鑰已過期，請再試一次',
  'auth.undecryptable': '無法使用工作階段金鑰解密',
  'auth.accountDisabled': '此帳號已被停用',
  'password.tooShort': '長度不得少於 {min} 個字元',
  'password.tooLong': '長度不得超過 {max} 個字元',
  'password.wrongOriginal': '原密碼錯誤',
  'password.sameAsOriginal': '新密碼不得與原密碼相同',
  'code.invalid': '驗證碼錯誤或已過期',
  'code.tooSoon': '請等待 {seconds} 秒後再索取驗證碼',
  'register.usernameTaken': '此使用者名稱已被使用',
  'register.mustAgree': '請先同意服務條款再註冊',
  'username.format': '請使用 3 至 32 個字母、數字、句點、連字號、底線或 @',
  'upload.fileMissing': '請選擇要上傳的檔案',
  'upload.notImage': '必須為 JPG 或 PNG 格式的圖片',
  'upload.unreadableImage': '無法辨識為圖片',
  'upload.tooBig': '不得超過 {max} MB',
  'upload.tooFewPixels': '解析度不得低於 {minWidth} × {minHeight} 像素，目前為 {width} × {height}',
  'upload.tooManyPixels': '解析度不得高於 {maxWidth} × {maxHeight} 像素，目前為 {width} × {height}',
  'upload.notPackage': '必須為 ZIP 或 APK 安裝套件',
  'upload.notMultipart': '請以 multipart/form-data 格式傳送檔案',
  'mail.codeSubject': '您的 Pass Cloud 驗證碼',
  'mail.codeBody': '您的驗證碼為 {code}，{minutes} 分鐘內有效。若您並未提出此要求，請忽略本郵件。',
  'terms.title': 'Pass Cloud 服務條款',
  'terms.content':
    '1. 適用範圍。本條款適用於註冊之企業（以下稱「客戶」）及其建立之帳號對 Pass Cloud 的使用。Pass Cloud 為用於管理人臉辨識門禁、體溫量測及對講設備的託管控制台。\n\n' +
    '2. 帳號。客戶應對其密碼保密，為每位人員分別建立帳號並僅授予其所需的權限，且對其帳號所進行的一切操作負責。\n\n' +
    '3. 個人資料。人臉照片、姓名、體溫、通行記錄及通話錄音屬於客戶員工及訪客的個人資料。客戶為該等資料的控制者，於蒐集前必須具備合法依據，並履行法律規定的告知義務。Pass Cloud 僅為提供服務而處理該等資料，將每位客戶的資料與其他客戶的資料相互隔離，並於客戶刪除資料或終止帳號時予以刪除。\n\n' +
    '4. 設備。綁定至客戶設備綁定碼的人臉終端機及對講設備代表客戶執行操作。客戶應對該綁定碼保密，並解除綁定不再由其控制的設備。\n\n' +
    '5. 合理使用。不得利用本服務非法追蹤他人、儲存客戶無權持有的資料，或攻擊本服務及其他客戶。\n\n' +
    '6. 可用性。本服務依現狀提供，並以合理的注意予以維護。計畫性升級將盡可能事先於控制台中公告。\n\n' +
    '7. 變更。本條款可能有所變更，控制台將顯示現行有效的版本。變更後繼續使用本服務即視為接受變更後的條款。',
};
