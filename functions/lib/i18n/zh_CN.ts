import type { Catalog } from './en_US.ts';

export const zh_CN: Catalog = {
  'status.200': '操作成功',
  'status.201': '已创建或修改',
  'status.202': '已加入队列，即将完成',
  'status.204': '已删除',
  'status.400': '服务器繁忙，请稍后重试',
  'status.401': '您没有执行此操作的权限',
  'status.403': '请重新登录',
  'status.404': '请求路径错误',
  'status.406': '不支持此格式',
  'status.409': '该记录已被他人修改，请重新加载后重试',
  'status.410': '该资源已被永久删除',
  'status.413': '请求内容过大',
  'status.422': '部分字段无效',
  'status.429': '尝试次数过多，请稍后重试',
  'status.500': '服务器繁忙，请稍后重试',
  'status.661': '您已被强制下线，请重新登录',
  'status.662': '您的账号已在其他地方登录',
  'status.666': '登录已超时，请重新登录',
  'error.routeNotFound': '接口路径不存在：{path}',
  'error.itemNotFound': '请求的项目不存在',
  'error.invalidJson': '请求体不是有效的 JSON',
  'auth.badCredentials': '用户名或密码错误',
  'auth.throttled': '失败次数过多，请 {minutes} 分钟后重试',
  'auth.keyExpired': '登录密钥已过期，请重试',
  'auth.undecryptable': '无法使用会话密钥解密',
  'auth.accountDisabled': '该账号已被停用',
  'password.tooShort': '长度不能少于 {min} 个字符',
  'password.tooLong': '长度不能超过 {max} 个字符',
  'password.wrongOriginal': '原密码错误',
  'password.sameAsOriginal': '新密码不能与原密码相同',
  'code.invalid': '验证码错误或已过期',
  'code.tooSoon': '请等待 {seconds} 秒后再获取验证码',
  'register.usernameTaken': '该用户名已被占用',
  'register.mustAgree': '请先同意服务条款再注册',
  'username.format': '请使用 3 至 32 位字母、数字、点、连字符、下划线或 @',
  'upload.fileMissing': '请选择要上传的文件',
  'upload.notImage': '必须为 JPG 或 PNG 格式的图片',
  'upload.unreadableImage': '无法识别为图片',
  'upload.tooBig': '不能超过 {max} MB',
  'upload.tooFewPixels': '分辨率不能低于 {minWidth} × {minHeight} 像素，当前为 {width} × {height}',
  'upload.tooManyPixels': '分辨率不能高于 {maxWidth} × {maxHeight} 像素，当前为 {width} × {height}',
  'upload.notPackage': '必须为 ZIP 或 APK 安装包',
  'upload.notMultipart': '请以 multipart/form-data 格式发送文件',
  'mail.codeSubject': '您的 Pass Cloud 验证码',
  'mail.codeBody': '您的验证码为 {code}，{minutes} 分钟内有效。如非本人操作，请忽略此邮件。',
  'terms.title': 'Pass Cloud 服务条款',
  'terms.content':
    '1. 适用范围。本条款适用于注册的企业（以下简称“客户”）及其创建的账号对 Pass Cloud 的使用。Pass Cloud 是用于管理人脸识别门禁、测温及对讲设备的托管控制台。\n\n' +
    '2. 账号。客户应对其密码保密，为每位人员分别创建账号并仅授予其所需的权限，并对其账号下的一切操作负责。\n\n' +
    '3. 个人数据。人脸照片、姓名、体温、通行记录及通话录音属于客户员工及访客的个人数据。客户是该等数据的控制者，在收集前必须具备合法依据，并履行法律规定的告知义务。Pass Cloud 仅为提供服务而处理该等数据，将每位客户的数据与其他客户的数据相互隔离，并在客户删除数据或注销账号时予以删除。\n\n' +
    '4. 设备。绑定至客户设备绑定码的人脸终端及对讲设备代表客户执行操作。客户应对该绑定码保密，并及时解绑不再由其控制的设备。\n\n' +
    '5. 合理使用。不得利用本服务非法追踪他人、存储客户无权持有的数据，或攻击本服务及其他客户。\n\n' +
    '6. 可用性。本服务按现状提供，并以合理的谨慎予以维护。计划内升级将尽可能提前在控制台中公告。\n\n' +
    '7. 变更。本条款可能会有所变更，控制台将显示现行有效的版本。变更后继续使用本服务即视为接受变更后的条款。',
};
