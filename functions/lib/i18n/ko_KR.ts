import type { Catalog } from './en_US.ts';

export const ko_KR: Catalog = {
  'status.200': '성공했습니다',
  'status.201': '생성 또는 수정되었습니다',
  'status.202': '대기열에 추가되었습니다. 곧 완료됩니다',
  'status.204': '삭제되었습니다',
  'status.400': '서버가 혼잡합니다. 잠시 후 다시 시도해 주세요',
  'status.401': '이 작업을 수행할 권한이 없습니다',
  'status.403': '다시 로그인해 주세요',
  'status.404': '요청 경로가 올바르지 않습니다',
  'status.406': '이 형식은 사용할 수 없습니다',
  'status.409': '다른 사용자가 이 레코드를 변경했습니다. 새로 고친 후 다시 시도해 주세요',
  'status.410': '이 리소스는 영구적으로 삭제되었습니다',
  'status.413': '요청 크기가 너무 큽니다',
  'status.422': '일부 필드가 유효하지 않습니다',
  'status.429': '시도 횟수가 너무 많습니다. 잠시 후 다시 시도해 주세요',
  'status.500': '서버가 혼잡합니다. 잠시 후 다시 시도해 주세요',
  'status.661': '강제로 로그아웃되었습니다. 다시 로그인해 주세요',
  'status.662': '다른 곳에서 계정에 로그인했습니다',
  'status.666': '로그인 시간이 초과되었습니다. 다시 로그인해 주세요',
  'error.routeNotFound': '존재하지 않는 API 경로입니다: {path}',
  'error.itemNotFound': '요청한 항목이 존재하지 않습니다',
  'error.invalidJson': '요청 본문이 올바른 JSON 형식이 아닙니다',
  'auth.badCredentials': '사용자 이름 또는 비밀번호가 올바르지 않습니다',
  'auth.throttled': '실패 횟수가 너무 많습니다. {minutes}분 후에 다시 시도해 주세요',
  'auth.keyExpired': '로그인 키가 만료되었습니다. 다시 시도해 주세요',
  'auth.undecryptable': '세션 키로 복호화할 수 없습니다',
  'auth.accountDisabled': '비활성화된 계정입니다',
  'password.tooShort': '{min}자 이상이어야 합니다',
  'password.tooLong': '{max}자 이하여야 합니다',
  'password.wrongOriginal': '기존 비밀번호가 올바르지 않습니다',
  'password.sameAsOriginal': '새 비밀번호는 기존 비밀번호와 달라야 합니다',
  'code.invalid': '인증 코드가 올바르지 않거나 만료되었습니다',
  'code.tooSoon': '{seconds}초 후에 인증 코드를 다시 요청해 주세요',
  'register.usernameTaken': '이미 사용 중인 사용자 이름입니다',
  'register.mustAgree': '가입하려면 서비스 약관에 동의해 주세요',
  'username.format': '영문자, 숫자, 마침표, 하이픈, 밑줄 또는 @를 사용하여 3~32자로 입력해 주세요',
  'upload.fileMissing': '업로드할 파일을 선택해 주세요',
  'upload.notImage': 'JPG 또는 PNG 이미지여야 합니다',
  'upload.unreadableImage': '이미지로 읽을 수 없습니다',
  'upload.tooBig': '{max} MB 이하여야 합니다',
  'upload.tooFewPixels': '{minWidth} × {minHeight} 픽셀 이상이어야 합니다. 현재 이미지는 {width} × {height}입니다',
  'upload.tooManyPixels': '{maxWidth} × {maxHeight} 픽셀 이하여야 합니다. 현재 이미지는 {width} × {height}입니다',
  'upload.notPackage': 'ZIP 또는 APK 패키지여야 합니다',
  'upload.notMultipart': '파일을 multipart/form-data 형식으로 전송해 주세요',
  'mail.codeSubject': 'Pass Cloud 인증 코드',
  'mail.codeBody': '인증 코드는 {code}입니다. 이 코드는 {minutes}분 후에 만료됩니다. 요청하지 않으셨다면 이 메일을 무시해 주세요.',
  'terms.title': 'Pass Cloud 서비스 약관',
  'terms.content':
    '1. 적용 범위. 본 약관은 가입한 회사(이하 "고객") 및 고객이 생성한 계정의 Pass Cloud 이용에 적용됩니다. Pass Cloud는 얼굴 인식 출입 통제, 체온 측정 및 인터폰 장치를 위한 호스팅 콘솔입니다.\n\n' +
    '2. 계정. 고객은 비밀번호를 기밀로 유지하고, 각 사용자에게 필요한 권한만 부여한 개별 계정을 제공해야 하며, 고객의 계정으로 이루어진 모든 행위에 대해 책임을 집니다.\n\n' +
    '3. 개인정보. 얼굴 사진, 이름, 체온, 출입 기록 및 통화 녹음은 고객의 직원 및 방문자의 개인정보입니다. 고객은 해당 정보의 관리자로서, 이를 수집하기 전에 적법한 근거를 갖추고 법률이 요구하는 고지를 해야 합니다. Pass Cloud는 서비스 제공 목적으로만 해당 정보를 처리하고, 각 고객의 정보를 다른 모든 고객의 정보와 분리하여 보관하며, 고객이 정보를 삭제하거나 계정을 해지하면 해당 정보를 삭제합니다.\n\n' +
    '4. 장치. 고객의 장치 바인딩 코드에 바인딩된 얼굴 인식 단말기 및 인터폰은 고객을 대리하여 작동합니다. 고객은 해당 코드를 기밀로 유지하고, 더 이상 관리하지 않는 장치의 바인딩을 해제해야 합니다.\n\n' +
    '5. 허용되는 이용. 본 서비스를 사람을 불법적으로 추적하거나, 고객이 보유할 권리가 없는 정보를 저장하거나, 본 서비스 또는 다른 고객을 공격하는 데 이용해서는 안 됩니다.\n\n' +
    '6. 가용성. 본 서비스는 합리적인 주의를 기울여 현재 상태 그대로 제공됩니다. 예정된 업그레이드는 가능한 경우 콘솔을 통해 사전에 공지됩니다.\n\n' +
    '7. 변경. 본 약관은 변경될 수 있으며, 콘솔에는 현재 유효한 버전이 표시됩니다. 변경 후에도 서비스를 계속 이용하는 경우 변경된 약관에 동의한 것으로 간주됩니다.',
};
