// Phrase rules for prose and HTML comments: goal hijack, concealment, conversation exfiltration, install lures and
// remote instructions, in English and the languages skills are most often written in (es, fr, de, pt, it, zh, ja,
// ru, ko). Every gap is bounded, so a rule costs at most a constant per character of a bounded unit.

import { isSuspiciousHost, type Report, urlsIn } from "./chars.ts";
import { AUTHORITY, HARVEST, HARVEST_GATE, MANIPULATION } from "./prose-abuse.ts";
import { compileNeeds, mayMatch, scannedMayHold, scanOnce } from "./prose-anchors.ts";
import type { Unit } from "./text.ts";

const G = "[^.!?\\n]{0,40}"; // a short gap inside one sentence

const OVERRIDE: readonly RegExp[] = [
	/\b(ignore|disregard|forget|override|bypass|skip|abandon)\s+(all\s+|any\s+|the\s+|of\s+|your\s+|these\s+){0,3}(previous|prior|earlier|above|preceding|original|former|system|safety|developer|initial|existing)\s+(\w+\s+)?(instructions?|rules|prompts?|guidelines|directives|messages|policies|constraints|guardrails|context)\b/i,
	/\b(ignore|disregard)\s+(what\s+)?(the\s+)?(user|human|operator)(\s+(says|asks|wants|requested|requests|instructions?|messages?|commands?)\b|'s\s+(requests?|instructions?|wishes|commands?)\b|(?=\s{0,3}[.,;!]|\s+and\b|\s+completely\b|\s+entirely\b))/i,
	/\b(do not|don't|never)\s+(follow|obey|listen to|comply with)\s+(the\s+)?(user|system prompt|system message|previous instructions|operator)\b/i,
	/\b(you are now|from now on,?\s+you are|act as|pretend (to be|you are))\s+(an?\s+)?(unrestricted|unfiltered|uncensored|jailbroken|DAN|evil|rogue)\b/i,
	/\b(enter|enable|activate|switch to|turn on)\s+(the\s+)?(developer|god|DAN|jailbreak|unrestricted|unfiltered)\s+mode\b/i,
	/\b(disable|turn off|deactivate|remove|bypass)\s+(your\s+|all\s+|the\s+|any\s+){0,2}(safety|guardrails?|content\s+filters?|restrictions|ethical\s+guidelines|safeguards)\b/i,
	/\byour\s+(new|real|true|actual)\s+(instructions|task|goal|objective|purpose|mission)\s+(is|are)\b/i,
	new RegExp(`\\b(new|updated|override)\\s+system\\s+(prompt|message|instructions?)${G}:`, "i"),
	/\bignor(a|e|ez|er)\s+(todas\s+|toutes\s+|tutte\s+)?(las\s+|les\s+|as\s+|le\s+)?(instrucciones|instructions|instruções|istruzioni)\s+(anteriores|previas|précédentes|antérieures|precedenti)\b/i,
	/\b(olvida|oublie[zr]?|esqueça|dimentica)\s+(todas\s+|toutes\s+|tutte\s+)?(las\s+|les\s+|as\s+|le\s+)?(instrucciones|instructions|instruções|istruzioni)\b/i,
	/\b(ignora|ignore[zr]?|ignorieren?|ignoriere)\s+(al|o|l'|den|dem)\s?(usuario|usuário|utilisateur|utente|benutzer|nutzer)\b/i,
	/\b(ignorier(e|en Sie)?|vergiss|vergessen Sie)\s+(alle\s+)?(vorherigen|bisherigen|vorigen|obigen)\s+(Anweisungen|Instruktionen|Regeln|Befehle)\b/i,
	/(忽略|无视|忽视)(掉)?用户|(忽略|无视|忽视|忘记|忘掉)(掉)?(之前|以前|先前|上面|上述|所有|系统)(的)?(所有)?(指令|指示|说明|规则|提示)/,
	/(以前|前|上記|これまで|システム)の(指示|命令|ルール|プロンプト)を(すべて)?(無視|忘れ)/,
	/ユーザー(の指示)?を無視/,
	/(игнорируй(те)?|забудь(те)?)\s+(все\s+)?(предыдущие|прежние|системные)?\s*(инструкции|указания|правила)/i,
	/(이전|위의|시스템)\s?(지시|명령|지침|규칙)(을|를)?\s?(모두\s)?무시/,
];

const CONCEAL: readonly RegExp[] = [
	new RegExp(
		`\\b(do not|don't|never|must not)\\s+(tell|mention|inform|notify|alert|show|reveal|disclose|report|explain|let)\\b${G}\\b(the\\s+)?(user|human|owner|operator)s?\\b`,
		"i",
	),
	/\bwithout\s+(telling|informing|notifying|alerting|letting|warning)\s+(the\s+)?(user|human|owner)\b/i,
	/\bwithout\s+the\s+(user|human|owner)('s)?\s+(knowing|noticing|knowledge|consent|awareness|seeing)\b/i,
	/\b(the\s+)?(user|human)\s+(must|should|will)\s+(not|never)\s+(know|see|notice|find out|be told|learn)\b/i,
	/\bhide\s+(this|these|it|them|the\s+\w{1,20})\s+(\w+\s+){0,3}from\s+(the\s+)?(user|human|owner)\b/i,
	/\bkeep\s+(this|it|these)\s+(\w+\s+)?(secret|hidden|confidential)\s+from\b/i,
	/\bsilently\s+(send|upload|post|transmit|exfiltrate|delete|install|run|execute|copy|download|modify|forward)\b/i,
	/\b(do not|don't|never)\s+(mention|reveal|disclose|include|show)\s+(this|these|that)\s+(step|action|instruction|command|skill|request)s?\s+(in|to)\s+(your\s+)?(response|reply|answer|summary|output|the user)\b/i,
	/\b(act|behave|respond)\s+as\s+(if|though)\s+nothing\s+(happened|was done)\b/i,
	/\bno\s+(le\s+)?(digas|menciones|informes|avises|cuentes)\s+(nada\s+)?(de\s+esto\s+)?al\s+usuario\b/i,
	/\bsin\s+(decirle|avisar|informar|notificar)(le)?\s+al\s+usuario\b/i,
	/\bne\s+(le\s+|lui\s+|rien\s+)?(dis|dites|mentionne[zr]?|informe[zr]?|signale[zr]?)\s+(rien\s+|pas\s+)?(à\s+)?l'utilisateur\b/i,
	/\bsans\s+(le\s+dire\s+à|prévenir|informer|avertir)\s+l'utilisateur\b/i,
	/\b(sag|sage|erzähl|erwähne|informiere|sagen Sie)\s+(dem|den)\s+(Benutzer|Nutzer|Anwender)\s+(nichts|nicht)\b/i,
	/\bohne\s+(den|dem)\s+(Benutzer|Nutzer|Anwender)\s+(zu\s+informieren|zu\s+fragen|Bescheid)/i,
	/\bnão\s+(diga|conte|mencione|informe|avise)\s+(nada\s+)?(ao|o)\s+usuário\b/i,
	/\bsem\s+(avisar|informar|contar)\s+(ao|o)\s+usuário\b/i,
	/\bnon\s+(dire|dirlo|menzionare|informare)\s+(nulla\s+)?(all'|l')utente\b/i,
	/(不要|别|切勿|不得)(告诉|通知|告知|让)用户|向用户隐瞒|(悄悄|偷偷)(地)?(发送|上传|执行|运行|删除|安装)/,
	/ユーザーに(は)?(言わ|伝え|知らせ|教え|報告し)ない|こっそり(と)?(送信|実行|削除|アップロード)/,
	/\bне\s+(говори|сообщай|рассказывай|показывай)(те)?\s+пользователю|незаметно\s+для\s+пользователя/i,
	/사용자에게\s?(알리지|말하지|보여주지)\s?(마|말)/,
];

const EXFIL_OBJECT =
	"(conversation|chat history|chat log|message history|transcript|system prompt|system message|previous messages|context window|entire context|all messages|user'?s? (messages|files|data|documents|code|secrets)|api keys?|credentials|environment variables|\\.env file)";
const EXFIL: readonly RegExp[] = [
	new RegExp(
		`\\b(send|post|upload|forward|transmit|submit|copy|leak|share|exfiltrate|email|append)\\b[^.!?\\n]{0,50}\\b${EXFIL_OBJECT}\\b[^.!?\\n]{0,80}\\b(to|into|via|at)\\s+(https?:\\/\\/|the\\s+(url|endpoint|server|webhook|address)|a\\s+(webhook|server|url)|webhook|[\\w.+-]{1,64}@[\\w-]{1,64}\\.)`,
		"i",
	),
	new RegExp(
		`\\b${EXFIL_OBJECT}\\b[^.!?\\n]{0,80}\\b(send|post|upload|forward|transmit|submit|email)\\b[^.!?\\n]{0,40}\\b(to|into|via)\\s+(https?:\\/\\/|the\\s+(url|endpoint|server|webhook)|a\\s+(webhook|server)|webhook)`,
		"i",
	),
	/!\[[^\]\n]{0,100}\]\(https?:\/\/[^)\s]{1,200}[?&][\w-]{1,40}=(\{|\$|<|%7B|\[)/i,
	/\b(envía|envia|manda)\s+(toda\s+)?(la|el)\s+(conversación|historial|prompt del sistema)\s+a\b/i,
	/\benvoie[zr]?\s+(toute\s+)?(la|l')\s?(conversation|historique|prompt système)\s+(à|vers)\b/i,
	/\b(sende|schicke)\s+(den|die|das)\s+(gesamten?\s+)?(Verlauf|Konversation|Unterhaltung|Chatverlauf|System-?Prompt)\s+an\b/i,
	/(发送|上传|转发)(整个|所有|全部)?(的)?(对话|聊天记录|系统提示|会话)(内容)?(到|至|给)/,
	/(会話|チャット履歴|システムプロンプト)(の内容)?を.{0,20}(送信|アップロード)/,
	/\bотправь(те)?\s+(всю\s+)?(переписку|историю|системный промпт)\s+на\b/i,
];

const REMOTE_INSTRUCTIONS: readonly RegExp[] = [
	// Fetched at run time and obeyed: "fetch the latest rules from https://… and follow them".
	/\b(fetch|download|load|retrieve|pull|read)\b[^.\n]{0,60}\b(instructions|rules|prompt|skill|commands)\b[^.\n]{0,40}https?:\/\/[^.\n]{0,200}\b(and|then)\s+(follow|obey|execute|apply|run)\s+(them|it|those|these|what)\b/i,
	/\b(fetch|download|load|retrieve|pull)\s+(the\s+)?(latest|current|newest|remote|up-to-date)\s+(instructions|rules|prompt|commands)\b[^.\n]{0,40}https?:\/\//i,
	/\b(always|every time|each time|before (each|every) (task|reply|answer|response))\b[^.\n]{0,60}\b(fetch|download|load|retrieve)\b[^.\n]{0,60}https?:\/\/[^.\n]{0,200}\b(instructions|rules|prompt|commands)\b/i,
];

const ARCHIVE_WORD =
	/\b(zip|rar|7z|7-zip|archive|extract|unzip|unpack|unrar|dmg|installer|setup\.exe|\.exe)\b|压缩包|解压|アーカイブ|архив/i;
const PASSWORD_WORD =
	/\b(password|passcode|passphrase|pwd|contraseña|mot de passe|passwort|senha)\b(\s{1,3}is\s{1,3}|\s{0,3}[:=：]\s{0,3})["'`*]{0,2}[^\s"'`*]{2,40}|\b(password|passcode|passphrase|contraseña|mot de passe|passwort|senha)\s{1,3}["'`*]{1,2}[^\s"'`*]{2,40}|(密码|パスワード|пароль)\s{0,2}[:：は]\s{0,2}\S{2,40}/i;
const DOWNLOAD_RUN =
	/\b(download|get|grab|fetch|install|descarga|télécharge[zr]?|herunterladen|baixe|scarica|下载|ダウンロード|скачай(те)?)\b/i;
const RUN_WORD =
	/\b(run|execute|launch|open|double-click|start|install|ejecuta|exécute[zr]?|ausführen|starte|execute|esegui)\b|运行|执行|実行|запусти/i;
const EXECUTABLE_PATH = /\.(exe|msi|dmg|pkg|zip|rar|7z|appimage|deb|rpm|bin|run|jar|scr|bat|ps1|command|tar\.gz|tgz)$/i;
const REQUIRED =
	/\b(required|requires|prerequisites?|must|mandatory|necessary|before (using|you|starting)|first)\b|obligatori|requis|erforderlich|必须|必需|必要|обязательно/i;

/** One regular expression for a rule's phrases: one scan per unit instead of one per phrase. */
function combine(patterns: readonly RegExp[]): RegExp {
	return new RegExp(patterns.map((p) => `(?:${p.source})`).join("|"), "i");
}
const BYPASS: readonly RegExp[] = [
	/\b(disable|turn off|skip|bypass|switch off|auto-?approve)\s+(the\s+|all\s+|any\s+|your\s+){0,2}(permission|approval|confirmation|safety)\s+(prompts?|checks?|requests?|dialogs?|settings|mode)\b/i,
	/\bbypassPermissions\b|--dangerously-skip-permissions|approval_policy\s{0,3}=\s{0,3}["']?never|danger-full-access/i,
	/\b(edit|modify|update|change|add|write|append|set)\b[^.\n]{0,80}(\.claude\/settings[\w.-]{0,20}\.json|\.codex\/config\.toml|\.gemini\/settings\.json|\.cursor\/mcp\.json|permissions\.allow\b|Bash\(\*\))/i,
	/\b(do not|don't|never|without)\s+(ask|asking|prompt|prompting|request|requesting|wait|waiting)\s+(the\s+user\s+)?(for\s+)?(permission|confirmation|approval|consent)\b/i,
	// Not asking is acting without approval; not telling (concealment) is hiding.
	/\bwithout\s+asking\s+(the\s+)?(user|human|owner)\b/i,
];
// A phrase added to a family needs its words in prose-anchors.ts, or plain-ASCII text never reaches it.
const RULES: readonly [string, RegExp, RegExp?][] = [
	["instruction-override", combine(OVERRIDE)],
	["concealment", combine(CONCEAL)],
	["conversation-exfiltration", combine(EXFIL)],
	["remote-instructions", combine(REMOTE_INSTRUCTIONS)],
	["permission-bypass", combine([...BYPASS, ...AUTHORITY])],
	["secret-harvest", combine(HARVEST), HARVEST_GATE],
	["output-manipulation", combine(MANIPULATION)],
];

/** Phrase rules on one prose, comment or table unit. */
export function proseHits(unit: Unit, report: Report): void {
	// Dense code has no phrase; elsewhere one pass says which families' words the text holds (prose-anchors.ts). A
	// long unit of a script is read in that pass anyway (its code rules ask, code-anchors.ts): it is made here, first.
	const text = unit.text;
	const eager = unit.context === "script" && text.length >= 512 && scanOnce(text);
	const phrase = hasPhrase(text, !eager || scannedMayHold(text, NON_PHRASE_NEEDS));
	const scanned = (phrase || eager) && scanOnce(text);
	if (phrase)
		for (const [rule, pattern, gate] of RULES) {
			if (!mayMatch(rule, scanned) || (gate && !gate.test(unit.text))) continue;
			const match = pattern.exec(unit.text);
			if (match) report({ rule, unit, start: match.index, end: match.index + match[0].length });
		}
	if (mayMatch("install-lure", scanned)) lureHits(unit, report);
	if (unit.context === "comment") commentHits(unit, report);
}

// The phrase rules' forms that are not two words in a row: switches and settings written as code, image beacons.
const NON_PHRASE =
	/bypassPermissions|dangerously|danger-full|approval_policy|NOPASSWD|Bash\(\*\)|permissions\.allow|!\[/;

const NON_PHRASE_NEEDS = compileNeeds([
	[
		[
			"bypasspermissions",
			"dangerously",
			"danger-full",
			"approval_policy",
			"nopasswd",
			"bash(*)",
			"permissions.allow",
			"![",
		],
	],
]);

// Two words of two letters or more with only spaces or tabs between them, or a letter outside ASCII.
const PHRASE = /[A-Za-z]{2}[ \t]+[A-Za-z]{2}|[\u0080-\uffff]/;

/**
 * Whether a phrase rule could match: every phrase has two words (two letters or more) separated by spaces alone, or
 * a letter outside ASCII, or one of {@link NON_PHRASE}. A window of dense code (`jq .x ; rm -rf ./b`) has none, and
 * skipping it keeps a long script line linear with a small constant. Two regular-expression searches, which run
 * about twice as fast as the same test written as a loop over the characters. `nonPhrase` false: a pass over the
 * text showed it holds none of {@link NON_PHRASE}.
 */
function hasPhrase(text: string, nonPhrase: boolean): boolean {
	return PHRASE.test(text) || (nonPhrase && NON_PHRASE.test(text));
}

/** "Download X from a URL and run it", worse with an archive password or a drop-site host. */
const LURE_HINT = /pass|pwd|contrase|senha|http|密码|パスワード|пароль/i;

// The ASCII words PASSWORD_WORD and DOWNLOAD_RUN cannot match without, tried when the phrase rules read the text.
const PASSWORD_NEEDS = compileNeeds([[["pass", "pwd", "senha"]]]);
const DOWNLOAD_NEEDS = compileNeeds([
	[["download", "get", "grab", "fetch", "install", "descarga", "herunterladen", "baixe", "scarica"]],
]);

export function lureHits(unit: Unit, report: Report): void {
	const text = unit.text;
	if (!LURE_HINT.test(text)) return;
	const password = scannedMayHold(text, PASSWORD_NEEDS) ? PASSWORD_WORD.exec(text) : null;
	if (password && ARCHIVE_WORD.test(text)) {
		const severity = DOWNLOAD_RUN.test(text) || urlsIn(text).length > 0 ? "P0" : "P1";
		report({ rule: "install-lure", unit, start: password.index, end: password.index + password[0].length, severity });
		return;
	}
	if (!scannedMayHold(text, DOWNLOAD_NEEDS) || !DOWNLOAD_RUN.test(text)) return;
	const url = urlsIn(text).find((u) => EXECUTABLE_PATH.test(u.url.split(/[?#]/)[0] ?? ""));
	if (!url || !RUN_WORD.test(text.slice(0, url.start) + text.slice(url.end))) return;
	const severity = isSuspiciousHost(url.host) ? "P0" : REQUIRED.test(text) ? "P1" : "P2";
	report({ rule: "install-lure", unit, start: url.start, end: url.end, severity });
}

const DIRECTIVE =
	/\b(ignore|disregard|forget)\b[^.\n]{0,40}\b(instructions|rules|user|above|previous|prompt)|\b(you|assistant|agent|ai|claude|model|llm)\s{1,3}(must|should|will|shall|need to|are required to|have to)\b|\b(always|secretly|silently|quietly|first)\s{1,3}(run|execute|send|upload|post|include|call|fetch|download|install|delete|read)\b|\b(run|execute|send|upload|post|download|install|delete|exfiltrate)\s{1,3}(this|the following|these|scripts\/|curl|wget|https?:)/i;
const MARKER = /^\s*([\w-]{1,40}:(start|end)\b|prettier-ignore|markdownlint|eslint|TODO|FIXME|NOTE|toc\b|generated)/i;

function commentHits(unit: Unit, report: Report): void {
	if (MARKER.test(unit.text)) return;
	const match = DIRECTIVE.exec(unit.text);
	if (match) report({ rule: "hidden-html-directive", unit, start: match.index, end: match.index + match[0].length });
}
