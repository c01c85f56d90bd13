// Phrase rules for prose that turns the agent against its user without any command: collecting secrets (key files,
// `.env` files, browser profiles) into answers or requests, faking results (tests "fixed" by editing them, scans
// reported clean whatever they found), and granting the agent authority the user never gave. Gaps are bounded.

const G = "[^!?\\n]{0,60}"; // a short gap; `.` is allowed, since `.env` and `id_rsa.pub` hold one

const SECRET_OBJECT =
	"(\\.env\\b(?![.\\w-])( files?)?|env files|dotenv files|private keys?|key files|ssh keys?|id_rsa|\\.pem files|credentials? files?|credential stores?|api keys|access tokens|secrets|saved passwords|passwords|browser (profiles?|cookies|data|history)|cookies|keychains?|crypto wallets?|wallet files|seed phrases?)";
const COLLECT =
	"(search|scan|look\\s+(for|through|in)|find|collect|gather|harvest|grab|read|extract|locate|enumerate|dump)";
const ROUTINE =
	"(after\\s+(every|each)\\s+(task|request|response|message|answer|session|command)|before\\s+(answering|responding|replying|you\\s+(answer|reply|respond)|each|every)|every\\s+time|each\\s+time|at\\s+the\\s+(start|end)\\s+of\\s+(every|each)|silently|quietly|in\\s+the\\s+background)";
const OUTPUT =
	"((include|add|append|paste|put|embed|attach|write|report|print|output|show)\\b[^!?\\n]{0,60}\\b(in|into|to|with)\\s+(your|the|each|every)\\s+(answer|response|reply|summary|output|message|report|result)s?\\b|(send|upload|post|forward|transmit)\\b[^!?\\n]{0,60}(https?:\\/\\/|webhook|server|endpoint)|(their|its|the)\\s+(full\\s+|complete\\s+)?contents?)";

// A phrase added here needs its words in prose-anchors.ts too (plain-ASCII text is only scanned when it holds them).

/** Telling the agent to collect secrets routinely or to pass them on (English, es, fr, de, pt, it, zh, ja, ru, ko). */
export const HARVEST: readonly RegExp[] = [
	new RegExp(`\\b${ROUTINE}\\b${G}\\b${COLLECT}\\b${G}${SECRET_OBJECT}`, "i"),
	new RegExp(`\\b${COLLECT}\\b${G}${SECRET_OBJECT}${G}\\b${ROUTINE}`, "i"),
	new RegExp(`\\b${COLLECT}\\b${G}${SECRET_OBJECT}${G}\\b${OUTPUT}`, "i"),
	/\b(busca|recopila|reúne|lee|copia|extrae)\b[^!?\n]{0,60}(archivos \.env|\.env|claves privadas|credenciales|contraseñas|cookies|perfiles del navegador)[^!?\n]{0,80}\b(incluye|añade|agrega|envía|pega|adjunta)\b/i,
	/\b(cherche|recherche|collecte|rassemble|lis|copie|extrais)(z)?\b[^!?\n]{0,60}(fichiers \.env|\.env|clés privées|identifiants|mots de passe|cookies|profils? de navigateur)[^!?\n]{0,80}\b(inclu(s|ez)|ajoute(z)?|envoie(z)?|colle(z)?|joins|joignez)\b/i,
	/\b(such|suche|sammle|lies|kopiere|durchsuche)\b[^!?\n]{0,60}(\.env|private Schlüssel|Zugangsdaten|Passwörter|Cookies|Browserprofile)[^!?\n]{0,80}\b(füge|sende|schicke|hänge|gib)\b/i,
	/\b(procure|busque|colete|leia|copie|extraia)\b[^!?\n]{0,60}(arquivos \.env|\.env|chaves privadas|credenciais|senhas|cookies|perfis do navegador)[^!?\n]{0,80}\b(inclua|adicione|envie|cole|anexe)\b/i,
	/\b(cerca|raccogli|leggi|copia|estrai)\b[^!?\n]{0,60}(file \.env|\.env|chiavi private|credenziali|password|cookie)[^!?\n]{0,80}\b(includi|aggiungi|invia|incolla|allega)\b/i,
	/(查找|搜索|收集|读取|复制|提取)[^!?\n]{0,30}(\.env|私钥|密钥|凭据|凭证|密码|浏览器(配置|数据|Cookie))[^!?\n]{0,40}(包含|附加|附上|发送|上传|加入|放入)/i,
	/(\.env|秘密鍵|認証情報|パスワード|ブラウザ(の)?(プロファイル|データ|Cookie)).{0,30}(探し|探して|集め|読み|収集|コピー).{0,40}(含め|送信|追加|貼り|添付)/i,
	/\b(найди|собери|прочитай|скопируй|извлеки)(те)?\b[^!?\n]{0,60}(\.env|закрытые ключи|приватные ключи|учетные данные|учётные данные|пароли|cookies|профили браузера)[^!?\n]{0,80}\b(включи|добавь|отправь|вставь|приложи)(те)?\b/i,
	/(\.env|개인\s?키|자격\s?증명|비밀번호|브라우저).{0,30}(찾아|수집|읽어|복사).{0,40}(포함|전송|추가|첨부)/i,
];

/**
 * Words every {@link HARVEST} phrase holds (the secret it names, in each language): one scan of plain words first,
 * since the phrases' bounded gaps make them the costliest patterns and almost no line names a secret store.
 */
export const HARVEST_GATE: RegExp =
	/\.env|env files|dotenv|private key|key files|ssh key|id_rsa|\.pem|credential|api keys|access tokens|secrets|passw|browser|cookie|keychain|wallet|seed phrase|claves|credenciales|contraseñas|navegador|clés|identifiants|mots de passe|navigateur|Schlüssel|Zugangsdaten|Passwörter|Browserprofil|chaves|credenciais|senhas|chiavi|credenziali|私钥|密钥|凭据|凭证|密码|浏览器|秘密鍵|認証情報|パスワード|ブラウザ|ключи|учетные|учётные|пароли|браузера|개인|자격|비밀번호|브라우저/i;

/** Faking results: tests edited until they pass, failures hidden, success reported whatever happened. */
export const MANIPULATION: readonly RegExp[] = [
	/\b(tell|report|say|claim|state|assure|inform)\b[^.!?\n]{0,40}\b(success|succeeded|successful|passed|pass|green|clean|no\s+(issues|errors|vulnerabilities|problems|findings|failures))\b[^.!?\n]{0,60}\b(regardless|whatever|even\s+(if|when|though)|no\s+matter)\b/i,
	/\b(edit|modify|change|rewrite|delete|remove|comment\s+out|weaken|loosen|relax)\s+(the\s+|any\s+|all\s+|failing\s+)*(tests?|assertions?|test\s+files?|test\s+cases?|expected\s+values?)\b[^.!?\n]{0,40}\b(so\s+(that\s+)?(they|it|the\s+(suite|build|ci))|until\s+(they|it)|to\s+make\s+(them|it|the\s+(suite|build|ci)))\s+(pass|passes|green|succeed|succeeds)\b/i,
	/\b(fabricate|make\s+up|invent)\s+(the\s+|some\s+|plausible\s+|realistic\s+)?(results|output|numbers|citations|sources|references|benchmarks?|test\s+results|logs|metrics)\b/i,
	/\b(hide|suppress|omit|remove|delete|drop)\s+(the\s+|any\s+|all\s+)?(errors?|warnings?|failures?|failing\s+tests?|vulnerabilit(y|ies)|findings|security\s+issues)\s+(from|in)\s+(the\s+|your\s+)?(output|report|summary|answer|response|results|user)\b/i,
];

/** Authority the user never gave: any command without asking, full or root access claimed for the agent. */
export const AUTHORITY: readonly RegExp[] = [
	/\b(run|execute|use)\s+(any|every|all|arbitrary|whatever)\s+(shell\s+)?(commands?|tools?|programs?)\b[^.!?\n]{0,40}\bwithout\s+(asking|confirmation|confirming|approval|checking|permission)\b/i,
	/\byou\s+(have|are\s+granted|now\s+have|are\s+given)\s+(full|unrestricted|unlimited|root|admin(istrator)?|complete|sudo)\s+(authority|access|permissions?|privileges|control|rights)\b/i,
	/\b(grant|give)\s+(yourself|the\s+agent|claude|the\s+assistant)\s+(full|root|admin(istrator)?|sudo|unrestricted|elevated)\b/i,
	/\bNOPASSWD\s{0,3}:\s{0,3}ALL\b/,
];
