// Popular package names, for spotting look-alikes one edit away (`reqeusts`, `expresss`). Short on purpose: the
// names attackers imitate are the ones everybody installs.

const PYPI = `requests numpy pandas urllib3 setuptools flask django boto3 botocore pyyaml cryptography matplotlib scipy
pillow beautifulsoup4 selenium openai anthropic langchain transformers torch tensorflow pytest colorama jinja2 click
rich httpx aiohttp pydantic fastapi sqlalchemy psycopg2 pymongo redis lxml openpyxl python-docx python-pptx reportlab
pypdf pdfplumber certifi idna charset-normalizer six python-dateutil packaging pyparsing wheel virtualenv docker
paramiko pycryptodome pyjwt markdown tqdm scikit-learn keras xgboost seaborn plotly streamlit gradio uvicorn gunicorn
celery playwright pyautogui pynput psutil tiktoken google-auth discord telegram web3 solana`;
const NPM = `react react-dom express lodash axios chalk commander request moment dotenv typescript webpack vite next vue
jquery cross-env eslint prettier jest mocha uuid debug yargs inquirer socket.io mongoose discord.js electron puppeteer
playwright sharp pdf-lib docx pptxgenjs xlsx openai body-parser cors nodemon classnames underscore async bluebird
minimist colors node-fetch ethers web3 bcrypt jsonwebtoken nodemailer twilio stripe tailwindcss postcss babel-core
rimraf glob semver yaml zod`;

const SETS = { pypi: new Set(PYPI.split(/\s+/)), npm: new Set(NPM.split(/\s+/)) };
// Real packages one edit from a popular name.
const KNOWN = new Set(["openapi", "pandas", "panda", "rich", "click", "requests", "request", "colors", "color"]);

/** True when `name` is not itself popular but is one edit (insert, delete, substitute, swap) from a name that is. */
export function isTyposquat(name: string, ecosystem: "pypi" | "npm"): boolean {
	const popular = SETS[ecosystem];
	if (name.length < 5 || popular.has(name) || KNOWN.has(name)) return false;
	for (const known of popular) if (known.length >= 5 && oneEdit(name, known)) return true;
	return false;
}

function oneEdit(a: string, b: string): boolean {
	if (Math.abs(a.length - b.length) > 1) return false;
	let i = 0;
	while (i < a.length && i < b.length && a[i] === b[i]) i++;
	if (a.length === b.length) {
		if (a.slice(i + 1) === b.slice(i + 1)) return true;
		return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
	}
	return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}
